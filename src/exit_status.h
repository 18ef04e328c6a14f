/* runx's exit status (runx(1), EXIT STATUS). */
#ifndef RUNX_EXIT_STATUS_H
#define RUNX_EXIT_STATUS_H

#include "plan.h"
#include "result.h"

enum {
	RUNX_EXIT_TIMEOUT = 124,    /* a deadline fired */
	RUNX_EXIT_FAILED = 125,	    /* runx itself failed */
	RUNX_EXIT_CANNOT_RUN = 126, /* found but not executable */
	RUNX_EXIT_NOT_FOUND = 127,  /* not found */
};

/*
 * runx's exit status for a supervised result under stop policy *stop: 125
 * when the scope could not be verified empty, 124 for the run's deadline
 * (--total-timeout) and for the attempt's (unless --preserve-status), the
 * command's own status, or 128+N for its death by signal N.  No errors.
 */
int runx_exit_status(const struct runx_stop_policy *stop,
		     const struct runx_result *res);

/*
 * N if runx's exit status res->exit_status (128+N) stands for the
 * command's death by signal N (runx(1), EXIT STATUS: runx then ends by
 * that signal), else 0.
 */
int runx_death_signal(const struct runx_result *res);

#endif
