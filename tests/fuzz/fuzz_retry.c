/*
 * libFuzzer target: runx_outcomes_parse() (--retry-on, --success-exit),
 * runx_attempts_parse() and runx_decimal_parse().  Invariants: a
 * rejected list names a bad item that is a NUL-terminated part of the
 * input, no longer than the buffer; an accepted list has no status above
 * 255 (it cannot: 256 bits) and kinds only with --retry-on; an accepted
 * count is 1..1000000000 or inf; an accepted decimal is within its
 * bounds; a rejected text leaves the value alone.
 */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	check_list(text, true, 64);
	check_list(text, false, (size_t)(size % 63) + 1);
	check_numbers(text);
	free(text);
	return 0;
}
