/* One run of runx: what it holds, from the plan to the report. */
#include "config.h"

#include "job.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "log.h"
#include "proc.h"
#include "report.h"
#include "syscalls.h"

/*
 * Free fds proven before the launch: the launch (a report pipe and the
 * pidfd) and the stop path (a /proc walk, a pidfd and a /proc/PID/stat
 * re-check at once) need this many beyond what is already open.
 */
#define STOP_PATH_FDS 4

extern char **environ;

/* Records a runx failure: message on stderr and in the report; 125. */
static int fail(struct runx_job *job, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int fail(struct runx_job *job, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(job->result.error, sizeof(job->result.error), fmt, ap);
	va_end(ap);
	runx_error("%s", job->result.error);
	job->result.reason = RUNX_END_RUNX_ERROR;
	return RUNX_EXIT_FAILED;
}

/* Records an exec failure: 127 for ENOENT, else 126, as the shell does. */
static int exec_failed(struct runx_job *job, int err)
{
	char q[RUNX_QUOTE_SIZE];

	/* the name quoted (escaped, shortened in the middle): the reason
	 * at the end of the message survives any name */
	snprintf(job->result.error, sizeof(job->result.error),
		 "failed to run command '%s': %s",
		 runx_quote(job->opts->command[0], q, sizeof(q)),
		 strerror(err));
	runx_error("%s", job->result.error);
	job->result.reason = RUNX_END_EXEC_FAILED;
	job->result.exec_errno = err;
	return err == ENOENT ? RUNX_EXIT_NOT_FOUND : RUNX_EXIT_CANNOT_RUN;
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

/* Says with -v what the plan decided. */
static void tell_plan(struct runx_job *job)
{
	char where[PATH_MAX + 64];

	if (job->plan.auto_note[0] != '\0')
		runx_verbose("%s", job->plan.auto_note);
	else if (job->opts->scope == RUNX_SCOPE_AUTO)
		runx_verbose(
		    "auto scope: using %s",
		    runx_scope_describe(&job->scope, where, sizeof(where)));
	if (job->plan.backend_note != NULL)
		runx_verbose("%s", job->plan.backend_note);
}

int runx_job_acquire(struct runx_job *job)
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
	if ((r = probe_pidfd()) < 0 && r != -EMFILE && r != -ENFILE)
		return fail(job,
			    "pidfd_open(2) fails here: %s (runx needs Linux "
			    "5.3 or later, and a seccomp profile that allows "
			    "it)",
			    strerror(-r));
	if ((r = check_fd_headroom()) < 0)
		return fail(job,
			    "not enough file descriptors left to start "
			    "and stop the command: %s",
			    strerror(-r));
	tell_plan(job);
	return 0;
}

/* Says with -v what was started, where. */
static void tell_started(const struct runx_job *job,
			 const struct runx_launch_request *req)
{
	char q[RUNX_QUOTE_SIZE];
	const char *name = runx_quote(job->opts->command[0], q, sizeof(q));

	if (req->pidns)
		runx_verbose("started '%s' as pid %d (%d in the pid namespace "
			     "of init %d; pidns scope, %s launch inside%s)",
			     name, (int)job->result.command_pid,
			     (int)job->child.ns_pid, (int)job->child.pid,
			     runx_launch_kind_name(req->backend),
			     req->pidns_new_user ? ", user namespace" : "");
	else
		runx_verbose("started '%s' as pid %d (%s scope, %s launch)",
			     name, (int)job->child.pid,
			     runx_scope_name(&job->scope),
			     runx_launch_kind_name(req->backend));
}

/* A launch that failed after its child existed: empty the scope. */
static void abort_launch(struct runx_job *job)
{
	const struct timespec tick = {0, 10000000};

	/* unreaped: its pid cannot be reused yet, kill(2) is safe */
	kill(job->child.pid, SIGKILL);
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

int runx_job_start(struct runx_job *job)
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
	    .pidns = at.pidns,
	    .pidns_new_user = at.pidns_new_user,
	    .pidns_status_fd = at.pidns_status_fd,
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
	if (r < 0 && job->child.why[0] != '\0')
		return fail(job, "%s", job->child.why);
	char q[RUNX_QUOTE_SIZE];
	if (r < 0)
		return fail(job, "cannot start '%s' with %s: %s",
			    runx_quote(job->opts->command[0], q, sizeof(q)),
			    runx_launch_kind_name(req.backend), strerror(-r));
	if (job->child.exec_errno != 0)
		return exec_failed(job, job->child.exec_errno);
	job->result.pid = job->child.pid;
	job->result.command_pid = job->child.pid;
	if (req.pidns) { /* the init's one child: the command */
		pid_t cmd = runx_proc_first_child(job->child.pid);
		job->result.command_pid = cmd > 0 ? cmd : 0;
	}
	runx_scope_adopt(&job->scope, job->child.pid, job->child.pidfd);
	tell_started(job, &req);
	return 0;
}

int runx_job_supervise(struct runx_job *job)
{
	struct runx_result *res = &job->result;
	int r =
	    runx_supervise(&job->sup, &job->plan, &job->scope, job->child.pidfd,
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

int runx_job_finish(struct runx_job *job, int status)
{
	struct runx_result *res = &job->result;

	runx_stdio_close(&job->stdio);
	if (job->relaying && job->child.pid == 0)
		runx_relay_finish(&job->relay, 0);
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

void runx_job_init(struct runx_job *job, const struct runx_options *opts,
		   const sigset_t *orig_mask)
{
	memset(job, 0, sizeof(*job));
	job->opts = opts;
	job->orig_mask = orig_mask;
	job->child.pidfd = -1;
	job->sup = (struct runx_supervisor)RUNX_SUPERVISOR_CLOSED;
}

int runx_job_plan(struct runx_job *job)
{
	char err[PATH_MAX + 256];

	if (runx_plan_make(job->opts, &job->plan, err, sizeof(err)) < 0)
		return fail(job, "%s", err);
	if (job->plan.resolve_errno != 0)
		return exec_failed(job, job->plan.resolve_errno);
	return 0;
}

int runx_job_death_signal(const struct runx_job *job)
{
	const struct runx_result *res = &job->result;

	if (res->exit_status <= 128 || !WIFSIGNALED(res->wait_status) ||
	    res->exit_status != 128 + WTERMSIG(res->wait_status))
		return 0;
	return WTERMSIG(res->wait_status);
}
