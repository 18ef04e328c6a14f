/* Command-line parsing: every validation error of runx(1) is found here. */
#include "config.h"

#include "options.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "duration.h"
#include "signals.h"

enum {
	OPT_GRACE = 256,
	OPT_IDLE_TIMEOUT,
	OPT_KILL_SCOPE,
	OPT_FOREGROUND,
	OPT_WAIT_ALL,
	OPT_LAUNCH,
	OPT_CLOSE_FDS,
	OPT_REPORT,
};

static const struct option long_options[] = {
	{"timeout", required_argument, NULL, 't'},
	{"signal", required_argument, NULL, 's'},
	{"kill-after", required_argument, NULL, 'k'},
	{"grace", required_argument, NULL, OPT_GRACE},
	{"preserve-status", no_argument, NULL, 'p'},
	{"idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT},
	{"kill-scope", required_argument, NULL, OPT_KILL_SCOPE},
	{"kill-group", no_argument, NULL, 'G'},
	{"kill-cgroup", no_argument, NULL, 'C'},
	{"foreground", no_argument, NULL, OPT_FOREGROUND},
	{"wait-all", no_argument, NULL, OPT_WAIT_ALL},
	{"launch", required_argument, NULL, OPT_LAUNCH},
	{"close-fds", no_argument, NULL, OPT_CLOSE_FDS},
	{"stdin", required_argument, NULL, 'i'},
	{"stdout", required_argument, NULL, 'o'},
	{"stderr", required_argument, NULL, 'e'},
	{"append", no_argument, NULL, 'a'},
	{"merge", no_argument, NULL, 'm'},
	{"verbose", no_argument, NULL, 'v'},
	{"report", required_argument, NULL, OPT_REPORT},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

/* '+': stop at the first operand; ':': report a missing value as ':'. */
static const char short_options[] = "+:t:s:k:pGCi:o:e:amvhV";

static const char *const scope_names[] = {
	[RUNX_SCOPE_CHILD] = "child", [RUNX_SCOPE_GROUP] = "group",
	[RUNX_SCOPE_TREE] = "tree",   [RUNX_SCOPE_CGROUP] = "cgroup",
	[RUNX_SCOPE_AUTO] = "auto",
};

static const char *const launch_names[] = {
	[RUNX_LAUNCH_DEFAULT] = "default",
	[RUNX_LAUNCH_POSIX_SPAWN] = "posix_spawn",
	[RUNX_LAUNCH_FORK] = "fork",
	[RUNX_LAUNCH_VFORK] = "vfork",
	[RUNX_LAUNCH_CLONE3] = "clone3",
};

const char *runx_scope_kind_name(enum runx_scope_kind kind)
{
	return scope_names[kind];
}

const char *runx_launch_kind_name(enum runx_launch_kind kind)
{
	return launch_names[kind];
}

const char *runx_usage(void)
{
	return "Usage: runx [OPTION]... [--] COMMAND [ARG]...\n"
	       "Run COMMAND, stop it at a deadline, and leave no process of "
	       "it behind.\n"
	       "\n"
	       "Time limits:\n"
	       "  -t, --timeout=DURATION     stop COMMAND after DURATION "
	       "(0 or inf: no limit)\n"
	       "  -s, --signal=SIG           first signal of a stop "
	       "(default TERM)\n"
	       "  -k, --kill-after=DURATION, --grace=DURATION\n"
	       "                             SIGKILL what is still alive "
	       "DURATION after the\n"
	       "                             first signal (default 5s; 0: at "
	       "once)\n"
	       "  -p, --preserve-status      on timeout, exit with COMMAND's "
	       "own status\n"
	       "      --idle-timeout=DURATION  stop COMMAND after DURATION "
	       "without output\n"
	       "\n"
	       "Kill scope:\n"
	       "      --kill-scope=SCOPE     child, group (default), tree, "
	       "cgroup or auto\n"
	       "  -G, --kill-group           same as --kill-scope=group\n"
	       "  -C, --kill-cgroup          same as --kill-scope=cgroup\n"
	       "      --foreground           keep COMMAND in runx's process "
	       "group and terminal\n"
	       "                             (implies --kill-scope=child)\n"
	       "      --wait-all             when COMMAND exits, wait for the "
	       "whole scope to exit\n"
	       "                             instead of stopping it\n"
	       "\n"
	       "Launch:\n"
	       "      --launch=BACKEND       posix_spawn, fork, vfork or "
	       "clone3\n"
	       "      --close-fds            close inherited file descriptors "
	       "above 2\n"
	       "\n"
	       "Redirects:\n"
	       "  -i, --stdin=FILE           standard input from FILE\n"
	       "  -o, --stdout=FILE          standard output to FILE\n"
	       "  -e, --stderr=FILE          standard error to FILE\n"
	       "  -a, --append               append to the -o/-e files\n"
	       "  -m, --merge                standard error to where standard "
	       "output goes\n"
	       "\n"
	       "Reporting:\n"
	       "  -v, --verbose              say each decision on standard "
	       "error\n"
	       "      --report=FILE          write a JSON report of the run "
	       "('-': stderr)\n"
	       "  -h, --help                 show this help and exit\n"
	       "  -V, --version              show the version and exit\n"
	       "\n"
	       "DURATION is a number with an optional unit ns, us, ms, s "
	       "(default), m, h, d,\n"
	       "or several joined (1m30s); SIG is a name (TERM, SIGTERM), a "
	       "number or RTMIN+n.\n"
	       "\n"
	       "Exit status: 124 deadline reached, 125 runx failed, 126 "
	       "COMMAND cannot run,\n"
	       "127 COMMAND not found, 128+N COMMAND killed by signal N, else "
	       "COMMAND's status.\n"
	       "See runx(1) for details.\n";
}

const char *runx_version_text(void)
{
	return PACKAGE_NAME " " PACKAGE_VERSION "\n"
	       "Copyright (c) 2026 the runx authors.\n"
	       "License MIT: <https://opensource.org/licenses/MIT>.\n"
	       "This is free software: you are free to change and "
	       "redistribute it.\n";
}

static void say(char *err, size_t errsize, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *err, size_t errsize, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errsize, fmt, ap);
	va_end(ap);
}

/* Finds text in names (count entries); -1 if absent. */
static int lookup(const char *const *names, int count, const char *text)
{
	for (int i = 0; i < count; i++)
		if (names[i] != NULL && strcmp(names[i], text) == 0)
			return i;
	return -1;
}

/* The long name of the option getopt returned as c, for messages. */
static const char *option_name(int c, char *buf, size_t size)
{
	for (const struct option *o = long_options; o->name != NULL; o++)
		if (o->val == c) {
			snprintf(buf, size, "--%s", o->name);
			return buf;
		}
	snprintf(buf, size, "-%c", c);
	return buf;
}

/* Whether c is the value of a long option (every short option is one). */
static bool is_option_value(int c)
{
	for (const struct option *o = long_options; o->name != NULL; o++)
		if (o->val == c)
			return true;
	return false;
}

static int parse_duration_option(const char *option, const char *value,
				 int64_t *ns, char *err, size_t errsize)
{
	if (runx_duration_parse(value, ns) < 0) {
		say(err, errsize, "invalid duration '%s' for %s", value,
		    option);
		return -1;
	}
	return 0;
}

static void set_defaults(struct runx_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->timeout_ns = RUNX_DURATION_INF;
	opts->grace_ns = 5 * INT64_C(1000000000);
	opts->idle_timeout_ns = RUNX_DURATION_INF;
	opts->first_signal = 15; /* SIGTERM */
	opts->scope = RUNX_SCOPE_GROUP;
	opts->launch = RUNX_LAUNCH_DEFAULT;
}

/* Cross-option rules, checked once everything is read. */
static int check_combinations(struct runx_options *opts, bool scope_given,
			      char *err, size_t errsize)
{
	if (opts->foreground) {
		if (scope_given && opts->scope != RUNX_SCOPE_CHILD) {
			say(err, errsize,
			    "--foreground keeps the command in runx's process "
			    "group; it cannot be combined with "
			    "--kill-scope=%s",
			    runx_scope_kind_name(opts->scope));
			return -1;
		}
		opts->scope = RUNX_SCOPE_CHILD;
	}
	if (opts->wait_all && opts->scope == RUNX_SCOPE_CHILD) {
		say(err, errsize,
		    "--wait-all needs a scope larger than the child "
		    "(--kill-scope=group, tree or cgroup)");
		return -1;
	}
	if (opts->merge && opts->stderr_path != NULL) {
		say(err, errsize,
		    "--merge and --stderr='%s' both say where standard error "
		    "goes",
		    opts->stderr_path);
		return -1;
	}
	return 0;
}

enum runx_parse_result runx_options_parse(int argc, char **argv,
					  struct runx_options *opts,
					  char *err, size_t errsize)
{
	bool scope_given = false;
	int c, index;

	set_defaults(opts);
	err[0] = '\0';
	optind = 0; /* glibc: full re-initialisation, so tests may call again */
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_options, long_options,
				&index)) != -1) {
		char opt[32];
		int v;

		option_name(c == ':' ? optopt : c, opt, sizeof(opt));

		switch (c) {
		case 't':
			if (parse_duration_option(opt, optarg,
						  &opts->timeout_ns, err,
						  errsize) < 0)
				return RUNX_PARSE_ERROR;
			if (opts->timeout_ns == 0)
				opts->timeout_ns = RUNX_DURATION_INF;
			break;
		case 'k':
		case OPT_GRACE:
			if (parse_duration_option(opt, optarg, &opts->grace_ns,
						  err, errsize) < 0)
				return RUNX_PARSE_ERROR;
			break;
		case OPT_IDLE_TIMEOUT:
			if (parse_duration_option(opt, optarg,
						  &opts->idle_timeout_ns, err,
						  errsize) < 0)
				return RUNX_PARSE_ERROR;
			if (opts->idle_timeout_ns == 0)
				opts->idle_timeout_ns = RUNX_DURATION_INF;
			break;
		case 's':
			if (runx_signal_parse(optarg, &opts->first_signal) <
			    0) {
				say(err, errsize, "invalid signal '%s'",
				    optarg);
				return RUNX_PARSE_ERROR;
			}
			break;
		case 'p':
			opts->preserve_status = true;
			break;
		case OPT_KILL_SCOPE:
			v = lookup(scope_names, 5, optarg);
			if (v < 0) {
				say(err, errsize,
				    "invalid kill scope '%s' (child, group, "
				    "tree, cgroup or auto)",
				    optarg);
				return RUNX_PARSE_ERROR;
			}
			opts->scope = (enum runx_scope_kind)v;
			scope_given = true;
			break;
		case 'G':
			opts->scope = RUNX_SCOPE_GROUP;
			scope_given = true;
			break;
		case 'C':
			opts->scope = RUNX_SCOPE_CGROUP;
			scope_given = true;
			break;
		case OPT_FOREGROUND:
			opts->foreground = true;
			break;
		case OPT_WAIT_ALL:
			opts->wait_all = true;
			break;
		case OPT_LAUNCH:
			v = lookup(launch_names, 5, optarg);
			if (v <= RUNX_LAUNCH_DEFAULT) {
				say(err, errsize,
				    "invalid launch backend '%s' (posix_spawn, "
				    "fork, vfork or clone3)",
				    optarg);
				return RUNX_PARSE_ERROR;
			}
			opts->launch = (enum runx_launch_kind)v;
			break;
		case OPT_CLOSE_FDS:
			opts->close_fds = true;
			break;
		case 'i':
			opts->stdin_path = optarg;
			break;
		case 'o':
			opts->stdout_path = optarg;
			break;
		case 'e':
			opts->stderr_path = optarg;
			break;
		case 'a':
			opts->append = true;
			break;
		case 'm':
			opts->merge = true;
			break;
		case 'v':
			opts->verbose = true;
			break;
		case OPT_REPORT:
			opts->report_path = optarg;
			break;
		case 'h':
			return RUNX_PARSE_HELP;
		case 'V':
			return RUNX_PARSE_VERSION;
		case ':':
			say(err, errsize, "option '%s' needs a value", opt);
			return RUNX_PARSE_ERROR;
		default:
			/*
			 * optopt: an unknown short option; 0 for an unknown
			 * or ambiguous long option; or the value of a known
			 * long option given a value it does not take.  A long
			 * option is named as typed, argv[optind - 1].
			 */
			if (optopt == 0)
				say(err, errsize, "unknown option '%s'",
				    argv[optind - 1]);
			else if (is_option_value(optopt))
				say(err, errsize,
				    "option '%s' does not take a value",
				    argv[optind - 1]);
			else
				say(err, errsize, "unknown option '-%c'",
				    optopt);
			return RUNX_PARSE_ERROR;
		}
	}
	if (optind >= argc) {
		say(err, errsize, "missing command (see 'runx --help')");
		return RUNX_PARSE_ERROR;
	}
	if (check_combinations(opts, scope_given, err, errsize) < 0)
		return RUNX_PARSE_ERROR;
	opts->command = argv + optind;
	return RUNX_PARSE_OK;
}
