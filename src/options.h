/* The command line of runx(1), parsed into one struct. */
#ifndef RUNX_OPTIONS_H
#define RUNX_OPTIONS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "identity.h"
#include "kinds.h"
#include "retry.h"

struct runx_options {
	int64_t timeout_ns;	 /* RUNX_DURATION_INF: no deadline */
	int64_t grace_ns;	 /* first signal -> SIGKILL; 0: at once */
	int64_t idle_timeout_ns; /* RUNX_DURATION_INF: no idle deadline */
	int first_signal;	 /* signal number, 0 allowed */
	sigset_t stop_signals;	 /* received, they start a stop: TERM, INT */
	bool preserve_status;
	enum runx_scope_kind scope; /* as given; GROUP if none was */
	bool scope_given;	    /* --kill-scope, -G or -C was given */
	bool foreground;
	bool wait_all;
	bool forward_to_child; /* --forward-to=child */
	enum runx_launch_kind launch;
	bool close_fds;
	const char *stdin_path; /* NULL: inherited */
	const char *stdout_path;
	const char *stderr_path;
	bool append;
	bool merge;
	bool verbose;
	const char *report_path;   /* NULL: no report; "-": stderr */
	int64_t memory_max;	   /* memory.max in bytes, >= 1; -1: none */
	int64_t pids_max;	   /* pids.max, 1..4194304; -1: none */
	int64_t cpu_max_quota_us;  /* cpu.max quota, >= 1000 us; 0: none */
	int64_t cpu_max_period_us; /* cpu.max period: 100000 us; 0: none */
	const char *limit_option;  /* the first limit given ("--pids-max"),
				    * for messages; NULL: none */
	struct runx_attempts_policy attempts; /* --attempts, --retry-*... */
	const char *user;		      /* --user as given; NULL: none */
	bool no_new_privs;		      /* --no-new-privs */
	const char *chdir_path;		      /* --chdir; NULL: none */
	int umask;			      /* --umask, 0..0777; -1: none */
	int nrlimits; /* --rlimit settings, one per resource */
	struct runx_rlimit_setting rlimits[RUNX_RLIMITS_MAX];
	const char *rlimit_text[RUNX_RLIMITS_MAX]; /* each as given */
	char **command; /* NULL-terminated argv of the command */
	bool hint_help; /* with RUNX_PARSE_ERROR: a usage error (unknown,
			 * ambiguous or incomplete option, no command), after
			 * which GNU tools point to --help */
};

enum runx_parse_result {
	RUNX_PARSE_ERROR = -1, /* message in err; exit 125 */
	RUNX_PARSE_OK = 0,
	RUNX_PARSE_HELP = 1,	/* --help: print runx_usage(), exit 0 */
	RUNX_PARSE_VERSION = 2, /* --version: print runx_version_text() */
};

/*
 * Parses argv (argc entries) into *opts, stopping at the first operand as
 * getopt with a leading '+' does.  On RUNX_PARSE_ERROR writes a one-line
 * message naming the bad value, without "runx: " and without a newline,
 * into err (at most errsize bytes).  opts->command points into argv.
 * Uses getopt_long(3) and resets its state, so it may be called again.
 *
 * Values: DURATION as runx_duration_parse(); SIG as runx_signal_parse();
 * --stop-signals a comma list of SIG, each one runx catches
 * (runx_signal_is_handled(); not 0, KILL or STOP); --memory-max SIZE
 * decimal bytes with an optional K, M, G or T (any case; powers of 1024;
 * optionally followed by "iB"), 1 to INT64_MAX; --pids-max N from 1 to
 * 4194304 (PID_MAX_LIMIT, the largest pids.max the kernel takes: kernel
 * cgroup-v2.rst, "PID"); --cpu-max CPUS a positive decimal ("0.5", "2")
 * up to 1000000, giving a 100000 us period and a quota of CPUS * 100000 us
 * rounded to the nearest, at least 1000 us (the kernel's minimum quota,
 * cgroup-v2.rst "cpu.max" / sched-bwc.rst).  --attempts, --retry-on,
 * --success-exit, --backoff and --jitter as retry.h's parsers take them;
 * --retry-delay, --retry-delay-max and --total-timeout a DURATION (0 or
 * inf for --total-timeout: no limit).  --umask octal digits, 0 to 0777;
 * --rlimit RES=SOFT[:HARD], RES one of runx_rlimit_lookup()'s names,
 * SOFT and HARD decimal (below RLIM_INFINITY) or "unlimited", HARD SOFT
 * when left out, a later one for the same RES replacing the earlier;
 * --user and --chdir are kept as given.  Syntax only: what one
 * option implies for another (a limit the cgroup scope, --foreground the
 * tree scope) and which combinations are refused is the plan's
 * (runx_plan_make(), plan.h).
 */
enum runx_parse_result runx_options_parse(int argc, char **argv,
					  struct runx_options *opts, char *err,
					  size_t errsize);

/* The --help text (GNU style, ends with a newline). */
const char *runx_usage(void);

/* The --version text (GNU style, ends with a newline). */
const char *runx_version_text(void);

#endif
