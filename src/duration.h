/* DURATION text (see runx(1)) to nanoseconds. */
#ifndef RUNX_DURATION_H
#define RUNX_DURATION_H

#include <stddef.h>
#include <stdint.h>

/* "No limit": the value of `inf`, and what too-large values clamp to. */
#define RUNX_DURATION_INF INT64_MAX

/*
 * Parses text as a DURATION: a non-negative decimal number (optionally with
 * a fraction and an exponent, or a C hexadecimal number as GNU timeout
 * accepts) with an optional unit ns, us, ms, s (default), m, h or d; several
 * such terms may be joined ("1m30s"); "inf"/"infinity" means no limit.
 * Leading white space is skipped, as strtod(3) does for GNU timeout.
 *
 * Stores the value in nanoseconds in *ns.  A positive value that is not a
 * whole number of nanoseconds is rounded up (so a positive value never
 * becomes 0 and a deadline never fires early); values beyond INT64_MAX ns
 * (about 292 years) are clamped to RUNX_DURATION_INF, never wrapped.
 * Both hold whatever the number of digits, leading zeros or exponent digits:
 * the exponent is counted in full (saturating far beyond where the value
 * has already clamped or rounded up).  Time is linear in the length.
 *
 * Returns 0, or -EINVAL for empty text, a sign other than '+', "nan",
 * unknown units, white space inside or at the end, or trailing junk; *ns is
 * then unchanged.  No I/O, no locale dependence.
 */
int runx_duration_parse(const char *text, int64_t *ns);

/*
 * Formats ns nanoseconds for messages: "inf", "0s", or the shortest exact form
 * in the largest fitting unit ("1.5s", "250ms", "3m", "7ns").  Writes at most
 * size bytes (NUL included) into buf and returns buf.
 */
const char *runx_duration_format(int64_t ns, char *buf, size_t size);

#endif
