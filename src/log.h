/* Messages on standard error: errors always, decisions with -v. */
#ifndef RUNX_LOG_H
#define RUNX_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The size of a buffer for runx_quote() that callers use for one value in a
 * message: a longer value is shortened in the middle to fit, so a message
 * with a value or two still ends with its reason.
 */
#define RUNX_QUOTE_SIZE 256

/* The longest line runx_error()/runx_verbose() write, "runx: " and "\n"
 * included; a longer one is shortened in the middle. */
#define RUNX_LINE_MAX 1024

/* Turns the -v/--verbose lines on or off (off by default). */
void runx_log_set_verbose(bool verbose);

/*
 * Writes value into buf (size bytes, NUL included; size >= 8) as it may
 * appear inside a message: a control character (0x00-0x1f, 0x7f), a byte
 * that is not part of valid UTF-8, a UTF-8 C1 control (U+0080-U+009F,
 * which some terminals obey), the line and paragraph separators U+2028
 * and U+2029 or a bidirectional control (U+061C, U+200E, U+200F,
 * U+202A-U+202E, U+2066-U+2069, which reorder what follows) is escaped as
 * "\n", "\t", "\r" or "\xHH" (each byte), so a value can neither start a
 * new line, nor send a terminal an escape sequence, nor make the rest of
 * the line read backwards; a backslash is doubled ("\\"), so that a typed
 * "\x01" and a 0x01 byte read apart.  If the escaped value needs more than size
 * - 1 bytes, its middle is replaced by "..." so that both its start and its end
 * survive; an escape or a UTF-8 character is never cut.  value NULL is written
 * as "(null)".  Returns buf.  No errors, no allocation, no I/O.
 */
const char *runx_quote(const char *value, char *buf, size_t size);

/*
 * Writes "runx: " + the formatted text + "\n" to fd 2 in one write(2).
 * The line is made safe as runx_quote() does (a stray newline or escape
 * in a value cannot forge a second line), and a line longer than
 * RUNX_LINE_MAX is shortened in the middle, so its end (the reason) stays.
 * Errors (EPIPE, EBADF, ...) are ignored: a closed or broken stderr never
 * changes what runx does.  SIGPIPE stays blocked in runx for this reason.
 */
void runx_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Writes len bytes of buf to fd, which may be a pipe or terminal that
 * nobody reads and that runx shares with the command (so fd itself is not
 * made O_NONBLOCK): through a description of runx's own opened
 * O_NONBLOCK (/proc/self/fd/N, proc(5)) where fd is a pipe, FIFO or
 * terminal, with send(2) MSG_DONTWAIT to a socket, PIPE_BUF bytes at most
 * per call, each after poll(2) says there is room; a regular file is
 * written as it is.  Waits for room until until_ns of CLOCK_MONOTONIC
 * (runx_now_ns()) at most.  0; -EAGAIN when that time passed with bytes
 * left (those written stay written); -errno of poll(2) or write(2)
 * (EPIPE, EBADF, ENOSPC).  Left: where the description cannot be opened
 * again (no /proc), a write after poll(2) said there was room can still
 * wait, on a terminal, or on a pipe another writer filled in between.
 */
int runx_write_until(int fd, const char *buf, size_t len, int64_t until_ns);

/*
 * Writes len bytes of buf to standard error (runx_write_until()): each
 * line of runx_error() and runx_verbose(), and a report to "-".  Waits for
 * room 5 s at most in the whole run, all calls together (the time each
 * call took is counted): once that is spent (a pipe that nobody reads, or
 * a reader that takes a little now and then), what finds no room at once
 * is dropped, so such a reader holds runx back 5 s at most in all.  0,
 * -EAGAIN (dropped, or cut short), or -errno of write(2).
 */
int runx_write_stderr(const char *buf, size_t len);

/*
 * From runx_log_defer() to runx_log_end(), while the job runs or runx
 * waits between attempts, a line of runx_error() or runx_verbose() never
 * waits for room on standard error: it joins the lines not yet written
 * (64 KiB), and what of them finds room at once is written, in whole
 * lines (each write(2) of at most PIPE_BUF bytes ends at a line's end:
 * a pipe takes it whole, pipe(7), so the command's output there never
 * lands inside one).  So a stderr that takes nothing delays what runx
 * tells, never what it does: a deadline, a forwarded signal, a stop.
 * Lines that find the 64 KiB full are dropped, and a line in their place
 * says how many.  An error other than no room (EPIPE, EBADF) drops them
 * all.  runx_log_end() writes what is left through runx_write_stderr()
 * (its 5 s of waits in the whole run).
 */
void runx_log_defer(void);
void runx_log_end(void);

/*
 * STDERR_FILENO while lines wait for room (poll(2) it for POLLOUT, then
 * call runx_log_flush(true)); -1 when none waits, or when poll(2) said
 * there was room and write(2) took nothing (a terminal): then
 * runx_log_retry_ms() is 100, a poll(2) timeout after which to call
 * runx_log_flush(false), and -1 otherwise.
 */
int runx_log_poll_fd(void);
int runx_log_retry_ms(void);

/* Writes what of the lines not yet written finds room at once; room: poll
 * said stderr had room. */
void runx_log_flush(bool room);

/* The same as runx_error(), only with -v/--verbose. */
void runx_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Writes text (NUL-terminated) to fd 1 in full, retrying short writes and
 * EINTR (write(2)).  Returns 0, or -EBADF when fd 1 was closed when runx
 * started (runx_stdio_guard() put /dev/null there, see redirect.h), or the
 * -errno of the failed write(2) (-ENOSPC for /dev/full, -EPIPE, -EIO).
 * For --help and --version, which must fail (exit 125) when their text
 * cannot be written, as GNU programs do.
 */
int runx_write_stdout(const char *text);

#endif
