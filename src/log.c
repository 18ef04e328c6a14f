/* Messages on standard error, made safe to print; --help on stdout. */
#include "config.h"

#include "log.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "stdio_guard.h"
#include "utf8.h"

/* The longest escaped form of one unit: a 3-byte layout control,
 * "\xe2\x80\xa8" (is_layout_control()). */
#define UNIT_MAX 12

/* How long runx's lines may wait for room on standard error, in ms, all
 * waits of a run together (runx(1), -v); the same bound as a report's
 * reader's. */
#define STDERR_WAIT_MS 5000

static bool verbose_on;
/* ns spent waiting for room on stderr in this run, all waits together */
static int64_t stderr_waited_ns;

/* While the job runs (runx_log_defer()), the lines not yet written, in
 * order; 64 KiB of bss, touched only when used. */
static char held[64 * 1024];
static size_t held_len;
static bool deferring;
static bool deaf;	       /* room by poll(2), none by write(2) */
static long long held_dropped; /* lines that found held full */

void runx_log_set_verbose(bool verbose)
{
	verbose_on = verbose;
}

/* Writes byte c as "\xHH" at out; returns 4. */
static size_t hex_escape(unsigned char c, char *out)
{
	static const char digits[] = "0123456789abcdef";

	out[0] = '\\';
	out[1] = 'x';
	out[2] = digits[c >> 4];
	out[3] = digits[c & 0xf];
	return 4;
}

/*
 * True for the valid UTF-8 character at s (n bytes) that can change how a
 * line reads without being a control character: U+2028 and U+2029 (line
 * and paragraph separators, a new line to some terminals and viewers),
 * and the bidirectional controls that reorder what follows (U+061C,
 * U+200E, U+200F, U+202A-U+202E, U+2066-U+2069; Unicode UAX #9).
 */
static bool is_layout_control(const unsigned char *s, size_t n)
{
	if (n == 2)
		return s[0] == 0xd8 && s[1] == 0x9c;
	if (n != 3 || s[0] != 0xe2)
		return false;
	if (s[1] == 0x80)
		return s[2] == 0x8e || s[2] == 0x8f ||
		       (s[2] >= 0xa8 && s[2] <= 0xae);
	return s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9;
}

/*
 * Escapes the unit at s (one byte, or one UTF-8 character; *s != 0) into
 * out (UNIT_MAX bytes, no NUL); sets *outlen and returns the bytes used.
 * A backslash is doubled where bs is true (a value's quoting), so that
 * the four characters \x01 typed and a 0x01 byte read apart; not in a
 * whole line, whose values were quoted already.
 */
static size_t escape_unit(const unsigned char *s, bool bs, char *out,
			  size_t *outlen)
{
	size_t n;

	if (bs && *s == '\\') {
		out[0] = out[1] = '\\';
		*outlen = 2;
		return 1;
	}
	if (*s == '\n' || *s == '\t' || *s == '\r') {
		out[0] = '\\';
		out[1] = *s == '\n' ? 'n' : *s == '\t' ? 't' : 'r';
		*outlen = 2;
		return 1;
	}
	if (*s < 0x20 || *s == 0x7f) {
		*outlen = hex_escape(*s, out);
		return 1;
	}
	if (*s < 0x80) {
		out[0] = (char)*s;
		*outlen = 1;
		return 1;
	}
	n = runx_utf8_sequence(s, strnlen((const char *)s, 4));
	if (n == 0) { /* not UTF-8: a lone byte */
		*outlen = hex_escape(*s, out);
		return 1;
	}
	if ((s[0] == 0xc2 && s[1] < 0xa0) || is_layout_control(s, n)) {
		*outlen = 0;
		for (size_t i = 0; i < n; i++)
			*outlen += hex_escape(s[i], out + *outlen);
		return n;
	}
	memcpy(out, s, n);
	*outlen = n;
	return n;
}

/* The length of the escaped form of all of s. */
static size_t escaped_length(const unsigned char *s, bool bs)
{
	size_t total = 0, n;
	char unit[UNIT_MAX];

	while (*s != '\0') {
		s += escape_unit(s, bs, unit, &n);
		total += n;
	}
	return total;
}

/*
 * Escapes whole units of *s into out while they fit in room bytes (no NUL
 * written); advances *s past them and returns the bytes written.
 */
static size_t escape_into(const unsigned char **s, bool bs, char *out,
			  size_t room)
{
	size_t len = 0, n;
	char unit[UNIT_MAX];

	while (**s != '\0') {
		size_t used = escape_unit(*s, bs, unit, &n);

		if (len + n > room)
			break;
		memcpy(out + len, unit, n);
		len += n;
		*s += used;
	}
	return len;
}

/*
 * Writes the escaped s (total bytes escaped, too long for size) into buf as
 * head "..." tail, both ends about half of size.
 */
static void shorten(const unsigned char *s, bool bs, size_t total, char *buf,
		    size_t size)
{
	size_t head_room = (size - 4) / 2, tail_room = size - 4 - head_room;
	size_t len = escape_into(&s, bs, buf, head_room), pos = len, n;
	char unit[UNIT_MAX];

	/* skip units until what is left fits the tail */
	while (total - pos > tail_room)
		s += escape_unit(s, bs, unit, &n), pos += n;
	memcpy(buf + len, "...", 3);
	len += 3;
	len += escape_into(&s, bs, buf + len, tail_room);
	buf[len] = '\0';
}

/* runx_quote(), with backslashes doubled or not (bs: escape_unit()). */
static const char *quote(const char *value, bool bs, char *buf, size_t size)
{
	const unsigned char *s =
	    (const unsigned char *)(value != NULL ? value : "(null)");
	size_t total;

	if (size == 0)
		return buf;
	total = escaped_length(s, bs);
	if (total < size || size < 8) {
		buf[escape_into(&s, bs, buf, size - 1)] = '\0';
		return buf;
	}
	shorten(s, bs, total, buf, size);
	return buf;
}

const char *runx_quote(const char *value, char *buf, size_t size)
{
	return quote(value, true, buf, size);
}

/* poll(2)'s timeout for the ns left: whole ms, rounded up, at most
 * INT_MAX. */
static int poll_ms(int64_t left_ns)
{
	if (left_ns <= 0)
		return 0;
	return left_ns / 1000000 >= INT_MAX ? INT_MAX
					    : (int)(left_ns / 1000000) + 1;
}

/* One write(2) of at most PIPE_BUF bytes of buf (send(2) with
 * MSG_DONTWAIT to a socket); -1 with errno, as write(2). */
static ssize_t write_chunk(int fd, bool sock, const char *buf, size_t len)
{
	size_t n = len < PIPE_BUF ? len : PIPE_BUF;

	return sock ? send(fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL)
		    : write(fd, buf, n);
}

/*
 * Waits until poll(2) says w has room, until_ns at most: 1 (room, or a
 * signal: try again), 0 (the time is up), -errno of poll(2).
 */
static int wait_room(int w, int64_t until_ns)
{
	struct pollfd p = {w, POLLOUT, 0};
	int64_t now = runx_now_ns();
	int k = poll(&p, 1, poll_ms(until_ns > now ? until_ns - now : 0));

	if (k < 0)
		return errno == EINTR ? 1 : -errno;
	return k > 0 || runx_now_ns() < until_ns;
}

/*
 * runx_write_until(), and in *done the bytes written (those of a call
 * that ran out of time or failed, too).  Where a write cannot wait (runx's
 * own O_NONBLOCK description, a socket, a regular file), it is tried
 * before poll(2): a pipe with room left in its last page takes a short
 * line though poll(2), which counts whole pages (pipe(7)), says it is
 * full.
 */
static int write_until(int fd, const char *buf, size_t len, int64_t until_ns,
		       size_t *done)
{
	const struct timespec pause = {0, 1000000};
	struct stat st;
	bool known;

	*done = 0;
	if (runx_fd_read_only(fd))
		return -EBADF; /* as write(2) says: no wait for room */
	known = fstat(fd, &st) == 0;
	bool sock = known && S_ISSOCK(st.st_mode);
	int own = known && !sock ? runx_reopen_nonblocking(fd, &st) : -1;
	int w = own >= 0 ? own : fd, r = 0;
	bool at_once = own >= 0 || sock || (known && S_ISREG(st.st_mode));
	bool first = at_once;

	while (*done < len && r == 0) {
		if (!first && (r = wait_room(w, until_ns)) <= 0) {
			r = r == 0 ? -EAGAIN : r;
			break;
		}
		r = 0;
		ssize_t n = write_chunk(w, sock, buf + *done, len - *done);
		/* EAGAIN after poll(2) said there was room (a terminal):
		 * not a spin, and not past the time */
		if (n >= 0)
			*done += (size_t)n;
		else if (errno != EINTR && errno != EAGAIN)
			r = -errno;
		else if (!first && runx_now_ns() >= until_ns)
			r = -EAGAIN;
		else if (!first)
			nanosleep(&pause, NULL);
		/* no room now: poll(2) for it; room: try the next at once */
		first = n >= 0 && at_once;
	}
	if (own >= 0)
		close(own);
	return r;
}

int runx_write_until(int fd, const char *buf, size_t len, int64_t until_ns)
{
	size_t done;

	return write_until(fd, buf, len, until_ns, &done);
}

/* runx_write_stderr(), and in *done the bytes written. */
static int write_stderr(const char *buf, size_t len, size_t *done)
{
	const int64_t budget = STDERR_WAIT_MS * INT64_C(1000000);
	int64_t start = runx_now_ns();
	int64_t left = budget - stderr_waited_ns;
	int r = write_until(STDERR_FILENO, buf, len,
			    left > 0 ? start + left : 0, done);

	/* what this call took, a write that found room at once too (µs):
	 * a reader that takes a little now and then cannot stretch it */
	stderr_waited_ns += runx_now_ns() - start;
	return r;
}

int runx_write_stderr(const char *buf, size_t len)
{
	size_t done;

	return write_stderr(buf, len, &done);
}

/*
 * Writes held from its start in whole lines: each write(2) at most
 * PIPE_BUF bytes that end at a line's end, which a pipe takes whole or not
 * at all (pipe(7)), so the command's output on the same pipe never lands
 * inside one of runx's lines.  wait: with runx_write_stderr()'s wait; else
 * none.  Keeps what is left; returns the bytes written.  An error other
 * than no room (EPIPE, EBADF) drops all of held.
 */
static size_t write_held(bool wait)
{
	size_t at = 0;

	while (at < held_len) {
		size_t n = held_len - at < PIPE_BUF ? held_len - at : PIPE_BUF;
		const char *nl = memrchr(held + at, '\n', n);
		size_t done = 0;
		int r;

		/* a line is shorter than PIPE_BUF (RUNX_LINE_MAX) */
		if (nl != NULL)
			n = (size_t)(nl - (held + at)) + 1;
		r = wait ? write_stderr(held + at, n, &done)
			 : write_until(STDERR_FILENO, held + at, n, 0, &done);
		at += done;
		if (r < 0 && r != -EAGAIN)
			at = held_len;
		if (at < held_len && done < n)
			break;
	}
	memmove(held, held + at, held_len - at);
	held_len -= at;
	return at;
}

/* The line that stands for the held_dropped lines not written, into buf
 * (size bytes); its length. */
static size_t gap_line(char *buf, size_t size)
{
	int n = snprintf(buf, size,
			 "runx: [%lld line%s not written here: no room on "
			 "standard error]\n",
			 held_dropped, held_dropped == 1 ? "" : "s");

	return n > 0 && (size_t)n < size ? (size_t)n : 0;
}

/* Appends len bytes of text to held; false if they do not fit. */
static bool hold(const char *text, size_t len)
{
	if (held_len + len > sizeof(held))
		return false;
	memcpy(held + held_len, text, len);
	held_len += len;
	return true;
}

/*
 * While the job runs: line (len bytes) joins held, then out what fits.
 * A line that finds held full is dropped; the next one that finds room
 * for itself and a line that counts those dropped puts that line first,
 * where they were.
 */
static void defer_line(const char *line, size_t len)
{
	char gap[96];
	size_t glen = 0;

	if (held_len + len > sizeof(held))
		(void)write_held(false);
	if (held_dropped > 0)
		glen = gap_line(gap, sizeof(gap));
	if (held_len + glen + len > sizeof(held)) {
		held_dropped++;
	} else {
		(void)hold(gap, glen);
		(void)hold(line, len);
		held_dropped = 0;
	}
	deaf = false;
	(void)write_held(false);
}

/*
 * Formats and writes one line.  The text is formatted in full (on the heap
 * when it is long) so that shortening keeps its end; if that allocation
 * fails, the end of a very long line is lost, never the line itself.
 */
static void emit(const char *fmt, va_list ap)
{
	char text[4 * RUNX_LINE_MAX], line[RUNX_LINE_MAX] = "runx: ";
	const size_t prefix = 6;
	char *whole = NULL;
	va_list again;
	size_t len;
	int n;

	va_copy(again, ap);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	if (n >= 0 && (size_t)n >= sizeof(text)) {
		whole = malloc((size_t)n + 1);
		if (whole != NULL)
			vsnprintf(whole, (size_t)n + 1, fmt, again);
	}
	va_end(again);
	if (n < 0)
		return;
	/* room for the text: all of line but "runx: " and "\n" */
	quote(whole != NULL ? whole : text, false, line + prefix,
	      sizeof(line) - prefix - 1);
	free(whole);
	len = strlen(line);
	line[len++] = '\n';
	if (deferring)
		defer_line(line, len);
	else
		(void)runx_write_stderr(line, len);
}

void runx_log_defer(void)
{
	deferring = true;
}

int runx_log_poll_fd(void)
{
	return held_len > 0 && !deaf ? STDERR_FILENO : -1;
}

int runx_log_retry_ms(void)
{
	return held_len > 0 && deaf ? 100 : -1;
}

void runx_log_flush(bool room)
{
	size_t done = write_held(false);

	if (done > 0 || held_len == 0)
		deaf = false;
	else if (room)
		deaf = true; /* room by poll(2), none by write(2): a timer */
}

void runx_log_end(void)
{
	char gap[96];
	size_t glen;

	if (!deferring)
		return;
	deferring = false;
	(void)write_held(true);
	if (held_dropped > 0 && (glen = gap_line(gap, sizeof(gap))) > 0)
		(void)runx_write_stderr(gap, glen);
	held_len = 0;
	held_dropped = 0;
}

void runx_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(fmt, ap);
	va_end(ap);
}

void runx_verbose(const char *fmt, ...)
{
	va_list ap;

	if (!verbose_on)
		return;
	va_start(ap, fmt);
	emit(fmt, ap);
	va_end(ap);
}

int runx_write_stdout(const char *text)
{
	size_t len = strlen(text), done = 0;

	if (runx_stdio_was_closed(STDOUT_FILENO))
		return -EBADF;
	while (done < len) {
		ssize_t n = write(STDOUT_FILENO, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += (size_t)n;
	}
	return 0;
}
