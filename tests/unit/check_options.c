/* Unit tests of src/options.h: the runx(1) command line. */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "duration.h"
#include "options.h"
#include "sigmask.h"

#define SEC	 INT64_C(1000000000)
#define MAX_ARGS 24

/* The argv of the last parse: "runx", the given words, NULL. */
static char *argv_buf[MAX_ARGS + 2];
static int argc_buf;
static char err[512];
static char shown[512]; /* the words, for failure messages */

/* Builds argv from words (NULL-terminated, at most MAX_ARGS) and parses. */
static enum runx_parse_result parse_words(const char *const *words,
					  struct runx_options *opts)
{
	size_t len = 0;

	argc_buf = 0;
	argv_buf[argc_buf++] = (char *)"runx";
	shown[0] = '\0';
	for (; *words != NULL; words++) {
		ck_assert_int_lt(argc_buf, MAX_ARGS + 1);
		argv_buf[argc_buf++] = (char *)*words;
		len += (size_t)snprintf(shown + len, sizeof(shown) - len,
					" '%s'", *words);
		ck_assert_uint_lt(len, sizeof(shown));
	}
	argv_buf[argc_buf] = NULL;
	memset(err, 'X', sizeof(err)); /* no stale "" to hide a missing one */
	err[sizeof(err) - 1] = '\0';
	memset(opts, 0x5a, sizeof(*opts)); /* every field must be set */
	return runx_options_parse(argc_buf, argv_buf, opts, err, sizeof(err));
}

/* The defaults SPEC.md gives, written out independently of options.c. */
static struct runx_options spec_defaults(void)
{
	struct runx_options o;

	memset(&o, 0, sizeof(o));
	o.timeout_ns = RUNX_DURATION_INF;
	o.grace_ns = 5 * SEC;
	o.idle_timeout_ns = RUNX_DURATION_INF;
	o.first_signal = SIGTERM;
	o.preserve_status = false;
	o.scope = RUNX_SCOPE_GROUP;
	o.foreground = false;
	o.wait_all = false;
	o.launch = RUNX_LAUNCH_DEFAULT;
	o.close_fds = false;
	o.stdin_path = NULL;
	o.stdout_path = NULL;
	o.stderr_path = NULL;
	o.append = false;
	o.merge = false;
	o.verbose = false;
	o.report_path = NULL;
	o.command = NULL;
	sigemptyset(&o.stop_signals);
	sigaddset(&o.stop_signals, SIGTERM);
	sigaddset(&o.stop_signals, SIGINT);
	o.memory_max = -1;
	o.pids_max = -1;
	o.cpu_max_quota_us = 0;
	o.cpu_max_period_us = 0;
	return o;
}

static void expect_same_path(const char *field, const char *got,
			     const char *want)
{
	if (want == NULL)
		ck_assert_msg(got == NULL, "for%s: %s is '%s', want NULL",
			      shown, field, got);
	else
		ck_assert_msg(got != NULL && strcmp(got, want) == 0,
			      "for%s: %s is '%s', want '%s'", shown, field,
			      got != NULL ? got : "(null)", want);
}

#define EXPECT_FIELD(f, fmt)                                                   \
	ck_assert_msg(got->f == want->f,                                       \
		      "for%s: " #f " is %" fmt ", want %" fmt, shown, got->f,  \
		      want->f)

/* The two signal sets must hold the same signals, 1 to SIGRTMAX. */
static void expect_same_signals(const sigset_t *got, const sigset_t *want)
{
	for (int sig = 1; sig <= SIGRTMAX; sig++)
		ck_assert_msg(sigismember(got, sig) == sigismember(want, sig),
			      "for%s: stop_signals has %d %s, want %s", shown,
			      sig, sigismember(got, sig) ? "in" : "out",
			      sigismember(want, sig) ? "in" : "out");
}

/* Every field but command must equal want. */
static void expect_options(const struct runx_options *got,
			   const struct runx_options *want)
{
	EXPECT_FIELD(timeout_ns, PRId64);
	EXPECT_FIELD(grace_ns, PRId64);
	EXPECT_FIELD(idle_timeout_ns, PRId64);
	EXPECT_FIELD(first_signal, "d");
	EXPECT_FIELD(preserve_status, "d");
	EXPECT_FIELD(scope, "d");
	EXPECT_FIELD(foreground, "d");
	EXPECT_FIELD(wait_all, "d");
	EXPECT_FIELD(launch, "d");
	EXPECT_FIELD(close_fds, "d");
	expect_same_path("stdin_path", got->stdin_path, want->stdin_path);
	expect_same_path("stdout_path", got->stdout_path, want->stdout_path);
	expect_same_path("stderr_path", got->stderr_path, want->stderr_path);
	EXPECT_FIELD(append, "d");
	EXPECT_FIELD(merge, "d");
	EXPECT_FIELD(verbose, "d");
	expect_same_path("report_path", got->report_path, want->report_path);
	expect_same_signals(&got->stop_signals, &want->stop_signals);
	EXPECT_FIELD(memory_max, PRId64);
	EXPECT_FIELD(pids_max, PRId64);
	EXPECT_FIELD(cpu_max_quota_us, PRId64);
	EXPECT_FIELD(cpu_max_period_us, PRId64);
}

/* The command must be exactly argv[first..argc-1], pointing into argv. */
static void expect_command_from(const struct runx_options *got, int first)
{
	ck_assert_msg(got->command == argv_buf + first,
		      "for%s: command starts at argv[%td], want argv[%d]",
		      shown, got->command - argv_buf, first);
	ck_assert_ptr_null(got->command[argc_buf - first]);
}

static void expect_ok(enum runx_parse_result rc)
{
	ck_assert_msg(rc == RUNX_PARSE_OK, "for%s: result %d (%s), want OK",
		      shown, rc, err);
	ck_assert_msg(err[0] == '\0', "for%s: err is '%s' after success", shown,
		      err);
}

/* ---- defaults and where options stop ------------------------------- */

START_TEST(defaults_when_only_a_command_is_given)
{
	static const char *const words[] = {"cmd", NULL};
	struct runx_options got, want = spec_defaults();

	expect_ok(parse_words(words, &got));
	expect_options(&got, &want);
	expect_command_from(&got, 1);
	ck_assert_str_eq(got.command[0], "cmd");
}
END_TEST

START_TEST(options_after_the_command_belong_to_the_command)
{
	static const char *const words[] = {"-t", "5s", "ls", "-l", NULL};
	static const char *const words2[] = {"ls",	"-t", "5", "--help",
					     "--bogus", "-x", NULL};
	struct runx_options got, want = spec_defaults();

	expect_ok(parse_words(words, &got));
	want.timeout_ns = 5 * SEC;
	expect_options(&got, &want);
	expect_command_from(&got, 3);
	ck_assert_str_eq(got.command[0], "ls");
	ck_assert_str_eq(got.command[1], "-l");

	expect_ok(parse_words(words2, &got));
	want = spec_defaults();
	expect_options(&got, &want);
	expect_command_from(&got, 1);
	ck_assert_str_eq(got.command[1], "-t");
	ck_assert_str_eq(got.command[3], "--help");
}
END_TEST

/* Each row: the words and the argv index where the command starts. */
static const struct {
	const char *words[8];
	int command_at;
} double_dash_cases[] = {
    {{"--", "ls", NULL}, 2},
    {{"-t", "5", "--", "-weird", "-x", NULL}, 4},
    {{"--", "--help", NULL}, 2},
    {{"--", "-t", "5", NULL}, 2},
    {{"--", "--", "x", NULL}, 2},
    {{"ls", "--", "x", NULL}, 1},
    {{"-p", "--", "-", NULL}, 3},
    {{"-", "x", NULL}, 1}, /* a lone "-" is an operand */
};

START_TEST(double_dash_ends_the_options)
{
	struct runx_options got;

	expect_ok(parse_words(double_dash_cases[_i].words, &got));
	expect_command_from(&got, double_dash_cases[_i].command_at);
	ck_assert_str_eq(got.command[0],
			 argv_buf[double_dash_cases[_i].command_at]);
	ck_assert_int_eq(got.timeout_ns, _i == 1 ? 5 * SEC : RUNX_DURATION_INF);
}
END_TEST

/* ---- every option, long and short ---------------------------------- */

enum field {
	F_TIMEOUT,
	F_GRACE,
	F_IDLE,
	F_SIGNAL,
	F_PRESERVE,
	F_SCOPE,
	F_FOREGROUND, /* the scope it implies is the plan's (check_plan) */
	F_WAIT_ALL,
	F_LAUNCH,
	F_CLOSE_FDS,
	F_STDIN,
	F_STDOUT,
	F_STDERR,
	F_APPEND,
	F_MERGE,
	F_VERBOSE,
	F_REPORT,
	F_STOP_SIGNALS, /* value: bit N-1 for signal N */
	F_FG_IN_SCOPE,	/* --foreground with tree or cgroup: scope stays */
	F_MEMORY,	/* the cgroup scope they imply: check_plan */
	F_PIDS,
	F_CPU, /* value: the quota in us; the period is 100000 */
};

/* Bit N-1 for signal N, for F_STOP_SIGNALS. */
#define SIGBIT(sig) (UINT64_C(1) << ((sig)-1))

struct change {
	enum field field;
	int64_t value;	  /* numbers, enums and flags */
	const char *path; /* F_STDIN .. F_REPORT paths */
};

static void apply(struct runx_options *o, const struct change *c)
{
	switch (c->field) {
	case F_TIMEOUT:
		o->timeout_ns = c->value;
		break;
	case F_GRACE:
		o->grace_ns = c->value;
		break;
	case F_IDLE:
		o->idle_timeout_ns = c->value;
		break;
	case F_SIGNAL:
		o->first_signal = (int)c->value;
		break;
	case F_PRESERVE:
		o->preserve_status = true;
		break;
	case F_SCOPE:
		o->scope = (enum runx_scope_kind)c->value;
		break;
	case F_FOREGROUND:
		o->foreground = true;
		break;
	case F_WAIT_ALL:
		o->wait_all = true;
		break;
	case F_LAUNCH:
		o->launch = (enum runx_launch_kind)c->value;
		break;
	case F_CLOSE_FDS:
		o->close_fds = true;
		break;
	case F_STDIN:
		o->stdin_path = c->path;
		break;
	case F_STDOUT:
		o->stdout_path = c->path;
		break;
	case F_STDERR:
		o->stderr_path = c->path;
		break;
	case F_APPEND:
		o->append = true;
		break;
	case F_MERGE:
		o->merge = true;
		break;
	case F_VERBOSE:
		o->verbose = true;
		break;
	case F_REPORT:
		o->report_path = c->path;
		break;
	case F_STOP_SIGNALS:
		sigemptyset(&o->stop_signals);
		for (int sig = 1; sig <= 64; sig++)
			if ((uint64_t)c->value & SIGBIT(sig))
				runx_sigset_add_raw(&o->stop_signals, sig);
		break;
	case F_FG_IN_SCOPE:
		o->foreground = true;
		break;
	case F_MEMORY:
		o->memory_max = c->value;
		break;
	case F_PIDS:
		o->pids_max = c->value;
		break;
	case F_CPU:
		o->cpu_max_quota_us = c->value;
		o->cpu_max_period_us = 100000;
		break;
	}
}

/*
 * Each row: option words (the command "cmd" "arg" is appended) and the
 * change(s) from the defaults they must make; nothing else may change.
 */
struct option_case {
	const char *words[8];
	struct change changes[3];
	int nchanges;
};

#define ONE(f, v)	{{(f), (v), NULL}}, 1
#define PATH(f, p)	{{(f), 0, (p)}}, 1
#define TWO(f, v, g, w) {{(f), (v), NULL}, {(g), (w), NULL}}, 2

static const struct option_case option_cases[] = {
    /* -t, --timeout */
    {{"-t", "90s"}, ONE(F_TIMEOUT, 90 * SEC)},
    {{"-t90s"}, ONE(F_TIMEOUT, 90 * SEC)},
    {{"--timeout", "1m30s"}, ONE(F_TIMEOUT, 90 * SEC)},
    {{"--timeout=1.5m"}, ONE(F_TIMEOUT, 90 * SEC)},
    {{"-t", "1e-12"}, ONE(F_TIMEOUT, 1)},
    {{"-t", "0"}, ONE(F_TIMEOUT, RUNX_DURATION_INF)}, /* 0 = no limit */
    {{"--timeout=inf"}, ONE(F_TIMEOUT, RUNX_DURATION_INF)},
    {{"-t", "1e30"}, ONE(F_TIMEOUT, RUNX_DURATION_INF)},
    /* -s, --signal */
    {{"-s", "INT"}, ONE(F_SIGNAL, SIGINT)},
    {{"-sKILL"}, ONE(F_SIGNAL, SIGKILL)},
    {{"--signal", "sighup"}, ONE(F_SIGNAL, SIGHUP)},
    {{"--signal=9"}, ONE(F_SIGNAL, SIGKILL)},
    {{"-s", "0"}, ONE(F_SIGNAL, 0)},
    {{"-s", "TERM"}, ONE(F_SIGNAL, SIGTERM)},
    {{"--signal=USR1"}, ONE(F_SIGNAL, SIGUSR1)},
    /* -k, --kill-after, --grace */
    {{"-k", "2s"}, ONE(F_GRACE, 2 * SEC)},
    {{"-k500ms"}, ONE(F_GRACE, SEC / 2)},
    {{"--kill-after", "1m"}, ONE(F_GRACE, 60 * SEC)},
    {{"--kill-after=3"}, ONE(F_GRACE, 3 * SEC)},
    {{"--grace", "10"}, ONE(F_GRACE, 10 * SEC)},
    {{"--grace=1h"}, ONE(F_GRACE, 3600 * SEC)},
    {{"-k", "0"}, ONE(F_GRACE, 0)}, /* 0 = SIGKILL at once, not inf */
    {{"-k", "inf"}, ONE(F_GRACE, RUNX_DURATION_INF)},
    /* -p, --preserve-status */
    {{"-p"}, ONE(F_PRESERVE, 1)},
    {{"--preserve-status"}, ONE(F_PRESERVE, 1)},
    /* --idle-timeout (parsed only) */
    {{"--idle-timeout=30s"}, ONE(F_IDLE, 30 * SEC)},
    {{"--idle-timeout", "2m"}, ONE(F_IDLE, 120 * SEC)},
    {{"--idle-timeout=0"}, ONE(F_IDLE, RUNX_DURATION_INF)},
    /* --kill-scope, -G, -C */
    {{"--kill-scope=child"}, ONE(F_SCOPE, RUNX_SCOPE_CHILD)},
    {{"--kill-scope=group"}, ONE(F_SCOPE, RUNX_SCOPE_GROUP)},
    {{"--kill-scope", "tree"}, ONE(F_SCOPE, RUNX_SCOPE_TREE)},
    {{"--kill-scope=cgroup"}, ONE(F_SCOPE, RUNX_SCOPE_CGROUP)},
    {{"--kill-scope=auto"}, ONE(F_SCOPE, RUNX_SCOPE_AUTO)},
    {{"-G"}, ONE(F_SCOPE, RUNX_SCOPE_GROUP)},
    {{"--kill-group"}, ONE(F_SCOPE, RUNX_SCOPE_GROUP)},
    {{"-C"}, ONE(F_SCOPE, RUNX_SCOPE_CGROUP)},
    {{"--kill-cgroup"}, ONE(F_SCOPE, RUNX_SCOPE_CGROUP)},
    /* --foreground (the scope it implies: check_plan) */
    {{"--foreground"}, ONE(F_FOREGROUND, 1)},
    {{"--foreground", "--kill-scope=child"},
     TWO(F_FOREGROUND, 1, F_SCOPE, RUNX_SCOPE_CHILD)},
    {{"--kill-scope=child", "--foreground"},
     TWO(F_FOREGROUND, 1, F_SCOPE, RUNX_SCOPE_CHILD)},
    /* --foreground with a scope that needs no new session */
    {{"--kill-scope=tree", "--foreground"},
     {{F_FG_IN_SCOPE, 1, NULL}, {F_SCOPE, RUNX_SCOPE_TREE, NULL}},
     2},
    {{"--foreground", "--kill-scope=tree"},
     {{F_FG_IN_SCOPE, 1, NULL}, {F_SCOPE, RUNX_SCOPE_TREE, NULL}},
     2},
    {{"--foreground", "-C"},
     {{F_FG_IN_SCOPE, 1, NULL}, {F_SCOPE, RUNX_SCOPE_CGROUP, NULL}},
     2},
    {{"--kill-cgroup", "--foreground"},
     {{F_FG_IN_SCOPE, 1, NULL}, {F_SCOPE, RUNX_SCOPE_CGROUP, NULL}},
     2},
    {{"--foreground", "--kill-scope=tree", "--wait-all"},
     {{F_FG_IN_SCOPE, 1, NULL},
      {F_SCOPE, RUNX_SCOPE_TREE, NULL},
      {F_WAIT_ALL, 1, NULL}},
     3},
    {{"--foreground", "--pids-max=5"},
     {{F_FG_IN_SCOPE, 1, NULL}, {F_PIDS, 5, NULL}},
     2},
    /* --kill-scope=pidns */
    {{"--kill-scope=pidns"}, ONE(F_SCOPE, RUNX_SCOPE_PIDNS)},
    {{"--kill-scope", "pidns", "--wait-all"},
     {{F_SCOPE, RUNX_SCOPE_PIDNS, NULL}, {F_WAIT_ALL, 1, NULL}},
     2},
    /* --stop-signals */
    {{"--stop-signals=TERM,INT"},
     ONE(F_STOP_SIGNALS, SIGBIT(SIGTERM) | SIGBIT(SIGINT))},
    {{"--stop-signals=HUP,QUIT,TERM,INT"},
     ONE(F_STOP_SIGNALS,
	 SIGBIT(SIGHUP) | SIGBIT(SIGQUIT) | SIGBIT(SIGTERM) | SIGBIT(SIGINT))},
    {{"--stop-signals", "term"}, ONE(F_STOP_SIGNALS, SIGBIT(SIGTERM))},
    {{"--stop-signals=SIGHUP"}, ONE(F_STOP_SIGNALS, SIGBIT(SIGHUP))},
    {{"--stop-signals=1,15"},
     ONE(F_STOP_SIGNALS, SIGBIT(SIGHUP) | SIGBIT(SIGTERM))},
    {{"--stop-signals=usr1,USR2,alrm,WINCH,cont"},
     ONE(F_STOP_SIGNALS, SIGBIT(SIGUSR1) | SIGBIT(SIGUSR2) | SIGBIT(SIGALRM) |
			     SIGBIT(SIGWINCH) | SIGBIT(SIGCONT))},
    {{"--stop-signals=TERM,TERM"}, ONE(F_STOP_SIGNALS, SIGBIT(SIGTERM))},
    /* one that always stops may be listed: then it is forwarded */
    {{"--stop-signals=PWR"}, ONE(F_STOP_SIGNALS, SIGBIT(SIGPWR))},
    {{"--stop-signals=SEGV,abrt"},
     ONE(F_STOP_SIGNALS, SIGBIT(SIGSEGV) | SIGBIT(SIGABRT))},
    /* a real-time signal the C library keeps for itself: caught too */
    {{"--stop-signals=32"}, ONE(F_STOP_SIGNALS, SIGBIT(32))},
    {{"--stop-signals=INT", "--stop-signals=QUIT"},
     ONE(F_STOP_SIGNALS, SIGBIT(SIGQUIT))},
    /* --memory-max: bytes, K M G T in powers of 1024, "iB" allowed */
    {{"--memory-max=1"}, ONE(F_MEMORY, 1)},
    {{"--memory-max=24M"}, ONE(F_MEMORY, 24 << 20)},
    {{"--memory-max", "24m"}, ONE(F_MEMORY, 24 << 20)},
    {{"--memory-max=24MiB"}, ONE(F_MEMORY, 24 << 20)},
    {{"--memory-max=512k"}, ONE(F_MEMORY, 512 << 10)},
    {{"--memory-max=512KiB"}, ONE(F_MEMORY, 512 << 10)},
    {{"--memory-max=2G"}, ONE(F_MEMORY, INT64_C(2) << 30)},
    {{"--memory-max=3t"}, ONE(F_MEMORY, INT64_C(3) << 40)},
    {{"--memory-max=4096"}, ONE(F_MEMORY, 4096)},
    {{"--memory-max=007"}, ONE(F_MEMORY, 7)},
    {{"--memory-max=9223372036854775807"}, ONE(F_MEMORY, INT64_MAX)},
    {{"--memory-max=8388607T"},
     ONE(F_MEMORY, INT64_C(8388607) << 40)}, /* the largest in T */
    {{"--memory-max=1M", "-C"},
     TWO(F_MEMORY, 1 << 20, F_SCOPE, RUNX_SCOPE_CGROUP)},
    {{"--kill-scope=cgroup", "--memory-max=1M"},
     TWO(F_MEMORY, 1 << 20, F_SCOPE, RUNX_SCOPE_CGROUP)},
    /* --pids-max */
    {{"--pids-max=1"}, ONE(F_PIDS, 1)},
    {{"--pids-max", "8"}, ONE(F_PIDS, 8)},
    {{"--pids-max=4194304"}, ONE(F_PIDS, 4194304)},
    {{"--pids-max=0100"}, ONE(F_PIDS, 100)},
    /* --cpu-max: quota = CPUS * 100000 us, rounded, at least 1000 us */
    {{"--cpu-max=0.5"}, ONE(F_CPU, 50000)},
    {{"--cpu-max", "2"}, ONE(F_CPU, 200000)},
    {{"--cpu-max=1.25"}, ONE(F_CPU, 125000)},
    {{"--cpu-max=.5"}, ONE(F_CPU, 50000)},
    {{"--cpu-max=3."}, ONE(F_CPU, 300000)},
    {{"--cpu-max=0.000015"}, ONE(F_CPU, 1000)}, /* 2 us: the minimum */
    {{"--cpu-max=0.01"}, ONE(F_CPU, 1000)},
    {{"--cpu-max=0.0101"}, ONE(F_CPU, 1010)},
    {{"--cpu-max=0.333333"}, ONE(F_CPU, 33333)},
    {{"--cpu-max=0.666666"}, ONE(F_CPU, 66667)},  /* rounded up */
    {{"--cpu-max=0.1234549"}, ONE(F_CPU, 12345)}, /* only the 6th counts */
    {{"--cpu-max=0.1234550"}, ONE(F_CPU, 12346)},
    {{"--cpu-max=0.12345409"}, ONE(F_CPU, 12345)}, /* the 8th does not */
    {{"--cpu-max=0.123454999999"}, ONE(F_CPU, 12345)},
    {{"--cpu-max=0.000005"}, ONE(F_CPU, 1000)},
    {{"--cpu-max=2.000005"}, ONE(F_CPU, 200001)},
    {{"--cpu-max=2.0000049"}, ONE(F_CPU, 200000)},
    {{"--cpu-max=0.99999"}, ONE(F_CPU, 99999)},
    {{"--cpu-max=0.999995"}, ONE(F_CPU, 100000)},
    {{"--cpu-max=1000000"}, ONE(F_CPU, INT64_C(100000000000))},
    {{"--cpu-max=1000000.000"}, ONE(F_CPU, INT64_C(100000000000))},
    {{"--cpu-max=0.000000000000000000000001"}, ONE(F_CPU, 1000)},
    /* all three limits together */
    {{"--memory-max=1G", "--pids-max=50", "--cpu-max=1.5"},
     {{F_MEMORY, INT64_C(1) << 30, NULL},
      {F_PIDS, 50, NULL},
      {F_CPU, 150000, NULL}},
     3},
    /* --wait-all with every scope larger than the child */
    {{"--wait-all"}, ONE(F_WAIT_ALL, 1)},
    {{"--wait-all", "--kill-scope=tree"},
     {{F_WAIT_ALL, 1, NULL}, {F_SCOPE, RUNX_SCOPE_TREE, NULL}},
     2},
    {{"-C", "--wait-all"},
     {{F_WAIT_ALL, 1, NULL}, {F_SCOPE, RUNX_SCOPE_CGROUP, NULL}},
     2},
    {{"--wait-all", "--kill-scope=auto"},
     {{F_WAIT_ALL, 1, NULL}, {F_SCOPE, RUNX_SCOPE_AUTO, NULL}},
     2},
    /* --launch */
    {{"--launch=posix_spawn"}, ONE(F_LAUNCH, RUNX_LAUNCH_POSIX_SPAWN)},
    {{"--launch=fork"}, ONE(F_LAUNCH, RUNX_LAUNCH_FORK)},
    {{"--launch", "vfork"}, ONE(F_LAUNCH, RUNX_LAUNCH_VFORK)},
    {{"--launch=clone3"}, ONE(F_LAUNCH, RUNX_LAUNCH_CLONE3)},
    /* --close-fds */
    {{"--close-fds"}, ONE(F_CLOSE_FDS, 1)},
    /* redirects */
    {{"-i", "/dev/null"}, PATH(F_STDIN, "/dev/null")},
    {{"-iin.txt"}, PATH(F_STDIN, "in.txt")},
    {{"--stdin=in.txt"}, PATH(F_STDIN, "in.txt")},
    {{"--stdin", "-"}, PATH(F_STDIN, "-")},
    {{"-o", "out.log"}, PATH(F_STDOUT, "out.log")},
    {{"--stdout=out.log"}, PATH(F_STDOUT, "out.log")},
    {{"--stdout", "a b"}, PATH(F_STDOUT, "a b")},
    {{"-e", "err.log"}, PATH(F_STDERR, "err.log")},
    {{"--stderr=err.log"}, PATH(F_STDERR, "err.log")},
    {{"-a"}, ONE(F_APPEND, 1)}, /* without -o/-e: no effect, no error */
    {{"--append"}, ONE(F_APPEND, 1)},
    {{"-m"}, ONE(F_MERGE, 1)},
    {{"--merge"}, ONE(F_MERGE, 1)},
    {{"-m", "-o", "all.log"},
     {{F_MERGE, 1, NULL}, {F_STDOUT, 0, "all.log"}},
     2},
    {{"-o", "f", "-e", "f"}, {{F_STDOUT, 0, "f"}, {F_STDERR, 0, "f"}}, 2},
    {{"-a", "-o", "f"}, {{F_APPEND, 1, NULL}, {F_STDOUT, 0, "f"}}, 2},
    /* reporting */
    {{"-v"}, ONE(F_VERBOSE, 1)},
    {{"--verbose"}, ONE(F_VERBOSE, 1)},
    {{"--report=run.json"}, PATH(F_REPORT, "run.json")},
    {{"--report", "-"}, PATH(F_REPORT, "-")},
    /* bundled short options */
    {{"-pva"},
     {{F_PRESERVE, 1, NULL}, {F_VERBOSE, 1, NULL}, {F_APPEND, 1, NULL}},
     3},
    {{"-pt5"}, {{F_PRESERVE, 1, NULL}, {F_TIMEOUT, 5 * SEC, NULL}}, 2},
    {{"-vk", "1"}, {{F_VERBOSE, 1, NULL}, {F_GRACE, SEC, NULL}}, 2},
    {{"-Gmo", "x"},
     {{F_SCOPE, RUNX_SCOPE_GROUP, NULL},
      {F_MERGE, 1, NULL},
      {F_STDOUT, 0, "x"}},
     3},
};

/*
 * Parses c's words followed by the command words cmd (NULL-terminated, at
 * most 2) and asserts the defaults changed by c's changes, nothing else,
 * and the command from the first of cmd on.
 */
static void expect_option_case(const struct option_case *c,
			       const char *const *cmd, struct runx_options *got)
{
	const char *words[MAX_ARGS + 1];
	struct runx_options want = spec_defaults();
	int n = 0;

	for (; n < NELEM(c->words) && c->words[n] != NULL; n++)
		words[n] = c->words[n];
	for (int k = 0; k <= 2; k++) {
		words[n + k] = cmd[k];
		if (cmd[k] == NULL)
			break;
	}
	for (int k = 0; k < c->nchanges; k++)
		apply(&want, &c->changes[k]);

	expect_ok(parse_words(words, got));
	expect_options(got, &want);
	expect_command_from(got, n + 1);
}

START_TEST(every_option_long_and_short_sets_its_field)
{
	static const char *const cmd[] = {"cmd", "arg", NULL};
	struct runx_options got;

	expect_option_case(&option_cases[_i], cmd, &got);
	ck_assert_str_eq(got.command[0], "cmd");
	ck_assert_str_eq(got.command[1], "arg");
}
END_TEST

/* Same table shape: the last of repeated options wins. */
static const struct option_case last_wins_cases[] = {
    {{"-t", "1", "-t", "2"}, ONE(F_TIMEOUT, 2 * SEC)},
    {{"-t", "5", "--timeout=0"}, ONE(F_TIMEOUT, RUNX_DURATION_INF)},
    {{"--timeout=0", "-t", "5"}, ONE(F_TIMEOUT, 5 * SEC)},
    {{"-k", "1", "--grace=2"}, ONE(F_GRACE, 2 * SEC)},
    {{"--grace=2", "-k", "1"}, ONE(F_GRACE, 1 * SEC)},
    {{"-s", "INT", "-s", "HUP"}, ONE(F_SIGNAL, SIGHUP)},
    {{"-s", "0", "--signal=KILL"}, ONE(F_SIGNAL, SIGKILL)},
    {{"--kill-scope=tree", "--kill-scope=child"},
     ONE(F_SCOPE, RUNX_SCOPE_CHILD)},
    {{"--kill-scope=tree", "-G"}, ONE(F_SCOPE, RUNX_SCOPE_GROUP)},
    {{"-G", "--kill-scope=tree"}, ONE(F_SCOPE, RUNX_SCOPE_TREE)},
    {{"-C", "--kill-scope=child"}, ONE(F_SCOPE, RUNX_SCOPE_CHILD)},
    {{"--kill-scope=group", "--kill-scope=child", "--foreground"},
     TWO(F_FOREGROUND, 1, F_SCOPE, RUNX_SCOPE_CHILD)},
    {{"--launch=fork", "--launch=vfork"}, ONE(F_LAUNCH, RUNX_LAUNCH_VFORK)},
    {{"-i", "a", "--stdin=b"}, PATH(F_STDIN, "b")},
    {{"-o", "a", "-o", "b"}, PATH(F_STDOUT, "b")},
    {{"--stderr=a", "-e", "b"}, PATH(F_STDERR, "b")},
    {{"--report=a", "--report=b"}, PATH(F_REPORT, "b")},
    {{"--idle-timeout=1", "--idle-timeout=2"}, ONE(F_IDLE, 2 * SEC)},
};

START_TEST(the_last_of_repeated_options_wins)
{
	static const char *const cmd[] = {"cmd", NULL};
	struct runx_options got;

	expect_option_case(&last_wins_cases[_i], cmd, &got);
}
END_TEST

/* ---- help and version ---------------------------------------------- */

static const struct {
	const char *words[6];
	enum runx_parse_result result;
} help_cases[] = {
    {{"-h"}, RUNX_PARSE_HELP},
    {{"--help"}, RUNX_PARSE_HELP},
    {{"-V"}, RUNX_PARSE_VERSION},
    {{"--version"}, RUNX_PARSE_VERSION},
    {{"-t", "5", "--help"}, RUNX_PARSE_HELP},
    {{"-v", "--version", "cmd"}, RUNX_PARSE_VERSION},
    {{"--help", "--bogus"}, RUNX_PARSE_HELP}, /* help comes first */
    {{"--version", "-t", "nan"}, RUNX_PARSE_VERSION},
    {{"-hV"}, RUNX_PARSE_HELP},
    {{"-Vh"}, RUNX_PARSE_VERSION},
    {{"--foreground", "--kill-scope=tree", "-h"}, RUNX_PARSE_HELP},
};

START_TEST(help_and_version_need_no_command)
{
	struct runx_options got;
	enum runx_parse_result rc = parse_words(help_cases[_i].words, &got);

	ck_assert_msg(rc == help_cases[_i].result, "for%s: result %d, want %d",
		      shown, rc, help_cases[_i].result);
}
END_TEST

START_TEST(help_and_version_texts_are_gnu_style)
{
	const char *usage = runx_usage();
	const char *version = runx_version_text();
	size_t n;

	ck_assert_msg(strncmp(usage, "Usage: runx ", 12) == 0, "usage: %s",
		      usage);
	n = strlen(usage);
	ck_assert_int_eq(usage[n - 1], '\n');
	ck_assert_ptr_nonnull(strstr(usage, "--timeout"));
	ck_assert_ptr_nonnull(strstr(usage, "--kill-scope"));
	ck_assert_msg(strncmp(version, "runx ", 5) == 0, "version: %s",
		      version);
	n = strlen(version);
	ck_assert_int_eq(version[n - 1], '\n');
}
END_TEST

/* ---- rejected command lines ---------------------------------------- */

/*
 * Each row: the words after "runx" and up to two texts the message must
 * contain (the bad value, and the option it was given to).
 */
static const struct {
	const char *words[8];
	const char *needles[2];
} rejected_cases[] = {
    /* bad durations */
    {{"-t", "", "cmd"}, {"''", "--timeout"}},
    {{"--timeout=", "cmd"}, {"''", "--timeout"}},
    {{"-t", "-0", "cmd"}, {"'-0'", "--timeout"}},
    {{"-t", "-1", "cmd"}, {"'-1'", "--timeout"}},
    {{"-t", "nan", "cmd"}, {"'nan'", "--timeout"}},
    {{"-t", "5x", "cmd"}, {"'5x'", "--timeout"}},
    {{"-t", "1 s", "cmd"}, {"'1 s'", "--timeout"}},
    {{"-t", "5s ", "cmd"}, {"'5s '", "--timeout"}},
    {{"--timeout=1e", "cmd"}, {"'1e'", "--timeout"}},
    {{"-t.", "cmd"}, {"'.'", "--timeout"}},
    {{"-t", "-inf", "cmd"}, {"'-inf'", "--timeout"}},
    {{"-k", "-1", "cmd"}, {"'-1'", "--kill-after"}},
    {{"--kill-after=1x", "cmd"}, {"'1x'", "--kill-after"}},
    {{"--grace=abc", "cmd"}, {"'abc'", "--grace"}},
    {{"--grace", "", "cmd"}, {"''", "--grace"}},
    {{"--idle-timeout=-5", "cmd"}, {"'-5'", "--idle-timeout"}},
    {{"--idle-timeout=", "cmd"}, {"''", "--idle-timeout"}},
    /* bad signals */
    {{"-s", "FOO", "cmd"}, {"'FOO'", "signal"}},
    {{"--signal=SIG", "cmd"}, {"'SIG'", "signal"}},
    {{"-s", "", "cmd"}, {"''", "signal"}},
    {{"-s", "-1", "cmd"}, {"'-1'", "signal"}},
    {{"-s", "999", "cmd"}, {"'999'", "signal"}},
    {{"-s", "RTMIN+1000", "cmd"}, {"'RTMIN+1000'", "signal"}},
    {{"--signal", "RTMAX-1000", "cmd"}, {"'RTMAX-1000'", "signal"}},
    {{"-s", "SIG TERM", "cmd"}, {"'SIG TERM'", "signal"}},
    /* bad --kill-scope and --launch values */
    {{"--kill-scope=process", "cmd"}, {"'process'", "scope"}},
    {{"--kill-scope=", "cmd"}, {"''", "scope"}},
    {{"--kill-scope", "groups", "cmd"}, {"'groups'", "scope"}},
    {{"--kill-scope=PIDNS", "cmd"}, {"'PIDNS'", "scope"}},
    {{"--launch=spawn", "cmd"}, {"'spawn'", "launch"}},
    {{"--launch=default", "cmd"}, {"'default'", "launch"}},
    {{"--launch=", "cmd"}, {"''", "launch"}},
    {{"--launch", "posix-spawn", "cmd"}, {"'posix-spawn'", "launch"}},
    /* --stop-signals: empty list or item, unknown, 0, KILL, STOP, ones
     * runx does not catch */
    {{"--stop-signals=", "cmd"}, {"--stop-signals", "at least one"}},
    {{"--stop-signals", "", "cmd"}, {"--stop-signals", "at least one"}},
    {{"--stop-signals=TERM,", "cmd"}, {"empty signal", "'TERM,'"}},
    {{"--stop-signals=,TERM", "cmd"}, {"empty signal", "',TERM'"}},
    {{"--stop-signals=TERM,,INT", "cmd"}, {"empty signal", "'TERM,,INT'"}},
    {{"--stop-signals=,", "cmd"}, {"empty signal", "--stop-signals"}},
    {{"--stop-signals=TERM,FOO", "cmd"}, {"'FOO'", "--stop-signals"}},
    {{"--stop-signals=TERM INT", "cmd"}, {"'TERM INT'", "--stop-signals"}},
    {{"--stop-signals=0", "cmd"}, {"'0'", "--stop-signals"}},
    {{"--stop-signals=TERM,0", "cmd"}, {"'0'", "--stop-signals"}},
    {{"--stop-signals=KILL", "cmd"}, {"'KILL'", "cannot be caught"}},
    {{"--stop-signals=INT,sigkill", "cmd"}, {"'sigkill'", "cannot be caught"}},
    {{"--stop-signals=9", "cmd"}, {"'9'", "cannot be caught"}},
    {{"--stop-signals=STOP", "cmd"}, {"'STOP'", "cannot be caught"}},
    {{"--stop-signals=19", "cmd"}, {"'19'", "cannot be caught"}},
    {{"--stop-signals=URG", "cmd"}, {"'URG'", "not one runx catches"}},
    {{"--stop-signals=TERM,PIPE", "cmd"}, {"'PIPE'", "not one runx catches"}},
    {{"--stop-signals=CHLD", "cmd"}, {"'CHLD'", "not one runx catches"}},
    {{"--stop-signals=TSTP", "cmd"}, {"'TSTP'", "not one runx catches"}},
    {{"--stop-signals=999", "cmd"}, {"'999'", "--stop-signals"}},
    {{"--stop-signals=RTMIN+1000", "cmd"}, {"'RTMIN+1000'", "--stop-signals"}},
    {{"--stop-signals=TERMTERMTERMTERMTERMTERMTERMTERMTERM", "cmd"},
     {"'TERMTERM", "--stop-signals"}},
    /* --memory-max */
    {{"--memory-max=", "cmd"}, {"''", "--memory-max"}},
    {{"--memory-max=-1", "cmd"}, {"'-1'", "--memory-max"}},
    {{"--memory-max=-1M", "cmd"}, {"'-1M'", "--memory-max"}},
    {{"--memory-max=+1M", "cmd"}, {"'+1M'", "--memory-max"}},
    {{"--memory-max=lots", "cmd"}, {"'lots'", "--memory-max"}},
    {{"--memory-max=0", "cmd"}, {"'0'", "0 bytes"}},
    {{"--memory-max=0M", "cmd"}, {"'0M'", "0 bytes"}},
    {{"--memory-max=1.5G", "cmd"}, {"'1.5G'", "--memory-max"}},
    {{"--memory-max=1MB", "cmd"}, {"'1MB'", "--memory-max"}},
    {{"--memory-max=1B", "cmd"}, {"'1B'", "--memory-max"}},
    {{"--memory-max=1Mi", "cmd"}, {"'1Mi'", "--memory-max"}},
    {{"--memory-max=1MiBs", "cmd"}, {"'1MiBs'", "--memory-max"}},
    {{"--memory-max=1P", "cmd"}, {"'1P'", "--memory-max"}},
    {{"--memory-max=1 M", "cmd"}, {"'1 M'", "--memory-max"}},
    {{"--memory-max= 1M", "cmd"}, {"' 1M'", "--memory-max"}},
    {{"--memory-max=M", "cmd"}, {"'M'", "--memory-max"}},
    {{"--memory-max=1e6", "cmd"}, {"'1e6'", "--memory-max"}},
    {{"--memory-max=0x100", "cmd"}, {"'0x100'", "--memory-max"}},
    {{"--memory-max=9223372036854775808", "cmd"}, {"8 EiB", "--memory-max"}},
    {{"--memory-max=8388608T", "cmd"}, {"'8388608T'", "8 EiB"}},
    {{"--memory-max=99999999999999999999999K", "cmd"}, {"8 EiB", NULL}},
    /* --pids-max */
    {{"--pids-max=0", "cmd"}, {"'0'", "--pids-max"}},
    {{"--pids-max=", "cmd"}, {"''", "--pids-max"}},
    {{"--pids-max=-1", "cmd"}, {"'-1'", "--pids-max"}},
    {{"--pids-max=lots", "cmd"}, {"'lots'", "--pids-max"}},
    {{"--pids-max=8k", "cmd"}, {"'8k'", "--pids-max"}},
    {{"--pids-max=1.5", "cmd"}, {"'1.5'", "--pids-max"}},
    {{"--pids-max=4194305", "cmd"}, {"'4194305'", "--pids-max"}},
    {{"--pids-max=99999999999999999999", "cmd"}, {"'9999", "--pids-max"}},
    {{"--pids-max=max", "cmd"}, {"'max'", "--pids-max"}},
    /* --cpu-max */
    {{"--cpu-max=0", "cmd"}, {"'0'", "more than 0"}},
    {{"--cpu-max=0.0", "cmd"}, {"'0.0'", "more than 0"}},
    {{"--cpu-max=.000", "cmd"}, {"'.000'", "more than 0"}},
    {{"--cpu-max=-1", "cmd"}, {"'-1'", "--cpu-max"}},
    {{"--cpu-max=-0.5", "cmd"}, {"'-0.5'", "--cpu-max"}},
    {{"--cpu-max=+1", "cmd"}, {"'+1'", "--cpu-max"}},
    {{"--cpu-max=nan", "cmd"}, {"'nan'", "--cpu-max"}},
    {{"--cpu-max=inf", "cmd"}, {"'inf'", "--cpu-max"}},
    {{"--cpu-max=", "cmd"}, {"''", "--cpu-max"}},
    {{"--cpu-max=.", "cmd"}, {"'.'", "--cpu-max"}},
    {{"--cpu-max=1.5.", "cmd"}, {"'1.5.'", "--cpu-max"}},
    {{"--cpu-max=1e3", "cmd"}, {"'1e3'", "--cpu-max"}},
    {{"--cpu-max=0x1", "cmd"}, {"'0x1'", "--cpu-max"}},
    {{"--cpu-max=2cpus", "cmd"}, {"'2cpus'", "--cpu-max"}},
    {{"--cpu-max=50%", "cmd"}, {"'50%'", "--cpu-max"}},
    {{"--cpu-max=1000000.5", "cmd"}, {"'1000000.5'", "1000000 CPUs"}},
    {{"--cpu-max=1000001", "cmd"}, {"'1000001'", "1000000 CPUs"}},
    {{"--cpu-max=99999999999999999999999", "cmd"}, {"1000000 CPUs", NULL}},
    /* attempts: the bad value named, quoted */
    {{"--attempts=0", "cmd"}, {"'0'", "--attempts"}},
    {{"--attempts=-1", "cmd"}, {"'-1'", "--attempts"}},
    {{"--attempts=2x", "cmd"}, {"'2x'", "--attempts"}},
    {{"--attempts=", "cmd"}, {"''", "--attempts"}},
    {{"--attempts=1000000001", "cmd"}, {"'1000000001'", NULL}},
    {{"--retry-on=fail", "cmd"}, {"'fail'", "--retry-on"}},
    {{"--retry-on=1,,2", "cmd"}, {"empty item", "--retry-on"}},
    {{"--retry-on=", "cmd"}, {"empty item", NULL}},
    {{"--retry-on=256", "cmd"}, {"'256'", NULL}},
    {{"--retry-on=5-3", "cmd"}, {"'5-3'", NULL}},
    {{"--retry-on=SIGNOPE", "cmd"}, {"'SIGNOPE'", NULL}},
    {{"--retry-on=1\n", "cmd"}, {"'1\\n'", NULL}},
    {{"--success-exit=timeout", "cmd"}, {"'timeout'", "--success-exit"}},
    {{"--success-exit=1-", "cmd"}, {"'1-'", NULL}},
    {{"--retry-delay=-1", "cmd"}, {"'-1'", "--retry-delay"}},
    {{"--retry-delay-max=x", "cmd"}, {"'x'", "--retry-delay-max"}},
    {{"--total-timeout=1q", "cmd"}, {"'1q'", "--total-timeout"}},
    {{"--backoff=0.9", "cmd"}, {"'0.9'", "--backoff"}},
    {{"--backoff=2e1", "cmd"}, {"'2e1'", NULL}},
    {{"--backoff=", "cmd"}, {"''", NULL}},
    {{"--jitter=1.01", "cmd"}, {"'1.01'", "--jitter"}},
    {{"--jitter=-0", "cmd"}, {"'-0'", NULL}},
    {{"--jitter=.", "cmd"}, {"'.'", NULL}},
    /* no command */
    {{NULL}, {"missing command", NULL}},
    {{"-t", "5"}, {"missing command", NULL}},
    {{"--"}, {"missing command", NULL}},
    {{"-v", "--"}, {"missing command", NULL}},
    {{"-p"}, {"missing command", NULL}},
    /* an option without its value */
    {{"-t"}, {"option '-t' (--timeout) needs a value", NULL}},
    {{"--timeout"}, {"option '--timeout' needs a value", NULL}},
    {{"-vt"}, {"option '-t' (--timeout) needs a value", NULL}},
    {{"--retry-on=0", "cmd"},
     {"'0' in --retry-on: exit status 0 is a success", NULL}},
    {{"--retry-on=1,0-0", "cmd"}, {"'0-0' in --retry-on", NULL}},
    {{"-s"}, {"option '-s' (--signal) needs a value", NULL}},
    {{"-k"}, {"option '-k' (--kill-after) needs a value", NULL}},
    {{"--grace"}, {"--grace", "value"}},
    {{"--kill-scope"}, {"--kill-scope", "value"}},
    {{"--launch"}, {"--launch", "value"}},
    {{"-o"}, {"option '-o' (--stdout) needs a value", NULL}},
    {{"--report"}, {"--report", "value"}},
    /* unknown options, named as typed */
    {{"-x", "cmd"}, {"'-x'", NULL}},
    {{"-pX", "cmd"}, {"'-X'", NULL}},
    {{"-Xp", "cmd"}, {"'-X'", NULL}},
    {{"--bogus", "cmd"}, {"'--bogus'", NULL}},
    {{"--bogus=1", "cmd"}, {"'--bogus=1'", NULL}},
    {{"--timeout5", "cmd"}, {"'--timeout5'", NULL}},
    {{"--kill", "cmd"}, {"'--kill'", NULL}}, /* ambiguous abbreviation */
    {{"--verbose", "-Xp", "cmd"}, {"'-X'", NULL}},
    /* a value given to an option that takes none */
    {{"--foreground=yes", "cmd"}, {"--foreground=yes", NULL}},
    {{"--help=me", "cmd"}, {"--help=me", NULL}},
    {{"--verbose=1", "cmd"}, {"--verbose=1", NULL}},
    {{"--wait-all=no", "cmd"}, {"--wait-all=no", NULL}},
    {{"--close-fds=3", "cmd"}, {"--close-fds=3", NULL}},
};

START_TEST(attempt_options_set_the_attempts_policy)
{
	static const char *const words[] = {"--attempts=inf",
					    "--retry-on=timeout,3,5-7,SIGSEGV",
					    "--retry-delay=0",
					    "--backoff=1.5",
					    "--retry-delay-max=10s",
					    "--jitter=0.25",
					    "--total-timeout=1m",
					    "--success-exit=2,TERM",
					    "cmd",
					    NULL};
	struct runx_options got;
	const struct runx_attempts_policy *a = &got.attempts;

	ck_assert_int_eq(parse_words(words, &got), RUNX_PARSE_OK);
	ck_assert(a->max == RUNX_ATTEMPTS_INF);
	ck_assert_uint_eq(a->retry_on.kinds, RUNX_ON_TIMEOUT);
	ck_assert(a->retry_on.status[0] == ((1u << 3) | (7u << 5)));
	ck_assert(a->retry_on.signals == UINT64_C(1) << (SIGSEGV - 1));
	ck_assert_str_eq(a->retry_on_text, "timeout,3,5-7,SIGSEGV");
	ck_assert(a->delay_ns == 0);
	ck_assert(a->backoff == 1.5);
	ck_assert(a->delay_max_ns == 10 * SEC);
	ck_assert(a->jitter == 0.25);
	ck_assert(a->total_ns == 60 * SEC);
	ck_assert(a->success.status[0] == 1u << 2);
	ck_assert(a->success.signals == UINT64_C(1) << (SIGTERM - 1));
	ck_assert_uint_eq(a->success.kinds, 0);
}
END_TEST

/* --backoff has no upper bound (SPEC: "a decimal >= 1"); past about 1e9
 * digits stop counting, as every wait stops at --retry-delay-max. */
START_TEST(backoff_has_no_upper_bound)
{
	static const char *const words[] = {"--backoff=1001", "cmd", NULL};
	static const char *const huge[] = {
	    "--backoff=123456789012345678901234567890.5", "cmd", NULL};
	struct runx_options got;

	ck_assert_int_eq(parse_words(words, &got), RUNX_PARSE_OK);
	ck_assert(got.attempts.backoff == 1001.0);
	ck_assert_int_eq(parse_words(huge, &got), RUNX_PARSE_OK);
	ck_assert(got.attempts.backoff >= 1e9 &&
		  isfinite(got.attempts.backoff));
}
END_TEST

START_TEST(attempt_options_default_as_the_man_page_says)
{
	static const char *const words[] = {"cmd", NULL};
	struct runx_options got;
	const struct runx_attempts_policy *a = &got.attempts;

	ck_assert_int_eq(parse_words(words, &got), RUNX_PARSE_OK);
	ck_assert(a->max == 1);
	ck_assert_uint_eq(a->retry_on.kinds, RUNX_ON_FAILURE);
	ck_assert(a->delay_ns == SEC);
	ck_assert(a->backoff == 2.0);
	ck_assert(a->delay_max_ns == 300 * SEC);
	ck_assert(a->jitter == 0.0);
	ck_assert(a->total_ns == RUNX_DURATION_INF);
	ck_assert(a->retry_on_text == NULL);
	ck_assert(a->success.status[0] == 0 && a->success.signals == 0);
}
END_TEST

START_TEST(total_timeout_zero_means_no_limit)
{
	static const char *const words[] = {"--total-timeout=0", "cmd", NULL};
	struct runx_options got;

	ck_assert_int_eq(parse_words(words, &got), RUNX_PARSE_OK);
	ck_assert(got.attempts.total_ns == RUNX_DURATION_INF);
}
END_TEST

START_TEST(identity_options_set_their_fields)
{
	const char *words[] = {"-u",
			       "app:staff",
			       "--rlimit=nofile=100:200",
			       "--rlimit=core=unlimited",
			       "--rlimit=nofile=5", /* replaces the first */
			       "--chdir=/srv",
			       "--umask=027",
			       "--no-new-privs",
			       "cmd",
			       NULL};
	struct runx_options got;

	ck_assert_int_eq(parse_words(words, &got), RUNX_PARSE_OK);
	ck_assert_str_eq(got.user, "app:staff");
	ck_assert_str_eq(got.chdir_path, "/srv");
	ck_assert_int_eq(got.umask, 027);
	ck_assert(got.no_new_privs);
	ck_assert_int_eq(got.nrlimits, 2);
	ck_assert_int_eq(got.rlimits[0].resource, RLIMIT_NOFILE);
	ck_assert(got.rlimits[0].rl.rlim_cur == 5);
	ck_assert(got.rlimits[0].rl.rlim_max == 5);
	ck_assert_str_eq(got.rlimit_text[0], "--rlimit=nofile=5" + 9);
	ck_assert_int_eq(got.rlimits[1].resource, RLIMIT_CORE);
	ck_assert(got.rlimits[1].rl.rlim_cur == RLIM_INFINITY);
	ck_assert(got.rlimits[1].rl.rlim_max == RLIM_INFINITY);
	ck_assert_int_eq(parse_words((const char *[]){"cmd", NULL}, &got),
			 RUNX_PARSE_OK);
	ck_assert_ptr_null(got.user);
	ck_assert_int_eq(got.umask, -1);
	ck_assert_int_eq(got.nrlimits, 0);
}
END_TEST

START_TEST(bad_command_lines_fail_with_a_message_naming_the_bad_text)
{
	struct runx_options got;
	enum runx_parse_result rc = parse_words(rejected_cases[_i].words, &got);

	ck_assert_msg(rc == RUNX_PARSE_ERROR, "for%s: result %d, want ERROR",
		      shown, rc);
	ck_assert_msg(err[0] != '\0' && strchr(err, '\n') == NULL &&
			  strncmp(err, "runx: ", 6) != 0,
		      "for%s: message '%s' is not one line without 'runx: '",
		      shown, err);
	for (int k = 0; k < 2; k++) {
		const char *needle = rejected_cases[_i].needles[k];

		if (needle != NULL)
			ck_assert_msg(strstr(err, needle) != NULL,
				      "for%s: message '%s' lacks \"%s\"", shown,
				      err, needle);
	}
}
END_TEST

/* The exact formats of /tmp/runx-decisions.md (without "runx: "). */
static const struct {
	const char *words[5];
	const char *message;
} message_cases[] = {
    {{"-t", "-0", "cmd"}, "invalid duration '-0' for --timeout"},
    {{"--timeout=", "cmd"}, "invalid duration '' for --timeout"},
    {{"-k", "x", "cmd"}, "invalid duration 'x' for --kill-after"},
    {{"--grace=x", "cmd"}, "invalid duration 'x' for --grace"},
    {{"--idle-timeout=x", "cmd"}, "invalid duration 'x' for --idle-timeout"},
    {{"-s", "FOO", "cmd"}, "invalid signal 'FOO'"},
    {{"--signal=65x", "cmd"}, "invalid signal '65x'"},
    {{"--stop-signals=KILL", "cmd"},
     "signal 'KILL' in --stop-signals cannot be caught"},
    {{"--stop-signals=INT,FOO", "cmd"},
     "invalid signal 'FOO' in --stop-signals"},
    {{"--memory-max=lots", "cmd"},
     "invalid value 'lots' for --memory-max (bytes, or a number with K, M, "
     "G or T)"},
    {{"--pids-max=0", "cmd"},
     "invalid value '0' for --pids-max (a whole number from 1 to 4194304)"},
    {{"--cpu-max=0", "cmd"},
     "invalid value '0' for --cpu-max (must be more than 0)"},
    /* control characters in values are escaped: no forged second line */
    {{"-t", "1\nrunx: injected", "cmd"},
     "invalid duration '1\\nrunx: injected' for --timeout"},
    {{"-s", "\x1b[31mRED", "cmd"}, "invalid signal '\\x1b[31mRED'"},
    {{"--kill-scope=tree\r\t", "cmd"},
     "invalid kill scope 'tree\\r\\t' (child, group, tree, cgroup, pidns or "
     "auto)"},
    {{"--memory-max=1\nG", "cmd"},
     "invalid value '1\\nG' for --memory-max (bytes, or a number with K, M, "
     "G or T)"},
    {{"--stop-signals=TERM,\x7f", "cmd"},
     "invalid signal '\\x7f' in --stop-signals"},
    {{"--bogus\n", "cmd"}, "unknown option '--bogus\\n'"},
    {{"--umask=8", "cmd"}, "invalid umask '8' (octal, 0 to 0777)"},
    {{"--umask=1000", "cmd"}, "invalid umask '1000' (octal, 0 to 0777)"},
    {{"--umask=", "cmd"}, "invalid umask '' (octal, 0 to 0777)"},
    {{"--rlimit=files=1", "cmd"},
     "invalid --rlimit 'files=1' (RES=SOFT[:HARD], RES one of as core cpu "
     "data fsize memlock msgqueue nice nofile nproc rss rtprio rttime "
     "sigpending stack)"},
    {{"--rlimit=nofile", "cmd"},
     "invalid --rlimit 'nofile' (RES=SOFT[:HARD], RES one of as core cpu "
     "data fsize memlock msgqueue nice nofile nproc rss rtprio rttime "
     "sigpending stack)"},
    {{"--rlimit=nofile=", "cmd"},
     "invalid --rlimit 'nofile=' (SOFT and HARD: a number or unlimited)"},
    {{"--rlimit=nofile=1:", "cmd"},
     "invalid --rlimit 'nofile=1:' (SOFT and HARD: a number or unlimited)"},
    {{"--rlimit=nofile=-1", "cmd"},
     "invalid --rlimit 'nofile=-1' (SOFT and HARD: a number or unlimited)"},
    {{"--rlimit=nofile=1:2:3", "cmd"},
     "invalid --rlimit 'nofile=1:2:3' (SOFT and HARD: a number or "
     "unlimited)"},
    {{"--rlimit=core=unlimitedx", "cmd"},
     "invalid --rlimit 'core=unlimitedx' (SOFT and HARD: a number or "
     "unlimited)"},
    {{"-\n", "cmd"}, "unknown option '-\\n'"},
};

START_TEST(error_messages_have_the_decided_format)
{
	struct runx_options got;

	ck_assert_int_eq(parse_words(message_cases[_i].words, &got),
			 RUNX_PARSE_ERROR);
	ck_assert_str_eq(err, message_cases[_i].message);
}
END_TEST

/* Signal numbers one past SIGRTMAX, computed at run time. */
START_TEST(signal_numbers_past_sigrtmax_are_rejected)
{
	char past[16], offset[32], want[64];
	const char *words[] = {"-s", past, "cmd", NULL};
	struct runx_options got;

	snprintf(past, sizeof(past), "%d", SIGRTMAX + 1);
	ck_assert_int_eq(parse_words(words, &got), RUNX_PARSE_ERROR);
	snprintf(want, sizeof(want), "invalid signal '%s'", past);
	ck_assert_str_eq(err, want);

	snprintf(offset, sizeof(offset), "RTMIN+%d", SIGRTMAX - SIGRTMIN + 1);
	words[1] = offset;
	ck_assert_int_eq(parse_words(words, &got), RUNX_PARSE_ERROR);
	snprintf(want, sizeof(want), "invalid signal '%s'", offset);
	ck_assert_str_eq(err, want);
}
END_TEST

/* A 5000-byte value is shortened in the middle; the message keeps its end. */
START_TEST(a_very_long_value_is_shortened_in_the_middle)
{
	static char value[5001];
	char *argv[] = {(char *)"runx", (char *)"--launch", value,
			(char *)"cmd", NULL};
	const char *tail = " (posix_spawn, fork, vfork or clone3)";
	struct runx_options got;
	size_t n;

	memset(value, 'v', sizeof(value) - 1);
	value[0] = 'S';
	value[sizeof(value) - 2] = 'E';
	ck_assert_int_eq(runx_options_parse(4, argv, &got, err, sizeof(err)),
			 RUNX_PARSE_ERROR);
	n = strlen(err);
	ck_assert_msg(n < 400, "message of %zu bytes", n);
	ck_assert_msg(strncmp(err, "invalid launch backend 'Svvv", 28) == 0,
		      "start lost: %s", err);
	ck_assert_ptr_nonnull(strstr(err, "vvv...vvv"));
	ck_assert_msg(n > strlen(tail) + 2 &&
			  strcmp(err + n - strlen(tail), tail) == 0 &&
			  err[n - strlen(tail) - 1] == '\'' &&
			  err[n - strlen(tail) - 2] == 'E',
		      "end lost: %s", err);
}
END_TEST

START_TEST(the_error_message_respects_errsize)
{
	char small[12];
	char *argv[] = {(char *)"runx", (char *)"-t",
			(char *)"far-too-long-duration", (char *)"cmd", NULL};
	struct runx_options got;

	memset(small, 'X', sizeof(small));
	ck_assert_int_eq(runx_options_parse(4, argv, &got, small, 8),
			 RUNX_PARSE_ERROR);
	ck_assert_str_eq(small, "invalid");
	ck_assert_int_eq(small[8], 'X');
}
END_TEST

/* ---- calling the parser again -------------------------------------- */

START_TEST(a_second_parse_starts_from_the_defaults)
{
	static const char *const many[] = {"-t",	  "1",
					   "-s",	  "INT",
					   "-k",	  "2",
					   "-p",	  "--kill-scope=tree",
					   "--wait-all",  "--launch=fork",
					   "--close-fds", "-i",
					   "a",		  "-o",
					   "b",		  "-a",
					   "cmd",	  NULL};
	static const char *const bad_cluster[] = {"-vXp", "cmd", NULL};
	static const char *const plain[] = {"cmd", NULL};
	static const char *const dash_p[] = {"-p", "cmd", NULL};
	struct runx_options got, want = spec_defaults();

	expect_ok(parse_words(many, &got));
	ck_assert(got.preserve_status && got.wait_all && got.close_fds);
	expect_ok(parse_words(plain, &got));
	expect_options(&got, &want);
	expect_command_from(&got, 1);

	/* an error in the middle of "-vXp" leaves getopt mid-cluster */
	ck_assert_int_eq(parse_words(bad_cluster, &got), RUNX_PARSE_ERROR);
	expect_ok(parse_words(dash_p, &got));
	want.preserve_status = true;
	expect_options(&got, &want);
	expect_command_from(&got, 2);
}
END_TEST

static Suite *options_suite(void)
{
	Suite *s = suite_create("options");
	TCase *accept = tcase_create("accept");
	TCase *reject = tcase_create("reject");

	tcase_add_test(accept, defaults_when_only_a_command_is_given);
	tcase_add_test(accept, options_after_the_command_belong_to_the_command);
	add_table_test(accept, double_dash_ends_the_options, double_dash_cases);
	add_table_test(accept, every_option_long_and_short_sets_its_field,
		       option_cases);
	add_table_test(accept, the_last_of_repeated_options_wins,
		       last_wins_cases);
	add_table_test(accept, help_and_version_need_no_command, help_cases);
	tcase_add_test(accept, help_and_version_texts_are_gnu_style);
	tcase_add_test(accept, a_second_parse_starts_from_the_defaults);
	tcase_add_test(accept, attempt_options_set_the_attempts_policy);
	tcase_add_test(accept, attempt_options_default_as_the_man_page_says);
	tcase_add_test(accept, backoff_has_no_upper_bound);
	tcase_add_test(accept, total_timeout_zero_means_no_limit);
	tcase_add_test(accept, identity_options_set_their_fields);
	suite_add_tcase(s, accept);

	add_table_test(
	    reject, bad_command_lines_fail_with_a_message_naming_the_bad_text,
	    rejected_cases);
	add_table_test(reject, error_messages_have_the_decided_format,
		       message_cases);
	tcase_add_test(reject, signal_numbers_past_sigrtmax_are_rejected);
	tcase_add_test(reject, the_error_message_respects_errsize);
	tcase_add_test(reject, a_very_long_value_is_shortened_in_the_middle);
	suite_add_tcase(s, reject);
	return s;
}

int main(void)
{
	return run_suite(options_suite());
}
