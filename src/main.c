/*
 * runx: run a command, stop it on time, leave nothing behind.
 * options -> plan -> resources -> launch -> supervise -> result.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "log.h"
#include "options.h"
#include "plan.h"
#include "redirect.h"
#include "relay.h"
#include "report.h"
#include "scope.h"
#include "supervise.h"

enum {
	EXIT_RUNX_FAILED = 125,
	EXIT_CANNOT_RUN = 126,
	EXIT_NOT_FOUND = 127,
};

/*
 * Free fds proven before the launch: the launch (a report pipe and the
 * pidfd) and the stop path (a /proc walk, a pidfd and a /proc/PID/stat
 * re-check at once) need this many beyond what is already open.
 */
#define STOP_PATH_FDS 4

extern char **environ;

/* Everything one run holds, so that every path ends in finish(). */
struct job {
	const struct runx_options *opts;
	const sigset_t *orig_mask;
	struct runx_plan plan;
	struct runx_stdio stdio;
	struct runx_relay relay;
	bool relaying;
	struct runx_scope scope;
	struct runx_supervisor sup;
	struct runx_launched child;
	struct runx_result result;
};

/* Records a runx failure: message on stderr and in the report; 125. */
static int fail(struct job *job, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct job *job, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(job->result.error, sizeof(job->result.error), fmt, ap);
	va_end(ap);
	runx_error("%s", job->result.error);
	job->result.reason = RUNX_END_RUNX_ERROR;
	return EXIT_RUNX_FAILED;
}

/* Records an exec failure: 127 for ENOENT, else 126, as the shell does. */
static int exec_failed(struct job *job, int err)
{
	snprintf(job->result.error, sizeof(job->result.error),
		 "failed to run command '%s': %s", job->opts->command[0],
		 strerror(err));
	runx_error("%s", job->result.error);
	job->result.reason = RUNX_END_EXEC_FAILED;
	job->result.exec_errno = err;
	return err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}

/* Proves STOP_PATH_FDS free fds, then gives them back; 0 or -errno. */
static int check_fd_headroom(void)
{
	int fds[STOP_PATH_FDS], n, r = 0;

	for (n = 0; n < STOP_PATH_FDS; n++)
		if ((fds[n] = fcntl(0, F_DUPFD_CLOEXEC, 0)) < 0) {
			r = -errno;
			break;
		}
	while (n-- > 0)
		close(fds[n]);
	return r;
}

/*
 * Acquires everything the run needs before the launch: redirect files,
 * relay pipes, the supervisor's signalfd and timerfds, the scope (the
 * job's cgroup and its fds), and headroom for the launch and the stop.
 */
static int acquire(struct job *job)
{
	char err[PATH_MAX + 256];
	int r;

	if (runx_stdio_open(job->opts, &job->stdio, err, sizeof(err)) < 0)
		return fail(job, "%s", err);
	if (job->plan.relay) {
		if ((r = runx_relay_setup(&job->relay, &job->stdio)) < 0)
			return fail(job, "cannot set up the output relay: %s",
				    strerror(-r));
		job->relaying = true;
	}
	if ((r = runx_supervisor_open(&job->sup)) < 0)
		return fail(job, "cannot set up the supervisor: %s",
			    strerror(-r));
	if (runx_scope_prepare(&job->scope, job->plan.scope,
			       job->plan.has_limits ? &job->plan.limits : NULL,
			       err, sizeof(err)) < 0)
		return fail(job, "%s", err);
	if ((r = check_fd_headroom()) < 0)
		return fail(job, "not enough file descriptors left to start "
				 "and stop the command: %s",
			    strerror(-r));
	return 0;
}

/* Says with -v what the plan decided. */
static void tell_plan(struct job *job)
{
	char where[PATH_MAX + 64];

	if (job->plan.auto_note[0] != '\0')
		runx_verbose("%s", job->plan.auto_note);
	else if (job->opts->scope == RUNX_SCOPE_AUTO)
		runx_verbose("auto scope: using %s",
			     runx_scope_describe(&job->scope, where,
						 sizeof(where)));
	if (job->plan.backend_note != NULL)
		runx_verbose("%s", job->plan.backend_note);
}

/* A launch that failed after its child existed: empty the scope. */
static void abort_launch(struct job *job)
{
	const struct timespec tick = {0, 10000000};

	runx_scope_adopt(&job->scope, job->child.pid, -1);
	for (int round = 0; round < 100; round++) {
		struct runx_census c = {0};
		runx_scope_kill(&job->scope);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		runx_scope_census(&job->scope, &c);
		if (c.state == RUNX_CENSUS_EMPTY)
			return;
		nanosleep(&tick, NULL);
	}
}

/* Starts the command in its scope; 0 or runx's exit status. */
static int start(struct job *job)
{
	struct runx_placement at = runx_scope_placement(&job->scope);
	const struct runx_launch_request req = {
		.backend = job->plan.backend,
		.path = job->plan.path,
		.argv = job->opts->command,
		.envp = environ,
		.new_session = job->plan.new_session,
		.parent = getpid(),
		.stdio = &job->stdio,
		.close_fds = job->opts->close_fds,
		.child_mask = job->orig_mask,
		.cgroup_fd = at.cgroup_fd,
		.cgroup_procs_fd = at.cgroup_procs_fd,
	};

	job->result.start_ns = runx_now_ns();
	clock_gettime(CLOCK_REALTIME, &job->result.start);
	job->result.launched = true;
	int r = runx_launch(&req, &job->child);
	if (job->relaying)
		runx_relay_launched(&job->relay);
	runx_stdio_close(&job->stdio);
	if (r < 0 && job->child.pid > 0)
		abort_launch(job);
	if (r < 0)
		return fail(job, "cannot start '%s' with %s: %s",
			    job->opts->command[0],
			    runx_launch_kind_name(req.backend), strerror(-r));
	if (job->child.exec_errno != 0)
		return exec_failed(job, job->child.exec_errno);
	job->result.pid = job->child.pid;
	runx_scope_adopt(&job->scope, job->child.pid, job->child.pidfd);
	runx_verbose("started '%s' as pid %d (%s scope, %s launch)",
		     job->opts->command[0], (int)job->child.pid,
		     runx_scope_name(&job->scope),
		     runx_launch_kind_name(req.backend));
	return 0;
}

/* Supervises the running command until its scope is empty. */
static int supervise(struct job *job)
{
	struct runx_result *res = &job->result;
	int r = runx_supervise(&job->sup, &job->plan, &job->scope,
			       job->child.pidfd,
			       job->relaying ? &job->relay : NULL, res);

	if (runx_scope_usage(&job->scope, &res->usage) == 0)
		runx_report_tell_usage(job->opts, &res->usage);

	if (r < 0)
		snprintf(res->error, sizeof(res->error),
			 "supervision failed: %s", strerror(-r));
	else if (res->unverified)
		snprintf(res->error, sizeof(res->error),
			 "cannot verify that the scope is empty %d s after "
			 "SIGKILL",
			 RUNX_KILL_WAIT_S);
	else if (res->unkillable > 0)
		snprintf(res->error, sizeof(res->error),
			 "%d process%s still alive %d s after SIGKILL "
			 "(uninterruptible sleep)",
			 res->unkillable, res->unkillable == 1 ? "" : "es",
			 RUNX_KILL_WAIT_S);
	runx_verbose("exiting with status %d", res->exit_status);
	return res->exit_status;
}

/* Releases what the run took and writes the report; returns status. */
static int finish(struct job *job, int status)
{
	struct runx_result *res = &job->result;

	runx_stdio_close(&job->stdio);
	if (job->relaying && job->child.pid == 0)
		runx_relay_finish(&job->relay);
	if (job->child.pidfd >= 0)
		close(job->child.pidfd);
	runx_supervisor_close(&job->sup);
	if (job->child.pid > 0) /* no process ran: nothing was in it */
		runx_scope_describe(&job->scope, res->scope_where,
				    sizeof(res->scope_where));
	char where[PATH_MAX + 64];
	runx_scope_describe(&job->scope, where, sizeof(where));
	int r = runx_scope_release(&job->scope);
	if (r < 0)
		runx_error("cannot remove %s: %s", where, strerror(-r));
	res->exit_status = status;
	if (job->opts->report_path == NULL)
		return status;
	clock_gettime(CLOCK_REALTIME, &res->end);
	if (res->start.tv_sec == 0)
		res->start = res->end;
	res->end_ns = runx_now_ns();
	r = runx_report_write(job->opts->report_path, &job->plan, res);
	if (r < 0)
		runx_error("cannot write the report '%s': %s",
			   job->opts->report_path, strerror(-r));
	return status;
}

/* Plans, acquires, launches and supervises; returns runx's exit status. */
static int run(const struct runx_options *opts, const sigset_t *orig_mask)
{
	static struct job job; /* large (paths): not on the stack */
	char err[PATH_MAX + 256];
	int status;

	job.opts = opts;
	job.orig_mask = orig_mask;
	job.child.pidfd = -1;
	job.sup = (struct runx_supervisor)RUNX_SUPERVISOR_CLOSED;
	if (runx_plan_make(opts, &job.plan, err, sizeof(err)) < 0)
		return finish(&job, fail(&job, "%s", err));
	if (job.plan.resolve_errno != 0)
		return finish(&job, exec_failed(&job, job.plan.resolve_errno));
	if ((status = acquire(&job)) != 0)
		return finish(&job, status);
	tell_plan(&job);
	/*
	 * The point of no return: from here on nothing may fail for lack of
	 * a resource.  Every fd the supervisor and the stop path need is
	 * open, and STOP_PATH_FDS more are known to be free.
	 */
	if ((status = start(&job)) != 0)
		return finish(&job, status);
	return finish(&job, supervise(&job));
}

/* --help, --version: 0, or 125 when stdout is closed, full or broken. */
static int write_text(const char *text)
{
	int r = runx_write_stdout(text);

	if (r < 0)
		runx_error("write error: %s", strerror(-r));
	return r < 0 ? EXIT_RUNX_FAILED : 0;
}

int main(int argc, char **argv)
{
	struct runx_options opts;
	sigset_t orig_mask;
	char err[512];

	/* Before anything else, so no signal can act before the child exists. */
	if (runx_signals_block(&orig_mask) < 0 || runx_stdio_guard() < 0) {
		runx_error("cannot set up signals or standard fds: %s",
			   strerror(errno));
		return EXIT_RUNX_FAILED;
	}
	switch (runx_options_parse(argc, argv, &opts, err, sizeof(err))) {
	case RUNX_PARSE_ERROR:
		runx_error("%s", err);
		return EXIT_RUNX_FAILED;
	case RUNX_PARSE_HELP:
		return write_text(runx_usage());
	case RUNX_PARSE_VERSION:
		return write_text(runx_version_text());
	case RUNX_PARSE_OK:
		break;
	}
	runx_log_set_verbose(opts.verbose);
	return run(&opts, &orig_mask);
}
