/*
 * A run: the plan carried out as a loop of attempts (attempt.h).  The run
 * owns what lives across attempts: the plan, the redirect files (opened
 * once), the supervisor's signalfd and timers, and the report, written
 * once at the end.  An attempt starts only after the one before it has
 * released its scope, verified empty.
 */
#ifndef RUNX_RUN_H
#define RUNX_RUN_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "attempt.h"
#include "options.h"
#include "plan.h"
#include "redirect.h"
#include "supervise.h"

/* Results of earlier attempts kept in full for --report: the last ones. */
#define RUNX_KEPT_ATTEMPTS 100

/* Environment entries a run holds without malloc(3) (whose first call
 * costs system calls: start-up makes none it does not need). */
#define RUNX_ENV_ROOM 256

struct runx_run {
	const struct runx_options *opts; /* read by the plan only */
	const sigset_t *orig_mask;	 /* the mask runx started with */
	struct runx_plan plan;
	struct runx_stdio stdio;     /* the redirect files */
	struct runx_supervisor sup;  /* signalfd and timers */
	struct runx_attempt attempt; /* the current (at the end: last) one */
	int64_t attempts;	     /* attempts started */
	struct runx_result *kept;    /* the last RUNX_KEPT_ATTEMPTS results
				      * (heap), oldest first */
	int nkept;
	int kept_room; /* entries allocated in kept */
	char **envp;   /* environ + RUNX_ATTEMPT: env_room, or
			* the heap for a larger environment */
	char *env_room[RUNX_ENV_ROOM];
	char attempt_var[40];  /* "RUNX_ATTEMPT=N", in envp */
	int stdin_fd;	       /* a regular file that is the command's
				* stdin, rewound before each attempt;
				* -1: none */
	off_t stdin_offset;    /* its offset when runx started */
	struct timespec start; /* CLOCK_REALTIME when the first attempt
				* began (its launch, if it got there) */
	int64_t start_ns;      /* CLOCK_MONOTONIC then; 0: none */
	struct timespec begun; /* CLOCK_REALTIME when runx began to open
				* the redirects: the run's start where no
				* attempt began (a FIFO's wait stopped) */
	int64_t begun_ns;      /* CLOCK_MONOTONIC then; 0: not yet */
	struct timespec end;   /* CLOCK_REALTIME when the last attempt's job
				* was gone (before runx's own lines wait
				* for room: not the job's time) */
	int64_t end_ns;	       /* CLOCK_MONOTONIC then; 0: not yet */
};

/*
 * Sets up *run, which must be zero-filled (static storage, as main()'s
 * is), for the options opts (nothing open yet); borrows both.  It is not
 * cleared again: the run and its attempt are about 50 KiB, mostly lists of
 * named processes and messages that a run without them never touches, and
 * each page a memset(3) touches is a page fault at start-up.
 */
void runx_run_init(struct runx_run *run, const struct runx_options *opts,
		   const sigset_t *orig_mask);

/*
 * Plans the run, acquires what lives across attempts, runs the attempts
 * (runx(1), ATTEMPTS: after each one success, another after a wait, or
 * the end), releases everything, and writes the report (--report).
 * Returns runx's exit status: 125 when the plan or the set-up failed (a
 * one-line message on stderr; nothing was started), 0 for a success, 124
 * when the total deadline passed, 128+N for a stop signal N during a
 * wait, else the last attempt's (exit_status.h).
 */
int runx_run(struct runx_run *run);

/*
 * N if runx's exit status stands for the command's death by signal N, so
 * that runx ends by that signal itself (runx(1), EXIT STATUS), else 0.
 */
int runx_run_death_signal(const struct runx_run *run);

#endif
