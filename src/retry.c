/* Attempts: the option parsers and the rules between attempts (retry.h). */
#include "config.h"

#include "retry.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "duration.h"
#include "signals.h"

/* More attempts than any run makes: a typo, not a count (use inf). */
#define ATTEMPTS_LIMIT INT64_C(1000000000)

void runx_attempts_defaults(struct runx_attempts_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->max = 1;
	p->retry_on.kinds = RUNX_ON_FAILURE;
	p->delay_ns = INT64_C(1000000000);
	p->delay_max_ns = 5 * 60 * INT64_C(1000000000);
	p->total_ns = RUNX_DURATION_INF;
	p->backoff = 2.0;
	p->jitter = 0.0;
}

/* Decimal digits at *s (at most 18) into *v; -1 without a digit. */
static int digits(const char **s, int64_t *v)
{
	const char *q = *s;
	int64_t n = 0;

	if (!isdigit((unsigned char)*q))
		return -1;
	for (; isdigit((unsigned char)*q); q++) {
		if (n > ATTEMPTS_LIMIT)
			continue; /* too large already: keep reading */
		n = n * 10 + (*q - '0');
	}
	*s = q;
	*v = n;
	return 0;
}

int runx_attempts_parse(const char *text, int64_t *max)
{
	const char *s = text;
	int64_t v;

	/* as durations take it (duration.c): any case */
	if (strcasecmp(text, "inf") == 0 || strcasecmp(text, "infinity") == 0) {
		*max = RUNX_ATTEMPTS_INF;
		return 0;
	}
	if (digits(&s, &v) < 0 || *s != '\0' || v < 1 || v > ATTEMPTS_LIMIT)
		return -EINVAL;
	*max = v;
	return 0;
}

int runx_decimal_parse(const char *text, double lo, double hi, double *value)
{
	const char *s = text;
	double v = 0, scale = 1;
	bool any = false;

	for (; isdigit((unsigned char)*s); s++, any = true)
		if (v < 1e9) /* beyond every hi: no need to keep adding */
			v = v * 10 + (*s - '0');
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++, any = true)
			if (scale > 1e-12)
				v += (*s - '0') * (scale /= 10);
	if (!any || *s != '\0')
		return -EINVAL;
	if (v < lo || v > hi)
		return -ERANGE;
	*value = v;
	return 0;
}

/* Sets the statuses lo..hi in set. */
static void add_statuses(struct runx_outcomes *set, int64_t lo, int64_t hi)
{
	for (int64_t s = lo; s <= hi; s++)
		set->status[s / 64] |= UINT64_C(1) << (s % 64);
}

/* An item N or N-M (statuses 0..255); 0, -EINVAL, or with retry (an item
 * of --retry-on) -ERANGE for status 0 alone: a success, never retried. */
static int status_item(const char *item, bool retry, struct runx_outcomes *set)
{
	const char *s = item;
	int64_t lo, hi;

	if (digits(&s, &lo) < 0)
		return -EINVAL;
	hi = lo;
	if (*s == '-') {
		s++;
		if (digits(&s, &hi) < 0)
			return -EINVAL;
	}
	if (*s != '\0' || hi > 255 || lo > hi)
		return -EINVAL;
	if (retry && hi == 0)
		return -ERANGE;
	add_statuses(set, lo, hi);
	return 0;
}

/* A kind's name, or 0 if item is none. */
static unsigned kind_item(const char *item)
{
	static const struct {
		const char *name;
		unsigned kind;
	} kinds[] = {{"failure", RUNX_ON_FAILURE},
		     {"timeout", RUNX_ON_TIMEOUT},
		     {"signal", RUNX_ON_SIGNAL},
		     {"oom", RUNX_ON_OOM}};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(item, kinds[i].name) == 0)
			return kinds[i].kind;
	return 0;
}

/* One item of a list into set; 0, -EINVAL, -EDOM for a signal no
 * process dies by (runx_signal_can_end()), or -ERANGE for status 0 in
 * --retry-on (kinds). */
static int one_item(const char *item, bool kinds, struct runx_outcomes *set)
{
	unsigned kind = kinds ? kind_item(item) : 0;
	int sig;

	if (kind != 0) {
		set->kinds |= kind;
		return 0;
	}
	if (isdigit((unsigned char)item[0]))
		return status_item(item, kinds, set);
	if (runx_signal_parse(item, &sig) < 0 || sig < 1 || sig > 64)
		return -EINVAL;
	if (!runx_signal_can_end(sig))
		return -EDOM; /* a condition that can never match */
	set->signals |= UINT64_C(1) << (sig - 1);
	return 0;
}

int runx_outcomes_parse(const char *text, bool kinds, struct runx_outcomes *set,
			char *bad, size_t badsize)
{
	const char *s = text;

	memset(set, 0, sizeof(*set));
	for (;;) {
		size_t len = strcspn(s, ",");
		/* an item of any length: "0...01" is 1 however many zeros */
		char *item = strndup(s, len);
		int r = item == NULL ? -ENOMEM
			: len == 0   ? -EINVAL
				     : one_item(item, kinds, set);

		free(item);
		if (r < 0) {
			snprintf(bad, badsize, "%.*s",
				 len > INT_MAX ? INT_MAX : (int)len, s);
			return r;
		}
		s += len;
		if (*s == '\0')
			return 0;
		s++;
	}
}

bool runx_outcomes_match(const struct runx_outcomes *set,
			 const struct runx_outcome *o)
{
	if (o->exited && o->code >= 0 && o->code <= 255 &&
	    (set->status[o->code / 64] >> (o->code % 64) & 1))
		return true;
	return o->signal >= 1 && o->signal <= 64 &&
	       (set->signals >> (o->signal - 1) & 1);
}

/* True if exit status s (125..127 of runx) is listed by number. */
static bool listed(const struct runx_outcomes *set, int s)
{
	return s >= 0 && s <= 255 && (set->status[s / 64] >> (s % 64) & 1);
}

bool runx_retry_may_retry_status(const struct runx_attempts_policy *p, int s)
{
	return p->max > 1 && s >= 125 && s <= 127 && listed(&p->retry_on, s);
}

enum runx_verdict runx_retry_verdict(const struct runx_attempts_policy *p,
				     const struct runx_outcome *o)
{
	const struct runx_outcomes *r = &p->retry_on;
	/* a deadline's stop is a failure whatever the command died by; in a
	 * stop runx was told to make, the command's end is its own but for
	 * runx's SIGKILL: an exit, or a death by the forwarded signal */
	bool own_end =
	    !o->deadline && !o->setup_failed &&
	    (!o->runx_sent || o->signal == 0 || o->signal == o->stop_signal);

	if (o->exit_status == 0 ||
	    (own_end && runx_outcomes_match(&p->success, o)))
		return RUNX_VERDICT_SUCCESS;
	if (o->setup_failed || (o->exit_status >= 125 && o->exit_status <= 127))
		return listed(r, o->exit_status) ? RUNX_VERDICT_RETRY
						 : RUNX_VERDICT_END;
	if ((r->kinds & RUNX_ON_FAILURE) ||
	    ((r->kinds & RUNX_ON_TIMEOUT) && o->timed_out) ||
	    ((r->kinds & RUNX_ON_SIGNAL) && o->signal != 0 && !o->runx_sent) ||
	    ((r->kinds & RUNX_ON_OOM) && o->oom) || runx_outcomes_match(r, o))
		return RUNX_VERDICT_RETRY;
	return RUNX_VERDICT_END;
}

int64_t runx_retry_wait_ns(const struct runx_attempts_policy *p, int64_t n,
			   uint64_t random)
{
	double cap = (double)p->delay_max_ns;
	double wait = (double)p->delay_ns;

	for (int64_t i = 1; i < n && wait > 0 && wait < cap && p->backoff > 1;
	     i++)
		wait *= p->backoff;
	if (wait > cap)
		wait = cap;
	if (wait >= 9.2e18) /* no end: a random part of it has none either */
		return RUNX_DURATION_INF;
	/* random / 2^64 is in [0, 1): the wait never becomes negative, and
	 * only shortens (jitter is 0 to 1), so it stays finite */
	wait -= wait * p->jitter * ((double)random / 18446744073709551616.0);
	return wait < 0 ? 0 : (int64_t)wait;
}
