/* The signals runx handles (runx(1), STOPPING: forwarded signals). */
#ifndef RUNX_SIGMASK_H
#define RUNX_SIGMASK_H

#include <signal.h>

/*
 * Fills *set with the signals runx handles through its signalfd: HUP INT
 * QUIT TERM USR1 USR2 ALRM WINCH CONT and SIGRTMIN..SIGRTMAX (forwarded),
 * TSTP TTIN TTOU (job control: runx stops the scope and itself), and CHLD
 * (to reap).  No errors.
 */
void runx_handled_signals(sigset_t *set);

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
