/*
 * libFuzzer target: runx_outcomes_parse() (--retry-on, --success-exit),
 * runx_attempts_parse() and runx_decimal_parse().  Invariants: a
 * rejected list names a bad item that is a NUL-terminated part of the
 * input, no longer than the buffer; an accepted list has no status above
 * 255 (it cannot: 256 bits) and kinds only with --retry-on; an accepted
 * count is 1..1000000000 or inf; an accepted decimal is within its
 * bounds; a rejected text leaves the value alone.  And the list's meaning
 * (check_meaning): a parse is deterministic and empties the set first; a
 * list is the union of its comma-separated items, and a rejected one
 * names its first item rejected alone; a bare number N is accepted
 * exactly when N <= 255 (leading zeros allowed) and sets status N alone,
 * N-M exactly when N <= M <= 255 and sets N..M alone, but status 0
 * alone in --retry-on (a success, refused); a list --success-exit
 * accepts, --retry-on accepts the same, but for that; what is set is
 * what runx_outcomes_match() matches.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "retry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The list checks, for --retry-on (kinds) or --success-exit. */
static void check_list(const char *text, bool kinds, size_t badsize)
{
	struct runx_outcomes set;
	char bad[64];

	memset(bad, 'X', sizeof(bad));
	if (runx_outcomes_parse(text, kinds, &set, bad, badsize) != 0) {
		if (memchr(bad, '\0', badsize) == NULL ||
		    strlen(bad) >= badsize)
			abort();
		if (strstr(text, bad) == NULL)
			abort();
		return;
	}
	if (!kinds && set.kinds != 0)
		abort();
	if (set.kinds & ~(unsigned)(RUNX_ON_FAILURE | RUNX_ON_TIMEOUT |
				    RUNX_ON_SIGNAL | RUNX_ON_OOM))
		abort();
}

/* The count and decimal checks. */
static void check_numbers(const char *text)
{
	int64_t max = -77;
	double v = -77;

	if (runx_attempts_parse(text, &max) != 0) {
		if (max != -77)
			abort();
	} else if (max != RUNX_ATTEMPTS_INF && (max < 1 || max > 1000000000)) {
		abort();
	}
	if (runx_decimal_parse(text, 1, 1000, &v) != 0) {
		if (v != -77)
			abort();
	} else if (!(v >= 1 && v <= 1000)) {
		abort();
	}
}

/* True if a and b hold the same statuses, signals and kinds. */
static bool same(const struct runx_outcomes *a, const struct runx_outcomes *b)
{
	return memcmp(a->status, b->status, sizeof(a->status)) == 0 &&
	       a->signals == b->signals && a->kinds == b->kinds;
}

/* The statuses lo..hi alone. */
static struct runx_outcomes statuses(int lo, int hi)
{
	struct runx_outcomes set;

	memset(&set, 0, sizeof(set));
	for (int s = lo; s <= hi; s++)
		set.status[s / 64] |= UINT64_C(1) << (s % 64);
	return set;
}

/*
 * Decimal digits at *s into *v, at most 1000 (more is out of range
 * anyway); false without a digit.
 */
static bool number(const char **s, int *v)
{
	if (**s < '0' || **s > '9')
		return false;
	for (*v = 0; **s >= '0' && **s <= '9'; (*s)++)
		*v = *v > 100 ? 1000 : *v * 10 + (**s - '0');
	return true;
}

/*
 * If text is N or N-M alone: what the parser must make of it (the set;
 * accepted or not).  False for any other text.
 */
static bool expected_statuses(const char *text, bool kinds,
			      struct runx_outcomes *want, bool *accepted)
{
	const char *s = text;
	int lo, hi;

	if (!number(&s, &lo))
		return false;
	hi = lo;
	if (*s == '-') {
		s++;
		if (!number(&s, &hi))
			return false;
	}
	if (*s != '\0')
		return false;
	/* --retry-on (kinds) refuses status 0 alone: a success */
	*accepted = lo <= hi && hi <= 255 && !(kinds && hi == 0);
	if (*accepted)
		*want = statuses(lo, hi);
	return true;
}

/*
 * Each comma-separated item of text parsed alone: an accepted text is
 * the union of its items, a rejected one names (cut to badsize) the
 * first item rejected alone, and every item before it is accepted.
 */
static void check_items(const char *text, bool kinds, int r,
			const struct runx_outcomes *set, const char *bad,
			size_t badsize)
{
	struct runx_outcomes all, one;
	char item_bad[64], *item;
	const char *s = text;

	memset(&all, 0, sizeof(all));
	for (;; s++) {
		size_t len = strcspn(s, ",");
		if ((item = strndup(s, len)) == NULL)
			return;
		int ri = runx_outcomes_parse(item, kinds, &one, item_bad,
					     sizeof(item_bad));
		if (ri != 0 &&
		    (r == 0 || strncmp(bad, item, badsize - 1) != 0 ||
		     strlen(bad) != (len < badsize ? len : badsize - 1)))
			abort(); /* the first bad item is the one named */
		free(item);
		if (ri != 0)
			return;
		for (int i = 0; i < 4; i++)
			all.status[i] |= one.status[i];
		all.signals |= one.signals;
		all.kinds |= one.kinds;
		if (s[len] == '\0')
			break;
		s += len;
	}
	if (r != 0 || !same(&all, set))
		abort(); /* every item accepted: the list is, as their union */
}

/* What runx_outcomes_match() says of set: its statuses and signals. */
static void check_match(const struct runx_outcomes *set)
{
	for (int code = 0; code <= 255; code++) {
		struct runx_outcome o = {.exited = true, .code = code};
		if (runx_outcomes_match(set, &o) !=
		    (bool)(set->status[code / 64] >> (code % 64) & 1))
			abort();
	}
	for (int sig = 1; sig <= 64; sig++) {
		struct runx_outcome o = {.exit_status = 128 + sig,
					 .signal = sig};
		if (runx_outcomes_match(set, &o) !=
		    (bool)(set->signals >> (sig - 1) & 1))
			abort();
	}
}

/* The meaning of a list (see the top of this file). */
static void check_meaning(const char *text, bool kinds, size_t badsize)
{
	struct runx_outcomes set, again, want, other;
	char bad[64], bad2[64];
	bool accepted;
	int r = runx_outcomes_parse(text, kinds, &set, bad, badsize);

	memset(&again, 0xa5, sizeof(again)); /* emptied first */
	if (runx_outcomes_parse(text, kinds, &again, bad2, badsize) != r ||
	    (r == 0 && !same(&set, &again)) ||
	    (r != 0 && strcmp(bad, bad2) != 0))
		abort();
	check_items(text, kinds, r, &set, bad, badsize);
	if (expected_statuses(text, kinds, &want, &accepted) &&
	    ((r == 0) != accepted || (accepted && !same(&set, &want))))
		abort();
	if (r != 0)
		return;
	check_match(&set);
	/* --success-exit's list means the same in --retry-on, but where
	 * it names status 0 alone, which --retry-on refuses (-ERANGE) */
	int r2 =
	    kinds ? 0
		  : runx_outcomes_parse(text, true, &other, bad2, sizeof(bad2));
	if (!kinds && r2 != -ERANGE && (r2 != 0 || !same(&set, &other)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	check_list(text, true, 64);
	check_list(text, false, (size_t)(size % 63) + 1);
	check_meaning(text, true, 64);
	check_meaning(text, false, (size_t)(size % 63) + 1);
	check_numbers(text);
	free(text);
	return 0;
}
