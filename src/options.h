/* The command line of runx(1), parsed into one struct. */
#ifndef RUNX_OPTIONS_H
#define RUNX_OPTIONS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which processes a stop reaches (runx(1), KILL SCOPE). */
enum runx_scope_kind {
	RUNX_SCOPE_CHILD,
	RUNX_SCOPE_GROUP,
	RUNX_SCOPE_TREE,
	RUNX_SCOPE_CGROUP,
	RUNX_SCOPE_PIDNS,
	RUNX_SCOPE_AUTO,
};

/* How the command is started (runx(1), LAUNCH BACKEND). */
enum runx_launch_kind {
	RUNX_LAUNCH_DEFAULT, /* the best backend for the scope */
	RUNX_LAUNCH_POSIX_SPAWN,
	RUNX_LAUNCH_FORK,
	RUNX_LAUNCH_VFORK,
	RUNX_LAUNCH_CLONE3,
};

struct runx_options {
	int64_t timeout_ns;	 /* RUNX_DURATION_INF: no deadline */
	int64_t grace_ns;	 /* first signal -> SIGKILL; 0: at once */
	int64_t idle_timeout_ns; /* RUNX_DURATION_INF: no idle deadline */
	int first_signal;	 /* signal number, 0 allowed */
	sigset_t stop_signals;	 /* received, they start a stop: TERM, INT */
	bool preserve_status;
	enum runx_scope_kind scope; /* CGROUP when a limit below is set */
	bool foreground;	    /* scope CHILD, TREE or CGROUP then */
	bool wait_all;
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
	char **command;		   /* NULL-terminated argv of the command */
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
 * cgroup-v2.rst "cpu.max" / sched-bwc.rst).  A limit implies the cgroup
 * scope.  Rejected: --foreground with --kill-scope=group, pidns or auto;
 * a limit with an explicit scope other than cgroup; --wait-all with the
 * child scope; --merge with --stderr.
 */
enum runx_parse_result runx_options_parse(int argc, char **argv,
					  struct runx_options *opts, char *err,
					  size_t errsize);

/* The --help text (GNU style, ends with a newline). */
const char *runx_usage(void);

/* The --version text (GNU style, ends with a newline). */
const char *runx_version_text(void);

/* "child", "group", ... for messages and reports. */
const char *runx_scope_kind_name(enum runx_scope_kind kind);
const char *runx_launch_kind_name(enum runx_launch_kind kind);

#endif
