/* runx's exit status, from the plan's stop policy and the result. */
#include "config.h"

#include "exit_status.h"

#include <stdbool.h>
#include <sys/wait.h>

int runx_exit_status(const struct runx_stop_policy *stop,
		     const struct runx_result *res)
{
	bool timed_out = res->reason == RUNX_END_TIMEOUT ||
			 res->reason == RUNX_END_IDLE_TIMEOUT;

	if (res->unverified || res->unreached)
		return 125;
	if (res->total_timeout) /* the run's deadline: -p does not apply */
		return 124;
	if (timed_out && !stop->preserve_status)
		return 124;
	if (WIFEXITED(res->wait_status))
		return WEXITSTATUS(res->wait_status);
	if (WIFSIGNALED(res->wait_status))
		return 128 + WTERMSIG(res->wait_status);
	return 125;
}

int runx_death_signal(const struct runx_result *res)
{
	if (res->stop_without_command)
		return res->exit_status == 128 + res->runx_signal
			   ? res->runx_signal
			   : 0;
	if (res->exit_status <= 128 || !WIFSIGNALED(res->wait_status) ||
	    res->exit_status != 128 + WTERMSIG(res->wait_status))
		return 0;
	return WTERMSIG(res->wait_status);
}

const char *runx_give_up_cause(const struct runx_result *res)
{
	if (res->unkillable > 0 && res->unkillable_d == res->unkillable)
		return " (uninterruptible sleep)";
	return res->unreached ? " (not reached by it)" : "";
}
