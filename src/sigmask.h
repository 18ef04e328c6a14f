/* The signals runx handles (runx(1), STOPPING: forwarded signals). */
#ifndef RUNX_SIGMASK_H
#define RUNX_SIGMASK_H

#include <signal.h>
#include <stdbool.h>

/* The kernel's real-time signals (signal(7)): 32 to 64, of which the C
 * library keeps the first few for itself (glibc 32 and 33, musl 32 to 34:
 * its SIGRTMIN is above them). */
#define RUNX_KERNEL_SIGRTMIN 32
#define RUNX_KERNEL_SIGRTMAX 64

/*
 * Adds sig (1 to 64) to *set by its bit in the kernel's layout (bit sig -
 * 1 of the first words, which the C library's sigset_t matches), for the
 * signals sigaddset(3) refuses: those the C library reserves (32 to
 * SIGRTMIN - 1).  Another sig is not added.  No errors.
 */
void runx_sigset_add_raw(sigset_t *set, int sig);

/*
 * rt_sigprocmask(2) itself, as sigprocmask(2) with how SIG_BLOCK,
 * SIG_UNBLOCK or SIG_SETMASK, for masks that hold the C library's reserved
 * signals: glibc's sigprocmask() takes them out of set (and so unblocks
 * them with SIG_SETMASK), musl's out of *old.  *old (if not NULL) is
 * emptied first, then gets the 64 signals the kernel knows.  Returns 0 or
 * -errno (EINVAL: a bad how; EFAULT).
 */
int runx_sigmask_raw(int how, const sigset_t *set, sigset_t *old);

/* True if sig's action is SIG_IGN, read with rt_sigaction(2) itself
 * (glibc's sigaction() refuses its reserved signals); false on an error.
 */
bool runx_signal_raw_ignored(int sig);

/* Sets sig's action to SIG_DFL with rt_sigaction(2) itself, for a signal
 * glibc's sigaction() refuses.  Returns 0 or -errno (EINVAL: sig is
 * SIGKILL, SIGSTOP or out of range). */
int runx_signal_raw_default(int sig);

/*
 * Fills *set with the signals runx handles through its signalfd: HUP INT
 * QUIT TERM USR1 USR2 ALRM WINCH CONT and the real-time signals 32 to 64,
 * the C library's reserved ones included (forwarded),
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
 * started, which stays ignored, nor a fault's with a handler then (a
 * sanitizer's: blocked, a real fault would reset it to SIG_DFL and lose
 * the sanitizer's report); the dispositions are looked at once, at the
 * first call (runx_signals_block()'s, at the start of main()).  LXC
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
 * (sigaction(2), "SA_NOCLDWAIT").  With runx_sigmask_raw(), so the C
 * library's reserved real-time signals are blocked too, and *orig holds
 * them as they were.  Returns 0 or -errno.
 */
int runx_signals_block(sigset_t *orig);

#endif
