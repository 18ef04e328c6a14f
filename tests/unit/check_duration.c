/* Unit tests of src/duration.h: DURATION text <-> nanoseconds. */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "duration.h"

#define NS   INT64_C(1)
#define US   INT64_C(1000)
#define MS   INT64_C(1000000)
#define SEC  INT64_C(1000000000)
#define MIN  (60 * SEC)
#define HOUR (3600 * SEC)
#define DAY  (86400 * SEC)

/* Far from any value a test expects, so "unchanged" is visible. */
#define SENTINEL INT64_C(-424242)

struct accepted {
	const char *text;
	int64_t ns;
};

/* Parses c->text and asserts success with exactly c->ns. */
static void expect_value(const struct accepted *c)
{
	int64_t ns = SENTINEL;
	int rc = runx_duration_parse(c->text, &ns);

	ck_assert_msg(rc == 0, "\"%s\" was rejected (%d), want %" PRId64 " ns",
		      c->text, rc, c->ns);
	ck_assert_msg(ns == c->ns, "\"%s\" gave %" PRId64 " ns, want %" PRId64,
		      c->text, ns, c->ns);
}

/* ---- accepted forms, each with its exact value ---------------------- */

static const struct accepted unit_cases[] = {
    {"1ns", 1 * NS}, {"1us", 1 * US},	 {"1ms", 1 * MS},
    {"1s", 1 * SEC}, {"1m", 1 * MIN},	 {"1h", 1 * HOUR},
    {"1d", 1 * DAY}, {"7ns", 7},	 {"250ms", 250 * MS},
    {"3m", 3 * MIN}, {"12h", 12 * HOUR}, {"999us", 999 * US},
    {"2d", 2 * DAY}, {"45s", 45 * SEC},	 {"0ns", 0},
};

START_TEST(each_unit_scales_to_nanoseconds)
{
	expect_value(&unit_cases[_i]);
}
END_TEST

static const struct accepted default_unit_cases[] = {
    {"10", 10 * SEC},	   {"1", 1 * SEC},   {"0", 0},
    {"10.34", 10340 * MS}, {".5", 500 * MS}, {"5.", 5 * SEC},
    {"007", 7 * SEC},	   {"3600", HOUR},   {"86400", DAY},
};

START_TEST(a_number_without_unit_means_seconds)
{
	expect_value(&default_unit_cases[_i]);
}
END_TEST

/* The examples SPEC.md names as "everything GNU timeout accepts". */
static const struct accepted gnu_cases[] = {
    {"10", 10 * SEC},	   {"10.34", 10340 * MS}, {"1.5m", 90 * SEC},
    {"2d", 2 * DAY},	   {"1e-3", 1 * MS},	  {"1e3", 1000 * SEC},
    {"1E3", 1000 * SEC},   {"1e+2", 100 * SEC},	  {"2.5e-1m", 15 * SEC},
    {"1.5e2ms", 150 * MS}, {"0.5h", 30 * MIN},	  {"1.25d", 30 * HOUR},
};

START_TEST(gnu_timeout_forms_mean_the_same)
{
	expect_value(&gnu_cases[_i]);
}
END_TEST

static const struct accepted compound_cases[] = {
    {"1m30s", 90 * SEC},
    {"1h2m3.5s", HOUR + 2 * MIN + 3500 * MS},
    {"1m30", 90 * SEC}, /* only the last term may omit its unit */
    {"1h30m", 90 * MIN},
    {"1d1h1m1s1ms1us1ns", DAY + HOUR + MIN + SEC + MS + US + NS},
    {"0.5m30s", MIN},
    {"1s500ms", 1500 * MS},
    {"2h0m0s", 2 * HOUR},
    {"1m1e3ms", MIN + SEC},
    {"1ms2", MS + 2 * SEC},
};

START_TEST(compound_terms_add_up)
{
	expect_value(&compound_cases[_i]);
}
END_TEST

/* Decimal fractions are exact, not binary floating point. */
static const struct accepted exact_cases[] = {
    {"0.1", 100000000},
    {"1.000000001", 1000000001},
    {"0.3", 300000000},
    {"0.7", 700000000},
    {"2.675", 2675000000},
    {"4.35", 4350000000},
    {"1.1m", 66 * SEC},
    {"1.005h", 3618 * SEC},
    {"0.000000001", 1},
    {"123456.789012345", INT64_C(123456789012345)},
    {"0.1e1", 1 * SEC},
    {"100e-2", 1 * SEC},
    {"1.000000000000000000000000ns", 1}, /* zeros past 19 digits */
    {"00000000000000000000000001s", 1 * SEC},
};

START_TEST(decimal_fractions_are_exact)
{
	expect_value(&exact_cases[_i]);
}
END_TEST

static const struct accepted tiny_cases[] = {
    {"1e-12", 1},	 {"0.1ns", 1},
    {"0.0000000001", 1}, {"0.000000000000000000000000001d", 1},
    {"1e-2000", 1},	 {"1e-999999", 1},
    {"0x1p-40", 1},	 {"0x1p-1074", 1}, /* the smallest double */
    {"0x1p-1100", 1},			   /* below the smallest double */
    {"1e-30ns", 1},
};

START_TEST(tiny_values_round_up_to_one_ns)
{
	expect_value(&tiny_cases[_i]);
}
END_TEST

static const struct accepted round_up_cases[] = {
    {"1.5ns", 2},
    {"2.1ns", 3},
    {"0.0000000015", 2},
    {"1.000000000001", 1000000001},
    {"1.0000000000000000000001", 1000000001}, /* digit 22 is not lost */
    {"12345678901234567891e-1ns", INT64_C(1234567890123456790)},
    {"0.0000001us", 1},
    {"1.0000000001ms", 1000001},
};

START_TEST(fractions_of_a_nanosecond_round_up)
{
	expect_value(&round_up_cases[_i]);
}
END_TEST

static const struct accepted zero_cases[] = {
    {"0", 0},	      {"0s", 0},
    {"0.0", 0},	      {"0e5", 0},
    {"0x0", 0},	      {"00", 0},
    {"0ns", 0},	      {"0d", 0},
    {"0x0p-2000", 0}, {"0.000000000000000000000000", 0},
    {"+0", 0},	      {"0m0s", 0},
};

START_TEST(zero_stays_exactly_zero)
{
	expect_value(&zero_cases[_i]);
}
END_TEST

static const struct accepted huge_cases[] = {
    {"9223372036854775807ns", RUNX_DURATION_INF},
    {"9223372036854775808ns", RUNX_DURATION_INF},
    {"9.223372036854775808e18ns", RUNX_DURATION_INF},
    {"18446744073709551616ns", RUNX_DURATION_INF}, /* 2^64: no wrap */
    {"1e19ns", RUNX_DURATION_INF},
    {"1e30", RUNX_DURATION_INF},
    {"1e999999", RUNX_DURATION_INF},
    {"106752d", RUNX_DURATION_INF},
    {"99999999999999999999999999d", RUNX_DURATION_INF},
    {"106751d106751d", RUNX_DURATION_INF}, /* the sum clamps too */
    {"9223372036.854775808", RUNX_DURATION_INF},
    {"9223372036854775807", RUNX_DURATION_INF},
    {"0x1p100", RUNX_DURATION_INF},
    {"0x1p63ns", RUNX_DURATION_INF},
    {"0x1p99999", RUNX_DURATION_INF},
    {"0xffffffffffffffffffffd", RUNX_DURATION_INF},
};

START_TEST(huge_values_clamp_to_inf)
{
	expect_value(&huge_cases[_i]);
}
END_TEST

static const struct accepted near_limit_cases[] = {
    {"9223372036854775806ns", RUNX_DURATION_INF - 1},
    {"9223372036.854775806", RUNX_DURATION_INF - 1},
    {"106751d23h47m16.854775806s", RUNX_DURATION_INF - 1},
    {"106751d", INT64_C(106751) * DAY},
    {"1e18ns", INT64_C(1000000000000000000)},
    {"9.223372036854775806e18ns", RUNX_DURATION_INF - 1},
    {"0x7fcp52ns", INT64_C(9205357638345293824)},
    {"0x1.fffffffffffffp62ns", INT64_C(9223372036854774784)},
};

START_TEST(values_just_below_the_limit_are_exact)
{
	expect_value(&near_limit_cases[_i]);
}
END_TEST

/*
 * Long texts, built at run time: prefix, then fill repeated count times,
 * then suffix.  The exponent written and the exponent that digits and
 * leading zeros imply must both count in full, whatever their size.
 */
static const struct {
	const char *prefix;
	char fill;
	int count;
	const char *suffix;
	int64_t ns;
} long_cases[] = {
    /* issue 9: ~10^900000 s, once read as 1 s */
    {"0.", '0', 99999, "1e1000000", RUNX_DURATION_INF},
    /* issue 9: 10^-999996 s, once read as 10000 s */
    {"1", '0', 100004, "e-1000000", 1},
    /* the two exponents cancel exactly */
    {"0.", '0', 199999, "1e200000", SEC},
    {"1", '0', 300000, "e-300000", SEC},
    {"0.", '0', 149999, "5e150000ms", 5 * MS},
    {"1", '0', 250000, "e-250003", MS},
    {"0.", '0', 120000, "25e120001", 2500 * MS},
    /* just past the cancelling point, either way */
    {"0.", '0', 199999, "1e199999", 100 * MS},
    {"1", '0', 300000, "e-300010", 1},
    {"1", '0', 300000, "e-299990", RUNX_DURATION_INF},
    /* a huge mantissa with a huge exponent */
    {"9", '9', 200000, "e999999999", RUNX_DURATION_INF},
    {"9", '9', 200000, "e-999999999", 1},
    /* exponents with many digits */
    {"1e", '9', 5000, "", RUNX_DURATION_INF},
    {"1e-", '9', 5000, "", 1},
    {"1e+", '9', 5000, "ns", RUNX_DURATION_INF},
    {"0e", '9', 5000, "", 0},
    {"0.000e-", '9', 5000, "", 0},
    {"1e", '0', 200000, "1", 10 * SEC}, /* leading zeros of an exponent */
    {"1e-", '0', 200000, "3s", 1 * MS},
    /* tiny terms still add 1 ns each; huge ones clamp the sum */
    {"1e-", '9', 3000, "s1s", SEC + 1},
    {"1e", '9', 3000, "s1s", RUNX_DURATION_INF},
    /* fractional zeros alone are still zero */
    {"0.", '0', 300000, "", 0},
    {"0.", '0', 300000, "e999999999", 0},
};

START_TEST(long_exponents_and_digit_runs_count_in_full)
{
	size_t plen = strlen(long_cases[_i].prefix);
	size_t slen = strlen(long_cases[_i].suffix);
	size_t n = (size_t)long_cases[_i].count;
	char *text = malloc(plen + n + slen + 1);
	int64_t ns = SENTINEL;

	ck_assert_ptr_nonnull(text);
	memcpy(text, long_cases[_i].prefix, plen);
	memset(text + plen, long_cases[_i].fill, n);
	memcpy(text + plen + n, long_cases[_i].suffix, slen + 1);
	ck_assert_int_eq(runx_duration_parse(text, &ns), 0);
	ck_assert_msg(ns == long_cases[_i].ns,
		      "\"%s\" + '%c' x %zu + \"%s\" gave %" PRId64
		      " ns, want %" PRId64,
		      long_cases[_i].prefix, long_cases[_i].fill, n,
		      long_cases[_i].suffix, ns, long_cases[_i].ns);
	free(text);
}
END_TEST

static const struct accepted inf_cases[] = {
    {"inf", RUNX_DURATION_INF},	     {"INF", RUNX_DURATION_INF},
    {"Inf", RUNX_DURATION_INF},	     {"infinity", RUNX_DURATION_INF},
    {"INFINITY", RUNX_DURATION_INF}, {"Infinity", RUNX_DURATION_INF},
    {"+inf", RUNX_DURATION_INF},     {" inf", RUNX_DURATION_INF},
    {"infs", RUNX_DURATION_INF},     {"infd", RUNX_DURATION_INF},
    {"infms", RUNX_DURATION_INF},    {"infinityh", RUNX_DURATION_INF},
};

START_TEST(inf_means_no_limit)
{
	expect_value(&inf_cases[_i]);
}
END_TEST

static const struct accepted leading_cases[] = {
    {" 5", 5 * SEC},	    {"\t5", 5 * SEC},  {"\n 5s", 5 * SEC},
    {"   1m30s", 90 * SEC}, {"+5", 5 * SEC},   {" +5", 5 * SEC},
    {"+1m30s", 90 * SEC},   {"+.5", 500 * MS}, {"\v\f\r1ms", 1 * MS},
};

START_TEST(leading_whitespace_and_plus_are_accepted)
{
	expect_value(&leading_cases[_i]);
}
END_TEST

static const struct accepted hex_cases[] = {
    {"0x10", 16 * SEC},		{"0X10", 16 * SEC},   {"0xA", 10 * SEC},
    {"0xa", 10 * SEC},		{"0x1p-3", 125 * MS}, {"0x1.8p1", 3 * SEC},
    {"0x1d", 29 * SEC}, /* hex digit d, as GNU timeout reads it */
    {"0x1ds", 29 * SEC},	{"0x10ms", 16 * MS},  {"0x1p-3m", 7500 * MS},
    {"0xAm", 10 * MIN},		{" 0x10", 16 * SEC},  {"+0x10", 16 * SEC},
    {"1m0x10", MIN + 16 * SEC},
};

START_TEST(hex_numbers_are_read_like_gnu_timeout)
{
	expect_value(&hex_cases[_i]);
}
END_TEST

/* ---- rejected texts ------------------------------------------------ */

static const char *const rejected[] = {
    /* empty */
    "",
    " ",
    "\t",
    "\n",
    /* signs */
    "-1",
    "-0",
    "-0.0",
    "-0s",
    "-inf",
    "--1",
    "+-1",
    "++1",
    "+",
    "-",
    "- 1",
    "-0x10",
    /* not a number */
    "nan",
    "NaN",
    "NAN",
    "-nan",
    "nan(123)",
    "nans",
    "abc",
    "s",
    "ms",
    ".",
    "..5",
    "e5",
    "x",
    /* unknown units (they are lower case) */
    "5x",
    "5y",
    "1S",
    "1M",
    "1sec",
    "1min",
    "1hr",
    "1ss",
    "1mss",
    "5w",
    "1µs",
    /* trailing junk */
    "1.2.3",
    "1e",
    "1e+",
    "1e-",
    "1e5e5",
    "1e5.5",
    "1m30x",
    "infx",
    "infinit",
    "inf5",
    "5inf",
    "1,5",
    "1_000",
    "0b101",
    "0x",
    "0xg",
    "1h2m3.5s!",
    "5s;",
    "1s-1s",
    /* a term without unit that is not the last */
    "1.5.5",
    "0x1p0.5",
    /* white space inside or at the end */
    "5 ",
    "5s ",
    "5\n",
    "1 s",
    "1 m30s",
    "1m 30s",
    "1 30s",
    "1h2m3.5s ",
    "inf ",
    "+ 5",
    "+ inf",
    "1\t",
    "1s inf",
    "1e 5",
};

START_TEST(rejected_texts_fail_and_leave_the_value_alone)
{
	int64_t ns = SENTINEL;
	int rc = runx_duration_parse(rejected[_i], &ns);

	ck_assert_msg(rc == -EINVAL,
		      "\"%s\" gave %d (%" PRId64 " ns), want -EINVAL",
		      rejected[_i], rc, ns);
	ck_assert_msg(ns == SENTINEL, "\"%s\" changed *ns to %" PRId64,
		      rejected[_i], ns);
}
END_TEST

START_TEST(null_text_is_rejected)
{
	int64_t ns = SENTINEL;

	ck_assert_int_eq(runx_duration_parse(NULL, &ns), -EINVAL);
	ck_assert_int_eq(ns, SENTINEL);
}
END_TEST

/* ---- runx_duration_format ------------------------------------------ */

static const struct {
	int64_t ns;
	const char *text;
} format_cases[] = {
    {RUNX_DURATION_INF, "inf"},
    {0, "0s"},
    {1500 * MS, "1.5s"},
    {250 * MS, "250ms"},
    {3 * MIN, "3m"},
    {7, "7ns"},
    {1 * SEC, "1s"},
    {1 * MS, "1ms"},
    {1 * US, "1us"},
    {1 * HOUR, "1h"},
    {1 * DAY, "1d"},
    {36 * HOUR, "36h"},
    {90 * SEC, "90s"},
    {1000000001, "1.000000001s"},
    {60500 * MS, "60.5s"},
    {999999999, "999999999ns"},
    {RUNX_DURATION_INF - 1, "9223372036.854775806s"},
};

START_TEST(format_uses_the_largest_exact_unit)
{
	char buf[64];
	const char *got =
	    runx_duration_format(format_cases[_i].ns, buf, sizeof(buf));

	ck_assert_ptr_eq(got, buf);
	ck_assert_msg(strcmp(buf, format_cases[_i].text) == 0,
		      "%" PRId64 " ns formatted as \"%s\", want \"%s\"",
		      format_cases[_i].ns, buf, format_cases[_i].text);
}
END_TEST

static const int64_t round_trip_values[] = {
    0,
    1,
    7,
    999,
    1000,
    1001,
    1500000,
    999999999,
    1000000000,
    1000000001,
    1500000000,
    60 * SEC,
    90 * SEC,
    HOUR + 1,
    DAY,
    DAY + 1,
    DAY + 500 * MS,
    INT64_C(123456789012345678),
    INT64_C(106751) * DAY,
    RUNX_DURATION_INF - 1,
    RUNX_DURATION_INF,
};

START_TEST(formatted_text_parses_back_to_the_same_value)
{
	char buf[64];
	int64_t ns = SENTINEL;
	int64_t want = round_trip_values[_i];

	runx_duration_format(want, buf, sizeof(buf));
	ck_assert_msg(runx_duration_parse(buf, &ns) == 0,
		      "%" PRId64 " ns formatted as unparsable \"%s\"", want,
		      buf);
	ck_assert_msg(ns == want, "%" PRId64 " -> \"%s\" -> %" PRId64, want,
		      buf, ns);
}
END_TEST

START_TEST(format_writes_at_most_size_bytes)
{
	char buf[16];

	memset(buf, 'X', sizeof(buf));
	runx_duration_format(1500 * MS, buf, 4); /* "1.5s" needs 5 */
	ck_assert_str_eq(buf, "1.5");
	ck_assert_int_eq(buf[4], 'X');

	memset(buf, 'X', sizeof(buf));
	runx_duration_format(RUNX_DURATION_INF, buf, 3);
	ck_assert_str_eq(buf, "in");
	ck_assert_int_eq(buf[3], 'X');
}
END_TEST

static Suite *duration_suite(void)
{
	Suite *s = suite_create("duration");
	TCase *parse = tcase_create("parse");
	TCase *reject = tcase_create("reject");
	TCase *format = tcase_create("format");

	add_table_test(parse, each_unit_scales_to_nanoseconds, unit_cases);
	add_table_test(parse, a_number_without_unit_means_seconds,
		       default_unit_cases);
	add_table_test(parse, gnu_timeout_forms_mean_the_same, gnu_cases);
	add_table_test(parse, compound_terms_add_up, compound_cases);
	add_table_test(parse, decimal_fractions_are_exact, exact_cases);
	add_table_test(parse, tiny_values_round_up_to_one_ns, tiny_cases);
	add_table_test(parse, fractions_of_a_nanosecond_round_up,
		       round_up_cases);
	add_table_test(parse, zero_stays_exactly_zero, zero_cases);
	add_table_test(parse, huge_values_clamp_to_inf, huge_cases);
	add_table_test(parse, values_just_below_the_limit_are_exact,
		       near_limit_cases);
	add_table_test(parse, long_exponents_and_digit_runs_count_in_full,
		       long_cases);
	add_table_test(parse, inf_means_no_limit, inf_cases);
	add_table_test(parse, leading_whitespace_and_plus_are_accepted,
		       leading_cases);
	add_table_test(parse, hex_numbers_are_read_like_gnu_timeout, hex_cases);
	suite_add_tcase(s, parse);

	add_table_test(reject, rejected_texts_fail_and_leave_the_value_alone,
		       rejected);
	tcase_add_test(reject, null_text_is_rejected);
	suite_add_tcase(s, reject);

	add_table_test(format, format_uses_the_largest_exact_unit,
		       format_cases);
	add_table_test(format, formatted_text_parses_back_to_the_same_value,
		       round_trip_values);
	tcase_add_test(format, format_writes_at_most_size_bytes);
	suite_add_tcase(s, format);
	return s;
}

int main(void)
{
	return run_suite(duration_suite());
}
