/*
 * Attempts (runx(1), ATTEMPTS): the values of --attempts, --retry-on,
 * --success-exit, --backoff and --jitter as pure parsers, and the pure
 * rules a run applies after each attempt: success, retry or end, and the
 * wait before the next one.  No I/O, no global state: fuzzed and unit
 * tested as they are.
 */
#ifndef RUNX_RETRY_H
#define RUNX_RETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --attempts=inf: no limit on the number of attempts. */
#define RUNX_ATTEMPTS_INF INT64_MAX

/* The kinds of outcome --retry-on names besides statuses and signals. */
enum {
	RUNX_ON_FAILURE = 1, /* anything but a success */
	RUNX_ON_TIMEOUT = 2, /* the attempt's deadline or idle deadline */
	RUNX_ON_SIGNAL = 4,  /* death by a signal runx did not send */
	RUNX_ON_OOM = 8,     /* the OOM killer ended a process of the job */
};

/*
 * A set of outcomes: exit statuses 0..255 (bit s of status[s / 64]),
 * deaths by signal 1..64 (bit sig - 1 of signals) and kinds (RUNX_ON_*).
 */
struct runx_outcomes {
	uint64_t status[4];
	uint64_t signals;
	unsigned kinds;
};

/* How many attempts a run makes and when (runx(1), ATTEMPTS). */
struct runx_attempts_policy {
	int64_t max;		       /* >= 1; RUNX_ATTEMPTS_INF */
	struct runx_outcomes retry_on; /* --retry-on */
	struct runx_outcomes success;  /* --success-exit (0 always) */
	int64_t delay_ns;	       /* --retry-delay, >= 0 */
	int64_t delay_max_ns;	       /* --retry-delay-max */
	int64_t total_ns;	       /* --total-timeout; DURATION_INF */
	double backoff;		       /* --backoff, 1 to 1000 */
	double jitter;		       /* --jitter, 0 to 1 */
	const char *retry_on_text;     /* as given, for -v; NULL: default */
};

/* What one attempt came to, as the rules below read it. */
struct runx_outcome {
	int exit_status;   /* the attempt's exit status (exit_status.h) */
	bool exited;	   /* the command exited on its own: code valid */
	int code;	   /* its exit code, with exited */
	int signal;	   /* it died by this signal (0: did not) */
	bool runx_sent;	   /* runx sent that signal (a stop, a deadline, a
			    * signal it forwarded) */
	bool timed_out;	   /* the attempt's deadline or idle deadline */
	bool deadline;	   /* a deadline ended it: timed_out, or the run's
			    * total deadline */
	int stop_signal;   /* the signal runx received and forwarded that
			    * ended the command: a stop's first signal, or
			    * one only forwarded (0: none) */
	bool oom;	   /* the OOM killer ended a process of the job */
	bool setup_failed; /* 125/126/127 from runx: the command never ran */
};

/* What a run does after an attempt. */
enum runx_verdict {
	RUNX_VERDICT_SUCCESS, /* ends the run with 0 */
	RUNX_VERDICT_RETRY,   /* another attempt, if any remain */
	RUNX_VERDICT_END,     /* ends the run with the attempt's status */
};

/*
 * --attempts: a whole number from 1 to 1000000000, or "inf" or
 * "infinity" in any case (RUNX_ATTEMPTS_INF) into *max.  Returns 0, or
 * -EINVAL with *max unchanged.
 */
int runx_attempts_parse(const char *text, int64_t *max);

/*
 * --retry-on (kinds true) or --success-exit (kinds false): a comma list of
 * items, none empty: "failure", "timeout", "signal", "oom" (with kinds
 * only); N or N-M (exit statuses 0 to 255, N <= M); a signal name as
 * runx_signal_parse() takes it that is no number ("SIGSEGV", "term",
 * "RTMIN+1") and that a process can die by (runx_signal_can_end(): not
 * SIGSTOP, SIGCONT, SIGCHLD...).  Items may be of any length.  Fills *set
 * (emptied first).  Returns 0, or -EINVAL (-EDOM for a signal no process
 * dies by, -ERANGE for status 0 alone with kinds: "0" or "0-0", a success
 * that is never retried, -ENOMEM) with the offending item in bad
 * (NUL-terminated; whole if badsize exceeds its length, else cut to fit).
 */
int runx_outcomes_parse(const char *text, bool kinds, struct runx_outcomes *set,
			char *bad, size_t badsize);

/*
 * A decimal number (digits, optionally a '.' and more digits; no sign,
 * exponent or white space) from lo to hi into *value.  Returns 0, or
 * -EINVAL (not such a number) or -ERANGE (outside lo..hi).
 */
int runx_decimal_parse(const char *text, double lo, double hi, double *value);

/* True if outcome o is in set (statuses for exited ones, signals). */
bool runx_outcomes_match(const struct runx_outcomes *set,
			 const struct runx_outcome *o);

/*
 * The verdict on attempt outcome o under policy p: a success is exit
 * status 0 or a --success-exit match of a command that no deadline ended
 * (an exit, a death by a signal runx did not send, or by a signal runx
 * received and forwarded: docker stop, a SIGHUP passed on; never runx's
 * SIGKILL); a retry is a --retry-on match, where 125, 126 and 127 match
 * only when listed by number.  Whether an attempt remains and the total
 * deadline allows it is the caller's.
 */
enum runx_verdict runx_retry_verdict(const struct runx_attempts_policy *p,
				     const struct runx_outcome *o);

/*
 * True if a run under policy p may retry an attempt that ends with exit
 * status s of 125 (runx could not set up the attempt), 126 or 127 (the
 * command cannot run): more than one attempt, and s listed by number in
 * --retry-on.  No I/O.
 */
bool runx_retry_may_retry_status(const struct runx_attempts_policy *p, int s);

/*
 * The wait in ns after attempt n (1 for the first) before the next:
 * min(delay * backoff^(n-1), delay_max), shortened by jitter * random /
 * 2^64 of itself (random: uniform bits, from getrandom(2) in runx).
 * Saturates, never wraps; 0 when delay is 0; RUNX_DURATION_INF when
 * delay and delay_max are (whatever the jitter).
 */
int64_t runx_retry_wait_ns(const struct runx_attempts_policy *p, int64_t n,
			   uint64_t random);

/* The defaults of runx(1): 1 attempt, failure, 1s, 2, 5m, 0, no total. */
void runx_attempts_defaults(struct runx_attempts_policy *p);

#endif
