/*
 * One run of runx: the resources it holds and the steps that take it from
 * the options to the report.  Every step records what went wrong in the
 * result, so that every path ends in runx_job_finish().
 */
#ifndef RUNX_JOB_H
#define RUNX_JOB_H

#include <signal.h>
#include <stdbool.h>

#include "launch.h"
#include "options.h"
#include "plan.h"
#include "redirect.h"
#include "relay.h"
#include "result.h"
#include "scope.h"
#include "supervise.h"

enum {
	RUNX_EXIT_FAILED = 125,	    /* runx itself failed */
	RUNX_EXIT_CANNOT_RUN = 126, /* found but not executable */
	RUNX_EXIT_NOT_FOUND = 127,  /* not found */
};

struct runx_job {
	const struct runx_options *opts;
	const sigset_t *orig_mask; /* the mask runx started with */
	struct runx_plan plan;
	struct runx_stdio stdio;
	struct runx_relay relay;
	bool relaying;
	struct runx_scope scope;
	struct runx_supervisor sup;
	struct runx_launched child;
	struct runx_result result;
};

/* Empties *job for a run of opts (nothing open yet). */
void runx_job_init(struct runx_job *job, const struct runx_options *opts,
		   const sigset_t *orig_mask);

/*
 * Decides the run (plan.h).  Returns 0, 125 (message on stderr) or
 * 126/127 when the command cannot be found or run.
 */
int runx_job_plan(struct runx_job *job);

/*
 * Acquires everything the run needs before the launch: redirect files,
 * relay pipes, the supervisor's signalfd and timerfds, the scope (the
 * job's cgroup and its fds), and headroom for the launch and the stop path
 * (STOP_PATH_FDS free fds, proven, then released).  Returns 0 or 125 with
 * a one-line message; nothing has started then.
 */
int runx_job_acquire(struct runx_job *job);

/*
 * Starts the command in its scope.  Returns 0, 125 (runx failed; a child
 * that existed already is killed with its scope) or 126/127 (execve(2)
 * failed).
 */
int runx_job_start(struct runx_job *job);

/* Supervises the command until its scope is empty; runx's exit status. */
int runx_job_supervise(struct runx_job *job);

/*
 * Closes every fd, empties and removes the scope, writes the report
 * (--report), and returns status as runx's exit status.
 */
int runx_job_finish(struct runx_job *job, int status);

/*
 * N if runx's exit status 128+N stands for the command's death by signal
 * N (runx(1), EXIT STATUS: runx then ends by that signal), else 0.
 */
int runx_job_death_signal(const struct runx_job *job);

#endif
