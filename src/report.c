/* The JSON report (--report), written with runx's own json.h. */
#include "config.h"

#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "duration.h"
#include "clock.h"
#include "json.h"
#include "report_file.h"
#include "log.h"
#include "signals.h"
#include "utf8.h"

/* Why the run ended, beyond enum runx_end_reason. */
enum runx_report_reason {
	RUNX_REPORT_SUPERVISED,	 /* see result->reason */
	RUNX_REPORT_EXEC_FAILED, /* the command could not be executed */
	RUNX_REPORT_RUNX_ERROR,	 /* runx itself failed (exit 125) */
};

/* What the report shows, gathered from the plan and the result. */
struct runx_report {
	const struct runx_plan *plan;
	enum runx_report_reason kind;
	const char *scope; /* scope actually used ("group", ...) */
	const char
	    *scope_where;      /* "process group 123", a cgroup path; or NULL */
	const char *backend;   /* launch backend used, or NULL */
	pid_t pid;	       /* the command's pid, 0 if none ran */
	struct timespec start; /* CLOCK_REALTIME at start */
	struct timespec end;   /* CLOCK_REALTIME at end */
	int64_t wall_ns;       /* CLOCK_MONOTONIC end - start, ns */
	const struct runx_result *result;      /* with RUNX_REPORT_SUPERVISED */
	const struct runx_cgroup_usage *usage; /* the job's cgroup's figures */
	int exec_errno;	   /* with RUNX_REPORT_EXEC_FAILED */
	const char *error; /* message, or NULL */
	int exit_status;   /* runx's exit status */
	const struct runx_report_attempts *attempts; /* or NULL */
};

/* key: a CLOCK_REALTIME time as RFC 3339 UTC. */
static void put_time(struct runx_json *j, const char *key,
		     const struct timespec *ts)
{
	char text[64];

	runx_json_key(j, key);
	runx_json_string(j, runx_rfc3339(ts, text, sizeof(text)));
}

/* key: the string s (bytes; bad UTF-8 becomes U+FFFD), null if NULL. */
static void put_string(struct runx_json *j, const char *key, const char *s)
{
	runx_json_key(j, key);
	runx_json_string(j, s);
}

/* key: the integer v. */
static void put_int(struct runx_json *j, const char *key, int64_t v)
{
	runx_json_key(j, key);
	runx_json_int(j, v);
}

/* key: v if it is not 0, else null (pid, exec_errno). */
static void put_int_or_null(struct runx_json *j, const char *key, int64_t v)
{
	runx_json_key(j, key);
	if (v != 0)
		runx_json_int(j, v);
	else
		runx_json_null(j);
}

/* key: ns nanoseconds as seconds (a real), null if RUNX_DURATION_INF. */
static void put_duration(struct runx_json *j, const char *key, int64_t ns)
{
	runx_json_key(j, key);
	if (ns == RUNX_DURATION_INF)
		runx_json_null(j);
	else
		runx_json_seconds_ns(j, ns);
}

/* key: the name of signal sig ("SIGTERM"; "0" for -s 0). */
static void put_signal(struct runx_json *j, const char *key, int sig)
{
	char name[32];

	runx_json_key(j, key);
	runx_json_string(j, runx_signal_name(sig, name, sizeof(name)));
}

/* key: the name of signal sig if the run has one (have), else null. */
static void put_signal_if(struct runx_json *j, const char *key, bool have,
			  int sig)
{
	if (have) {
		put_signal(j, key, sig);
		return;
	}
	runx_json_key(j, key);
	runx_json_null(j);
}

/* key: the timeval tv as seconds (a real). */
static void put_timeval(struct runx_json *j, const char *key,
			const struct timeval *tv)
{
	runx_json_key(j, key);
	runx_json_seconds_us(j, tv->tv_sec, tv->tv_usec);
}

/* The "reason" string for a report ("exited", "timeout", ...). */
static const char *reason_name(const struct runx_report *r)
{
	static const char *const names[] = {
	    [RUNX_END_EXITED] = "exited",
	    [RUNX_END_SIGNALED] = "signaled",
	    [RUNX_END_TIMEOUT] = "timeout",
	    [RUNX_END_IDLE_TIMEOUT] = "idle_timeout",
	    [RUNX_END_RUNX_SIGNALED] = "runx_signaled",
	};

	if (r->kind == RUNX_REPORT_EXEC_FAILED)
		return "exec_failed";
	if (r->kind == RUNX_REPORT_RUNX_ERROR || r->result == NULL)
		return "runx_error";
	if (r->result->total_timeout)
		return "total_timeout";
	return names[r->result->reason];
}

/*
 * signals_sent: one object per signal runx sent and listed
 * (signal_log.h), in order; signals_omitted: how many it did not list.
 */
static void put_signals_sent(struct runx_json *j, const struct runx_report *r)
{
	const struct runx_signal_log *log =
	    r->result != NULL ? &r->result->signals : NULL;
	int n = log != NULL ? runx_signal_log_listed(log) : 0;
	char command[48];

	/* the command's pid, as the report's pid: with pidns the init's
	 * child, which --forward-to=child signals */
	snprintf(command, sizeof(command), "command (pid %d)", (int)r->pid);
	runx_json_key(j, "signals_sent");
	runx_json_begin_array(j);
	for (int i = 0; i < n; i++) {
		const struct runx_signal_event *e = runx_signal_log_at(log, i);

		runx_json_begin_object(j);
		runx_json_key(j, "time");
		runx_json_seconds_ns(j, e->offset_ns);
		put_signal(j, "signal", e->signo);
		put_string(j, "scope",
			   e->to_command ? command : r->scope_where);
		put_int(j, "processes", e->reached);
		runx_json_end_object(j);
	}
	runx_json_end_array(j);
	put_int(j, "signals_omitted",
		log != NULL ? runx_signal_log_omitted(log) : 0);
}

/* One named process: {pid, age, argv, argv_truncated} (argv split at its
 * NULs; truncated: the command line had more than its first 512 bytes). */
static void put_named_proc(struct runx_json *j,
			   const struct runx_named_proc *np)
{
	runx_json_begin_object(j);
	put_int(j, "pid", np->pid);
	runx_json_key(j, "age");
	runx_json_seconds_ns(j, np->age_ns);
	runx_json_key(j, "argv");
	runx_json_begin_array(j);
	/* each argument ends with its NUL, but a cut one or a rewritten
	 * title ("a\0\0" is "a" and ""); a cut leaves no part of a UTF-8
	 * character (which would read as U+FFFD per byte) */
	size_t n = np->argv_cut ? runx_utf8_whole_prefix(np->argv, np->argv_len)
				: np->argv_len;
	for (size_t at = 0; at < n;) {
		const char *arg = np->argv + at;
		size_t len = strnlen(arg, n - at);
		runx_json_stringn(j, arg, len);
		at += len + 1;
	}
	runx_json_end_array(j);
	runx_json_key(j, "argv_truncated");
	runx_json_bool(j, np->argv_cut);
	runx_json_end_object(j);
}

/* The processes alive at a moment of the stop: {count, processes} or null. */
static void put_named(struct runx_json *j, const char *key,
		      const struct runx_named *named)
{
	runx_json_key(j, key);
	if (named == NULL || !named->taken) {
		runx_json_null(j);
		return;
	}
	runx_json_begin_object(j);
	put_int(j, "count", named->count);
	runx_json_key(j, "processes");
	runx_json_begin_array(j);
	for (int i = 0; i < named->n; i++)
		put_named_proc(j, &named->v[i]);
	runx_json_end_array(j);
	runx_json_end_object(j);
}

/* The fields describing how the command ended and what runx sent. */
static void put_outcome(struct runx_json *j, const struct runx_report *r)
{
	const struct runx_result *res = r->result;
	/* a run stopped before its first command (a FIFO's open) has none */
	bool ran = res != NULL && res->launched;
	int status = ran ? res->wait_status : 0;

	runx_json_key(j, "exit_code");
	if (ran && WIFEXITED(status))
		runx_json_int(j, WEXITSTATUS(status));
	else
		runx_json_null(j);
	put_signal_if(j, "signal", ran && WIFSIGNALED(status),
		      WTERMSIG(status));
	put_signal_if(j, "runx_signal", res != NULL && res->runx_signal != 0,
		      res != NULL ? res->runx_signal : 0);
	put_signals_sent(j, r);
	put_int(j, "leftovers_stopped", res != NULL ? res->leftovers : 0);
	put_int(j, "killed_after_grace", res != NULL ? res->killed : 0);
	put_named(j, "alive_at_deadline",
		  res != NULL ? &res->at_deadline : NULL);
	put_named(j, "alive_after_grace",
		  res != NULL ? &res->after_grace : NULL);
}

/* rusage: every child runx waited for, orphans it reaped included. */
static void put_rusage(struct runx_json *j)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		memset(&ru, 0, sizeof(ru));
	runx_json_key(j, "rusage");
	runx_json_begin_object(j);
	put_timeval(j, "user_cpu", &ru.ru_utime);
	put_timeval(j, "system_cpu", &ru.ru_stime);
	put_int(j, "max_rss_kib", ru.ru_maxrss);
	runx_json_end_object(j);
}

/* key: v if it is not negative, else null (a figure the kernel lacks). */
static void put_count(struct runx_json *j, const char *key, int64_t v)
{
	runx_json_key(j, key);
	if (v >= 0)
		runx_json_int(j, v);
	else
		runx_json_null(j);
}

/* The job's cgroup's own figures; null without a cgroup or a file. */
static void put_cgroup_usage(struct runx_json *j, const struct runx_report *r)
{
	static const struct runx_cgroup_usage none = {false, -1, -1, -1, -1};
	const struct runx_cgroup_usage *u =
	    r->usage != NULL && r->usage->valid ? r->usage : &none;

	put_count(j, "memory_peak", u->memory_peak);
	runx_json_key(j, "cpu_time");
	if (u->cpu_usec >= 0)
		runx_json_seconds_us(j, u->cpu_usec / 1000000,
				     (long)(u->cpu_usec % 1000000));
	else
		runx_json_null(j);
	put_count(j, "pids_peak", u->pids_peak);
	put_count(j, "oom_kills", u->oom_kills);
}

static void gather(const struct runx_plan *plan, const struct runx_result *res,
		   struct runx_report *r);

/* One kept attempt, number n, as an object of "attempts". */
static void put_attempt(struct runx_json *j, const struct runx_plan *plan,
			const struct runx_result *res, int64_t n)
{
	struct runx_report r;

	gather(plan, res, &r);
	runx_json_begin_object(j);
	put_int(j, "attempt", n);
	put_int_or_null(j, "pid", r.pid > 0 ? r.pid : 0);
	put_string(j, "scope_target", r.scope_where);
	put_time(j, "start_time", &r.start);
	put_time(j, "end_time", &r.end);
	runx_json_key(j, "wall_time");
	runx_json_seconds_ns(j, r.wall_ns);
	put_string(j, "reason", reason_name(&r));
	put_int(j, "exit_status", r.exit_status);
	put_outcome(j, &r);
	put_string(j, "error", r.error);
	put_cgroup_usage(j, &r);
	runx_json_end_object(j);
}

/* attempt_count, and attempts: the kept ones, oldest first. */
static void put_attempts(struct runx_json *j, const struct runx_report *r)
{
	const struct runx_report_attempts *a = r->attempts;

	put_int(j, "attempt_count", a != NULL ? a->count : 0);
	runx_json_key(j, "attempts");
	runx_json_begin_array(j);
	for (int i = 0; a != NULL && i < a->n; i++)
		put_attempt(j, r->plan, &a->v[i], a->count - a->n + i + 1);
	runx_json_end_array(j);
}

/* The report's text (heap, ends with a newline) in *text; 0 or -ENOMEM. */
static int build(const struct runx_report *r, char **text, size_t *len)
{
	const struct runx_stop_policy *stop = &r->plan->stop;
	struct runx_json j;

	runx_json_init(&j);
	runx_json_begin_object(&j);
	put_string(&j, "runx_version", PACKAGE_VERSION);
	runx_json_key(&j, "command");
	runx_json_begin_array(&j);
	for (char *const *a = r->plan->launch.argv; *a != NULL; a++)
		runx_json_string(&j, *a);
	runx_json_end_array(&j);
	put_int_or_null(&j, "pid", r->pid > 0 ? r->pid : 0);
	put_string(&j, "scope", r->scope);
	put_string(&j, "scope_target", r->scope_where);
	put_string(&j, "backend", r->backend);
	put_duration(&j, "timeout", stop->deadline_ns);
	put_duration(&j, "idle_timeout", stop->idle_deadline_ns);
	put_duration(&j, "grace", stop->grace_ns);
	put_signal(&j, "first_signal", stop->first_signal);
	put_time(&j, "start_time", &r->start);
	put_time(&j, "end_time", &r->end);
	runx_json_key(&j, "wall_time");
	runx_json_seconds_ns(&j, r->wall_ns);
	put_string(&j, "reason", reason_name(r));
	put_int(&j, "exit_status", r->exit_status);
	put_outcome(&j, r);
	put_string(&j, "error", r->error);
	put_int_or_null(&j, "exec_errno", r->exec_errno);
	put_rusage(&j);
	put_cgroup_usage(&j, r);
	put_attempts(&j, r);
	runx_json_end_object(&j);
	return runx_json_finish(&j, text, len);
}

/* Gathers the report's view of the run from the plan and the result. */
static void gather(const struct runx_plan *plan, const struct runx_result *res,
		   struct runx_report *r)
{
	memset(r, 0, sizeof(*r));
	r->plan = plan;
	r->kind = res->reason == RUNX_END_EXEC_FAILED  ? RUNX_REPORT_EXEC_FAILED
		  : res->reason == RUNX_END_RUNX_ERROR ? RUNX_REPORT_RUNX_ERROR
						       : RUNX_REPORT_SUPERVISED;
	r->scope = runx_scope_kind_name(plan->scope.kind);
	r->scope_where = res->scope_where[0] ? res->scope_where : NULL;
	r->backend = res->launched ? runx_launch_kind_name(res->backend) : NULL;
	r->pid = res->command_pid > 0 ? res->command_pid : res->pid;
	r->start = res->start;
	r->end = res->end;
	r->wall_ns = res->start_ns ? res->end_ns - res->start_ns : 0;
	r->result = r->kind == RUNX_REPORT_SUPERVISED ? res : NULL;
	r->usage = &res->usage;
	r->exec_errno = res->exec_errno;
	r->error = res->error[0] ? res->error : NULL;
	r->exit_status = res->exit_status;
}

/* Writes the report r to path (see runx_report_write). */
static int write_report(const char *path, const struct runx_report *r)
{
	char *text;
	size_t len;
	int ret = build(r, &text, &len);

	if (ret < 0)
		return ret;
	ret = runx_report_deliver(path, text, len);
	free(text);
	return ret;
}

int runx_report_write(const char *path, const struct runx_plan *plan,
		      const struct runx_result *res,
		      const struct runx_report_attempts *attempts)
{
	struct runx_report view;

	gather(plan, res, &view);
	view.attempts = attempts;
	return write_report(path, &view);
}

/* bytes as "24 MiB" where it is a whole number of KiB, MiB, ...; else B. */
static void format_size(int64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
	int unit = -1;

	while (unit < 3 && bytes >= 1024 && bytes % 1024 == 0) {
		bytes /= 1024;
		unit++;
	}
	if (unit < 0)
		snprintf(buf, size, "%lld bytes", (long long)bytes);
	else
		snprintf(buf, size, "%lld %s", (long long)bytes, units[unit]);
}

void runx_report_tell_usage(const struct runx_scope_policy *scope,
			    const struct runx_cgroup_usage *u)
{
	char limit[64], why[96] = "";

	if (!u->valid || u->oom_kills <= 0)
		return;
	if (scope->has_limits && scope->limits.memory_max >= 0) {
		format_size(scope->limits.memory_max, limit, sizeof(limit));
		snprintf(why, sizeof(why), " (memory.max %s reached)", limit);
	}
	runx_verbose("the kernel's OOM killer ended %lld process%s of the "
		     "job%s",
		     (long long)u->oom_kills, u->oom_kills == 1 ? "" : "es",
		     why);
}
