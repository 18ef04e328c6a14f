/* One attempt: acquire, launch, supervise, release (attempt.h). */
#include "config.h"

#include "attempt.h"

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

#include "clock.h"
#include "exit_status.h"
#include "log.h"
#include "report.h"

/*
 * Free fds proven before the launch: the launch (a report pipe and the
 * pidfd) and the stop path (a /proc walk, a pidfd and a /proc/PID/stat
 * re-check at once, while the tree or group scope holds its witness, a
 * pidfd of its own) need this many beyond what is already open.
 */
#define STOP_PATH_FDS 5

void runx_attempt_init(struct runx_attempt *a, int number)
{
	memset(a, 0, sizeof(*a));
	runx_attempt_init_zeroed(a, number);
}

void runx_attempt_init_zeroed(struct runx_attempt *a, int number)
{
	a->number = number;
	a->child.pidfd = -1;
	for (int i = 0; i < 3; i++)
		a->stdio.source[i] = -1;
}

int runx_attempt_fail(struct runx_attempt *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->result.error, sizeof(a->result.error), fmt, ap);
	va_end(ap);
	runx_error("%s", a->result.error);
	a->result.reason = RUNX_END_RUNX_ERROR;
	return RUNX_EXIT_FAILED;
}

int runx_attempt_exec_failed(struct runx_attempt *a, const char *argv0, int err)
{
	char q[RUNX_QUOTE_SIZE];

	/* the name quoted (escaped, shortened in the middle): the reason
	 * at the end of the message survives any name */
	snprintf(a->result.error, sizeof(a->result.error),
		 "failed to run command '%s': %s",
		 runx_quote(argv0, q, sizeof(q)), strerror(err));
	runx_error("%s", a->result.error);
	a->result.reason = RUNX_END_EXEC_FAILED;
	a->result.exec_errno = err;
	return runx_exit_status_exec(err);
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
 * Says with -v what the plan decided, once a run: for the first attempt
 * that got as far as its scope (with --retry-on=125 or 127 an earlier
 * one may have failed before).  runx makes one run a process.
 */
static void tell_plan(const struct runx_attempt *a, const struct runx_plan *p)
{
	static bool told;
	char where[PATH_MAX + 64];

	if (told)
		return;
	told = true;
	if (p->scope.auto_note[0] != '\0')
		runx_verbose("%s", p->scope.auto_note);
	else if (p->scope.auto_chosen)
		runx_verbose(
		    "auto scope: using %s",
		    runx_scope_describe(&a->scope, where, sizeof(where)));
}

int runx_attempt_acquire(struct runx_attempt *a,
			 const struct runx_attempt_env *env)
{
	const struct runx_scope_policy *sp = &env->plan->scope;
	char err[PATH_MAX + 256];
	int r;

	/* the run's files, none owned: the relay may put pipes in their
	 * place for this attempt */
	for (int i = 0; i < 3; i++)
		a->stdio.source[i] = env->stdio->source[i];
	if (env->plan->launch.relay) {
		if ((r = runx_relay_setup(&a->relay, &a->stdio)) < 0)
			return runx_attempt_fail(
			    a, "cannot set up the output relay: %s",
			    strerror(-r));
		a->relaying = true;
	}
	if (runx_scope_prepare(&a->scope, sp->kind,
			       sp->has_limits ? &sp->limits : NULL, err,
			       sizeof(err)) < 0)
		return runx_attempt_fail(a, "%s", err);
	if ((r = check_fd_headroom()) < 0)
		return runx_attempt_fail(
		    a,
		    "not enough file descriptors left to start and stop the "
		    "command: %s",
		    strerror(-r));
	tell_plan(a, env->plan);
	return 0;
}

/* Says with -v what was started, where. */
static void tell_started(const struct runx_attempt *a,
			 const struct runx_launch_request *req)
{
	char q[RUNX_QUOTE_SIZE];
	const char *name = runx_quote(req->argv[0], q, sizeof(q));

	if (a->result.command_pid != a->child.pid)
		runx_verbose("started '%s' as pid %d (%d in the pid namespace "
			     "of init %d; %s scope, %s launch inside)",
			     name, (int)a->result.command_pid,
			     (int)a->child.ns_pid, (int)a->child.pid,
			     runx_scope_name(&a->scope),
			     runx_launch_kind_name(req->backend));
	else
		runx_verbose("started '%s' as pid %d (%s scope, %s launch)",
			     name, (int)a->child.pid,
			     runx_scope_name(&a->scope),
			     runx_launch_kind_name(req->backend));
	if (req->identity != NULL && req->identity->set_user)
		runx_verbose("the command runs as uid %u, gid %u, with %zu "
			     "supplementary group%s",
			     (unsigned)req->identity->uid,
			     (unsigned)req->identity->gid,
			     req->identity->ngroups,
			     req->identity->ngroups == 1 ? "" : "s");
}

/* A launch that failed after its child existed: empty the scope. */
static void abort_launch(struct runx_attempt *a)
{
	const struct timespec tick = {0, 10000000};

	/* unreaped: its pid cannot be reused yet, kill(2) is safe */
	kill(a->child.pid, SIGKILL);
	runx_scope_adopt(&a->scope, a->child.pid, -1);
	for (int round = 0; round < 100; round++) {
		struct runx_census c = {0};
		runx_scope_kill(&a->scope);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		runx_scope_census(&a->scope, &c);
		if (c.state == RUNX_CENSUS_EMPTY)
			return;
		nanosleep(&tick, NULL);
	}
}

/* The request that starts the command for this attempt. */
static struct runx_launch_request request(const struct runx_attempt *a,
					  const struct runx_attempt_env *env)
{
	const struct runx_launch_policy *lp = &env->plan->launch;

	return (struct runx_launch_request){
	    .backend = lp->backend,
	    .path = lp->path,
	    .argv = lp->argv,
	    .envp = env->envp,
	    .new_session = lp->new_session,
	    .parent = getpid(),
	    .stdio = &a->stdio,
	    .close_fds = lp->close_fds,
	    .child_mask = env->orig_mask,
	    .cgroup_fd = -1,
	    .cgroup_procs_fd = -1,
	    .identity = runx_identity_any(&env->plan->identity)
			    ? &env->plan->identity
			    : NULL,
	};
}

/* After runx_scope_launch(): 0, or the exit status of what failed. */
static int launched(struct runx_attempt *a,
		    const struct runx_launch_request *req, int r)
{
	char q[RUNX_QUOTE_SIZE];

	if (r < 0 && a->child.pid > 0)
		abort_launch(a);
	if (r < 0 && a->child.killed_at_birth)
		return runx_attempt_fail(a,
					 "--launch=%s: %s; use --launch=vfork "
					 "or --launch=fork",
					 runx_launch_kind_name(req->backend),
					 a->child.why);
	if (r < 0 && a->child.why[0] != '\0')
		return runx_attempt_fail(a, "%s", a->child.why);
	if (r < 0)
		return runx_attempt_fail(a, "cannot start '%s' with %s: %s",
					 runx_quote(req->argv[0], q, sizeof(q)),
					 runx_launch_kind_name(req->backend),
					 strerror(-r));
	if (a->child.exec_errno != 0)
		return runx_attempt_exec_failed(a, req->argv[0],
						a->child.exec_errno);
	return 0;
}

int runx_attempt_start(struct runx_attempt *a,
		       const struct runx_attempt_env *env)
{
	struct runx_launch_request req = request(a, env);

	a->result.start_ns = runx_now_ns();
	clock_gettime(CLOCK_REALTIME, &a->result.start);
	a->result.launched = true;
	int r = runx_scope_launch(&a->scope, &req, &a->child);
	a->result.backend = req.backend;
	if (a->relaying)
		runx_relay_launched(&a->relay);
	if ((r = launched(a, &req, r)) != 0)
		return r;
	a->result.pid = a->child.pid;
	runx_scope_adopt(&a->scope, a->child.pid, a->child.pidfd);
	a->result.command_pid = runx_scope_command_pid(&a->scope);
	/* pidns, a command that exited at once and is reaped by now: the
	 * pid the init read before it could reap it, through a /proc that is
	 * runx's namespace's (else that pid is another namespace's) */
	if (a->result.command_pid == 0 && a->scope.proc_trusted)
		a->result.command_pid = a->child.outer_pid;
	tell_started(a, &req);
	return 0;
}

int runx_attempt_supervise(struct runx_attempt *a,
			   const struct runx_attempt_env *env)
{
	struct runx_result *res = &a->result;
	int r = runx_supervise(env->sup, env->plan, &a->scope, a->child.pidfd,
			       a->relaying ? &a->relay : NULL, res);

	a->relaying = false; /* runx_supervise() finished the relay */
	if (runx_scope_usage(&a->scope, &res->usage) == 0)
		runx_report_tell_usage(&env->plan->scope, &res->usage);
	if (r < 0)
		snprintf(res->error, sizeof(res->error),
			 "supervision failed: %s", strerror(-r));
	else if (res->unverified)
		snprintf(res->error, sizeof(res->error),
			 "cannot verify that the scope is empty %d s after "
			 "SIGKILL",
			 RUNX_KILL_WAIT_S);
	else if (res->unreleased)
		snprintf(res->error, sizeof(res->error),
			 "the command has ended, but %d s after SIGKILL runx "
			 "still cannot reap it: a tracer holds it",
			 RUNX_KILL_WAIT_S);
	else if (res->unkillable > 0)
		snprintf(res->error, sizeof(res->error),
			 "%d process%s still alive %d s after SIGKILL%s",
			 res->unkillable, res->unkillable == 1 ? "" : "es",
			 RUNX_KILL_WAIT_S, runx_give_up_cause(res));
	return res->exit_status;
}

int runx_attempt_release(struct runx_attempt *a, int status)
{
	struct runx_result *res = &a->result;
	char where[PATH_MAX + 64];

	if (a->relaying)
		runx_relay_finish(&a->relay, 0, NULL);
	a->relaying = false;
	if (a->child.pidfd >= 0)
		close(a->child.pidfd);
	a->child.pidfd = -1;
	if (a->child.pid > 0) /* no process ran: nothing was in it */
		runx_scope_describe(&a->scope, res->scope_where,
				    sizeof(res->scope_where));
	runx_scope_describe(&a->scope, where, sizeof(where));
	int r = runx_scope_release(&a->scope);
	if (r < 0)
		runx_error("cannot remove %s: %s", where, strerror(-r));
	res->exit_status = status;
	return status;
}
