/* runx: run a command, stop it on time, leave nothing behind. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "duration.h"
#include "launch.h"
#include "log.h"
#include "options.h"
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

extern char **environ;

/* Everything one run holds, so that every path ends in finish(). */
struct job {
	const struct runx_options *opts;
	const sigset_t *orig_mask;
	char path[PATH_MAX]; /* the file execve runs */
	struct runx_stdio stdio;
	struct runx_relay relay;
	bool relaying;
	struct runx_scope scope;
	bool scope_ready;
	int sigfd;
	struct runx_launch_request req;
	struct runx_launched child;
	struct runx_result result;
	struct runx_report report;
	int64_t start_ns;
	char scope_where[PATH_MAX + 64];
	char error[PATH_MAX + 512];
};

/*
 * The backend to use: --launch, else posix_spawn (cheapest, and flat in
 * the parent's memory size), except for the cgroup scope, where clone3
 * starts the child inside the cgroup with no extra step.
 */
static enum runx_launch_kind pick_backend(const struct runx_options *opts,
					  const struct runx_scope *scope)
{
	if (opts->launch != RUNX_LAUNCH_DEFAULT)
		return opts->launch;
	if (scope->kind == RUNX_SCOPE_CGROUP)
		return RUNX_LAUNCH_CLONE3;
	return RUNX_LAUNCH_POSIX_SPAWN;
}

/* Why the backend cannot start the child inside the job's cgroup, or NULL. */
static const char *cgroup_refusal(enum runx_launch_kind backend)
{
#ifndef HAVE_POSIX_SPAWNATTR_SETCGROUP_NP
	if (backend == RUNX_LAUNCH_POSIX_SPAWN)
		return "posix_spawnattr_setcgroup_np needs glibc 2.39";
#else
	(void)backend;
#endif
	return NULL;
}

/* 126 or 127 for an execve(2) error, as GNU timeout and the shell do. */
static int exec_failure_status(int err)
{
	return err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}

/* Records a runx failure: message on stderr and in the report; 125. */
static int fail(struct job *job, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct job *job, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(job->error, sizeof(job->error), fmt, ap);
	va_end(ap);
	runx_error("%s", job->error);
	job->report.kind = RUNX_REPORT_RUNX_ERROR;
	return EXIT_RUNX_FAILED;
}

/* Records an exec failure (126/127). */
static int exec_failed(struct job *job, int err)
{
	snprintf(job->error, sizeof(job->error),
		 "failed to run command '%s': %s", job->opts->command[0],
		 strerror(err));
	runx_error("%s", job->error);
	job->report.kind = RUNX_REPORT_EXEC_FAILED;
	job->report.exec_errno = err;
	return exec_failure_status(err);
}

/* Chooses and sets up the kill scope (auto: cgroup if it works, else tree). */
static int prepare_scope(struct job *job)
{
	const struct runx_options *opts = job->opts;
	enum runx_scope_kind kind = opts->scope;
	const char *refusal = NULL;
	char err[PATH_MAX + 256];

	if (kind == RUNX_SCOPE_AUTO && opts->launch != RUNX_LAUNCH_DEFAULT &&
	    (refusal = cgroup_refusal(opts->launch)) != NULL)
		kind = RUNX_SCOPE_TREE;
	if (runx_scope_prepare(&job->scope, kind, err, sizeof(err)) < 0)
		return fail(job, "%s", err);
	job->scope_ready = true;
	if (refusal != NULL)
		runx_verbose("auto scope: using tree, since --launch=%s cannot "
			     "use the cgroup scope (%s)",
			     runx_launch_kind_name(opts->launch), refusal);
	else if (job->scope.auto_reason[0] != '\0')
		runx_verbose("auto scope: using tree, since the cgroup scope "
			     "is not available (%s)",
			     job->scope.auto_reason);
	else if (opts->scope == RUNX_SCOPE_AUTO)
		runx_verbose("auto scope: using cgroup %s", job->scope.cg.path);
	return 0;
}

/* Starts the command; falls back from clone3 to fork where it is missing. */
static int start(struct job *job)
{
	const struct runx_options *opts = job->opts;
	struct runx_launch_request *req = &job->req;
	const char *refusal;
	int r;

	*req = (struct runx_launch_request){
		.backend = pick_backend(opts, &job->scope),
		.path = job->path,
		.argv = opts->command,
		.envp = environ,
		.new_session =
			runx_scope_new_session(&job->scope, opts->foreground),
		.stdio = &job->stdio,
		.close_fds = opts->close_fds,
		.child_mask = job->orig_mask,
		.cgroup_fd = job->scope.has_cgroup ? job->scope.cg.dir_fd : -1,
		.cgroup_procs_fd =
			job->scope.has_cgroup ? job->scope.cg.procs_fd : -1,
	};
	refusal = job->scope.has_cgroup ? cgroup_refusal(req->backend) : NULL;
	if (refusal != NULL)
		return fail(job,
			    "--launch=%s cannot start the command inside its "
			    "cgroup (%s); use --launch=clone3 or --launch=fork",
			    runx_launch_kind_name(req->backend), refusal);
	job->start_ns = runx_now_ns();
	clock_gettime(CLOCK_REALTIME, &job->report.start);
	r = runx_launch(req, &job->child);
	if (r == -ENOSYS && req->backend == RUNX_LAUNCH_CLONE3 &&
	    opts->launch == RUNX_LAUNCH_DEFAULT) {
		runx_verbose("clone3 is not available; launching with fork");
		req->backend = RUNX_LAUNCH_FORK;
		r = runx_launch(req, &job->child);
	}
	if (job->relaying)
		runx_relay_launched(&job->relay);
	runx_stdio_close(&job->stdio);
	if (r < 0)
		return fail(job, "cannot start '%s' with %s: %s",
			    opts->command[0],
			    runx_launch_kind_name(req->backend),
			    r == -ENOTSUP ? "not supported on this system"
					  : strerror(-r));
	if (job->child.exec_errno != 0)
		return exec_failed(job, job->child.exec_errno);
	runx_scope_adopt(&job->scope, job->child.pid, job->child.pidfd);
	runx_verbose("started '%s' as pid %d (%s scope, %s launch)",
		     opts->command[0], (int)job->child.pid,
		     runx_scope_kind_name(job->scope.kind),
		     runx_launch_kind_name(req->backend));
	return 0;
}

/* Everything up to a running command; returns 0 or runx's exit status. */
static int set_up(struct job *job)
{
	const struct runx_options *opts = job->opts;
	char err[PATH_MAX + 256];
	int r;

	r = runx_resolve_command(opts->command[0], job->path,
				 sizeof(job->path));
	if (r < 0)
		return exec_failed(job, -r);
	if (runx_stdio_open(opts, &job->stdio, err, sizeof(err)) < 0)
		return fail(job, "%s", err);
	if (opts->idle_timeout_ns != RUNX_DURATION_INF) {
		r = runx_relay_setup(&job->relay, &job->stdio);
		if (r < 0)
			return fail(job, "cannot set up the output relay: %s",
				    strerror(-r));
		job->relaying = true;
	}
	job->sigfd = runx_signals_open_fd();
	if (job->sigfd < 0)
		return fail(job, "cannot create a signalfd: %s",
			    strerror(-job->sigfd));
	r = prepare_scope(job);
	if (r != 0)
		return r;
	return start(job);
}

/* Releases what set_up took and writes the report; returns exit status. */
static int finish(struct job *job, int status)
{
	struct runx_report *rep = &job->report;

	runx_stdio_close(&job->stdio);
	if (job->relaying && job->child.pid == 0)
		runx_relay_finish(&job->relay);
	if (job->child.pidfd >= 0)
		close(job->child.pidfd);
	if (job->sigfd >= 0)
		close(job->sigfd);
	if (job->scope_ready) {
		runx_scope_describe(&job->scope, job->scope_where,
				    sizeof(job->scope_where));
		int r = runx_scope_release(&job->scope);
		if (r < 0)
			runx_error("cannot remove cgroup '%s': %s",
				   job->scope.cg.path, strerror(-r));
	}
	if (job->opts->report_path == NULL)
		return status;
	clock_gettime(CLOCK_REALTIME, &rep->end);
	if (rep->start.tv_sec == 0)
		rep->start = rep->end;
	rep->opts = job->opts;
	rep->scope = runx_scope_kind_name(
		job->scope_ready ? job->scope.kind : job->opts->scope);
	/* no process ran: nothing was ever in the scope */
	rep->scope_where = job->scope_ready && job->child.pid > 0
				   ? job->scope_where
				   : NULL;
	rep->backend = job->req.path != NULL
			       ? runx_launch_kind_name(job->req.backend)
			       : NULL;
	rep->pid = job->child.pid;
	rep->wall_ns = job->start_ns ? runx_now_ns() - job->start_ns : 0;
	rep->error = job->error[0] ? job->error : NULL;
	rep->exit_status = status;
	int r = runx_report_write(job->opts->report_path, rep);
	if (r < 0)
		runx_error("cannot write the report '%s': %s",
			   job->opts->report_path, strerror(-r));
	return status;
}

/* Sets up, launches and supervises; returns runx's exit status. */
static int run(const struct runx_options *opts, const sigset_t *orig_mask)
{
	static struct job job; /* large (paths): not on the stack */
	int status;

	job.opts = opts;
	job.orig_mask = orig_mask;
	job.sigfd = -1;
	job.child.pidfd = -1;
	status = set_up(&job);
	if (status != 0)
		return finish(&job, status);
	int r = runx_supervise(opts, &job.scope, job.child.pid,
			       job.child.pidfd, job.sigfd, job.start_ns,
			       job.relaying ? &job.relay : NULL, &job.result);
	job.report.kind = RUNX_REPORT_SUPERVISED;
	job.report.result = &job.result;
	if (r < 0)
		snprintf(job.error, sizeof(job.error),
			 "supervision failed: %s", strerror(-r));
	else if (job.result.unkillable > 0)
		snprintf(job.error, sizeof(job.error),
			 "%d process%s still alive %d s after SIGKILL "
			 "(uninterruptible sleep)",
			 job.result.unkillable,
			 job.result.unkillable == 1 ? "" : "es",
			 RUNX_KILL_WAIT_S);
	runx_verbose("exiting with status %d", job.result.exit_status);
	return finish(&job, job.result.exit_status);
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
