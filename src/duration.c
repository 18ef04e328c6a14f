/* DURATION text to nanoseconds: exact decimal arithmetic, no locale. */
#include "config.h"

#include "duration.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Digits of the mantissa kept exactly; 10^19 * 86400e9 still fits 128 bits. */
#define MAX_DIGITS 19

typedef unsigned __int128 u128;

/*
 * Decimal exponents saturate here, both the written one and the one counted
 * from digits: far beyond any value that does not clamp to inf or round up
 * to 1 ns (those need |exponent| < 60), and small enough that their sum
 * cannot overflow int64_t.  Reaching it from digits would take exabytes.
 */
#define EXP_LIMIT (INT64_MAX / 4)

struct unit {
	const char *name;
	int64_t ns;
};

/* Two-letter units first, so "ms" is not read as "m" followed by "s". */
static const struct unit units[] = {
    {"ns", 1},
    {"us", 1000},
    {"ms", 1000000},
    {"s", 1000000000},
    {"m", 60 * INT64_C(1000000000)},
    {"h", 3600 * INT64_C(1000000000)},
    {"d", 86400 * INT64_C(1000000000)},
};

/* Adds b to *acc, clamping at RUNX_DURATION_INF. */
static void add_clamped(int64_t *acc, int64_t b)
{
	if (*acc > RUNX_DURATION_INF - b)
		*acc = RUNX_DURATION_INF;
	else
		*acc += b;
}

/* Reads a unit at *p (none = seconds) and advances past it. */
static int64_t read_unit(const char **p)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t len = strlen(units[i].name);
		if (strncmp(*p, units[i].name, len) == 0) {
			*p += len;
			return units[i].ns;
		}
	}
	return 0;
}

/*
 * value = mantissa * 10^exp10 (+ a little, if sticky) in units of unit_ns,
 * rounded up to whole nanoseconds and clamped.
 */
static int64_t scale(uint64_t mantissa, int64_t exp10, bool sticky,
		     int64_t unit_ns)
{
	u128 v = (u128)mantissa * (u128)unit_ns;

	if (v == 0 && !sticky)
		return 0;
	for (; exp10 > 0; exp10--) {
		if (v > (u128)RUNX_DURATION_INF)
			return RUNX_DURATION_INF;
		v *= 10;
	}
	for (; exp10 < 0 && v != 0; exp10++) {
		if (v % 10 != 0)
			sticky = true;
		v /= 10;
	}
	if (exp10 < 0) /* everything was divided away: a tiny positive value */
		v = 0, sticky = true;
	if (sticky)
		v += 1;
	if (v > (u128)RUNX_DURATION_INF)
		return RUNX_DURATION_INF;
	return (int64_t)v;
}

/* *e + delta, saturated at +-EXP_LIMIT. */
static int64_t exp_add(int64_t e, int64_t delta)
{
	int64_t sum = e + delta; /* |e|, |delta| <= EXP_LIMIT: no overflow */

	if (sum > EXP_LIMIT)
		return EXP_LIMIT;
	if (sum < -EXP_LIMIT)
		return -EXP_LIMIT;
	return sum;
}

/*
 * Reads the exponent digits "[+-]digits" at *p into *x, saturated at
 * +-EXP_LIMIT (a longer exponent means the same: inf or 1 ns).
 */
static int read_exponent(const char **p, int64_t *x)
{
	const char *q = *p;
	bool neg = false;
	int64_t v = 0;

	if (*q == '+' || *q == '-')
		neg = (*q++ == '-');
	if (!isdigit((unsigned char)*q))
		return -EINVAL;
	for (; isdigit((unsigned char)*q); q++)
		v = v > EXP_LIMIT / 10 ? EXP_LIMIT : exp_add(v * 10, *q - '0');
	*x = neg ? -v : v;
	*p = q;
	return 0;
}

/* Reads "[digits][.digits][e[+-]digits]" at *p; -EINVAL without digits. */
static int read_decimal(const char **p, uint64_t *mantissa, int64_t *exp10,
			bool *sticky)
{
	const char *s = *p;
	uint64_t m = 0;
	int64_t e = 0;
	int kept = 0;
	bool any = false, frac = false;

	*sticky = false;
	for (;; s++) {
		if (*s == '.' && !frac) {
			frac = true;
			continue;
		}
		if (!isdigit((unsigned char)*s))
			break;
		any = true;
		if (m == 0 && *s == '0') { /* leading zeros carry no digits */
			if (frac)
				e = exp_add(e, -1);
			continue;
		}
		if (kept < MAX_DIGITS) {
			m = m * 10 + (uint64_t)(*s - '0');
			kept++;
			if (frac)
				e = exp_add(e, -1);
		} else {
			if (*s != '0')
				*sticky = true;
			if (!frac)
				e = exp_add(e, 1);
		}
	}
	if (!any)
		return -EINVAL;
	if (*s == 'e' || *s == 'E') {
		int64_t x;

		s++;
		if (read_exponent(&s, &x) < 0)
			return -EINVAL;
		e = exp_add(e, x);
	}
	*mantissa = m;
	*exp10 = e;
	*p = s;
	return 0;
}

/*
 * A hexadecimal term ("0x1A", "0x1p-3"), read by strtod as GNU timeout does;
 * sets *unit_missing when it has no unit.
 */
static int read_hex(const char **p, int64_t *ns, bool *unit_missing)
{
	char *end;
	double seconds;

	errno = 0;
	seconds = strtod(*p, &end);
	if (end == *p || isnan(seconds) || seconds < 0)
		return -EINVAL;
	*p = end;
	int64_t unit = read_unit(p);
	if (unit == 0) {
		unit = units[3].ns;
		*unit_missing = true;
	}
	double v = seconds * (double)unit;
	if (v >= 0x1p63) {
		*ns = RUNX_DURATION_INF;
		return 0;
	}
	/* rounded up, without libm's ceil(): a positive value too small to
	 * represent (also an underflow, ERANGE) becomes 1 ns */
	int64_t whole = (int64_t)v;
	*ns = (double)whole < v ? whole + 1 : whole;
	if (*ns == 0 && errno == ERANGE)
		*ns = 1; /* strtod underflowed to 0: a positive, tiny value */
	return 0;
}

/* "inf" or "infinity", any case, at *p. */
static bool read_inf(const char **p)
{
	if (strncasecmp(*p, "infinity", 8) == 0) {
		*p += 8;
		return true;
	}
	if (strncasecmp(*p, "inf", 3) == 0) {
		*p += 3;
		return true;
	}
	return false;
}

int runx_duration_parse(const char *text, int64_t *ns)
{
	const char *p = text;
	int64_t total = 0;
	bool unit_missing = false;

	if (text == NULL)
		return -EINVAL;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '+')
		p++;
	if (read_inf(&p)) {
		read_unit(&p); /* GNU timeout accepts "infs", "infd" */
		if (*p != '\0')
			return -EINVAL;
		*ns = RUNX_DURATION_INF;
		return 0;
	}
	if (*p == '\0')
		return -EINVAL;
	while (*p != '\0') {
		int64_t term;

		if (unit_missing) /* "1 30s": only the last term may omit its
				     unit */
			return -EINVAL;
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
			if (read_hex(&p, &term, &unit_missing) < 0)
				return -EINVAL;
		} else {
			uint64_t mantissa;
			int64_t exp10;
			bool sticky;

			if (read_decimal(&p, &mantissa, &exp10, &sticky) < 0)
				return -EINVAL;
			int64_t unit = read_unit(&p);
			if (unit == 0) {
				unit = units[3].ns;
				unit_missing = true;
			}
			term = scale(mantissa, exp10, sticky, unit);
		}
		add_clamped(&total, term);
	}
	*ns = total;
	return 0;
}

const char *runx_duration_format(int64_t ns, char *buf, size_t size)
{
	static const struct unit shown[] = {
	    {"d", 86400 * INT64_C(1000000000)},
	    {"h", 3600 * INT64_C(1000000000)},
	    {"m", 60 * INT64_C(1000000000)},
	    {"s", 1000000000},
	    {"ms", 1000000},
	    {"us", 1000},
	    {"ns", 1},
	};

	if (ns == RUNX_DURATION_INF || ns == 0) { /* 0: "-k 0", not "0ns" */
		snprintf(buf, size, ns == 0 ? "0s" : "inf");
		return buf;
	}
	if (ns < 1000000000) { /* below a second: ms, us or ns */
		for (size_t i = 4; i < 7; i++)
			if (ns >= shown[i].ns || i == 6) {
				int64_t whole = ns / shown[i].ns;
				int64_t rest = ns % shown[i].ns;
				if (rest == 0) {
					snprintf(buf, size, "%" PRId64 "%s",
						 whole, shown[i].name);
					return buf;
				}
			}
	}
	for (size_t i = 0; i < 3; i++)
		if (ns >= shown[i].ns && ns % shown[i].ns == 0) {
			snprintf(buf, size, "%" PRId64 "%s", ns / shown[i].ns,
				 shown[i].name);
			return buf;
		}
	/* seconds with as many decimals as needed, at most nine */
	int64_t sec = ns / 1000000000, frac = ns % 1000000000;
	if (frac == 0) {
		snprintf(buf, size, "%" PRId64 "s", sec);
		return buf;
	}
	int digits = 9;
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	snprintf(buf, size, "%" PRId64 ".%0*" PRId64 "s", sec, digits, frac);
	return buf;
}
