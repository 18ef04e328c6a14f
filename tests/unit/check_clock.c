/*
 * runx_rfc3339 (clock.c): the report's RFC 3339 UTC times, counted out
 * without gmtime(3), against the C library's gmtime_r + strftime; and
 * runx_cpu_ns, the CPU time the stop's passes are measured in.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "clock.h"

/* The C library's rendering of ts, the oracle. */
static void libc_rfc3339(const struct timespec *ts, char *buf, size_t size)
{
	struct tm tm;

	gmtime_r(&ts->tv_sec, &tm);
	size_t n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, size - n, ".%06ldZ", ts->tv_nsec / 1000);
}

START_TEST(every_day_of_three_centuries_matches_gmtime)
{
	char got[64], want[64];

	/* one time a day (a different second of the day each), 1970-2270 */
	for (long day = 0; day < 300L * 366; day++) {
		struct timespec ts = {day * 86400 + (day * 7919) % 86400,
				      (day * 104729) % 1000000000};
		runx_rfc3339(&ts, got, sizeof(got));
		libc_rfc3339(&ts, want, sizeof(want));
		ck_assert_str_eq(got, want);
	}
}
END_TEST

START_TEST(leap_days_and_year_ends)
{
	static const struct {
		time_t t;
		const char *text;
	} cases[] = {
	    {0, "1970-01-01T00:00:00.000000Z"},
	    {68255999, "1972-02-29T23:59:59.000000Z"},
	    {951782400, "2000-02-29T00:00:00.000000Z"},
	    {4107542400, "2100-03-01T00:00:00.000000Z"},
	    {1798761599, "2026-12-31T23:59:59.000000Z"},
	};
	char got[64];

	for (int i = 0; i < NELEM(cases); i++) {
		struct timespec ts = {cases[i].t, 0};
		ck_assert_str_eq(runx_rfc3339(&ts, got, sizeof(got)),
				 cases[i].text);
	}
}
END_TEST

START_TEST(microseconds_are_truncated_not_rounded)
{
	struct timespec ts = {0, 999999999};
	char got[64];

	ck_assert_str_eq(runx_rfc3339(&ts, got, sizeof(got)),
			 "1970-01-01T00:00:00.999999Z");
}
END_TEST

/* Busy work moves runx_cpu_ns() forward, and by no more than the wall
 * time it took (one thread). */
START_TEST(cpu_time_moves_with_work_not_faster_than_the_clock)
{
	int64_t c0 = runx_cpu_ns(), w0 = runx_now_ns();
	volatile uint64_t x = 1;

	ck_assert(c0 >= 0);
	while (runx_now_ns() - w0 < 20000000) /* 20 ms of work */
		x = x * 6364136223846793005u + 1;
	int64_t c1 = runx_cpu_ns(), w1 = runx_now_ns();
	ck_assert(c1 > c0);
	ck_assert_msg(c1 - c0 <= w1 - w0 + 1000000, "%lld ns of CPU in %lld ns",
		      (long long)(c1 - c0), (long long)(w1 - w0));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("clock");
	TCase *tc = tcase_create("rfc3339");

	tcase_add_test(tc, every_day_of_three_centuries_matches_gmtime);
	tcase_add_test(tc, leap_days_and_year_ends);
	tcase_add_test(tc, microseconds_are_truncated_not_rounded);
	tcase_add_test(tc, cpu_time_moves_with_work_not_faster_than_the_clock);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
