/* The clocks: monotonic time for deadlines, RFC 3339 for reports. */
#include "config.h"

#include "clock.h"

#include <stdbool.h>
#include <stdio.h>

/* Clock id now, in nanoseconds; -1 if it cannot be read. */
static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0)
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t runx_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC); /* never fails (clock_gettime(2)) */
}

int64_t runx_cpu_ns(void)
{
	return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

/* True for a leap year of the Gregorian calendar. */
static bool leap_year(long y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/*
 * The UTC calendar date of days days after 1970-01-01 (days >= 0): counted
 * out year by year and month by month, which for a clock's dates is a few
 * dozen steps, and spares a static build gmtime(3)/strftime(3) and their
 * time zone code.
 */
static void utc_date(long days, long *year, int *month, int *mday)
{
	static const int month_days[12] = {31, 28, 31, 30, 31, 30,
					   31, 31, 30, 31, 30, 31};
	long y = 1970;
	int m = 0;

	while (days >= (leap_year(y) ? 366 : 365))
		days -= leap_year(y++) ? 366 : 365;
	while (days >= month_days[m] + (m == 1 && leap_year(y)))
		days -= month_days[m] + (m == 1 && leap_year(y)), m++;
	*year = y;
	*month = m + 1;
	*mday = (int)days + 1;
}

const char *runx_rfc3339(const struct timespec *ts, char *buf, size_t size)
{
	long secs = ts->tv_sec > 0 ? (long)ts->tv_sec : 0, year;
	int month, mday;

	utc_date(secs / 86400, &year, &month, &mday);
	long in_day = secs % 86400;
	snprintf(buf, size, "%04ld-%02d-%02dT%02ld:%02ld:%02ld.%06ldZ", year,
		 month, mday, in_day / 3600, in_day / 60 % 60, in_day % 60,
		 (long)ts->tv_nsec / 1000);
	return buf;
}
