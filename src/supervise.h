/*
 * The event loop and the stop state machine:
 * RUNNING -> (deadline, stop signal to runx, or command exited with
 * leftovers) STOPPING: first signal + SIGCONT sent, grace timer armed
 * -> KILLING: SIGKILL sent -> DONE once the scope is empty.
 * --wait-all adds WAITING: the command exited, the rest of the scope is
 * awaited, still bounded by the deadline.
 */
#ifndef RUNX_SUPERVISE_H
#define RUNX_SUPERVISE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "plan.h"
#include "relay.h"
#include "result.h"
#include "scope.h"

/*
 * How long runx waits, in nanoseconds, for the scope to empty after
 * SIGKILL.  A killed process runs no more user code, but one in
 * uninterruptible sleep (state D: stuck I/O, a frozen cgroup v1 freezer)
 * only exits when the kernel lets it (signal(7)); runx then gives up, says
 * so, and exits rather than hang.
 */
#define RUNX_KILL_WAIT_S  10 /* in messages */
#define RUNX_KILL_WAIT_NS (RUNX_KILL_WAIT_S * 1000000000LL)

/* pidfds of scope members watched at once while the scope empties. */
#define RUNX_MAX_WATCH 64

/*
 * The fds the supervisor and the stop path need, acquired before the
 * launch (runx_supervisor_open) so that after it nothing can fail for
 * lack of a resource.
 */
struct runx_supervisor {
	int sigfd;	  /* signalfd(2) for the handled signals */
	int deadline_fd;  /* timerfd(2), CLOCK_MONOTONIC: --timeout */
	int grace_fd;	  /* the grace period, then the wait after SIGKILL */
	int recheck_fd;	  /* while stopping: sweeps for newcomers, re-kills */
	int idle_fd;	  /* --idle-timeout */
	int64_t total_at; /* --total-timeout: CLOCK_MONOTONIC ns of the
			   * run's deadline; INT64_MAX: none */
	bool armed;	  /* a timer was armed since the open (an attempt
			   * ran): the next one disarms them first */
};

/* A struct runx_supervisor with nothing open. */
#define RUNX_SUPERVISOR_CLOSED                                                 \
	{                                                                      \
		-1, -1, -1, -1, -1, INT64_MAX, false                           \
	}

/*
 * Opens the supervisor's signalfd and the timerfds plan needs
 * (O_CLOEXEC|O_NONBLOCK, all owned by *sup until runx_supervisor_close):
 * the grace and re-check timers always (a stop signal may come any
 * time), the deadline only with -t or --total-timeout, the idle timer
 * only with --idle-timeout; the others stay -1, so that an option not
 * used costs no system call.  total_at is left as it is.  Returns 0, or
 * -errno (EMFILE, ENFILE, ENOMEM: signalfd(2), timerfd_create(2)) with
 * nothing left open.
 */
int runx_supervisor_open(struct runx_supervisor *sup,
			 const struct runx_plan *plan);

/* Closes what runx_supervisor_open opened (safe on a closed one). */
void runx_supervisor_close(struct runx_supervisor *sup);

/*
 * Supervises the launched command (res->pid, its pidfd, owned by the
 * caller) until its scope is empty, as runx(1) says: deadline (the
 * earlier of the attempt's and sup->total_at; res->total_timeout tells
 * that the run's fired), grace,
 * cleanup of leftovers, forwarding of signals.  res->start_ns is the
 * CLOCK_MONOTONIC time (ns) the command was started at.  relay (NULL
 * without --idle-timeout) carries the command's output; the idle deadline
 * is measured from its last byte, and it is finished (and closed) before
 * returning.  Fills the supervision fields of *res and res->exit_status.
 * Returns 0, or -errno if runx itself failed (it still SIGKILLs the scope
 * and waits for it, bounded, before returning).
 */
int runx_supervise(struct runx_supervisor *sup, const struct runx_plan *plan,
		   struct runx_scope *scope, int pidfd,
		   struct runx_relay *relay, struct runx_result *res);

#endif
