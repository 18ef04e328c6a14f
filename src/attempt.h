/*
 * One attempt: what a run is for a single start of the command.  It owns
 * its scope (a new process group, subreaper tree, cgroup or PID
 * namespace), the relay pipes of --idle-timeout, the launched child and
 * its pidfd, and its result.  What lives across attempts (the plan, the
 * redirect files, the supervisor's signalfd and timers) is the run's,
 * lent to the attempt in a struct runx_attempt_env.
 *
 * acquire -> (point of no return) -> start -> supervise -> release: every
 * step records what went wrong in the result, so that every path ends in
 * runx_attempt_release(), which leaves the scope verified empty and
 * removed.
 */
#ifndef RUNX_ATTEMPT_H
#define RUNX_ATTEMPT_H

#include <signal.h>
#include <stdbool.h>

#include "launch.h"
#include "plan.h"
#include "redirect.h"
#include "relay.h"
#include "result.h"
#include "scope.h"
#include "supervise.h"

/* What the run lends each attempt; all borrowed. */
struct runx_attempt_env {
	const struct runx_plan *plan;
	const struct runx_stdio *stdio; /* the redirect files, open */
	struct runx_supervisor *sup;	/* signalfd and timerfds, open */
	const sigset_t *orig_mask;	/* the mask runx started with */
	char *const *envp;		/* the command's environment */
};

struct runx_attempt {
	int number;		 /* 1 for the first */
	struct runx_stdio stdio; /* the run's files, or relay pipes; owns
				  * none of the files */
	struct runx_relay relay;
	bool relaying;
	struct runx_scope scope;
	struct runx_launched child;
	struct runx_result result;
};

/* Empties *a for attempt number (nothing acquired yet). */
void runx_attempt_init(struct runx_attempt *a, int number);

/*
 * runx_attempt_init() of an *a known to be zero-filled but for what an
 * empty attempt holds (a run's first attempt): the 32 KiB are not cleared
 * again, so pages that the attempt never uses are never faulted in.
 */
void runx_attempt_init_zeroed(struct runx_attempt *a, int number);

/*
 * Acquires what the attempt needs before its launch: the relay pipes
 * (--idle-timeout), the scope (the job's cgroup and its fds, a subreaper,
 * the PID namespace's status pipe), and headroom for the launch and the
 * stop path (free fds, proven, then released).  Returns 0 or 125 with a
 * one-line message (on stderr and in the result); nothing has started.
 */
int runx_attempt_acquire(struct runx_attempt *a,
			 const struct runx_attempt_env *env);

/*
 * Starts the command in its scope.  Returns 0, 125 (runx failed; a child
 * that existed already is killed with its scope) or 126/127 (execve(2)
 * failed).
 */
int runx_attempt_start(struct runx_attempt *a,
		       const struct runx_attempt_env *env);

/*
 * Supervises the command until its scope is empty (supervise.h); returns
 * the attempt's exit status (exit_status.h).
 */
int runx_attempt_supervise(struct runx_attempt *a,
			   const struct runx_attempt_env *env);

/*
 * Ends the attempt with exit status status: finishes the relay, closes the
 * child's pidfd, empties (if needed) and removes the scope.  Records
 * status in the result and returns it.  Safe after any step above.
 */
int runx_attempt_release(struct runx_attempt *a, int status);

/*
 * Records a runx failure in a's result (the message also on stderr);
 * returns 125.
 */
int runx_attempt_fail(struct runx_attempt *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Records that the command cannot run (execve(2)'s err, or what the PATH
 * search found): 127 for ENOENT, else 126, as the shell does; the message
 * names argv0 (quoted).
 */
int runx_attempt_exec_failed(struct runx_attempt *a, const char *argv0,
			     int err);

#endif
