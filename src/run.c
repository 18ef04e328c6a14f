/* A run: plan, acquire, a loop of attempts, report (run.h). */
#include "config.h"

#include "run.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "between.h"
#include "clock.h"
#include "duration.h"
#include "exit_status.h"
#include "signals.h"
#include "log.h"
#include "report.h"
#include "report_file.h"
#include "syscalls.h"

extern char **environ;

void runx_run_init(struct runx_run *run, const struct runx_options *opts,
		   const sigset_t *orig_mask)
{
	run->opts = opts;
	run->orig_mask = orig_mask;
	for (int i = 0; i < 3; i++)
		run->stdio.source[i] = -1;
	run->sup = (struct runx_supervisor)RUNX_SUPERVISOR_CLOSED;
	run->stdin_fd = -1;
	runx_attempt_init_zeroed(&run->attempt, 0);
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

/*
 * The plan; 0, 125 or 126/127 (recorded in the attempt's result).  A
 * command that cannot run ends the run here, with no attempt, unless
 * --retry-on lists its status by number (runx(1), ATTEMPTS): then each
 * attempt looks for it again (resolve()).
 */
static int plan(struct runx_run *run)
{
	char err[PATH_MAX + 256];
	int e;

	if (runx_plan_make(run->opts, NULL, &run->plan, err, sizeof(err)) < 0)
		return runx_attempt_fail(&run->attempt, "%s", err);
	if ((e = run->plan.launch.resolve_errno) != 0 &&
	    !runx_retry_may_retry_status(&run->plan.attempts,
					 runx_exit_status_exec(e)))
		return runx_attempt_exec_failed(&run->attempt,
						run->plan.launch.argv[0], e);
	return 0;
}

/*
 * For an attempt of a run whose command could not run before: looks for
 * it again (runx_plan_resolve()).  0, or the attempt's 125, 126 or 127
 * (recorded in its result).
 */
static int resolve(struct runx_run *run)
{
	struct runx_launch_policy *lp = &run->plan.launch;
	char err[PATH_MAX + 256];

	if (lp->resolve_errno == 0)
		return 0;
	if (runx_plan_resolve(&run->plan, NULL, err, sizeof(err)) < 0)
		return runx_attempt_fail(&run->attempt, "%s", err);
	if (lp->resolve_errno != 0)
		return runx_attempt_exec_failed(&run->attempt, lp->argv[0],
						lp->resolve_errno);
	return 0;
}

/* True if entry ("NAME=value") sets one of the variables in set. */
static bool replaced(const char *entry, char *const *set, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strcspn(set[i], "=") + 1;

		if (strncmp(entry, set[i], len) == 0)
			return true;
	}
	return false;
}

/*
 * The command's environment: runx's own with RUNX_ATTEMPT=N (runx(1),
 * ATTEMPTS) in place of any RUNX_ATTEMPT it had, and with --user the
 * plan's HOME, USER and LOGNAME in place of runx's (IDENTITY AND
 * SETTINGS); run->attempt_var is rewritten before each attempt.  0 or
 * -ENOMEM.
 */
static int build_env(struct runx_run *run)
{
	struct runx_identity *id = &run->plan.identity;
	char *set[4] = {run->attempt_var, id->env_home, id->env_user,
			id->env_logname};
	size_t n = 0, k = 0, nset = id->set_user ? 4 : 1;

	strcpy(run->attempt_var, "RUNX_ATTEMPT=");
	while (environ[n] != NULL)
		n++;
	run->envp = n + nset + 1 <= RUNX_ENV_ROOM
			? run->env_room
			: malloc((n + nset + 1) * sizeof(*run->envp));
	if (run->envp == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (!replaced(environ[i], set, nset))
			run->envp[k++] = environ[i];
	for (size_t i = 0; i < nset; i++)
		if (set[i][strcspn(set[i], "=") + 1] != '\0' || i == 0)
			run->envp[k++] = set[i];
	run->envp[k] = NULL;
	return 0;
}

/*
 * A standard input that is a regular file (-i FILE, or fd 0 as runx got
 * it) is rewound before each attempt to the offset it had at the start
 * (lseek(2)); a pipe or a terminal is shared as it is.
 */
static void note_stdin(struct runx_run *run)
{
	int fd = run->stdio.source[0] >= 0 ? run->stdio.source[0] : 0;
	struct stat st;

	if (run->plan.attempts.max == 1)
		return; /* one attempt: nothing to rewind, no system call */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	run->stdin_offset = lseek(fd, 0, SEEK_CUR);
	if (run->stdin_offset >= 0)
		run->stdin_fd = fd;
}

/* The run's end, for the report: now. */
static void mark_end(struct runx_run *run)
{
	clock_gettime(CLOCK_REALTIME, &run->end);
	run->end_ns = runx_now_ns();
}

/*
 * A stop signal, sig, ended runx's wait before anything started (a FIFO
 * redirect's open, runx_stdio_open()): says so (why), and records it, as
 * in the wait between attempts (stop_without_command: runx then dies by sig,
 * run.h; no command ran, so the report has no exit code or signal).  128+sig.
 */
static int stopped_before(struct runx_run *run, int sig, const char *why)
{
	struct runx_result *res = &run->attempt.result;

	runx_error("%s", why);
	res->reason = RUNX_END_RUNX_SIGNALED;
	res->runx_signal = sig;
	res->stop_without_command = true;
	return res->exit_status = 128 + sig;
}

/*
 * The run's total deadline passed before anything started (a FIFO
 * redirect's open waited for its other end): says so (why), and records
 * a timeout of the run, as in the wait between attempts.  124.
 */
static int total_before(struct runx_run *run, const char *why)
{
	struct runx_result *res = &run->attempt.result;

	runx_verbose("%s", why);
	res->reason = RUNX_END_TIMEOUT;
	res->total_timeout = true;
	return res->exit_status = 124;
}

/* What lives across attempts; 0, 125 (recorded in the attempt), 124 for
 * the total deadline (total_before()), or 128+N for stop signal N
 * (stopped_before()). */
static int acquire(struct runx_run *run)
{
	struct runx_attempt *a = &run->attempt;
	const struct runx_attempts_policy *p = &run->plan.attempts;
	char err[PATH_MAX + 256];
	int r;

	/* the run's total deadline starts here: a FIFO's wait is in it */
	run->begun_ns = runx_now_ns();
	clock_gettime(CLOCK_REALTIME, &run->begun);
	if (p->total_ns != RUNX_DURATION_INF)
		run->sup.total_at = run->begun_ns + p->total_ns;
	if (runx_stdio_open(&run->plan.redirects, &run->plan.stop.stop_signals,
			    p->total_ns != RUNX_DURATION_INF ? run->sup.total_at
							     : 0,
			    &run->stdio, err, sizeof(err)) < 0) {
		mark_end(run); /* not the wait of the message for room */
		return run->stdio.stopped > 0
			   ? stopped_before(run, run->stdio.stopped, err)
		       : run->stdio.stopped < 0
			   ? total_before(run, err)
			   : runx_attempt_fail(a, "%s", err);
	}
	if ((r = runx_supervisor_open(&run->sup, &run->plan)) < 0)
		return runx_attempt_fail(a, "cannot set up the supervisor: %s",
					 strerror(-r));
	if ((r = probe_pidfd()) < 0 && r != -EMFILE && r != -ENFILE)
		return runx_attempt_fail(
		    a,
		    "pidfd_open(2) fails here: %s (runx needs Linux 5.3 or "
		    "later, and a seccomp profile that allows it)",
		    strerror(-r));
	if (build_env(run) < 0)
		return runx_attempt_fail(a, "cannot build the environment: %s",
					 strerror(ENOMEM));
	note_stdin(run);
	return 0;
}

/* What attempt number needs of the run: RUNX_ATTEMPT, stdin rewound. */
static void prepare(struct runx_run *run, int64_t number)
{
	snprintf(run->attempt_var, sizeof(run->attempt_var),
		 "RUNX_ATTEMPT=%lld", (long long)number);
	if (run->stdin_fd >= 0 &&
	    lseek(run->stdin_fd, run->stdin_offset, SEEK_SET) < 0)
		runx_verbose("cannot rewind the standard input: %s",
			     strerror(errno));
}

/*
 * Releases the run's attempt, which ended with status (returned); the
 * first attempt's start is the run's (runx(1), REPORT: start_time).
 */
static int release(struct runx_run *run, int status)
{
	struct runx_attempt *a = &run->attempt;

	if (run->start_ns == 0) {
		run->start_ns = a->result.start_ns;
		run->start = a->result.start;
	}
	return runx_attempt_release(a, status);
}

/*
 * One attempt, from its acquisition to its release; its exit status.
 * The point of no return is between acquire and start: from there on
 * nothing may fail for lack of a resource.  Every fd the supervisor and
 * the stop path need is open, and enough more are known to be free.
 */
static int attempt(struct runx_run *run, int64_t number)
{
	struct runx_attempt *a = &run->attempt;
	const struct runx_attempt_env env = {
	    .plan = &run->plan,
	    .stdio = &run->stdio,
	    .sup = &run->sup,
	    .orig_mask = run->orig_mask,
	    .envp = run->envp,
	};
	int status;

	int n = (int)(number > INT_MAX ? INT_MAX : number);
	/* the first attempt finds *a as runx_run_init() left it */
	if (n == 1)
		runx_attempt_init_zeroed(a, n);
	else
		runx_attempt_init(a, n);
	run->attempts = number;
	prepare(run, number);
	/* when it began, for one that never launches (a --retry-on=127
	 * attempt); a launch stamps it again (runx_attempt_start()) */
	a->result.start_ns = runx_now_ns();
	clock_gettime(CLOCK_REALTIME, &a->result.start);
	if ((status = resolve(run)) != 0 ||
	    (status = runx_attempt_acquire(a, &env)) != 0)
		return release(run, status);
	runx_stdio_commit(&run->stdio); /* -o, -e: truncated from here on */
	if ((status = runx_attempt_start(a, &env)) != 0)
		return release(run, status);
	status = runx_attempt_supervise(a, &env);
	return release(run, status);
}

/*
 * Keeps a copy of the attempt's result for the report: the last
 * RUNX_KEPT_ATTEMPTS in full, the oldest dropped first.  Without memory
 * for one more, the report lists fewer (attempt_count stays right).
 */
static void keep(struct runx_run *run)
{
	struct runx_result *res = &run->attempt.result;

	if (run->plan.report.path == NULL)
		return;
	clock_gettime(CLOCK_REALTIME, &res->end);
	if (res->end_ns == 0)
		res->end_ns = runx_now_ns();
	if (run->nkept == RUNX_KEPT_ATTEMPTS) {
		memmove(run->kept, run->kept + 1,
			(size_t)(run->nkept - 1) * sizeof(*run->kept));
		run->nkept--;
	} else if (run->nkept == run->kept_room) {
		int room = run->kept_room == 0 ? 4 : run->kept_room * 2;
		if (room > RUNX_KEPT_ATTEMPTS)
			room = RUNX_KEPT_ATTEMPTS;
		void *v = realloc(run->kept, (size_t)room * sizeof(*run->kept));
		if (v == NULL)
			return;
		run->kept = v;
		run->kept_room = room;
	}
	run->kept[run->nkept++] = *res;
}

/* The outcome of the attempt that ended as res, as retry.h reads it. */
static struct runx_outcome outcome_of(const struct runx_result *res)
{
	enum runx_end_reason why = res->reason;
	bool setup = why == RUNX_END_RUNX_ERROR || why == RUNX_END_EXEC_FAILED;
	bool timed_out =
	    why == RUNX_END_TIMEOUT || why == RUNX_END_IDLE_TIMEOUT;

	return (struct runx_outcome){
	    .exit_status = res->exit_status,
	    .exited = !setup && WIFEXITED(res->wait_status),
	    .code = WEXITSTATUS(res->wait_status),
	    .signal = !setup && WIFSIGNALED(res->wait_status)
			  ? WTERMSIG(res->wait_status)
			  : 0,
	    .runx_sent = timed_out || why == RUNX_END_RUNX_SIGNALED,
	    .timed_out = timed_out && !res->total_timeout,
	    .deadline = timed_out,
	    .stop_signal = why == RUNX_END_RUNX_SIGNALED ? res->runx_signal : 0,
	    .oom = res->usage.valid && res->usage.oom_kills > 0,
	    .setup_failed = setup,
	};
}

/* "5", or "inf": the attempts of the run, for -v. */
static const char *max_text(const struct runx_run *run, char *buf, size_t size)
{
	if (run->plan.attempts.max == RUNX_ATTEMPTS_INF)
		return "inf";
	snprintf(buf, size, "%lld", (long long)run->plan.attempts.max);
	return buf;
}

/*
 * Says with -v how attempt n ended and what follows (runx(1), ATTEMPTS);
 * only when a run may make more than one attempt.
 */
static void tell_end(const struct runx_run *run, int64_t n, const char *next)
{
	const struct runx_result *res = &run->attempt.result;
	char max[24], how[64], sig[32];

	if (run->plan.attempts.max <= 1)
		return;
	/* how it ended, in the words --retry-on matches: a death by a
	 * signal is not the exit status 128+N, a deadline not 124 */
	if (res->reason == RUNX_END_TIMEOUT ||
	    res->reason == RUNX_END_IDLE_TIMEOUT)
		snprintf(how, sizeof(how), "at %s (status %d)",
			 res->reason == RUNX_END_IDLE_TIMEOUT
			     ? "its idle deadline"
			 : res->total_timeout ? "the run's total deadline"
					      : "its deadline",
			 res->exit_status);
	else if (res->reason != RUNX_END_EXEC_FAILED &&
		 res->reason != RUNX_END_RUNX_ERROR &&
		 WIFSIGNALED(res->wait_status))
		snprintf(how, sizeof(how), "by %s (status %d)",
			 runx_signal_name(WTERMSIG(res->wait_status), sig,
					  sizeof(sig)),
			 res->exit_status);
	else
		snprintf(how, sizeof(how), "with exit status %d",
			 res->exit_status);
	runx_verbose("attempt %lld of %s ended %s; %s", (long long)n,
		     max_text(run, max, sizeof(max)), how, next);
}

/*
 * Attempt n, not a success, ended after the run's total deadline, which
 * passed while it was being stopped already (its grace period, or its
 * leftovers'): the run's deadline all the same, whether or not another
 * attempt would follow, as when it passes during a wait (pause_before()).
 * Returns 124.
 */
static int ended_past_total(struct runx_run *run, int64_t n)
{
	struct runx_result *res = &run->attempt.result;

	tell_end(run, n,
		 "the run's total deadline has passed: no further attempt");
	res->reason = RUNX_END_TIMEOUT;
	res->total_timeout = true;
	return res->exit_status = 124;
}

/*
 * "attempt N in WAIT" into buf: wait_ns in tenths of a second, as the
 * SPEC's example; a wait under 0.09995 s (which would read "0.1s") but
 * not 0 in tenths of a millisecond (10ms read "0.0s"); RUNX_DURATION_INF
 * (--retry-delay=inf with no max) as "inf".  Rounded half up, in whole
 * numbers (150ms reads "0.2s"; a double's 0.15 is below it, "0.1s").
 * Returns buf.
 */
static const char *next_attempt(int64_t n, int64_t wait_ns, char *buf,
				size_t size)
{
	bool short_wait = wait_ns != 0 && wait_ns < 99950000;
	int64_t tenth = short_wait ? 100000 : 100000000; /* ns */
	int64_t t = wait_ns / tenth + (wait_ns % tenth >= tenth / 2);

	if (wait_ns == RUNX_DURATION_INF)
		snprintf(buf, size, "attempt %lld in inf", (long long)n);
	else
		snprintf(buf, size, "attempt %lld in %lld.%lld%s", (long long)n,
			 (long long)(t / 10), (long long)(t % 10),
			 short_wait ? "ms" : "s");
	return buf;
}

/*
 * After attempt n that ended with status: -1 and the wait in *wait_ns
 * (ns) for another attempt, or the run's exit status.
 */
static int decide(struct runx_run *run, int64_t n, int status, int64_t *wait_ns)
{
	const struct runx_attempts_policy *p = &run->plan.attempts;
	struct runx_result *res = &run->attempt.result;
	const struct runx_outcome o = outcome_of(res);
	char next[160];

	if (res->unverified || res->unkillable > 0) {
		/* the promise: nothing of this attempt alive at the next */
		tell_end(run, n,
			 "its scope is not verified empty: no further "
			 "attempt");
		return status;
	}
	enum runx_verdict verdict = runx_retry_verdict(p, &o);
	/* told to stop: no further attempt, but an outcome of the command's
	 * own that --success-exit lists is still a success (a --foreground
	 * command that took the terminal's Ctrl-C; leftovers stopped) */
	if (((res->reason == RUNX_END_RUNX_SIGNALED && !res->forwarded_death) ||
	     res->told_to_stop != 0 || res->total_timeout) &&
	    verdict != RUNX_VERDICT_SUCCESS) {
		tell_end(run, n,
			 res->total_timeout ? "no further attempt"
					    : "runx was told to stop");
		return status;
	}
	if (verdict != RUNX_VERDICT_SUCCESS &&
	    runx_now_ns() >= run->sup.total_at)
		return ended_past_total(run, n);
	switch (verdict) {
	case RUNX_VERDICT_SUCCESS:
		tell_end(run, n, "a success: runx exits 0");
		return res->exit_status = 0;
	case RUNX_VERDICT_END:
		if (status >= 125 && status <= 127 &&
		    !runx_retry_may_retry_status(p, status))
			snprintf(next, sizeof(next),
				 "not retried (%d only when --retry-on lists "
				 "it)",
				 status);
		else
			snprintf(next, sizeof(next),
				 "not retried (--retry-on=%s)",
				 p->retry_on_text != NULL ? p->retry_on_text
							  : "failure");
		tell_end(run, n, next);
		return status;
	case RUNX_VERDICT_RETRY:
		break;
	}
	if (n >= p->max) {
		tell_end(run, n, "no attempt left");
		return status;
	}
	*wait_ns = runx_retry_wait_ns(p, n, runx_between_random());
	tell_end(run, n, next_attempt(n + 1, *wait_ns, next, sizeof(next)));
	return -1;
}

/*
 * The wait of wait_ns (ns) before attempt next: -1 to go on, or the run's
 * exit status: 124 when the total deadline passes first, 128+N for stop
 * signal N (recorded as a death by N: runx then dies by it, run.h).
 */
static int pause_before(struct runx_run *run, int64_t next, int64_t wait_ns)
{
	struct runx_result *res = &run->attempt.result;
	int64_t until = runx_now_ns();

	until = wait_ns > RUNX_DURATION_INF - until ? RUNX_DURATION_INF
						    : until + wait_ns;
	if (run->sup.total_at < until)
		until = run->sup.total_at;
	int r = runx_between_wait(&run->sup, &run->plan.stop.stop_signals,
				  until, next);
	if (r > 0) {
		res->reason = RUNX_END_RUNX_SIGNALED;
		res->runx_signal = r;
		res->stop_without_command = true; /* the report keeps the last
						   * command's end */
		return res->exit_status = 128 + r;
	}
	if (r < 0)
		runx_error("the wait before attempt %lld failed: %s",
			   (long long)next, strerror(-r));
	if (r < 0 || runx_now_ns() >= run->sup.total_at) {
		if (r == 0)
			runx_verbose("total deadline of the run reached during "
				     "the wait before attempt %lld",
				     (long long)next);
		res->reason = r < 0 ? RUNX_END_RUNX_ERROR : RUNX_END_TIMEOUT;
		res->total_timeout = r == 0;
		return res->exit_status = r < 0 ? RUNX_EXIT_FAILED : 124;
	}
	return -1;
}

/* The attempts, each after the one before was released; the status. */
static int run_attempts(struct runx_run *run)
{
	for (int64_t n = 1;; n++) {
		int64_t wait_ns = 0;
		int status = attempt(run, n);

		if (n == 1 && status == RUNX_EXIT_FAILED &&
		    (!run->attempt.result.launched ||
		     run->attempt.child.scope_failed) &&
		    !runx_retry_may_retry_status(&run->plan.attempts, status)) {
			/* runx failed before it launched the command (its
			 * scope or PID namespace could not be set up), and
			 * --retry-on does not list 125: no attempt to count
			 * (runx(1), ATTEMPTS).  A launch that failed (no
			 * process could be made, or a step of the child's
			 * own: setgroups, --chdir) is attempt 1, and so is
			 * a command that exited 125 itself. */
			run->attempts = 0;
			return status;
		}
		keep(run);
		if ((status = decide(run, n, status, &wait_ns)) >= 0 ||
		    (status = pause_before(run, n + 1, wait_ns)) >= 0)
			return status;
	}
}

/* What could not write the report to path (err, -errno), for a message:
 * strerror(3), and what it means where that is not plain. */
static const char *report_failure(const char *path, int err, char *buf,
				  size_t size)
{
	struct stat st;
	const char *why = "";
	uid_t owner;
	enum runx_link_refusal link =
	    err == -EACCES ? runx_report_refused_link(path, &owner)
			   : RUNX_LINK_FOLLOWED;

	if (link == RUNX_LINK_FOREIGN)
		why = " (a symbolic link of another user, made during the "
		      "run, which runx does not follow)";
	else if (link == RUNX_LINK_OTHER_FD)
		why = " (a link on /proc that is not one of runx's own "
		      "file descriptors, which runx does not follow)";
	else if (err == -EAGAIN)
		why = " (its reader did not take all of it within the 5 s "
		      "that runx waits for a reader)";
	else if (err == -ENXIO && stat(path, &st) == 0 && S_ISFIFO(st.st_mode))
		why = " (a FIFO that nobody has open for reading)";
	snprintf(buf, size, "%s%s", strerror(-err), why);
	return buf;
}

/*
 * Writes the report of the run (--report), whose last attempt is a: the
 * top-level fields for the run as a whole (its start, its end) and its
 * last attempt, and the kept attempts.
 */
static void report(struct runx_run *run, struct runx_attempt *a)
{
	struct runx_result *res = &a->result;
	const struct runx_report_attempts kept = {run->kept, run->nkept,
						  run->attempts};
	char q[RUNX_QUOTE_SIZE], why[128];

	if (run->plan.report.path == NULL)
		return;
	if (run->end_ns == 0)
		mark_end(run);
	res->end = run->end;
	if (run->start_ns != 0) {
		res->start = run->start;
		res->start_ns = run->start_ns;
	} else if (run->begun_ns != 0) { /* no attempt: a FIFO's wait */
		res->start = run->begun;
		res->start_ns = run->begun_ns;
	}
	if (res->start.tv_sec == 0)
		res->start = res->end;
	res->end_ns = run->end_ns;
	int r =
	    runx_report_write(run->plan.report.path, &run->plan, res, &kept);
	if (r < 0)
		runx_error(
		    "cannot write the report '%s': %s",
		    runx_quote(run->plan.report.path, q, sizeof(q)),
		    report_failure(run->plan.report.path, r, why, sizeof(why)));
}

int runx_run(struct runx_run *run)
{
	int status;
	bool tell_status;

	if ((status = plan(run)) == 0 && (status = acquire(run)) == 0) {
		/* from here no line waits for room on stderr until the end */
		runx_log_defer();
		status = run_attempts(run);
		mark_end(run); /* not the wait below, which is runx's */
		runx_log_end();
		/* a scope that could not be had is a refusal too (no attempt
		 * counted): its one line only */
		tell_status = run->attempts > 0 || status != RUNX_EXIT_FAILED;
	} else {
		/* the lines a FIFO's wait held (job control: stop_self() in
		 * redirect.c), written now */
		runx_log_end();
		/* a command not found or not runnable (126, 127), found
		 * before the launch, ends like one execve(2) refused; a
		 * refusal (125) stays one line */
		tell_status =
		    run->attempt.result.reason == RUNX_END_EXEC_FAILED;
		runx_attempt_release(&run->attempt, status);
	}
	/* refused before the point of no return: the files as they were */
	runx_stdio_discard(&run->stdio);
	runx_supervisor_close(&run->sup);
	report(run, &run->attempt);
	/* the last line, after a report that could not be written */
	if (tell_status)
		runx_verbose("exiting with status %d", status);
	if (run->envp != run->env_room)
		free(run->envp);
	free(run->kept);
	run->envp = NULL;
	run->kept = NULL;
	return status;
}

int runx_run_death_signal(const struct runx_run *run)
{
	return runx_death_signal(&run->attempt.result);
}
