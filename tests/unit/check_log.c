/* Unit tests of src/log.h: quoting values, safe lines, --help output. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "log.h"
#include "utf8.h"

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
    /* a backslash is doubled: the typed \x01 reads apart from 0x01 */
    {"back\\slash", "back\\\\slash"},
    {"a\\x01", "a\\\\x01"},
    {"a\x01", "a\\x01"},
    {"caf\xc3\xa9", "caf\xc3\xa9"}, /* valid UTF-8 stays */
    {"\xe2\x82\xac \xf0\x9f\x98\x80", "\xe2\x82\xac \xf0\x9f\x98\x80"},
    {"\xc2\x9b"
     "2J",
     "\\xc2\\x9b2J"},		/* UTF-8 CSI, a C1 control */
    {"\xc2\x85", "\\xc2\\x85"}, /* NEL */
    {"\xc2\xa0", "\xc2\xa0"},	/* U+00A0 is not a control */
    /* line and paragraph separators, bidirectional controls */
    {"a\xe2\x80\xa8"
     "b",
     "a\\xe2\\x80\\xa8b"},
    {"\xe2\x80\xa9", "\\xe2\\x80\\xa9"},
    {"\xe2\x80\xae"
     "cba",
     "\\xe2\\x80\\xaecba"},		 /* RLO */
    {"\xe2\x81\xa6", "\\xe2\\x81\\xa6"}, /* LRI */
    {"\xe2\x80\x8f", "\\xe2\\x80\\x8f"}, /* RLM */
    {"\xd8\x9c", "\\xd8\\x9c"},		 /* ALM */
    {"\xe2\x80\xa7", "\xe2\x80\xa7"},	 /* U+2027 stays */
    {"\xe2\x81\xaa", "\xe2\x81\xaa"},	 /* U+206A stays */
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

/* A value quoted by runx_quote() (its backslash doubled) is not escaped a
 * second time by the line: the doubled backslash stays two characters. */
START_TEST(a_quoted_value_is_escaped_once)
{
	char q[RUNX_QUOTE_SIZE];
	char *line = capture_error("invalid duration '%s'",
				   runx_quote("a\\x01\x01", q, sizeof(q)));

	ck_assert_str_eq(line, "runx: invalid duration 'a\\\\x01\\x01'\n");
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

/* Fills the pipe whose write end is fd (a pipe holds 64 KiB); returns the
 * bytes written. */
static size_t fill_pipe(int fd)
{
	char block[4096];
	size_t total = 0;
	ssize_t n;
	int flags = fcntl(fd, F_GETFL);

	memset(block, 'z', sizeof(block));
	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	while ((n = write(fd, block, sizeof(block))) > 0)
		total += (size_t)n;
	fcntl(fd, F_SETFL, flags);
	return total;
}

/* All of the file fd (from its start), NUL-terminated; its length in *len.
 * The caller frees it. */
static char *read_whole(int fd, size_t *len)
{
	size_t size = 256 * 1024;
	char *buf = malloc(size + 1);
	ssize_t n;

	ck_assert_ptr_nonnull(buf);
	*len = 0;
	while ((n = pread(fd, buf + *len, size - *len, (off_t)*len)) > 0)
		*len += (size_t)n;
	buf[*len] = '\0';
	return buf;
}

/* A child that reads fd to its end into path; its pid.  It closes wfd and
 * fd 2, the pipe's write ends, so that its read ends when the parent's do.
 */
static pid_t drain_into(int fd, int wfd, const char *path)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char buf[4096];
		ssize_t n;
		int out;

		close(wfd);
		close(2);
		out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		while ((n = read(fd, buf, sizeof(buf))) > 0)
			if (out < 0 || write(out, buf, (size_t)n) != n)
				_exit(1);
		_exit(0);
	}
	return pid;
}

/* The text of runx_error("line %d of the supervisor, ...", i). */
static const char *expect_line(int i)
{
	static char text[64];

	snprintf(text, sizeof(text),
		 "runx: line %d of the supervisor, of about 40 bytes\n", i);
	return text;
}

/* Fills a new pipe (fds) and puts it on fd 2 (saved in *saved), then,
 * deferring, logs 3000 lines of about 55 bytes: 1,191 fit in 64 KiB.
 * Returns the bytes of the fill. */
static size_t overflow_full_pipe(int fds[2], int *saved)
{
	size_t filled;

	*saved = dup(2);
	ck_assert_int_ge(*saved, 0);
	ck_assert_int_eq(pipe(fds), 0);
	filled = fill_pipe(fds[1]);
	ck_assert_int_eq(dup2(fds[1], 2), 2);
	runx_log_defer();
	for (int i = 0; i < 3000; i++)
		runx_error("line %d of the supervisor, of about 40 bytes", i);
	return filled;
}

/* Ends the deferring with a reader that takes all, puts fd 2 back and
 * returns all that the pipe carried (*len bytes; the caller frees it). */
static char *end_and_read(int fds[2], int saved, size_t *len)
{
	char path[] = "/tmp/check_log.XXXXXX";
	int tmp = mkstemp(path), status;
	pid_t pid;
	char *got;

	ck_assert_int_ge(tmp, 0);
	pid = drain_into(fds[0], fds[1], path);
	close(fds[0]);
	runx_log_end();
	ck_assert_int_eq(runx_log_poll_fd(), -1);
	dup2(saved, 2);
	close(saved);
	close(fds[1]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(status, 0);
	got = read_whole(tmp, len);
	close(tmp);
	unlink(path);
	return got;
}

/* While the job runs, no line waits on a stderr that takes nothing (the
 * runx before waited 5 s on the first and dropped the rest): they wait in
 * memory, 64 KiB of them, the rest counted, and go out in order at the
 * end. */
START_TEST(lines_wait_in_memory_while_the_job_runs)
{
	char expect[128], *got, *at;
	int fds[2], saved, lines = 3000, kept = 0;
	size_t filled = overflow_full_pipe(fds, &saved), len = 0;

	ck_assert_int_eq(runx_log_poll_fd(), 2);
	got = end_and_read(fds, saved, &len);
	ck_assert_uint_gt(len, filled);
	for (size_t i = 0; i < filled; i++)
		ck_assert_int_eq(got[i], 'z');
	for (at = got + filled; at < got + len; kept++) {
		const char *want = expect_line(kept);

		if (strncmp(at, want, strlen(want)) != 0)
			break;
		at += strlen(want);
	}
	ck_assert_int_gt(kept, 1000); /* 64 KiB of 55-byte lines: 1,191 */
	ck_assert_int_lt(kept, lines);
	snprintf(expect, sizeof(expect),
		 "runx: [%d lines not written here: no room on standard "
		 "error]\n",
		 lines - kept);
	ck_assert_str_eq(at, expect); /* the last line */
	free(got);
}
END_TEST

/* Reads exactly len bytes from fd (the fill of fill_pipe()). */
static void drain_exactly(int fd, size_t len)
{
	char buf[4096];

	while (len > 0) {
		ssize_t n =
		    read(fd, buf, len < sizeof(buf) ? len : sizeof(buf));

		ck_assert_int_gt(n, 0);
		len -= (size_t)n;
	}
}

/* Lines dropped while held was full are counted where they were, and
 * what goes out is whole lines: output of the command's on the same pipe
 * lands between them (the code before wrote held in 4096-byte pieces, so
 * a line could be cut, the command's output inside it, and it counted the
 * dropped lines at the end, after lines written later). */
START_TEST(dropped_lines_are_counted_in_their_place)
{
	char *got, *line, *save;
	int fds[2], saved, next = 0, gaps = 0, commands = 0, afters = 0;
	size_t filled = overflow_full_pipe(fds, &saved), len = 0;

	drain_exactly(fds[0], filled); /* the reader takes 64 KiB */
	runx_log_flush(true);	       /* whole lines only */
	ck_assert_int_eq(write(fds[1], "COMMAND\n", 8), 8); /* the job's */
	for (int i = 0; i < 5; i++)
		runx_error("after %d", i);
	got = end_and_read(fds, saved, &len);
	ck_assert_int_eq(got[len - 1], '\n');
	for (line = strtok_r(got, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		char want[128];
		int n = 0;

		snprintf(want, sizeof(want),
			 "runx: line %d of the supervisor, of about 40 bytes",
			 next);
		if (strcmp(line, want) == 0 && gaps == 0 && afters == 0) {
			next++;
		} else if (strcmp(line, "COMMAND") == 0) {
			commands++;
		} else if (sscanf(line, "runx: [%d lines not written here:",
				  &n) == 1 &&
			   afters == 0) {
			ck_assert_int_eq(next + n, 3000);
			gaps++;
		} else {
			snprintf(want, sizeof(want), "runx: after %d", afters);
			ck_assert_msg(strcmp(line, want) == 0 && gaps == 1,
				      "a line out of place: '%.80s'", line);
			afters++;
		}
	}
	ck_assert_int_gt(next, 1000);
	ck_assert_int_eq(gaps, 1);
	ck_assert_int_eq(commands, 1);
	ck_assert_int_eq(afters, 5);
	free(got);
}
END_TEST

/* A pipe with room left in its last page takes a short line at once,
 * though poll(2), which counts whole pages, says it is full (the code
 * before polled first and waited its 5 s). */
START_TEST(a_line_goes_into_the_room_of_a_page)
{
	char buf[4096];
	int fds[2], saved = dup(2), r;
	struct pollfd p;

	ck_assert_int_eq(pipe(fds), 0);
	(void)fill_pipe(fds[1]);
	ck_assert_int_eq(read(fds[0], buf, sizeof(buf)), (ssize_t)sizeof(buf));
	ck_assert_int_eq(write(fds[1], buf, 1000), 1000); /* a page begun */
	p = (struct pollfd){fds[1], POLLOUT, 0};
	ck_assert_int_eq(poll(&p, 1, 0), 0); /* "full" */
	ck_assert_int_eq(dup2(fds[1], 2), 2);
	r = runx_write_stderr("runx: a short line\n", 19);
	dup2(saved, 2);
	close(saved);
	close(fds[1]);
	close(fds[0]);
	ck_assert_int_eq(r, 0);
}
END_TEST

/* A child that reads 4096 bytes (a pipe's page: only a whole one makes
 * room, pipe(7)) from fd each second, to its end; its pid. */
static pid_t trickle_from(int fd, int wfd)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char buf[4096];

		close(wfd);
		close(2);
		do
			sleep(1);
		while (read(fd, buf, sizeof(buf)) > 0);
		_exit(0);
	}
	return pid;
}

/* The 5 s that runx_write_stderr() may wait for room are for the whole
 * run: a reader that takes a little each second cannot make each call
 * wait anew (the runx before waited up to 5 s per call while the reader
 * made progress: 2 s, 2 s, then 2 s more for the third). */
START_TEST(stderr_waits_5_s_at_most_in_all)
{
	static char chunk[8192];
	int fds[2], saved = dup(2), status, r[4];
	struct timespec t0, t1;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	(void)fill_pipe(fds[1]);
	ck_assert_int_eq(dup2(fds[1], 2), 2);
	pid = trickle_from(fds[0], fds[1]);
	memset(chunk, 'c', sizeof(chunk));
	for (int i = 0; i < 4; i++) { /* about 2 s each while room comes */
		if (i == 3)
			clock_gettime(CLOCK_MONOTONIC, &t0);
		r[i] = runx_write_stderr(chunk, sizeof(chunk));
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	dup2(saved, 2);
	close(saved);
	close(fds[1]);
	close(fds[0]);
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(r[0], 0);
	ck_assert_int_eq(r[2], -EAGAIN);	    /* 6 s in: past the 5 s */
	ck_assert_int_eq(r[3], -EAGAIN);	    /* spent: no wait at all */
	ck_assert_int_lt(t1.tv_sec - t0.tv_sec, 2); /* not a new 5 s */
}
END_TEST

/* runx_utf8_whole_prefix(): the start of a character that a cut left at
 * the end goes, nothing else. */
START_TEST(a_cut_leaves_no_part_of_a_character)
{
	static const struct {
		const char *s;
		size_t whole;
	} cases[] = {
	    {"abc", 3},
	    {"", 0},
	    {"ab\xc3", 2},	      /* é cut after its lead byte */
	    {"ab\xc3\xa9", 4},	      /* é whole */
	    {"a\xe2\x82", 1},	      /* € cut after 2 of 3 */
	    {"a\xe2\x82\xac", 4},     /* € whole */
	    {"\xf0\x9f\x98", 0},      /* an emoji cut after 3 of 4 */
	    {"\xf0\x9f\x98\x80", 4},  /* whole */
	    {"a\x82\xac", 3},	      /* no lead byte: stays, escaped */
	    {"a\xff", 2},	      /* not UTF-8: stays, escaped */
	    {"a\xc3\xa9\xa9", 4},     /* a stray continuation: stays */
	    {"a\x80\x80\x80\x80", 5}, /* more than 3: stays */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_uint_eq(
		    runx_utf8_whole_prefix(cases[i].s, strlen(cases[i].s)),
		    cases[i].whole);
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
	tcase_add_test(quote, a_cut_leaves_no_part_of_a_character);
	suite_add_tcase(s, quote);

	tcase_add_test(line, an_error_is_one_line_whatever_its_values);
	tcase_add_test(line, a_quoted_value_is_escaped_once);
	tcase_add_test(line, a_long_error_keeps_its_reason);
	tcase_add_test(line, write_stdout_reports_full_and_closed_outputs);
	tcase_add_test(line, lines_wait_in_memory_while_the_job_runs);
	tcase_add_test(line, dropped_lines_are_counted_in_their_place);
	tcase_add_test(line, stderr_waits_5_s_at_most_in_all);
	tcase_add_test(line, a_line_goes_into_the_room_of_a_page);
	tcase_set_timeout(line, 30); /* the 5 s of the waits */
	suite_add_tcase(s, line);
	return s;
}

int main(void)
{
	return run_suite(log_suite());
}
