/*
 * The event loop and the stop state machine:
 * RUNNING -> (deadline, signal to runx, or command exited with leftovers)
 * STOPPING: first signal + SIGCONT sent, grace timer armed
 * -> KILLING: SIGKILL sent -> DONE once the scope is empty.
 * --wait-all adds WAITING: the command exited, the rest of the scope is
 * awaited, still bounded by the deadline.
 */
#ifndef RUNX_SUPERVISE_H
#define RUNX_SUPERVISE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "options.h"
#include "relay.h"
#include "scope.h"

/* Why the run ended (the report's "reason"). */
enum runx_end_reason {
	RUNX_END_EXITED,        /* the command exited on its own */
	RUNX_END_SIGNALED,      /* killed by a signal runx did not send */
	RUNX_END_TIMEOUT,       /* the deadline fired */
	RUNX_END_IDLE_TIMEOUT,  /* the idle deadline fired */
	RUNX_END_RUNX_SIGNALED, /* runx got HUP/INT/QUIT/TERM and stopped it */
};

/* One signal runx sent, for --verbose and --report. */
struct runx_signal_event {
	int64_t offset_ns; /* since the command started */
	int signo;
	int reached; /* processes it reached */
};

#define RUNX_MAX_SIGNAL_EVENTS 64

/*
 * How long runx waits, in nanoseconds, for the scope to empty after
 * SIGKILL.  A killed process runs no more user code, but one in
 * uninterruptible sleep (state D: stuck I/O, a frozen cgroup v1 freezer)
 * only exits when the kernel lets it (signal(7)); runx then gives up, says
 * so, and exits rather than hang.
 */
#define RUNX_KILL_WAIT_S 10 /* in messages */
#define RUNX_KILL_WAIT_NS (RUNX_KILL_WAIT_S * 1000000000LL)

struct runx_result {
	enum runx_end_reason reason;
	int wait_status;      /* of the command, as waitpid(2) gives it */
	int runx_signal;      /* with RUNX_END_RUNX_SIGNALED: the signal */
	int leftovers;        /* processes still alive when the command exited */
	int killed;           /* processes still alive when SIGKILL was sent */
	int unkillable;       /* still alive RUNX_KILL_WAIT_NS after SIGKILL */
	struct rusage rusage; /* of the command, wait4(2) */
	int64_t end_ns;       /* CLOCK_MONOTONIC at the end */
	struct runx_signal_event signals[RUNX_MAX_SIGNAL_EVENTS];
	int nsignals;
	int exit_status; /* what runx exits with (runx(1), EXIT STATUS) */
};

/*
 * Blocks every signal runx handles (HUP INT QUIT TERM USR1 USR2 ALRM WINCH
 * CONT CHLD and SIGRTMIN..SIGRTMAX) and SIGPIPE, so they queue for the
 * signalfd instead of acting, from the first instruction of main() on;
 * stores the mask runx started with in *orig (the command gets it back).
 * Resets an inherited SIG_IGN of SIGCHLD to SIG_DFL, since with SIG_IGN the
 * kernel reaps children itself and no exit status could be read
 * (sigaction(2), "SA_NOCLDWAIT").  Returns 0 or -errno.
 */
int runx_signals_block(sigset_t *orig);

/* A signalfd(2) (O_CLOEXEC|O_NONBLOCK, owned by the caller) for them. */
int runx_signals_open_fd(void);

/* CLOCK_MONOTONIC now, in nanoseconds. */
int64_t runx_now_ns(void);

/*
 * Supervises the launched command (child pid, its pidfd, both owned by the
 * caller) until its scope is empty, as runx(1) says: deadline, grace,
 * cleanup of leftovers, forwarding of signals from sigfd.  start_ns is the
 * CLOCK_MONOTONIC time (ns) the command was started at.  relay (NULL
 * without --idle-timeout) carries the command's output; the idle deadline
 * is measured from its last byte, and it is finished (and closed) before
 * returning.  Fills *res.
 * Returns 0, or -errno if runx itself failed (it still sends SIGKILL to the
 * scope and waits for it before returning).
 */
int runx_supervise(const struct runx_options *opts, struct runx_scope *scope,
		   pid_t child, int pidfd, int sigfd, int64_t start_ns,
		   struct runx_relay *relay, struct runx_result *res);

/* runx's exit status for a result: 124, 128+N or the command's status. */
int runx_exit_status(const struct runx_options *opts,
		     const struct runx_result *res);

#endif
