/* A run: plan, acquire, a loop of attempts, report (run.h). */
#include "config.h"

#include "run.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "exit_status.h"
#include "log.h"
#include "report.h"
#include "syscalls.h"

extern char **environ;

void runx_run_init(struct runx_run *run, const struct runx_options *opts,
		   const sigset_t *orig_mask)
{
	memset(run, 0, sizeof(*run));
	run->opts = opts;
	run->orig_mask = orig_mask;
	for (int i = 0; i < 3; i++)
		run->stdio.source[i] = -1;
	run->sup = (struct runx_supervisor)RUNX_SUPERVISOR_CLOSED;
	runx_attempt_init(&run->attempt, 0);
}

/*
 * Opens and closes a pidfd of runx itself: 0, or -errno of pidfd_open(2)
 * (ENOSYS before Linux 5.3, EPERM or ENOSYS from a seccomp profile that
 * refuses it, as older container runtimes' defaults did).  Every backend
 * but clone3 (CLONE_PIDFD) needs it for the command, every scope for its
 * stop: checked before the point of no return.
 */
static int probe_pidfd(void)
{
	int fd = runx_pidfd_open(getpid(), 0);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* The plan; 0, 125 or 126/127 (recorded in the attempt's result). */
static int plan(struct runx_run *run)
{
	char err[PATH_MAX + 256];

	if (runx_plan_make(run->opts, NULL, &run->plan, err, sizeof(err)) < 0)
		return runx_attempt_fail(&run->attempt, "%s", err);
	if (run->plan.launch.resolve_errno != 0)
		return runx_attempt_exec_failed(&run->attempt,
						run->plan.launch.argv[0],
						run->plan.launch.resolve_errno);
	return 0;
}

/* What lives across attempts; 0 or 125 (recorded in the attempt). */
static int acquire(struct runx_run *run)
{
	struct runx_attempt *a = &run->attempt;
	char err[PATH_MAX + 256];
	int r;

	if (runx_stdio_open(&run->plan.redirects, &run->stdio, err,
			    sizeof(err)) < 0)
		return runx_attempt_fail(a, "%s", err);
	if ((r = runx_supervisor_open(&run->sup)) < 0)
		return runx_attempt_fail(a, "cannot set up the supervisor: %s",
					 strerror(-r));
	if ((r = probe_pidfd()) < 0 && r != -EMFILE && r != -ENFILE)
		return runx_attempt_fail(
		    a,
		    "pidfd_open(2) fails here: %s (runx needs Linux 5.3 or "
		    "later, and a seccomp profile that allows it)",
		    strerror(-r));
	return 0;
}

/*
 * One attempt, from its acquisition to its release; its exit status.
 * The point of no return is between acquire and start: from there on
 * nothing may fail for lack of a resource.  Every fd the supervisor and
 * the stop path need is open, and enough more are known to be free.
 */
static int attempt(struct runx_run *run, int number)
{
	struct runx_attempt *a = &run->attempt;
	const struct runx_attempt_env env = {
	    .plan = &run->plan,
	    .stdio = &run->stdio,
	    .sup = &run->sup,
	    .orig_mask = run->orig_mask,
	    .envp = environ,
	};
	int status;

	runx_attempt_init(a, number);
	run->attempts = number;
	if ((status = runx_attempt_acquire(a, &env)) != 0 ||
	    (status = runx_attempt_start(a, &env)) != 0)
		return runx_attempt_release(a, status);
	status = runx_attempt_supervise(a, &env);
	runx_verbose("exiting with status %d", status);
	return runx_attempt_release(a, status);
}

/* Writes the report of the run (--report), whose last attempt is a. */
static void report(const struct runx_run *run, struct runx_attempt *a)
{
	struct runx_result *res = &a->result;
	char q[RUNX_QUOTE_SIZE];

	if (run->plan.report.path == NULL)
		return;
	clock_gettime(CLOCK_REALTIME, &res->end);
	if (res->start.tv_sec == 0)
		res->start = res->end;
	res->end_ns = runx_now_ns();
	int r = runx_report_write(run->plan.report.path, &run->plan, res);
	if (r < 0)
		runx_error("cannot write the report '%s': %s",
			   runx_quote(run->plan.report.path, q, sizeof(q)),
			   strerror(-r));
}

int runx_run(struct runx_run *run)
{
	int status;

	if ((status = plan(run)) == 0 && (status = acquire(run)) == 0) {
		for (int n = 1; n <= run->plan.attempts.max; n++)
			status = attempt(run, n);
	} else {
		runx_attempt_release(&run->attempt, status);
	}
	runx_stdio_close(&run->stdio);
	runx_supervisor_close(&run->sup);
	report(run, &run->attempt);
	return status;
}

int runx_run_death_signal(const struct runx_run *run)
{
	return runx_death_signal(&run->attempt.result);
}
