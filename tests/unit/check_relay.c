/*
 * The --idle-timeout relay (relay.c) on real pipes: the "command" is this
 * test writing into the relay's pipes, and the destinations are pipes the
 * test reads, or fills and never reads (a reader that stopped reading).
 * The bytes arrive whole; a pipe whose writers are gone is finished even
 * when its destination is full (it holds no output, so the idle deadline
 * can run), while bytes still in a pipe are held output; at the end, two
 * readers that both stopped are waited for once, not once per stream,
 * and a stop ends that wait (runx(1), --idle-timeout); a destination's
 * error other than EPIPE is told.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "redirect.h"
#include "relay.h"

#define MS 1000000LL /* nanoseconds */

/* A pipe the test owns: [0] read end, [1] write end, both O_CLOEXEC. */
static void make_pipe(int p[2])
{
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
}

/* Closes both ends of the test's two pipes. */
static void close_pipes(const int out[2], const int err[2])
{
	for (int i = 0; i < 2; i++) {
		close(out[i]);
		close(err[i]);
	}
}

/* Fills the pipe whose write end is w until it takes nothing more. */
static void fill(int w)
{
	char block[4096];
	int flags = fcntl(w, F_GETFL);

	memset(block, 'f', sizeof(block));
	ck_assert_int_eq(fcntl(w, F_SETFL, flags | O_NONBLOCK), 0);
	while (write(w, block, sizeof(block)) > 0)
		;
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(fcntl(w, F_SETFL, flags), 0);
}

/* Sets up r with stdout going to out and stderr to err (write ends). */
static void relay_to(struct runx_relay *r, struct runx_stdio *stdio, int out,
		     int err)
{
	memset(stdio, 0, sizeof(*stdio));
	stdio->source[0] = -1;
	stdio->source[1] = out;
	stdio->source[2] = err;
	ck_assert_int_eq(runx_relay_setup(r, stdio), 0);
	ck_assert_int_eq(r->nstreams, out == err ? 1 : 2);
}

/*
 * Runs the relay as the supervisor does (poll_fds, poll(2), pump) until
 * no stream is left to poll, or until a poll(2) of 2 s finds nothing:
 * returns the bytes moved.
 */
static size_t pump_until_idle(struct runx_relay *r)
{
	size_t moved = 0;
	struct pollfd p[2];
	int n;

	while ((n = runx_relay_poll_fds(r, p)) > 0 && poll(p, n, 2000) > 0)
		moved += runx_relay_pump(r, p, n);
	return moved;
}

START_TEST(bytes_arrive_whole_and_the_end_closes_the_stream)
{
	struct runx_relay r;
	struct runx_stdio stdio;
	int out[2], err[2];
	char got[16] = {0};

	make_pipe(out);
	make_pipe(err);
	relay_to(&r, &stdio, out[1], err[1]);
	ck_assert_int_eq(write(stdio.source[1], "hello", 5), 5);
	ck_assert_int_eq(write(stdio.source[2], "oops", 4), 4);
	runx_relay_launched(&r); /* the command's ends: now only its own */
	ck_assert_uint_eq(pump_until_idle(&r), 9);
	ck_assert_int_eq(runx_relay_poll_fds(&r, (struct pollfd[2]){0}), 0);
	ck_assert(!runx_relay_holds_output(&r));
	ck_assert_int_eq(read(out[0], got, sizeof(got)), 5);
	ck_assert_str_eq(got, "hello");
	memset(got, 0, sizeof(got));
	ck_assert_int_eq(read(err[0], got, sizeof(got)), 4);
	ck_assert_str_eq(got, "oops");
	runx_relay_finish(&r, 0, NULL);
	close_pipes(out, err);
}
END_TEST

/*
 * splice(2) to a full pipe says EAGAIN even when the source is at its
 * end: the stream must still end, or it would "hold output" forever.
 */
START_TEST(an_ended_pipe_with_a_full_destination_holds_nothing)
{
	struct runx_relay r;
	struct runx_stdio stdio;
	int out[2], err[2];

	make_pipe(out);
	make_pipe(err);
	fill(err[1]);
	relay_to(&r, &stdio, out[1], err[1]);
	runx_relay_launched(&r); /* the command closed both: EOF */
	ck_assert_uint_eq(pump_until_idle(&r), 0);
	ck_assert(!runx_relay_holds_output(&r));
	ck_assert_int_eq(runx_relay_poll_fds(&r, (struct pollfd[2]){0}), 0);

	/* and at the end, nothing to deliver is not waited for */
	int64_t start = runx_now_ns();
	runx_relay_finish(&r, 20000, NULL);
	ck_assert_int_lt(runx_now_ns() - start, 10000 * MS);
	close_pipes(out, err);
}
END_TEST

/*
 * Bytes for two readers that both stopped: finish() gives up after one
 * stall of 1 s with no reader taking anything, not after 1 s per stream.
 * A poll(2) timeout is never early, so a wait per stream takes 2 s or
 * more; 1.9 s leaves 0.9 s for a few system calls on a loaded machine.
 */
START_TEST(two_stalled_readers_are_waited_for_once)
{
	struct runx_relay r;
	struct runx_stdio stdio;
	int out[2], err[2];

	make_pipe(out);
	make_pipe(err);
	fill(out[1]);
	fill(err[1]);
	relay_to(&r, &stdio, out[1], err[1]);
	ck_assert_int_eq(write(stdio.source[1], "held", 4), 4);
	ck_assert_int_eq(write(stdio.source[2], "held", 4), 4);
	runx_relay_launched(&r);

	int64_t start = runx_now_ns();
	runx_relay_finish(&r, 1000, NULL);
	int64_t took = runx_now_ns() - start;
	ck_assert_int_ge(took, 1000 * MS);
	ck_assert_int_lt(took, 1900 * MS);
	ck_assert_int_eq(r.nstreams, 0);
	close_pipes(out, err);
}
END_TEST

/* One destination for stdout and stderr (-m): one pipe, one stream. */
START_TEST(one_destination_is_one_stream)
{
	struct runx_relay r;
	struct runx_stdio stdio;
	int out[2];
	char got[16] = {0};

	make_pipe(out);
	relay_to(&r, &stdio, out[1], out[1]);
	ck_assert_int_eq(stdio.source[1], stdio.source[2]);
	ck_assert_int_eq(write(stdio.source[1], "a", 1), 1);
	ck_assert_int_eq(write(stdio.source[2], "b", 1), 1);
	runx_relay_launched(&r);
	runx_relay_finish(&r, 1000, NULL);
	ck_assert_int_eq(read(out[0], got, sizeof(got)), 2);
	ck_assert_str_eq(got, "ab");
	close(out[0]);
	close(out[1]);
}
END_TEST

/*
 * What the command wrote and runx has not read yet is held output too
 * (the idle timer may fire in the round a full destination took more:
 * nothing is marked full then, but the pipe still holds the bytes).
 */
START_TEST(bytes_still_in_the_pipe_are_held_output)
{
	struct runx_relay r;
	struct runx_stdio stdio;
	int out[2];
	char got[8] = {0};

	make_pipe(out);
	relay_to(&r, &stdio, out[1], out[1]);
	ck_assert(!runx_relay_holds_output(&r));
	ck_assert_int_eq(write(stdio.source[1], "abc", 3), 3);
	ck_assert(runx_relay_holds_output(&r));
	runx_relay_launched(&r);
	ck_assert_uint_eq(pump_until_idle(&r), 3);
	ck_assert(!runx_relay_holds_output(&r));
	ck_assert_int_eq(read(out[0], got, sizeof(got)), 3);
	runx_relay_finish(&r, 0, NULL);
	close(out[0]);
	close(out[1]);
}
END_TEST

/* A wake that the test counts, reading its fd; says stop if asked. */
struct wake_arg {
	int fd, calls;
	bool stop;
};

static bool wake_stop(void *arg)
{
	struct wake_arg *w = arg;
	char c;

	w->calls++;
	(void)!read(w->fd, &c, 1);
	return w->stop;
}

/*
 * The drain's wait for a reader that stopped: a wake-up that says stop
 * (the supervisor's stop signal) ends it at once, with what was held
 * counted as dropped; one that does not stop neither ends nor lengthens
 * the wait (1 s: between 1 and 1.9 s, as above).
 */
START_TEST(a_wake_that_says_stop_ends_the_drain)
{
	for (int stop = 1; stop >= 0; stop--) {
		struct runx_relay r;
		struct runx_stdio stdio;
		int out[2], wp[2];

		make_pipe(out);
		make_pipe(wp);
		fill(out[1]);
		relay_to(&r, &stdio, out[1], out[1]);
		ck_assert_int_eq(write(stdio.source[1], "held", 4), 4);
		runx_relay_launched(&r);
		ck_assert_int_eq(write(wp[1], "s", 1), 1);
		struct wake_arg arg = {wp[0], 0, stop == 1};
		const struct runx_relay_wake wake = {wp[0], wake_stop, &arg};

		int64_t start = runx_now_ns();
		size_t dropped =
		    runx_relay_finish(&r, stop ? 20000 : 1000, &wake);
		int64_t took = runx_now_ns() - start;
		ck_assert_int_eq(arg.calls, 1);
		ck_assert_uint_eq(dropped, 4);
		if (stop) {
			ck_assert_int_lt(took, 10000 * MS);
		} else {
			ck_assert_int_ge(took, 1000 * MS);
			ck_assert_int_lt(took, 1900 * MS);
		}
		close_pipes(out, wp);
	}
}
END_TEST

/*
 * A destination that fails with an error other than EPIPE (/dev/full:
 * ENOSPC) is told once, with the command's fd (3: one pipe for both).
 */
START_TEST(a_failed_destination_is_told_once)
{
	struct runx_relay r;
	struct runx_stdio stdio;
	int slot = 0;
	int full = open("/dev/full", O_WRONLY | O_CLOEXEC);

	ck_assert_int_ge(full, 0);
	relay_to(&r, &stdio, full, full);
	ck_assert_int_eq(write(stdio.source[1], "abc", 3), 3);
	runx_relay_launched(&r);
	pump_until_idle(&r);
	ck_assert_int_eq(runx_relay_take_error(&r, &slot), ENOSPC);
	ck_assert_int_eq(slot, 3);
	ck_assert_int_eq(runx_relay_take_error(&r, &slot), 0);
	runx_relay_finish(&r, 0, NULL);
	close(full);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("relay");
	TCase *tc = tcase_create("pipes");

	tcase_add_test(tc, bytes_arrive_whole_and_the_end_closes_the_stream);
	tcase_add_test(tc, an_ended_pipe_with_a_full_destination_holds_nothing);
	tcase_add_test(tc, two_stalled_readers_are_waited_for_once);
	tcase_add_test(tc, one_destination_is_one_stream);
	tcase_add_test(tc, bytes_still_in_the_pipe_are_held_output);
	tcase_add_test(tc, a_wake_that_says_stop_ends_the_drain);
	tcase_add_test(tc, a_failed_destination_is_told_once);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
