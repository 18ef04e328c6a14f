/* Unit tests of src/log.h: quoting values, safe lines, --help output. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "log.h"

/* ---- runx_quote ----------------------------------------------------- */

static const struct {
	const char *value;
	const char *quoted;
} escape_cases[] = {
    {"plain", "plain"},
    {"", ""},
    {"a b", "a b"},
    {"1\nrunx: injected", "1\\nrunx: injected"},
    {"tab\there", "tab\\there"},
    {"cr\r", "cr\\r"},
    {"\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"},
    {"\x01\x1f\x7f", "\\x01\\x1f\\x7f"},
    {"back\\slash", "back\\slash"}, /* only control characters change */
    {"caf\xc3\xa9", "caf\xc3\xa9"}, /* valid UTF-8 stays */
    {"\xe2\x82\xac \xf0\x9f\x98\x80", "\xe2\x82\xac \xf0\x9f\x98\x80"},
    {"\xc2\x9b"
     "2J",
     "\\xc2\\x9b2J"},		/* UTF-8 CSI, a C1 control */
    {"\xc2\x85", "\\xc2\\x85"}, /* NEL */
    {"\xc2\xa0", "\xc2\xa0"},	/* U+00A0 is not a control */
    {"\x9b"
     "2J",
     "\\x9b2J"}, /* a lone byte: Latin-1 CSI */
    {"\xff\xfe", "\\xff\\xfe"},
    {"\xc0\xaf", "\\xc0\\xaf"},			  /* overlong '/' */
    {"\xed\xa0\x80", "\\xed\\xa0\\x80"},	  /* a surrogate */
    {"\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"}, /* past U+10FFFF */
    {"\xe2\x82", "\\xe2\\x82"},			  /* cut short */
};

START_TEST(control_characters_and_bad_bytes_are_escaped)
{
	char buf[RUNX_QUOTE_SIZE];

	runx_quote(escape_cases[_i].value, buf, sizeof(buf));
	ck_assert_str_eq(buf, escape_cases[_i].quoted);
}
END_TEST

START_TEST(null_is_quoted_as_null)
{
	char buf[16];

	ck_assert_str_eq(runx_quote(NULL, buf, sizeof(buf)), "(null)");
}
END_TEST

/* A value too long for the buffer keeps both ends around "...". */
START_TEST(a_long_value_is_shortened_in_the_middle)
{
	static char value[5001];
	char buf[64];
	size_t n;

	memset(value, 'm', sizeof(value) - 1);
	memcpy(value, "START", 5);
	memcpy(value + sizeof(value) - 4, "END", 3);
	runx_quote(value, buf, sizeof(buf));
	n = strlen(buf);
	ck_assert_uint_eq(n, sizeof(buf) - 1);
	ck_assert_msg(strncmp(buf, "STARTmmm", 8) == 0, "%s", buf);
	ck_assert_msg(strcmp(buf + n - 6, "mmmEND") == 0, "%s", buf);
	ck_assert_ptr_nonnull(strstr(buf, "m...m"));
}
END_TEST

/* Shortening never cuts an escape or a UTF-8 character in two. */
START_TEST(shortening_keeps_escapes_and_characters_whole)
{
	static char value[3001];
	char buf[32];

	for (size_t i = 0; i < sizeof(value) - 1; i += 3)
		memcpy(value + i, i % 2 ? "\x1b\xe2\x82" : "\xe2\x82\xac", 3);
	value[sizeof(value) - 1] = '\0';
	for (size_t size = 8; size <= sizeof(buf); size++) {
		runx_quote(value, buf, size);
		ck_assert_uint_lt(strlen(buf), size);
		for (const char *p = buf; *p != '\0'; p++) {
			if ((unsigned char)*p == 0xe2)
				ck_assert_msg(p[1] == '\x82' && p[2] == '\xac',
					      "size %zu: a cut character: %s",
					      size, buf);
			if (*p == '\\')
				ck_assert_msg(
				    p[1] == 'x' && p[2] != '\0' && p[3] != '\0',
				    "size %zu: a cut escape: %s", size, buf);
		}
		ck_assert_ptr_nonnull(strstr(buf, "..."));
	}
}
END_TEST

START_TEST(a_value_that_just_fits_is_not_shortened)
{
	char buf[8];

	ck_assert_str_eq(runx_quote("1234567", buf, sizeof(buf)), "1234567");
	ck_assert_str_eq(runx_quote("12345678", buf, sizeof(buf)), "12...78");
	ck_assert_str_eq(runx_quote("\n\n\n", buf, sizeof(buf)), "\\n\\n\\n");
	ck_assert_str_eq(runx_quote("\n\n\n\n", buf, sizeof(buf)), "\\n...\\n");
}
END_TEST

START_TEST(tiny_buffers_are_never_overrun)
{
	char buf[8];

	memset(buf, 'X', sizeof(buf));
	runx_quote("abcdef", buf, 0);
	ck_assert_int_eq(buf[0], 'X');
	runx_quote("abcdef", buf, 1);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(buf[1], 'X');
	runx_quote("a\nbcdef", buf, 4);
	ck_assert_str_eq(buf, "a\\n");
	ck_assert_int_eq(buf[4], 'X');
}
END_TEST

/* ---- runx_error ----------------------------------------------------- */

/* Calls runx_error with fd 2 on a pipe; returns what it wrote.  fmt is
 * one of this file's literals, each with one %s for arg. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static char *capture_error(const char *fmt, const char *arg)
{
	static char got[2 * RUNX_LINE_MAX];
	int fds[2], saved = dup(2);
	ssize_t n;

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_eq(dup2(fds[1], 2), 2);
	runx_error(fmt, arg);
	dup2(saved, 2);
	close(saved);
	close(fds[1]);
	n = read(fds[0], got, sizeof(got) - 1);
	close(fds[0]);
	ck_assert_int_gt(n, 0);
	got[n] = '\0';
	return got;
}
#pragma GCC diagnostic pop

START_TEST(an_error_is_one_line_whatever_its_values)
{
	char *line = capture_error("cannot run '%s': No such file or directory",
				   "x\nrunx: forged\x1b]0;title\x07");

	ck_assert_str_eq(line, "runx: cannot run 'x\\nrunx: forged\\x1b]0;"
			       "title\\x07': No such file or directory\n");
}
END_TEST

START_TEST(a_long_error_keeps_its_reason)
{
	static char path[5001];
	char *line;
	size_t n;

	memset(path, 'p', sizeof(path) - 1);
	line = capture_error("cannot open '%s': Permission denied", path);
	n = strlen(line);
	ck_assert_uint_le(n, RUNX_LINE_MAX);
	ck_assert_msg(strncmp(line, "runx: cannot open 'ppp", 22) == 0, "%s",
		      line);
	ck_assert_str_eq(line + n - 21, "': Permission denied\n");
	ck_assert_ptr_nonnull(strstr(line, "p...p"));
	ck_assert_ptr_eq(strchr(line, '\n'), line + n - 1);
}
END_TEST

/* ---- runx_write_stdout ---------------------------------------------- */

/* Runs runx_write_stdout with fd 1 on target (or closed, for NULL). */
static int write_stdout_to(const char *target, int cloexec)
{
	int saved = dup(1), r;

	ck_assert_int_ge(saved, 0);
	close(1);
	if (target != NULL)
		ck_assert_int_eq(open(target, O_WRONLY | cloexec), 1);
	r = runx_write_stdout("Usage: runx\n");
	dup2(saved, 1);
	close(saved);
	return r;
}

START_TEST(write_stdout_reports_full_and_closed_outputs)
{
	ck_assert_int_eq(write_stdout_to("/dev/null", 0), 0);
	ck_assert_int_eq(write_stdout_to("/dev/full", 0), -ENOSPC);
	/* what runx_stdio_guard leaves on a closed fd 1 */
	ck_assert_int_eq(write_stdout_to("/dev/null", O_CLOEXEC), -EBADF);
	ck_assert_int_eq(write_stdout_to(NULL, 0), -EBADF);
}
END_TEST

static Suite *log_suite(void)
{
	Suite *s = suite_create("log");
	TCase *quote = tcase_create("quote");
	TCase *line = tcase_create("line");

	add_table_test(quote, control_characters_and_bad_bytes_are_escaped,
		       escape_cases);
	tcase_add_test(quote, null_is_quoted_as_null);
	tcase_add_test(quote, a_long_value_is_shortened_in_the_middle);
	tcase_add_test(quote, shortening_keeps_escapes_and_characters_whole);
	tcase_add_test(quote, a_value_that_just_fits_is_not_shortened);
	tcase_add_test(quote, tiny_buffers_are_never_overrun);
	suite_add_tcase(s, quote);

	tcase_add_test(line, an_error_is_one_line_whatever_its_values);
	tcase_add_test(line, a_long_error_keeps_its_reason);
	tcase_add_test(line, write_stdout_reports_full_and_closed_outputs);
	suite_add_tcase(s, line);
	return s;
}

int main(void)
{
	return run_suite(log_suite());
}
