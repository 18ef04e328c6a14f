/* The signals runx handles (runx(1), STOPPING: forwarded signals). */
#ifndef RUNX_SIGMASK_H
#define RUNX_SIGMASK_H

#include <signal.h>
#include <stdbool.h>

/*
 * Fills *set with the signals runx handles through its signalfd: HUP INT
 * QUIT TERM USR1 USR2 ALRM WINCH CONT and SIGRTMIN..SIGRTMAX (forwarded),
 * TSTP TTIN TTOU (job control: runx stops the scope and itself), the
 * implicit stop signals (runx_implicit_stop_signals()), and CHLD (to
 * reap).  No errors.
 */
void runx_handled_signals(sigset_t *set);

/*
 * Adds to *set the signals that start a stop whatever --stop-signals
 * says: PWR XCPU VTALRM PROF IO STKFLT SYS TRAP ABRT BUS FPE ILL SEGV,
 * which runx neither forwards nor takes for job control, and whose
 * default action (terminate, or dump core: signal(7)) would end runx with
 * its job left running; not one ignored (SIG_IGN, sigaction(2)) when runx
 * started, which stays ignored (the dispositions are looked at once, at
 * the first call: runx_signals_block()'s, at the start of main()).  LXC
 * asks a container's init to shut down with SIGPWR; the kernel sends
 * SIGXCPU past RLIMIT_CPU's soft limit, SIGIO for O_ASYNC, SIGPROF and
 * SIGVTALRM for a timer; the faults' signals come this way only from
 * kill(2) and its kin.  A fault of runx's own (SIGSEGV, SIGBUS, SIGFPE,
 * SIGILL, a breakpoint's SIGTRAP, seccomp's SECCOMP_RET_TRAP SIGSYS)
 * still ends runx: the kernel unblocks a blocked signal it forces and
 * resets its action to SIG_DFL (force_sig_info_to_task(),
 * kernel/signal.c); abort(3) unblocks SIGABRT or resets it itself.  No
 * errors.
 */
void runx_implicit_stop_signals(sigset_t *set);

/* True if sig is one of runx_implicit_stop_signals()'s, ignored or not. */
bool runx_signal_is_implicit_stop(int sig);

/*
 * Blocks every signal runx handles (runx_handled_signals()), SIGPIPE and
 * SIGXFSZ (so that a write returns EPIPE or EFBIG: signal(7)), so
 * they queue for the signalfd instead of acting, from the first instruction of
 * main() on; stores the mask runx started with in *orig (the command gets it
 * back). Resets an inherited SIG_IGN of SIGCHLD to SIG_DFL, since with SIG_IGN
 * the kernel reaps children itself and no exit status could be read
 * (sigaction(2), "SA_NOCLDWAIT").  Returns 0 or -errno.
 */
int runx_signals_block(sigset_t *orig);

#endif
