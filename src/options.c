/* Command-line parsing: every validation error of runx(1) is found here. */
#include "config.h"

#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "log.h"
#include "sigmask.h"
#include "signals.h"

enum {
	OPT_GRACE = 256,
	OPT_IDLE_TIMEOUT,
	OPT_KILL_SCOPE,
	OPT_FOREGROUND,
	OPT_WAIT_ALL,
	OPT_FORWARD_TO,
	OPT_LAUNCH,
	OPT_CLOSE_FDS,
	OPT_REPORT,
	OPT_STOP_SIGNALS,
	OPT_MEMORY_MAX,
	OPT_PIDS_MAX,
	OPT_CPU_MAX,
	OPT_ATTEMPTS,
	OPT_RETRY_ON,
	OPT_RETRY_DELAY,
	OPT_BACKOFF,
	OPT_RETRY_DELAY_MAX,
	OPT_JITTER,
	OPT_TOTAL_TIMEOUT,
	OPT_SUCCESS_EXIT,
	OPT_NO_NEW_PRIVS,
	OPT_RLIMIT,
	OPT_CHDIR,
	OPT_UMASK,
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
    {"forward-to", required_argument, NULL, OPT_FORWARD_TO},
    {"launch", required_argument, NULL, OPT_LAUNCH},
    {"close-fds", no_argument, NULL, OPT_CLOSE_FDS},
    {"stdin", required_argument, NULL, 'i'},
    {"stdout", required_argument, NULL, 'o'},
    {"stderr", required_argument, NULL, 'e'},
    {"append", no_argument, NULL, 'a'},
    {"merge", no_argument, NULL, 'm'},
    {"verbose", no_argument, NULL, 'v'},
    {"report", required_argument, NULL, OPT_REPORT},
    {"stop-signals", required_argument, NULL, OPT_STOP_SIGNALS},
    {"memory-max", required_argument, NULL, OPT_MEMORY_MAX},
    {"pids-max", required_argument, NULL, OPT_PIDS_MAX},
    {"cpu-max", required_argument, NULL, OPT_CPU_MAX},
    {"attempts", required_argument, NULL, OPT_ATTEMPTS},
    {"retry-on", required_argument, NULL, OPT_RETRY_ON},
    {"retry-delay", required_argument, NULL, OPT_RETRY_DELAY},
    {"backoff", required_argument, NULL, OPT_BACKOFF},
    {"retry-delay-max", required_argument, NULL, OPT_RETRY_DELAY_MAX},
    {"jitter", required_argument, NULL, OPT_JITTER},
    {"total-timeout", required_argument, NULL, OPT_TOTAL_TIMEOUT},
    {"success-exit", required_argument, NULL, OPT_SUCCESS_EXIT},
    {"user", required_argument, NULL, 'u'},
    {"no-new-privs", no_argument, NULL, OPT_NO_NEW_PRIVS},
    {"rlimit", required_argument, NULL, OPT_RLIMIT},
    {"chdir", required_argument, NULL, OPT_CHDIR},
    {"umask", required_argument, NULL, OPT_UMASK},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* '+': stop at the first operand; ':': report a missing value as ':'. */
static const char short_options[] = "+:t:s:k:pGCi:o:e:amvu:hV";

/* The cgroup v2 cpu.max period runx uses, and the smallest quota the
 * kernel takes (Documentation/scheduler/sched-bwc.rst). */
#define CPU_PERIOD_US	 INT64_C(100000)
#define CPU_MIN_QUOTA_US INT64_C(1000)
/* More processors than any machine has: a typo, not a limit. */
#define CPU_MAX_CPUS INT64_C(1000000)
/* PID_MAX_LIMIT: pids.max takes at most this (kernel/cgroup/pids.c). */
#define PIDS_MAX_LIMIT INT64_C(4194304)

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
	       "      --stop-signals=SIG[,SIG]...  signals to runx that start "
	       "a "
	       "stop\n"
	       "                             (default TERM,INT; the others "
	       "are only forwarded;\n"
	       "                             PWR,XCPU,VTALRM,PROF,IO,STKFLT,"
	       "SYS,TRAP,\n"
	       "                             ABRT,BUS,FPE,ILL,SEGV stop "
	       "too)\n"
	       "      --forward-to=WHERE     forwarded signals go to the whole "
	       "scope or only\n"
	       "                             the direct child (scope, child; "
	       "default scope)\n"
	       "\n"
	       "Kill scope:\n"
	       "      --kill-scope=SCOPE     child, group (default), tree, "
	       "cgroup, pidns, auto\n"
	       "  -G, --kill-group           same as --kill-scope=group\n"
	       "  -C, --kill-cgroup          same as --kill-scope=cgroup\n"
	       "      --foreground           keep COMMAND in runx's process "
	       "group and terminal\n"
	       "                             (implies the tree scope; cgroup "
	       "or child may be given)\n"
	       "      --wait-all             when COMMAND exits, wait for its "
	       "scope to exit\n"
	       "                             on its own instead of stopping "
	       "it\n"
	       "\n"
	       "Resource limits (imply --kill-scope=cgroup):\n"
	       "      --memory-max=SIZE      memory limit in bytes; K, M, G, "
	       "T: "
	       "powers of 1024\n"
	       "      --pids-max=N           at most N processes and threads\n"
	       "      --cpu-max=CPUS         at most CPUS processors' worth of "
	       "time (0.5, 2)\n"
	       "\n"
	       "Attempts:\n"
	       "      --attempts=N           run COMMAND up to N times "
	       "(default 1; inf)\n"
	       "      --retry-on=COND[,COND]...  failure (default), timeout, "
	       "signal, oom,\n"
	       "                             N, N-M (exit statuses), SIGNAME\n"
	       "      --retry-delay=DURATION  wait before the second attempt "
	       "(default 1s)\n"
	       "      --backoff=FACTOR       each later wait times FACTOR "
	       "(default 2)\n"
	       "      --retry-delay-max=DURATION  longest wait (default 5m)\n"
	       "      --jitter=FRACTION      shorten each wait by a random "
	       "part up to FRACTION\n"
	       "      --total-timeout=DURATION  deadline of the whole run "
	       "(exit 124)\n"
	       "      --success-exit=LIST    exit statuses (N, N-M) and "
	       "signal names that\n"
	       "                             count as success (exit 0)\n"
	       "\n"
	       "Identity and settings of COMMAND (not with posix_spawn):\n"
	       "  -u, --user=USER[:GROUP]    run COMMAND as USER (name or "
	       "number), with its\n"
	       "                             groups from /etc/group, or "
	       "GROUP\n"
	       "      --no-new-privs         set PR_SET_NO_NEW_PRIVS\n"
	       "      --rlimit=RES=SOFT[:HARD]  a resource limit (nofile, "
	       "core, as, ...;\n"
	       "                             a number or unlimited; "
	       "repeatable)\n"
	       "      --chdir=DIR            COMMAND's working directory\n"
	       "      --umask=MODE           COMMAND's umask (octal)\n"
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
	return PACKAGE_NAME
	    " " PACKAGE_VERSION "\n"
	    "Copyright (c) 2026 the runx authors.\n"
	    "License MIT: <https://opensource.org/licenses/MIT>.\n"
	    "This is free software: you are free to change and "
	    "redistribute it.\n";
}

/* The number of entries of a names table. */
#define NAMES(table) ((int)(sizeof(table) / sizeof((table)[0])))

/* One parse: the options being filled and what the final checks need. */
struct parser {
	struct runx_options *opts;
	char limit[32]; /* the first resource limit given; "": none */
	char *err;	/* the message of a rejected command line */
	size_t errsize;
	char name[32]; /* the option being read, as "--name" */
};

static void say(struct parser *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Writes the one-line message of a rejected command line into p->err. */
static void say(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, p->errsize, fmt, ap);
	va_end(ap);
}

/* A user-given value made safe and short for a message (runx_quote). */
#define QUOTE(value, buf) runx_quote((value), (buf), sizeof(buf))

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

/* -t, -k, --grace, --idle-timeout: a DURATION into *ns (0 may mean inf). */
static int set_duration(struct parser *p, const char *value, int64_t *ns,
			bool zero_is_inf)
{
	char q[RUNX_QUOTE_SIZE];

	if (runx_duration_parse(value, ns) < 0) {
		say(p, "invalid duration '%s' for %s", QUOTE(value, q),
		    p->name);
		return -1;
	}
	if (zero_is_inf && *ns == 0)
		*ns = RUNX_DURATION_INF;
	return 0;
}

/* -s: the first signal of a stop (0 allowed). */
static int set_first_signal(struct parser *p, const char *value)
{
	char q[RUNX_QUOTE_SIZE];

	int sig;

	if (runx_signal_parse(value, &sig) < 0) {
		say(p, "invalid signal '%s'", QUOTE(value, q));
		return -1;
	}
	if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	    sig == SIGTTOU) {
		/* the SIGCONT that follows the first signal would undo it */
		say(p,
		    "signal '%s' cannot be the first signal: it only pauses "
		    "the job (job control)",
		    QUOTE(value, q));
		return -1;
	}
	p->opts->first_signal = sig;
	return 0;
}

/* Why signo cannot start a stop when runx receives it; NULL if it can. */
static const char *stop_signal_refusal(int signo)
{
	if (signo == 0)
		return "is not a signal (0)";
	if (signo == SIGKILL || signo == SIGSTOP)
		return "cannot be caught";
	if (!runx_signal_is_handled(signo) &&
	    !runx_signal_is_implicit_stop(signo))
		return "is not one runx catches (HUP INT QUIT TERM USR1 USR2 "
		       "ALRM WINCH CONT, the real-time 32..64, PWR XCPU VTALRM "
		       "PROF IO STKFLT SYS TRAP ABRT BUS FPE ILL SEGV)";
	return NULL;
}

/* Parses one SIG item of --stop-signals (len bytes at item) into *set. */
static int add_stop_signal(struct parser *p, const char *item, size_t len,
			   sigset_t *set)
{
	char q[RUNX_QUOTE_SIZE];
	const char *why;
	int signo, r = -1;
	/* the whole item, however long, for the parser and the message
	 * (which shortens a long one in the middle) */
	char *text = strndup(item, len);

	if (text == NULL) {
		say(p, "cannot read --stop-signals: %s", strerror(ENOMEM));
		return -1;
	}
	if (runx_signal_parse(text, &signo) < 0) {
		say(p, "invalid signal '%s' in --stop-signals", QUOTE(text, q));
	} else if ((why = stop_signal_refusal(signo)) != NULL) {
		say(p, "signal '%s' in --stop-signals %s", QUOTE(text, q), why);
	} else { /* by its bit: sigaddset(3) refuses 32 and 33 (glibc) */
		runx_sigset_add_raw(set, signo);
		r = 0;
	}
	free(text);
	return r;
}

/* --stop-signals=SIG[,SIG]...: no empty list or item, only caught ones. */
static int set_stop_signals(struct parser *p, const char *value)
{
	char q[RUNX_QUOTE_SIZE];
	const char *s = value;
	sigset_t set;

	sigemptyset(&set);
	if (*value == '\0') {
		say(p, "--stop-signals needs at least one signal");
		return -1;
	}
	for (;;) {
		size_t len = strcspn(s, ",");

		if (len == 0) {
			say(p, "empty signal in --stop-signals='%s'",
			    QUOTE(value, q));
			return -1;
		}
		if (add_stop_signal(p, s, len, &set) < 0)
			return -1;
		if (s[len] == '\0')
			break;
		s += len + 1;
	}
	p->opts->stop_signals = set;
	return 0;
}

/* Reads decimal digits at *s into *v; -1 without a digit or on overflow. */
static int read_digits(const char **s, int64_t *v)
{
	const char *q = *s;
	int64_t n = 0;

	if (!isdigit((unsigned char)*q))
		return -1;
	for (; isdigit((unsigned char)*q); q++) {
		int d = *q - '0';

		if (n > (INT64_MAX - d) / 10)
			return -1;
		n = n * 10 + d;
	}
	*s = q;
	*v = n;
	return 0;
}

/* SIZE into *bytes; NULL, or why the text is not a memory limit. */
static const char *parse_size(const char *text, int64_t *bytes)
{
	static const char units[] = "KMGT";
	const char *s = text, *unit;
	int64_t v, mult = 1;

	if (!isdigit((unsigned char)*s))
		return "bytes, or a number with K, M, G or T";
	if (read_digits(&s, &v) < 0)
		return "more than 8 EiB";
	unit = *s != '\0' ? strchr(units, toupper((unsigned char)*s)) : NULL;
	if (unit != NULL) {
		mult = INT64_C(1) << (10 * (unit - units + 1));
		s++;
		if (strcmp(s, "iB") == 0)
			s += 2;
	}
	if (*s != '\0')
		return "bytes, or a number with K, M, G or T";
	if (v > INT64_MAX / mult)
		return "more than 8 EiB";
	if (v == 0)
		return "nothing runs in 0 bytes";
	*bytes = v * mult;
	return NULL;
}

/* N for --pids-max into *n; NULL, or why it is not a process limit. */
static const char *parse_pids(const char *text, int64_t *n)
{
	const char *s = text;
	int64_t v;

	if (read_digits(&s, &v) < 0 || *s != '\0' || v < 1 ||
	    v > PIDS_MAX_LIMIT)
		return "a whole number from 1 to 4194304";
	*n = v;
	return NULL;
}

/*
 * CPUS into a cpu.max quota per CPU_PERIOD_US, rounded to the nearest
 * microsecond (exact decimal arithmetic), at least CPU_MIN_QUOTA_US; NULL,
 * or why the text is not a CPU limit.
 */
static const char *parse_cpus(const char *text, int64_t *quota_us)
{
	const char *s = text;
	int64_t whole = 0, frac = 0, weight = CPU_PERIOD_US;
	bool digits = false, nonzero = false, round_up = false;

	if (isdigit((unsigned char)*s)) {
		if (read_digits(&s, &whole) < 0 || whole > CPU_MAX_CPUS)
			return "more than 1000000 CPUs";
		digits = true;
	}
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++) {
			int d = *s - '0';

			digits = true;
			nonzero = nonzero || d != 0;
			/* five decimals are exact, the sixth rounds, no more */
			if (weight > 1) {
				weight /= 10;
				frac += d * weight;
			} else if (weight == 1) {
				round_up = d >= 5;
				weight = 0;
			}
		}
	if (!digits || *s != '\0')
		return "a positive decimal number of CPUs: 0.5, 2";
	if (whole == 0 && !nonzero)
		return "must be more than 0";
	if (whole == CPU_MAX_CPUS && nonzero)
		return "more than 1000000 CPUs";
	*quota_us = whole * CPU_PERIOD_US + frac + (round_up ? 1 : 0);
	if (*quota_us < CPU_MIN_QUOTA_US)
		*quota_us = CPU_MIN_QUOTA_US;
	return NULL;
}

/* --memory-max, --pids-max, --cpu-max: one limit on the job's cgroup. */
static int set_limit(struct parser *p, int c, const char *value)
{
	struct runx_options *o = p->opts;
	char q[RUNX_QUOTE_SIZE];
	const char *why;

	if (c == OPT_MEMORY_MAX)
		why = parse_size(value, &o->memory_max);
	else if (c == OPT_PIDS_MAX)
		why = parse_pids(value, &o->pids_max);
	else
		why = parse_cpus(value, &o->cpu_max_quota_us);
	if (why != NULL) {
		say(p, "invalid value '%s' for %s (%s)", QUOTE(value, q),
		    p->name, why);
		return -1;
	}
	if (c == OPT_CPU_MAX)
		o->cpu_max_period_us = CPU_PERIOD_US;
	if (p->limit[0] == '\0')
		snprintf(p->limit, sizeof(p->limit), "%s", p->name);
	return 0;
}

/* --retry-on, --success-exit: a list of outcomes (retry.h). */
static int set_outcomes(struct parser *p, int c, const char *value)
{
	struct runx_attempts_policy *a = &p->opts->attempts;
	char q[RUNX_QUOTE_SIZE];
	bool retry = c == OPT_RETRY_ON;
	/* room for the whole bad item: the message shortens it in the
	 * middle, as every other value, so its end is never lost */
	size_t size = strlen(value) + 1;
	char *bad = malloc(size);

	if (bad == NULL) {
		say(p, "cannot read %s: %s", p->name, strerror(ENOMEM));
		return -1;
	}
	int r = runx_outcomes_parse(
	    value, retry, retry ? &a->retry_on : &a->success, bad, size);
	if (r == -EDOM)
		say(p,
		    "invalid item '%s' in %s: no process dies by that signal "
		    "(its default action stops, continues or ignores)",
		    QUOTE(bad, q), p->name);
	else if (r == -ERANGE)
		say(p,
		    "invalid item '%s' in %s: exit status 0 is a success, "
		    "never retried",
		    QUOTE(bad, q), p->name);
	else if (r < 0)
		say(p, "invalid %s '%s' in %s (%s)",
		    bad[0] == '\0' ? "empty item" : "item", QUOTE(bad, q),
		    p->name,
		    retry ? "failure, timeout, signal, oom, N, N-M or a signal "
			    "name"
			  : "N, N-M or a signal name");
	free(bad);
	if (r < 0)
		return -1;
	if (retry)
		a->retry_on_text = value;
	return 0;
}

/* --attempts, --backoff, --jitter: a count or a decimal (retry.h). */
static int set_attempts_number(struct parser *p, int c, const char *value)
{
	struct runx_attempts_policy *a = &p->opts->attempts;
	char q[RUNX_QUOTE_SIZE];
	const char *want;
	int r;

	if (c == OPT_ATTEMPTS) {
		r = runx_attempts_parse(value, &a->max);
		want = "a whole number from 1 to 1000000000, inf or infinity";
	} else if (c == OPT_BACKOFF) {
		/* no upper bound (SPEC): every wait stops at
		 * --retry-delay-max anyway */
		r = runx_decimal_parse(value, 1, HUGE_VAL, &a->backoff);
		want = "a decimal number of at least 1";
	} else {
		r = runx_decimal_parse(value, 0, 1, &a->jitter);
		want = "a decimal number from 0 to 1";
	}
	if (r < 0) {
		say(p, "invalid value '%s' for %s (%s)", QUOTE(value, q),
		    p->name, want);
		return -1;
	}
	return 0;
}

/* The options of ATTEMPTS; 1 if c is none of them. */
static int set_attempts_option(struct parser *p, int c, const char *value)
{
	struct runx_attempts_policy *a = &p->opts->attempts;

	switch (c) {
	case OPT_ATTEMPTS:
	case OPT_BACKOFF:
	case OPT_JITTER:
		return set_attempts_number(p, c, value);
	case OPT_RETRY_ON:
	case OPT_SUCCESS_EXIT:
		return set_outcomes(p, c, value);
	case OPT_RETRY_DELAY:
		return set_duration(p, value, &a->delay_ns, false);
	case OPT_RETRY_DELAY_MAX:
		return set_duration(p, value, &a->delay_max_ns, false);
	case OPT_TOTAL_TIMEOUT:
		return set_duration(p, value, &a->total_ns, true);
	}
	return 1;
}

/* --kill-scope, -G, -C: the scope, the last one given wins. */
static int set_scope(struct parser *p, int c, const char *value)
{
	char q[RUNX_QUOTE_SIZE];
	int v = c == 'G' ? RUNX_SCOPE_GROUP : RUNX_SCOPE_CGROUP;

	if (c == OPT_KILL_SCOPE)
		v = runx_scope_kind_lookup(value);
	if (v < 0) {
		say(p,
		    "invalid kill scope '%s' (child, group, tree, cgroup, "
		    "pidns or auto)",
		    QUOTE(value, q));
		return -1;
	}
	p->opts->scope = (enum runx_scope_kind)v;
	p->opts->scope_given = true;
	return 0;
}

/* --forward-to: where forwarded signals go. */
static int set_forward_to(struct parser *p, const char *value)
{
	char q[RUNX_QUOTE_SIZE];

	if (strcmp(value, "scope") != 0 && strcmp(value, "child") != 0) {
		say(p, "invalid value '%s' for --forward-to (scope or child)",
		    QUOTE(value, q));
		return -1;
	}
	p->opts->forward_to_child = strcmp(value, "child") == 0;
	return 0;
}

/* --launch: a backend by name ("default" is not one to ask for). */
static int set_launch(struct parser *p, const char *value)
{
	char q[RUNX_QUOTE_SIZE];
	int v = runx_launch_kind_lookup(value);

	if (v <= RUNX_LAUNCH_DEFAULT) {
		say(p,
		    "invalid launch backend '%s' (posix_spawn, fork, vfork or "
		    "clone3)",
		    QUOTE(value, q));
		return -1;
	}
	p->opts->launch = (enum runx_launch_kind)v;
	return 0;
}

/* --umask=MODE: octal digits, 0 to 0777. */
static int set_umask(struct parser *p, const char *value)
{
	char q[RUNX_QUOTE_SIZE];
	long mode = 0;
	const char *s = value;

	for (; *s >= '0' && *s <= '7' && mode <= 0777; s++)
		mode = mode * 8 + (*s - '0');
	if (*value == '\0' || *s != '\0' || mode > 0777) {
		say(p, "invalid umask '%s' (octal, 0 to 0777)",
		    QUOTE(value, q));
		return -1;
	}
	p->opts->umask = (int)mode;
	return 0;
}

/* SOFT or HARD of --rlimit, len bytes at text: 0 or -1. */
static int parse_rlim(const char *text, size_t len, rlim_t *v)
{
	const char *s = text;
	int64_t n;

	if (len == 9 && strncmp(text, "unlimited", 9) == 0) {
		*v = RLIM_INFINITY;
		return 0;
	}
	if (read_digits(&s, &n) < 0 || s != text + len)
		return -1;
	*v = (rlim_t)n;
	return 0;
}

/* Stores one setting, replacing an earlier one of the same resource. */
static void store_rlimit(struct runx_options *o, int resource, struct rlimit rl,
			 const char *text)
{
	int i = 0;

	while (i < o->nrlimits && o->rlimits[i].resource != resource)
		i++;
	if (i == o->nrlimits)
		o->nrlimits++;
	o->rlimits[i] = (struct runx_rlimit_setting){resource, rl};
	o->rlimit_text[i] = text;
}

/* --rlimit=RES=SOFT[:HARD]; SOFT above HARD is the plan's to refuse. */
static int set_rlimit(struct parser *p, const char *value)
{
	char q[RUNX_QUOTE_SIZE], name[16];
	size_t len = strcspn(value, "=");
	const char *soft = value + len + 1, *colon;
	struct rlimit rl;
	int resource = -1;

	if (value[len] == '=' && len < sizeof(name)) {
		memcpy(name, value, len);
		name[len] = '\0';
		resource = runx_rlimit_lookup(name);
	}
	if (resource < 0) {
		say(p,
		    "invalid --rlimit '%s' (RES=SOFT[:HARD], RES one of as "
		    "core cpu data fsize memlock msgqueue nice nofile nproc "
		    "rss rtprio rttime sigpending stack)",
		    QUOTE(value, q));
		return -1;
	}
	colon = strchr(soft, ':');
	if (parse_rlim(soft, colon ? (size_t)(colon - soft) : strlen(soft),
		       &rl.rlim_cur) < 0 ||
	    (colon != NULL &&
	     parse_rlim(colon + 1, strlen(colon + 1), &rl.rlim_max) < 0)) {
		say(p,
		    "invalid --rlimit '%s' (SOFT and HARD: a number or "
		    "unlimited)",
		    QUOTE(value, q));
		return -1;
	}
	if (colon == NULL)
		rl.rlim_max = rl.rlim_cur;
	store_rlimit(p->opts, resource, rl, value);
	return 0;
}

/* The options without a value; false if c is not one of them. */
static bool set_flag(struct runx_options *o, int c)
{
	switch (c) {
	case 'p':
		o->preserve_status = true;
		break;
	case OPT_FOREGROUND:
		o->foreground = true;
		break;
	case OPT_WAIT_ALL:
		o->wait_all = true;
		break;
	case OPT_CLOSE_FDS:
		o->close_fds = true;
		break;
	case 'a':
		o->append = true;
		break;
	case 'm':
		o->merge = true;
		break;
	case 'v':
		o->verbose = true;
		break;
	case OPT_NO_NEW_PRIVS:
		o->no_new_privs = true;
		break;
	default:
		return false;
	}
	return true;
}

/* -i, -o, -e, --report: a path, opened later; false if c is none. */
static bool set_path(struct runx_options *o, int c, const char *value)
{
	switch (c) {
	case 'i':
		o->stdin_path = value;
		break;
	case 'o':
		o->stdout_path = value;
		break;
	case 'e':
		o->stderr_path = value;
		break;
	case OPT_REPORT:
		o->report_path = value;
		break;
	case 'u':
		o->user = value;
		break;
	case OPT_CHDIR:
		o->chdir_path = value;
		break;
	default:
		return false;
	}
	return true;
}

/*
 * If word ("--kill=5s") abbreviates more than one long option, says so,
 * naming them all as getopt(3) does, and returns true.
 */
static bool ambiguous(struct parser *p, const char *word)
{
	char q[RUNX_QUOTE_SIZE], names[512] = "";
	size_t len = strcspn(word + 2, "="), used = 0;
	int n = 0;

	if (strncmp(word, "--", 2) != 0 || len == 0)
		return false;
	for (const struct option *o = long_options; o->name != NULL; o++)
		if (strncmp(o->name, word + 2, len) == 0 &&
		    used < sizeof(names))
			used += (size_t)snprintf(names + used,
						 sizeof(names) - used, "%s--%s",
						 n++ ? ", " : "", o->name);
	if (n < 2)
		return false;
	say(p, "option '%s' is ambiguous; possibilities: %s", QUOTE(word, q),
	    names);
	return true;
}

/*
 * What getopt_long could not parse.  optopt: an unknown short option; 0
 * for an unknown or ambiguous long option; or the value of a known long
 * option given a value it does not take.  A long option is named as typed,
 * argv[optind - 1].
 */
static int getopt_failure(struct parser *p, int c, char **argv)
{
	char q[RUNX_QUOTE_SIZE], shortopt[3] = {'-', (char)optopt, '\0'};

	p->opts->hint_help = true;
	if (c == ':' && strncmp(argv[optind - 1], "--", 2) != 0)
		/* as typed: a short option ("-t", or last in "-vt") */
		say(p, "option '-%c' (%s) needs a value", optopt, p->name);
	else if (c == ':')
		say(p, "option '%s' needs a value", p->name);
	else if (optopt == 0 && ambiguous(p, argv[optind - 1]))
		; /* said */
	else if (optopt == 0)
		say(p, "unknown option '%s'", QUOTE(argv[optind - 1], q));
	else if (is_option_value(optopt))
		say(p, "option '%s' does not take a value",
		    QUOTE(argv[optind - 1], q));
	else
		say(p, "unknown option '%s'", QUOTE(shortopt, q));
	return RUNX_PARSE_ERROR;
}

/* Applies option c with its value: RUNX_PARSE_OK, _HELP, _VERSION or _ERROR. */
static int parse_one(struct parser *p, int c, const char *value, char **argv)
{
	struct runx_options *o = p->opts;

	switch (c) {
	case 't':
		return set_duration(p, value, &o->timeout_ns, true);
	case 'k':
	case OPT_GRACE:
		return set_duration(p, value, &o->grace_ns, false);
	case OPT_IDLE_TIMEOUT:
		return set_duration(p, value, &o->idle_timeout_ns, true);
	case 's':
		return set_first_signal(p, value);
	case OPT_STOP_SIGNALS:
		return set_stop_signals(p, value);
	case OPT_KILL_SCOPE:
	case 'G':
	case 'C':
		return set_scope(p, c, value);
	case OPT_MEMORY_MAX:
	case OPT_PIDS_MAX:
	case OPT_CPU_MAX:
		return set_limit(p, c, value);
	case OPT_LAUNCH:
		return set_launch(p, value);
	case OPT_FORWARD_TO:
		return set_forward_to(p, value);
	case OPT_UMASK:
		return set_umask(p, value);
	case OPT_RLIMIT:
		return set_rlimit(p, value);
	case 'h':
		return RUNX_PARSE_HELP;
	case 'V':
		return RUNX_PARSE_VERSION;
	}
	if (set_flag(o, c) || set_path(o, c, value))
		return RUNX_PARSE_OK;
	int r = set_attempts_option(p, c, value);
	if (r <= 0)
		return r;
	return getopt_failure(p, c, argv);
}

/* The defaults of runx(1): no deadline, 5 s grace, TERM, group scope. */
static void set_defaults(struct runx_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->timeout_ns = RUNX_DURATION_INF;
	opts->grace_ns = 5 * INT64_C(1000000000);
	opts->idle_timeout_ns = RUNX_DURATION_INF;
	opts->first_signal = SIGTERM;
	sigemptyset(&opts->stop_signals);
	sigaddset(&opts->stop_signals, SIGTERM);
	sigaddset(&opts->stop_signals, SIGINT);
	opts->scope = RUNX_SCOPE_GROUP;
	opts->launch = RUNX_LAUNCH_DEFAULT;
	opts->memory_max = -1;
	opts->pids_max = -1;
	opts->cpu_max_quota_us = 0;
	opts->cpu_max_period_us = 0;
	opts->umask = -1;
	runx_attempts_defaults(&opts->attempts);
}

enum runx_parse_result runx_options_parse(int argc, char **argv,
					  struct runx_options *opts, char *err,
					  size_t errsize)
{
	struct parser p = {.opts = opts, .err = err, .errsize = errsize};
	int c, index, r;

	set_defaults(opts);
	err[0] = '\0';
	optind = 0; /* glibc: full re-initialisation, so tests may call again */
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_options, long_options,
				&index)) != -1) {
		option_name(c == ':' ? optopt : c, p.name, sizeof(p.name));
		r = parse_one(&p, c, optarg, argv);
		if (r != RUNX_PARSE_OK)
			return (enum runx_parse_result)r;
	}
	if (optind >= argc) {
		say(&p, "missing command");
		opts->hint_help = true;
		return RUNX_PARSE_ERROR;
	}
	opts->limit_option = NULL;
	if (p.limit[0] != '\0') {
		static char limit[32]; /* outlives the parser, as argv does */
		memcpy(limit, p.limit, sizeof(limit));
		opts->limit_option = limit;
	}
	opts->command = argv + optind;
	return RUNX_PARSE_OK;
}
