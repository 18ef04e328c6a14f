/* runx's exit status (runx(1), EXIT STATUS). */
#ifndef RUNX_EXIT_STATUS_H
#define RUNX_EXIT_STATUS_H

#include "exit_codes.h"
#include "plan.h"
#include "result.h"

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
 * command's death by signal N, or for stop signal N that runx received
 * while no command ran (res->stop_without_command) (runx(1), EXIT STATUS: runx
 * then ends by that signal), else 0.
 */
int runx_death_signal(const struct runx_result *res);

/*
 * Why the processes left RUNX_KILL_WAIT_S after SIGKILL (res->unkillable
 * of them) outlived it, as the end of runx's give-up message and of the
 * report's error: " (uninterruptible sleep)" when all are in D state,
 * " (not reached by it)" when one was neither in D nor exiting (the exit
 * status is then 125), else "".  A static string; no errors.
 */
const char *runx_give_up_cause(const struct runx_result *res);

#endif
