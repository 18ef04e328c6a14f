/* Unit tests of src/json.h: escaping, UTF-8 repair, numbers, layout. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "json.h"

/* A byte string with its length (it may hold NUL bytes). */
#define BYTES(s) s, sizeof(s) - 1

struct string_case {
	const char *in;
	size_t len;
	const char *want; /* the JSON text, without the final newline */
};

/* Finishes j, asserts success, and returns the text without its final
 * newline (heap; the caller frees it). */
static char *finish_ok(struct runx_json *j)
{
	char *text = NULL;
	size_t len = 0;
	int rc = runx_json_finish(j, &text, &len);

	ck_assert_msg(rc == 0, "runx_json_finish failed: %d", rc);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(strlen(text), len);
	ck_assert_msg(len > 0 && text[len - 1] == '\n',
		      "the text does not end with a newline: %s", text);
	text[len - 1] = '\0';
	return text;
}

/* Writes the len bytes at in as the only value and checks the text. */
static void expect_string(const struct string_case *c)
{
	struct runx_json j;
	char *text;

	runx_json_init(&j);
	runx_json_stringn(&j, c->in, c->len);
	text = finish_ok(&j);
	ck_assert_msg(strcmp(text, c->want) == 0, "got %s, want %s", text,
		      c->want);
	free(text);
}

/* Finishes j and asserts that it fails with want, the buffer gone. */
static void expect_error(struct runx_json *j, int want)
{
	char *text = (char *)"unchanged";
	size_t len = 99;
	int rc = runx_json_finish(j, &text, &len);

	ck_assert_int_eq(rc, want);
	ck_assert_ptr_null(text);
	ck_assert_uint_eq(len, 0);
	ck_assert_ptr_null(j->buf);
}

/* ---- escaping ---------------------------------------------------------- */

static const struct string_case escape_cases[] = {
    {BYTES(""), "\"\""},
    {BYTES("plain"), "\"plain\""},
    {BYTES("\""), "\"\\\"\""},
    {BYTES("\\"), "\"\\\\\""},
    {BYTES("\b"), "\"\\b\""},
    {BYTES("\f"), "\"\\f\""},
    {BYTES("\n"), "\"\\n\""},
    {BYTES("\r"), "\"\\r\""},
    {BYTES("\t"), "\"\\t\""},
    {BYTES("\0"), "\"\\u0000\""},
    {BYTES("\x01"), "\"\\u0001\""},
    {BYTES("\x0b"), "\"\\u000B\""},
    {BYTES("\x1b[0m"), "\"\\u001B[0m\""},
    {BYTES("\x1f"), "\"\\u001F\""},
    {BYTES(" "), "\" \""},
    {BYTES("/"), "\"/\""},	 /* '/' needs no escape */
    {BYTES("\x7f"), "\"\x7f\""}, /* DEL stays raw (valid JSON) */
    {BYTES("\xe2\x80\xa8\xe2\x80\xa9"), "\"\xe2\x80\xa8\xe2\x80\xa9\""},
    {BYTES("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\""},
};

START_TEST(quotes_backslashes_and_control_characters_are_escaped)
{
	expect_string(&escape_cases[_i]);
}
END_TEST

/* The expected escape of control character c (0x00..0x1F). */
static void control_escape(unsigned char c, char *out, size_t size)
{
	static const char *const shorts[0x20] = {
	    ['\b'] = "\\b", ['\f'] = "\\f", ['\n'] = "\\n",
	    ['\r'] = "\\r", ['\t'] = "\\t",
	};

	if (shorts[c] != NULL)
		snprintf(out, size, "\"%s\"", shorts[c]);
	else
		snprintf(out, size, "\"\\u%04X\"", c);
}

START_TEST(every_control_character_below_0x20_is_escaped)
{
	char in = (char)_i, want[16];
	struct string_case c = {&in, 1, want};

	control_escape((unsigned char)_i, want, sizeof(want));
	expect_string(&c);
}
END_TEST

START_TEST(every_printable_ascii_byte_is_raw_but_quote_and_backslash)
{
	char in = (char)_i, want[5] = {'"', (char)_i, '"', '\0', '\0'};
	struct string_case c = {&in, 1, want};

	if (_i == '"' || _i == '\\')
		memcpy(want, (char[]){'"', '\\', (char)_i, '"'}, 4);
	expect_string(&c);
}
END_TEST

/* ---- UTF-8 ------------------------------------------------------------- */

#define FFFD "\xef\xbf\xbd"

static const struct string_case bad_utf8_cases[] = {
    /* bad lead bytes */
    {BYTES("\xff"), "\"" FFFD "\""},
    {BYTES("\xfe"), "\"" FFFD "\""},
    {BYTES("\xf8\x88\x80\x80\x80"), "\"" FFFD FFFD FFFD FFFD FFFD "\""},
    {BYTES("\xf5\x80\x80\x80"), "\"" FFFD FFFD FFFD FFFD "\""},
    /* stray continuation bytes */
    {BYTES("\x80"), "\"" FFFD "\""},
    {BYTES("\xbf"), "\"" FFFD "\""},
    {BYTES("a\x80\x80z"), "\"a" FFFD FFFD "z\""},
    /* truncated sequences: at the end, and before another character */
    {BYTES("\xc3"), "\"" FFFD "\""},
    {BYTES("tail\xe2\x82"), "\"tail" FFFD FFFD "\""},
    {BYTES("\xf0\x9f\x98"), "\"" FFFD FFFD FFFD "\""},
    {BYTES("\xe2\x82x"), "\"" FFFD FFFD "x\""},
    {BYTES("\xc3\xc3\xa9"), "\"" FFFD "\xc3\xa9\""},
    /* overlong forms */
    {BYTES("\xc0\x80"), "\"" FFFD FFFD "\""},
    {BYTES("\xc0\xaf"), "\"" FFFD FFFD "\""},
    {BYTES("\xc1\xbf"), "\"" FFFD FFFD "\""},
    {BYTES("\xe0\x80\xaf"), "\"" FFFD FFFD FFFD "\""},
    {BYTES("\xe0\x9f\xbf"), "\"" FFFD FFFD FFFD "\""},
    {BYTES("\xf0\x80\x80\xaf"), "\"" FFFD FFFD FFFD FFFD "\""},
    {BYTES("\xf0\x8f\xbf\xbf"), "\"" FFFD FFFD FFFD FFFD "\""},
    /* UTF-16 surrogates U+D800..U+DFFF */
    {BYTES("\xed\xa0\x80"), "\"" FFFD FFFD FFFD "\""},
    {BYTES("\xed\xbf\xbf"), "\"" FFFD FFFD FFFD "\""},
    {BYTES("\xed\xa0\xbd\xed\xb8\x80"),
     "\"" FFFD FFFD FFFD FFFD FFFD FFFD "\""},
    /* above U+10FFFF */
    {BYTES("\xf4\x90\x80\x80"), "\"" FFFD FFFD FFFD FFFD "\""},
    {BYTES("\xf7\xbf\xbf\xbf"), "\"" FFFD FFFD FFFD FFFD "\""},
};

START_TEST(each_byte_of_bad_utf8_becomes_one_replacement_character)
{
	expect_string(&bad_utf8_cases[_i]);
}
END_TEST

static const struct string_case good_utf8_cases[] = {
    {BYTES("\xc2\x80"), "\"\xc2\x80\""},		 /* U+0080 */
    {BYTES("caf\xc3\xa9"), "\"caf\xc3\xa9\""},		 /* U+00E9 */
    {BYTES("\xdf\xbf"), "\"\xdf\xbf\""},		 /* U+07FF */
    {BYTES("\xe0\xa0\x80"), "\"\xe0\xa0\x80\""},	 /* U+0800 */
    {BYTES("\xe2\x82\xac"), "\"\xe2\x82\xac\""},	 /* U+20AC */
    {BYTES("\xed\x9f\xbf"), "\"\xed\x9f\xbf\""},	 /* U+D7FF */
    {BYTES("\xee\x80\x80"), "\"\xee\x80\x80\""},	 /* U+E000 */
    {BYTES("\xef\xbf\xbd"), "\"\xef\xbf\xbd\""},	 /* U+FFFD */
    {BYTES("\xef\xbf\xbf"), "\"\xef\xbf\xbf\""},	 /* U+FFFF */
    {BYTES("\xf0\x90\x80\x80"), "\"\xf0\x90\x80\x80\""}, /* U+10000 */
    {BYTES("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\""}, /* U+1F600 */
    {BYTES("\xf4\x8f\xbf\xbf"), "\"\xf4\x8f\xbf\xbf\""}, /* U+10FFFF */
    {BYTES("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z"),
     "\"a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z\""},
};

START_TEST(valid_two_three_and_four_byte_sequences_are_copied)
{
	expect_string(&good_utf8_cases[_i]);
}
END_TEST

START_TEST(keys_are_escaped_and_repaired_like_strings)
{
	struct runx_json j;
	char *text;

	runx_json_init(&j);
	runx_json_begin_object(&j);
	runx_json_key(&j, "a\"\n\xff");
	runx_json_int(&j, 1);
	runx_json_end_object(&j);
	text = finish_ok(&j);
	ck_assert_str_eq(text, "{\n  \"a\\\"\\n" FFFD "\": 1\n}");
	free(text);
}
END_TEST

START_TEST(a_null_string_is_written_as_null)
{
	struct runx_json j;
	char *text;

	runx_json_init(&j);
	runx_json_string(&j, NULL);
	text = finish_ok(&j);
	ck_assert_str_eq(text, "null");
	free(text);
}
END_TEST

/* ---- numbers ------------------------------------------------------------ */

struct number_case {
	int64_t a;
	long b;
	const char *want;
};

/* Writes one number with write(j, c) and checks the text. */
static void expect_number(const struct number_case *c,
			  void (*write)(struct runx_json *,
					const struct number_case *))
{
	struct runx_json j;
	char *text;

	runx_json_init(&j);
	write(&j, c);
	text = finish_ok(&j);
	ck_assert_msg(strcmp(text, c->want) == 0, "%lld, %ld: got %s, want %s",
		      (long long)c->a, c->b, text, c->want);
	free(text);
}

/* The integer c->a. */
static void write_int(struct runx_json *j, const struct number_case *c)
{
	runx_json_int(j, c->a);
}

/* c->a nanoseconds as seconds. */
static void write_ns(struct runx_json *j, const struct number_case *c)
{
	runx_json_seconds_ns(j, c->a);
}

/* c->a seconds and c->b microseconds as seconds. */
static void write_us(struct runx_json *j, const struct number_case *c)
{
	runx_json_seconds_us(j, c->a, c->b);
}

static const struct number_case int_cases[] = {
    {0, 0, "0"},
    {1, 0, "1"},
    {-1, 0, "-1"},
    {10, 0, "10"},
    {1234567890, 0, "1234567890"},
    {INT64_MAX, 0, "9223372036854775807"},
    {INT64_MIN, 0, "-9223372036854775808"},
};

START_TEST(integers_are_exact_decimal)
{
	expect_number(&int_cases[_i], write_int);
}
END_TEST

static const struct number_case ns_cases[] = {
    {0, 0, "0.0"},
    {1, 0, "0.000000001"},
    {-1, 0, "-0.000000001"},
    {100, 0, "0.0000001"},
    {1500000000, 0, "1.5"},
    {-1500000000, 0, "-1.5"},
    {5000000000, 0, "5.0"},
    {-5000000000, 0, "-5.0"},
    {123456789, 0, "0.123456789"},
    {300000000, 0, "0.3"},
    {1000000001, 0, "1.000000001"},
    {86400000000000, 0, "86400.0"},
    {INT64_MAX, 0, "9223372036.854775807"},
    {INT64_MIN, 0, "-9223372036.854775808"},
};

START_TEST(nanoseconds_are_exact_seconds_with_a_point)
{
	expect_number(&ns_cases[_i], write_ns);
}
END_TEST

static const struct number_case us_cases[] = {
    {0, 0, "0.0"},
    {0, 75, "0.000075"},
    {0, 1, "0.000001"},
    {0, 999999, "0.999999"},
    {1, 500000, "1.5"},
    {12, 0, "12.0"},
    {-1, 0, "-1.0"},
    {-1, 500000, "-0.5"},
    {-2, 500000, "-1.5"},
    {-1, 999999, "-0.000001"},
    {INT64_MAX, 999999, "9223372036854775807.999999"},
    {INT64_MIN, 0, "-9223372036854775808.0"},
    {INT64_MIN, 1, "-9223372036854775807.999999"},
};

START_TEST(timevals_are_exact_seconds_with_a_point)
{
	expect_number(&us_cases[_i], write_us);
}
END_TEST

START_TEST(microseconds_out_of_range_are_einval)
{
	static const long bad[] = {-1, 1000000, 2000000};
	struct runx_json j;

	runx_json_init(&j);
	runx_json_seconds_us(&j, 1, bad[_i]);
	expect_error(&j, -EINVAL);
}
END_TEST

START_TEST(booleans_and_null_are_the_literals)
{
	struct runx_json j;
	char *text;

	runx_json_init(&j);
	runx_json_begin_array(&j);
	runx_json_bool(&j, true);
	runx_json_bool(&j, false);
	runx_json_null(&j);
	runx_json_end_array(&j);
	text = finish_ok(&j);
	ck_assert_str_eq(text, "[\n  true,\n  false,\n  null\n]");
	free(text);
}
END_TEST

/* ---- layout ----------------------------------------------------------------
 */

START_TEST(empty_object_and_array_are_written_closed)
{
	struct runx_json j;
	char *text;

	runx_json_init(&j);
	runx_json_begin_object(&j);
	runx_json_end_object(&j);
	text = finish_ok(&j);
	ck_assert_str_eq(text, "{}");
	free(text);

	runx_json_init(&j);
	runx_json_begin_array(&j);
	runx_json_end_array(&j);
	text = finish_ok(&j);
	ck_assert_str_eq(text, "[]");
	free(text);
}
END_TEST

START_TEST(nesting_puts_commas_between_members_and_indents_two_spaces)
{
	static const char want[] = "{\n"
				   "  \"a\": 1,\n"
				   "  \"empty\": [],\n"
				   "  \"none\": {},\n"
				   "  \"list\": [\n"
				   "    \"x\",\n"
				   "    {\n"
				   "      \"t\": 0.5,\n"
				   "      \"deep\": [\n"
				   "        []\n"
				   "      ]\n"
				   "    },\n"
				   "    null\n"
				   "  ],\n"
				   "  \"last\": true\n"
				   "}";
	struct runx_json j;
	char *text;

	runx_json_init(&j);
	runx_json_begin_object(&j);
	runx_json_key(&j, "a");
	runx_json_int(&j, 1);
	runx_json_key(&j, "empty");
	runx_json_begin_array(&j);
	runx_json_end_array(&j);
	runx_json_key(&j, "none");
	runx_json_begin_object(&j);
	runx_json_end_object(&j);
	runx_json_key(&j, "list");
	runx_json_begin_array(&j);
	runx_json_string(&j, "x");
	runx_json_begin_object(&j);
	runx_json_key(&j, "t");
	runx_json_seconds_ns(&j, 500000000);
	runx_json_key(&j, "deep");
	runx_json_begin_array(&j);
	runx_json_begin_array(&j);
	runx_json_end_array(&j);
	runx_json_end_array(&j);
	runx_json_end_object(&j);
	runx_json_null(&j);
	runx_json_end_array(&j);
	runx_json_key(&j, "last");
	runx_json_bool(&j, true);
	runx_json_end_object(&j);
	text = finish_ok(&j);
	ck_assert_str_eq(text, want);
	free(text);
}
END_TEST

/* Appends a newline and 2 * depth spaces to the string at p. */
static char *indent(char *p, int depth)
{
	*p++ = '\n';
	memset(p, ' ', 2 * (size_t)depth);
	return p + 2 * depth;
}

START_TEST(nesting_up_to_the_maximum_depth_works)
{
	char want[4 * RUNX_JSON_MAX_DEPTH * (RUNX_JSON_MAX_DEPTH + 1)],
	    *p = want;
	struct runx_json j;
	char *text;

	runx_json_init(&j);
	for (int d = 0; d < RUNX_JSON_MAX_DEPTH; d++) {
		runx_json_begin_array(&j);
		if (d > 0)
			p = indent(p, d);
		*p++ = '[';
	}
	*p++ = ']'; /* the innermost is empty */
	for (int d = RUNX_JSON_MAX_DEPTH - 2; d >= 0; d--) {
		p = indent(p, d);
		*p++ = ']';
	}
	*p = '\0';
	for (int d = 0; d < RUNX_JSON_MAX_DEPTH; d++)
		runx_json_end_array(&j);
	text = finish_ok(&j);
	ck_assert_str_eq(text, want);
	free(text);
}
END_TEST

/* ---- misuse: -EINVAL ---------------------------------------------------- */

/* Misuse number i of the writer (the table of the next test). */
static void misuse(struct runx_json *j, int i)
{
	switch (i) {
	case 0: /* nothing written */
		break;
	case 1: /* a container left open */
		runx_json_begin_object(j);
		break;
	case 2: /* a key in an array */
		runx_json_begin_array(j);
		runx_json_key(j, "k");
		break;
	case 3: /* a value in an object without its key */
		runx_json_begin_object(j);
		runx_json_int(j, 1);
		break;
	case 4: /* a key without its value */
		runx_json_begin_object(j);
		runx_json_key(j, "k");
		runx_json_end_object(j);
		break;
	case 5: /* two keys in a row */
		runx_json_begin_object(j);
		runx_json_key(j, "k");
		runx_json_key(j, "l");
		break;
	case 6: /* an array closed as an object */
		runx_json_begin_array(j);
		runx_json_end_object(j);
		break;
	case 7: /* an object closed as an array */
		runx_json_begin_object(j);
		runx_json_end_array(j);
		break;
	case 8: /* closing what is not open */
		runx_json_end_array(j);
		break;
	case 9: /* two top-level values */
		runx_json_int(j, 1);
		runx_json_int(j, 2);
		break;
	case 10: /* a key at the top level */
		runx_json_key(j, "k");
		break;
	case 11: /* too deep */
		for (int d = 0; d <= RUNX_JSON_MAX_DEPTH; d++)
			runx_json_begin_array(j);
		for (int d = 0; d <= RUNX_JSON_MAX_DEPTH; d++)
			runx_json_end_array(j);
		break;
	}
}

START_TEST(misuse_is_a_sticky_einval)
{
	struct runx_json j;

	runx_json_init(&j);
	misuse(&j, _i);
	/* later calls, even valid-looking ones, do not clear the error */
	runx_json_end_object(&j);
	runx_json_end_array(&j);
	expect_error(&j, -EINVAL);
}
END_TEST

/* ---- ENOMEM ---------------------------------------------------------------
 */

static int realloc_budget; /* calls that succeed before the failures */
static int realloc_calls;  /* calls made */

/* realloc(3) that fails with ENOMEM once realloc_budget calls are made. */
static void *limited_realloc(void *ptr, size_t size)
{
	realloc_calls++;
	if (realloc_calls > realloc_budget) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(ptr, size);
}

/* Builds an object with one long string member, allocating through
 * limited_realloc after budget successful calls. */
static void build_long(struct runx_json *j, int budget)
{
	static char big[100000];

	memset(big, 'x', sizeof(big) - 1);
	realloc_budget = budget;
	realloc_calls = 0;
	runx_json_init(j);
	j->realloc_fn = limited_realloc;
	runx_json_begin_object(j);
	runx_json_key(j, "big");
	runx_json_string(j, big);
	runx_json_key(j, "after");
	runx_json_int(j, 1);
	runx_json_end_object(j);
}

START_TEST(allocation_failure_is_a_sticky_enomem)
{
	struct runx_json j;

	build_long(&j, _i); /* fails on the first, second, ... growth */
	ck_assert_int_eq(realloc_calls, _i + 1); /* no retry after failure */
	expect_error(&j, -ENOMEM);
}
END_TEST

START_TEST(the_same_document_succeeds_with_enough_memory)
{
	struct runx_json j;
	char *text;

	build_long(&j, 1000);
	text = finish_ok(&j);
	ck_assert_uint_eq(strlen(text),
			  strlen("{\n  \"big\": \"\",\n  \"after\": "
				 "1\n}") +
			      99999);
	free(text);
}
END_TEST

static Suite *json_suite(void)
{
	Suite *s = suite_create("json");
	TCase *strings = tcase_create("strings");
	TCase *numbers = tcase_create("numbers");
	TCase *layout = tcase_create("layout");
	TCase *errors = tcase_create("errors");

	add_table_test(strings,
		       quotes_backslashes_and_control_characters_are_escaped,
		       escape_cases);
	tcase_add_loop_test(
	    strings, every_control_character_below_0x20_is_escaped, 0, 0x20);
	tcase_add_loop_test(
	    strings, every_printable_ascii_byte_is_raw_but_quote_and_backslash,
	    0x20, 0x80);
	add_table_test(strings,
		       each_byte_of_bad_utf8_becomes_one_replacement_character,
		       bad_utf8_cases);
	add_table_test(strings,
		       valid_two_three_and_four_byte_sequences_are_copied,
		       good_utf8_cases);
	tcase_add_test(strings, keys_are_escaped_and_repaired_like_strings);
	tcase_add_test(strings, a_null_string_is_written_as_null);
	suite_add_tcase(s, strings);

	add_table_test(numbers, integers_are_exact_decimal, int_cases);
	add_table_test(numbers, nanoseconds_are_exact_seconds_with_a_point,
		       ns_cases);
	add_table_test(numbers, timevals_are_exact_seconds_with_a_point,
		       us_cases);
	tcase_add_loop_test(numbers, microseconds_out_of_range_are_einval, 0,
			    3);
	tcase_add_test(numbers, booleans_and_null_are_the_literals);
	suite_add_tcase(s, numbers);

	tcase_add_test(layout, empty_object_and_array_are_written_closed);
	tcase_add_test(
	    layout, nesting_puts_commas_between_members_and_indents_two_spaces);
	tcase_add_test(layout, nesting_up_to_the_maximum_depth_works);
	suite_add_tcase(s, layout);

	tcase_add_loop_test(errors, misuse_is_a_sticky_einval, 0, 12);
	/* growths: 512 -> ... -> 131072 bytes for the 100000-byte string */
	tcase_add_loop_test(errors, allocation_failure_is_a_sticky_enomem, 0,
			    9);
	tcase_add_test(errors, the_same_document_succeeds_with_enough_memory);
	suite_add_tcase(s, errors);
	return s;
}

int main(void)
{
	return run_suite(json_suite());
}
