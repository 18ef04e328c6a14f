/* The command line of runx(1), parsed into one struct. */
#ifndef RUNX_OPTIONS_H
#define RUNX_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which processes a stop reaches (runx(1), KILL SCOPE). */
enum runx_scope_kind {
	RUNX_SCOPE_CHILD,
	RUNX_SCOPE_GROUP,
	RUNX_SCOPE_TREE,
	RUNX_SCOPE_CGROUP,
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
	int64_t timeout_ns;      /* RUNX_DURATION_INF: no deadline */
	int64_t grace_ns;        /* first signal -> SIGKILL; 0: at once */
	int64_t idle_timeout_ns; /* RUNX_DURATION_INF: no idle deadline */
	int first_signal;        /* signal number, 0 allowed */
	bool preserve_status;
	enum runx_scope_kind scope;
	bool foreground;
	bool wait_all;
	enum runx_launch_kind launch;
	bool close_fds;
	const char *stdin_path; /* NULL: inherited */
	const char *stdout_path;
	const char *stderr_path;
	bool append;
	bool merge;
	bool verbose;
	const char *report_path; /* NULL: no report; "-": stderr */
	char **command;          /* NULL-terminated argv of the command */
};

enum runx_parse_result {
	RUNX_PARSE_ERROR = -1, /* message in err; exit 125 */
	RUNX_PARSE_OK = 0,
	RUNX_PARSE_HELP = 1,    /* --help: print runx_usage(), exit 0 */
	RUNX_PARSE_VERSION = 2, /* --version: print runx_version_text() */
};

/*
 * Parses argv (argc entries) into *opts, stopping at the first operand as
 * getopt with a leading '+' does.  On RUNX_PARSE_ERROR writes a one-line
 * message naming the bad value, without "runx: " and without a newline,
 * into err (at most errsize bytes).  opts->command points into argv.
 * Uses getopt_long(3) and resets its state, so it may be called again.
 */
enum runx_parse_result runx_options_parse(int argc, char **argv,
					  struct runx_options *opts,
					  char *err, size_t errsize);

/* The --help text (GNU style, ends with a newline). */
const char *runx_usage(void);

/* The --version text (GNU style, ends with a newline). */
const char *runx_version_text(void);

/* "child", "group", ... for messages and reports. */
const char *runx_scope_kind_name(enum runx_scope_kind kind);
const char *runx_launch_kind_name(enum runx_launch_kind kind);

#endif
