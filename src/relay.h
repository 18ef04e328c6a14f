/*
 * --idle-timeout: the command's stdout and stderr go through pipes that
 * runx relays to where they were going, so runx sees every byte.
 */
#ifndef RUNX_RELAY_H
#define RUNX_RELAY_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "redirect.h"

#define RUNX_RELAY_BUFSIZE   (64 * 1024)   /* read/write fallback buffer */
#define RUNX_RELAY_PIPE_SIZE (1024 * 1024) /* asked of F_SETPIPE_SZ */
#define RUNX_RELAY_DRAIN_CHUNKS                                                \
	1024 /* at the end: rounds (chunks or waits) at most */

struct runx_relay_stream {
	int src;	 /* read end of the pipe (O_NONBLOCK), -1 once closed */
	int dst;	 /* a dup of where the bytes go, owned */
	bool use_splice; /* splice(2) works for this dst */
	bool is_socket;	 /* dst is a socket: send(2) with MSG_DONTWAIT */
	bool dst_full;	 /* wait for POLLOUT on dst before moving more */
	size_t chunk;	 /* bytes per splice(2): the pipe's capacity */
	char *buf;	 /* read/write fallback: bytes not yet written */
	size_t off, len;
	int slot;  /* the command's fd: 1 or 2; 3 when one pipe serves both */
	int error; /* errno of the write that failed, or 0 */
};

struct runx_relay {
	struct runx_relay_stream stream[2];
	int nstreams;
	int child_end[2]; /* pipe write ends for the child, -1 after launch */
	int error, error_slot; /* first destination error but EPIPE, 0 */
	bool dropped; /* a destination failed since runx_relay_take_dropped() */
};

/*
 * Puts a pipe between the command's stdout (and stderr, or one pipe for
 * both when they go to the same place: -m, or -o F -e F) and their
 * destination in *stdio (a redirect file or runx's own fd 1/2, of which
 * the relay opens a private non-blocking description where it can, and
 * owns it: runx never waits on a reader that does not read).  Changes
 * stdio->source[1] and [2] to the pipes' write ends.  A stream whose fd was
 * closed when runx started gets no pipe and stays closed in the command.  All
 * fds O_CLOEXEC.  Returns 0 or -errno (nothing left open).
 */
int runx_relay_setup(struct runx_relay *r, struct runx_stdio *stdio);

/* After launch: closes runx's copies of the pipes' write ends. */
void runx_relay_launched(struct runx_relay *r);

/*
 * Adds the fds to poll(2) for the streams still open into p (at most 2)
 * and returns how many: a pipe's read end for POLLIN, or its destination
 * for POLLOUT while the destination is full.
 */
int runx_relay_poll_fds(const struct runx_relay *r, struct pollfd *p);

/*
 * Moves what p (filled by runx_relay_poll_fds and poll(2)) says is ready,
 * never blocking on a pipe: splice(2) with SPLICE_F_NONBLOCK, else
 * read/write through a buffer of RUNX_RELAY_BUFSIZE bytes.  A stream
 * whose pipe reached EOF, or whose destination failed (EPIPE: the command
 * then gets SIGPIPE, as without runx), is closed.  Returns the number of
 * bytes read from the command (output activity), or 0.
 */
size_t runx_relay_pump(struct runx_relay *r, const struct pollfd *p, int n);

/*
 * The first error other than EPIPE with which a destination failed (a
 * full disk, RLIMIT_FSIZE: EFBIG, EIO), once: a positive errno, and in
 * *slot the command's fd whose output it was (1 or 2; 3 when both share
 * one pipe); 0 when there was none, or it was taken already.  The stream
 * was closed, so the command gets SIGPIPE on its next write to it.
 */
int runx_relay_take_error(struct runx_relay *r, int *slot);

/*
 * True, once, if a destination failed (EPIPE included: its reader went
 * away) since the last call: the output runx held for it was dropped and
 * the stream closed.  For the idle deadline, that is the moment runx
 * stopped holding output (runx(1), --idle-timeout): a command that was
 * blocked on its write was not silent until then.
 */
bool runx_relay_take_dropped(struct runx_relay *r);

/*
 * True while output waits for a slow reader: a destination that took
 * nothing more (EAGAIN), bytes read from the command not yet written, or
 * bytes the command wrote that are still in a pipe (FIONREAD, pipe(7)).
 * Such output is not silence (runx(1), --idle-timeout).  No errors.
 */
bool runx_relay_holds_output(const struct runx_relay *r);

/*
 * What can end the final drain early: while it waits for a reader, fd is
 * polled for POLLIN too, and when it is readable, stop(arg) is called;
 * true drops the rest at once (the supervisor passes its signalfd and
 * ends the drain on a stop signal: runx(1), --idle-timeout).
 */
struct runx_relay_wake {
	int fd;
	bool (*stop)(void *arg);
	void *arg;
};

/*
 * At the end: delivers what is still in the pipes, waiting for a slow
 * reader as a blocking writer would, but giving up after stall_ms
 * milliseconds in which no destination accepted anything (the supervisor
 * passes the grace period: runx(1), --idle-timeout; stdout and stderr are
 * waited for together, so two stalled readers cost stall_ms once), after
 * RUNX_RELAY_DRAIN_CHUNKS rounds (a process outside the scope that still
 * holds and fills the pipe must not keep runx), or when wake (may be
 * NULL) says to stop; then closes everything.  A pipe found empty with no
 * writer left (pipe(7): FIONREAD 0 and POLLHUP) is at its end, whatever
 * its destination's state.  Never fails; returns the number of bytes
 * that were left undelivered (buffered, or in the pipes: FIONREAD), 0
 * when everything was delivered.
 */
size_t runx_relay_finish(struct runx_relay *r, int stall_ms,
			 const struct runx_relay_wake *wake);

#endif
