/*
 * libFuzzer target: runx_options_parse() on argv made of the input split
 * at NUL bytes (after argv[0] "runx").  Invariants: an error has a
 * one-line message without control characters that fits err; a success
 * gives options within their documented ranges and consistent with the
 * cross-option rules of runx(1); a second parse of the same argv gives the
 * same result (getopt state is reset).
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "options.h"
#include "sigmask.h"
#include "signals.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts unless err is a non-empty line without control characters. */
static void check_message(const char *err, size_t errsize)
{
	size_t len = strnlen(err, errsize);

	if (len == 0 || len >= errsize)
		abort();
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)err[i] < 0x20 ||
		    (unsigned char)err[i] == 0x7f)
			abort();
}

/*
 * Aborts unless the resource limits are in range.  That a limit implies
 * the cgroup scope is the plan's rule now (plan.c), not the parser's.
 */
static void check_limits(const struct runx_options *o)
{
	if (o->memory_max != -1 && o->memory_max < 1)
		abort();
	if (o->pids_max != -1 && (o->pids_max < 1 || o->pids_max > 4194304))
		abort();
	if (o->cpu_max_quota_us != 0 &&
	    (o->cpu_max_quota_us < 1000 || o->cpu_max_period_us != 100000))
		abort();
	if (o->cpu_max_quota_us == 0 && o->cpu_max_period_us != 0)
		abort();
}

/* Aborts unless the parsed options keep every rule of runx(1). */
static void check_options(const struct runx_options *o, char **argv, int argc)
{
	bool any_stop = false;

	if (o->command == NULL || o->command < argv + 1 ||
	    o->command >= argv + argc || o->command[0] == NULL)
		abort();
	if (o->timeout_ns <= 0 || o->idle_timeout_ns <= 0 || o->grace_ns < 0)
		abort();
	if (o->first_signal < 0 || o->first_signal > SIGRTMAX)
		abort();
	for (int sig = 0; sig <= SIGRTMAX; sig++)
		if (sigismember(&o->stop_signals, sig) == 1) {
			if (!runx_signal_is_handled(sig) &&
			    !runx_signal_is_implicit_stop(sig))
				abort();
			any_stop = true;
		}
	if (!any_stop)
		abort();
	if ((unsigned)o->scope > RUNX_SCOPE_AUTO ||
	    (unsigned)o->launch > RUNX_LAUNCH_CLONE3)
		abort();
	/* --foreground, --wait-all, --merge with --stderr: the plan's rules
	 * (plan.c), no longer the parser's */
	if (o->attempts.max < 1 || o->attempts.backoff < 1 ||
	    !isfinite(o->attempts.backoff) || o->attempts.jitter < 0 ||
	    o->attempts.jitter > 1 || o->attempts.delay_ns < 0 ||
	    o->attempts.delay_max_ns < 0 || o->attempts.total_ns <= 0)
		abort();
	check_limits(o);
	runx_scope_kind_name(o->scope);
	runx_launch_kind_name(o->launch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 2], err[512];
	struct runx_options opts, again;
	enum runx_parse_result rc, rc2;
	int argc = 0;

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = (char *)"runx";
	for (size_t i = 0; i <= size && argc <= MAX_ARGS;) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	rc = runx_options_parse(argc, argv, &opts, err, sizeof(err));
	if (rc == RUNX_PARSE_ERROR)
		check_message(err, sizeof(err));
	else if (rc == RUNX_PARSE_OK)
		check_options(&opts, argv, argc);
	else if (rc != RUNX_PARSE_HELP && rc != RUNX_PARSE_VERSION)
		abort();
	rc2 = runx_options_parse(argc, argv, &again, err, sizeof(err));
	if (rc2 != rc ||
	    (rc == RUNX_PARSE_OK && (again.command != opts.command ||
				     again.timeout_ns != opts.timeout_ns ||
				     again.scope != opts.scope ||
				     again.memory_max != opts.memory_max)))
		abort();
	free(buf);
	return 0;
}
