/*
 * Between two attempts (runx(1), ATTEMPTS): the wait, on the run's
 * signalfd, during which no command runs.  A stop signal ends the wait
 * and the run; other signals have no command to go to; SIGCHLD reaps
 * (as PID 1, orphans re-parented to runx keep arriving).
 */
#ifndef RUNX_BETWEEN_H
#define RUNX_BETWEEN_H

#include <signal.h>
#include <stdint.h>

#include "supervise.h"

/*
 * Waits until CLOCK_MONOTONIC time until_ns (ns) on sup's signalfd
 * (borrowed, open), reading the signals that arrive: SIGCHLD reaps every
 * child that exited (waitpid(2), WNOHANG); SIGTSTP, SIGTTIN and SIGTTOU
 * stop runx itself (not as PID 1: pid_namespaces(7)); any other signal
 * but one of stop_signals is only said with -v, naming next (the attempt
 * that would follow).  Returns 0 when until_ns has come, the number of a
 * stop signal that ended the wait at once, or -errno if poll(2) failed.
 */
int runx_between_wait(const struct runx_supervisor *sup,
		      const sigset_t *stop_signals, int64_t until_ns,
		      int64_t next);

/*
 * Random bits for --jitter from getrandom(2) (GRND_NONBLOCK: an early-boot
 * pool that is not ready yet gives the clock's low bits instead; the
 * jitter spreads retries, it protects no secret).  No errors.
 */
uint64_t runx_between_random(void);

#endif
