/* The JSON report, built with jansson. */
#include "config.h"

#include "report.h"


#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "duration.h"
#include "signals.h"

/* Why the run ended, beyond enum runx_end_reason. */
enum runx_report_reason {
	RUNX_REPORT_SUPERVISED,  /* see result->reason */
	RUNX_REPORT_EXEC_FAILED, /* the command could not be executed */
	RUNX_REPORT_RUNX_ERROR,  /* runx itself failed (exit 125) */
};

/* What the report shows, gathered from the plan and the result. */
struct runx_report {
	const struct runx_options *opts;
	enum runx_report_reason kind;
	const char *scope;       /* scope actually used ("group", ...) */
	const char *scope_where; /* "process group 123", a cgroup path; or NULL */
	const char *backend;     /* launch backend used, or NULL */
	pid_t pid;               /* the command's pid, 0 if none ran */
	struct timespec start;   /* CLOCK_REALTIME at start */
	struct timespec end;     /* CLOCK_REALTIME at end */
	int64_t wall_ns;         /* CLOCK_MONOTONIC end - start, ns */
	const struct runx_result *result; /* with RUNX_REPORT_SUPERVISED */
	int exec_errno;                   /* with RUNX_REPORT_EXEC_FAILED */
	const char *error;                /* message, or NULL */
	int exit_status;                  /* runx's exit status */
};

/* Length of the UTF-8 sequence a lead byte starts, 0 if it cannot lead. */
static size_t utf8_length(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		return 2;
	if (c >= 0xE0 && c <= 0xEF)
		return 3;
	if (c >= 0xF0 && c <= 0xF4)
		return 4;
	return 0;
}

/* A JSON string of s; invalid UTF-8 bytes become U+FFFD (jansson checks). */
static json_t *lossy_string(const char *s)
{
	json_t *j = json_string(s);

	if (j != NULL)
		return j;
	size_t n = strlen(s), out = 0;
	char *buf = malloc(n * 3 + 1);
	if (buf == NULL)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_length((unsigned char)s[i]);
		json_t *one = len > 0 && i + len <= n
				      ? json_stringn(s + i, len)
				      : NULL;
		if (one != NULL) {
			memcpy(buf + out, s + i, len);
			out += len;
			i += len;
			json_decref(one);
		} else {
			memcpy(buf + out, "\xEF\xBF\xBD", 3);
			out += 3;
			i++;
		}
	}
	j = json_stringn(buf, out);
	free(buf);
	return j;
}

/* RFC 3339 UTC with microseconds: 2026-11-30T23:45:13.123456Z. */
static json_t *rfc3339(const struct timespec *ts)
{
	struct tm tm;
	char text[64];

	gmtime_r(&ts->tv_sec, &tm);
	size_t n = strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(text + n, sizeof(text) - n, ".%06ldZ", ts->tv_nsec / 1000);
	return json_string(text);
}

static json_t *seconds(int64_t ns)
{
	return json_real((double)ns / 1e9);
}

static json_t *duration_or_null(int64_t ns)
{
	return ns == RUNX_DURATION_INF ? json_null() : seconds(ns);
}

static json_t *signal_string(int sig)
{
	char name[32];
	return json_string(runx_signal_name(sig, name, sizeof(name)));
}

static json_t *timeval_seconds(const struct timeval *tv)
{
	return json_real((double)tv->tv_sec + (double)tv->tv_usec / 1e6);
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
	return names[r->result->reason];
}

/* The fields describing how the command ended and what runx sent. */
static void add_outcome(json_t *o, const struct runx_report *r)
{
	const struct runx_result *res = r->result;
	json_t *signals = json_array();

	json_object_set_new(o, "exit_code", json_null());
	json_object_set_new(o, "signal", json_null());
	if (res != NULL && WIFEXITED(res->wait_status))
		json_object_set_new(o, "exit_code",
				    json_integer(WEXITSTATUS(res->wait_status)));
	if (res != NULL && WIFSIGNALED(res->wait_status))
		json_object_set_new(o, "signal",
				    signal_string(WTERMSIG(res->wait_status)));
	json_object_set_new(o, "runx_signal",
			    res != NULL && res->runx_signal != 0
				    ? signal_string(res->runx_signal)
				    : json_null());
	for (int i = 0; res != NULL && i < res->nsignals; i++) {
		const struct runx_signal_event *e = &res->signals[i];
		json_array_append_new(
			signals,
			json_pack("{s:o, s:o, s:s?, s:i}", "time",
				  seconds(e->offset_ns), "signal",
				  signal_string(e->signo), "scope",
				  r->scope_where, "processes", e->reached));
	}
	json_object_set_new(o, "signals_sent", signals);
	json_object_set_new(o, "leftovers_stopped",
			    json_integer(res != NULL ? res->leftovers : 0));
	json_object_set_new(o, "killed_after_grace",
			    json_integer(res != NULL ? res->killed : 0));
}

static json_t *build(const struct runx_report *r)
{
	const struct runx_options *opts = r->opts;
	json_t *o = json_object(), *argv = json_array();
	struct rusage ru;

	for (char **a = opts->command; *a != NULL; a++)
		json_array_append_new(argv, lossy_string(*a));
	json_object_set_new(o, "runx_version", json_string(PACKAGE_VERSION));
	json_object_set_new(o, "command", argv);
	json_object_set_new(o, "pid",
			    r->pid > 0 ? json_integer(r->pid) : json_null());
	json_object_set_new(o, "scope", json_string(r->scope));
	json_object_set_new(o, "scope_target",
			    r->scope_where ? lossy_string(r->scope_where)
					   : json_null());
	json_object_set_new(o, "backend",
			    r->backend ? json_string(r->backend) : json_null());
	json_object_set_new(o, "timeout", duration_or_null(opts->timeout_ns));
	json_object_set_new(o, "idle_timeout",
			    duration_or_null(opts->idle_timeout_ns));
	json_object_set_new(o, "grace", duration_or_null(opts->grace_ns));
	json_object_set_new(o, "first_signal",
			    signal_string(opts->first_signal));
	json_object_set_new(o, "start_time", rfc3339(&r->start));
	json_object_set_new(o, "end_time", rfc3339(&r->end));
	json_object_set_new(o, "wall_time", seconds(r->wall_ns));
	json_object_set_new(o, "reason",
			    json_string(reason_name(r)));
	json_object_set_new(o, "exit_status", json_integer(r->exit_status));
	add_outcome(o, r);
	json_object_set_new(o, "error",
			    r->error ? lossy_string(r->error) : json_null());
	json_object_set_new(o, "exec_errno",
			    r->exec_errno ? json_integer(r->exec_errno)
					  : json_null());
	/* every child runx waited for, orphans it reaped included */
	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		memset(&ru, 0, sizeof(ru));
	json_object_set_new(
		o, "rusage",
		json_pack("{s:o, s:o, s:I}", "user_cpu",
			  timeval_seconds(&ru.ru_utime), "system_cpu",
			  timeval_seconds(&ru.ru_stime), "max_rss_kib",
			  (json_int_t)ru.ru_maxrss));
	return o;
}

/* Writes text to fd completely; -errno on failure. */
static int write_all(int fd, const char *text, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, text, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Gathers the report's view of the run from the plan and the result. */
static void gather(const struct runx_plan *plan, const struct runx_result *res,
		   struct runx_report *r)
{
	memset(r, 0, sizeof(*r));
	r->opts = plan->opts;
	r->kind = res->reason == RUNX_END_EXEC_FAILED ? RUNX_REPORT_EXEC_FAILED
		  : res->reason == RUNX_END_RUNX_ERROR ? RUNX_REPORT_RUNX_ERROR
						       : RUNX_REPORT_SUPERVISED;
	r->scope = runx_scope_kind_name(plan->scope);
	r->scope_where = res->scope_where[0] ? res->scope_where : NULL;
	r->backend = res->launched ? runx_launch_kind_name(plan->backend) : NULL;
	r->pid = res->pid;
	r->start = res->start;
	r->end = res->end;
	r->wall_ns = res->start_ns ? res->end_ns - res->start_ns : 0;
	r->result = r->kind == RUNX_REPORT_SUPERVISED ? res : NULL;
	r->exec_errno = res->exec_errno;
	r->error = res->error[0] ? res->error : NULL;
	r->exit_status = res->exit_status;
}

/* Writes the report r to path (see runx_report_write). */
static int write_report(const char *path, const struct runx_report *r)
{
	json_t *o = build(r);
	char *text = o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
					      JSON_REAL_PRECISION(9))
		       : NULL;
	char tmp[PATH_MAX];
	int fd, ret;

	json_decref(o);
	if (text == NULL)
		return -ENOMEM;
	size_t len = strlen(text);
	text[len++] = '\n'; /* json_dumps leaves room: replace the NUL */
	if (strcmp(path, "-") == 0) {
		ret = write_all(STDERR_FILENO, text, len);
		free(text);
		return ret;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		free(text);
		return -ENAMETOOLONG;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		free(text);
		return -errno;
	}
	ret = write_all(fd, text, len);
	free(text);
	/* mkstemp makes 0600; a report is as readable as any output file */
	mode_t mask = umask(0);
	umask(mask);
	if (ret == 0 && fchmod(fd, 0666 & ~mask) < 0)
		ret = -errno;
	if (ret == 0 && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	if (ret == 0 && rename(tmp, path) < 0)
		ret = -errno;
	if (ret < 0)
		unlink(tmp);
	return ret;
}

int runx_report_write(const char *path, const struct runx_plan *plan,
		      const struct runx_result *res)
{
	struct runx_report view;

	gather(plan, res, &view);
	return write_report(path, &view);
}
