/*
 * Decimal digits of an unsigned number without printf(3): for the JSON
 * writer (json.c) and for the /proc paths a stop builds for every process
 * (proc.c).
 */
#ifndef RUNX_DECIMAL_H
#define RUNX_DECIMAL_H

#include <stdint.h>

/* Room for the digits of any uint64_t: UINT64_MAX has 20. */
#define RUNX_DECIMAL_MAX 20

/*
 * Writes v in decimal so that its last digit is the byte before end, with
 * no terminating NUL, and returns where its first digit is.  The
 * RUNX_DECIMAL_MAX bytes before end must be writable.
 */
static inline char *runx_decimal(uint64_t v, char *end)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0);
	return end;
}

#endif
