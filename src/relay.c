/* Relaying the command's output for --idle-timeout. */
#include "config.h"

#include "relay.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "stdio_guard.h"

/* Closes a stream's pipe and destination and frees its buffer. */
static void close_stream(struct runx_relay_stream *s)
{
	if (s->src >= 0)
		close(s->src);
	if (s->dst >= 0)
		close(s->dst);
	free(s->buf);
	memset(s, 0, sizeof(*s));
	s->src = s->dst = -1;
}

/*
 * Closes a stream that is finished; if its destination failed with an
 * error other than EPIPE (s->error: ENOSPC, EFBIG, EIO...), the first
 * such error is kept in r for runx_relay_take_error().
 */
static void end_stream(struct runx_relay *r, struct runx_relay_stream *s)
{
	r->dropped = r->dropped || s->error != 0;
	if (s->error != 0 && s->error != EPIPE && r->error == 0) {
		r->error = s->error;
		r->error_slot = s->slot;
	}
	close_stream(s);
}

bool runx_relay_take_dropped(struct runx_relay *r)
{
	bool d = r->dropped;

	r->dropped = false;
	return d;
}

int runx_relay_take_error(struct runx_relay *r, int *slot)
{
	int e = r->error;

	*slot = r->error_slot;
	r->error = 0;
	return e;
}

/*
 * A file description of runx's own for the destination dst, so that the
 * relay can write to it without blocking and without changing the flags
 * of a description others share (a terminal, the shell's pipe): a FIFO
 * or character device (a terminal) is opened anew through /proc/self/fd
 * with O_NONBLOCK (proc(5)); a socket is dup'd and written with
 * MSG_DONTWAIT (send(2)); a regular file or block device is dup'd, since
 * a new description would lose the file offset and such writes do not
 * wait for a reader.  Where the reopen fails (no /proc, a FIFO with no
 * reader), a dup: writes may then block, as without runx.
 */
static int private_destination(int dst, bool *is_socket)
{
	struct stat st;
	bool known = fstat(dst, &st) == 0;

	*is_socket = false;
	if (known && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
		int fd = runx_reopen_nonblocking(dst, &st);
		if (fd >= 0)
			return fd;
		if (errno == EMFILE || errno == ENFILE)
			return -1;
	}
	*is_socket = known && S_ISSOCK(st.st_mode);
	return fcntl(dst, F_DUPFD_CLOEXEC, 3);
}

/*
 * One stream: a pipe whose write end goes to the child, and runx's own
 * description of the destination (private_destination).  The
 * pipe is enlarged to RUNX_RELAY_PIPE_SIZE where the system allows it
 * (F_SETPIPE_SZ, fcntl(2); capped by /proc/sys/fs/pipe-max-size), so that
 * each splice(2) moves more and the supervisor wakes less often.
 */
static int open_stream(struct runx_relay_stream *s, int slot, int dst,
		       int *child_end)
{
	int p[2];

	memset(s, 0, sizeof(*s));
	s->src = s->dst = -1;
	s->slot = slot;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	s->src = p[0];
	*child_end = p[1];
	s->use_splice = true;
	int size = fcntl(p[0], F_SETPIPE_SZ, RUNX_RELAY_PIPE_SIZE);
	s->chunk = size > 0 ? (size_t)size : RUNX_RELAY_BUFSIZE;
	s->dst = private_destination(dst, &s->is_socket);
	/* splice(2) to a socket may block whatever its flags say */
	s->use_splice = !s->is_socket;
	if (s->dst < 0 || fcntl(s->src, F_SETFL, O_NONBLOCK) < 0) {
		int e = errno;
		close(*child_end);
		*child_end = -1;
		close_stream(s);
		return -e;
	}
	return 0;
}

/*
 * Where the command's fd slot would go without the relay: its redirect or
 * runx's own fd, or -1 (no relay for the slot: the command gets it as it
 * is) if that is a descriptor that was closed when runx started (the
 * command must find it closed too) or that is open for reading only.
 */
static int destination(const struct runx_stdio *stdio, int slot)
{
	if (stdio->source[slot] == RUNX_STDIO_CLOSED)
		return -1;
	int fd = stdio->source[slot] >= 0 ? stdio->source[slot] : slot;

	/* files runx opened are above 2: runx_stdio_guard() holds 0-2 */
	if (fd <= 2 && runx_stdio_was_closed(fd))
		return -1;
	/* open for reading only (1<&0): the command gets it as it is, and
	 * its writes fail there as without runx; a relay would write into
	 * it through a write access of its own (/proc/self/fd) */
	return runx_fd_read_only(fd) ? -1 : fd;
}

/*
 * True if fds a and b are the same file (device and inode, fstat(2)): one
 * open file (">F 2>&1"), the same terminal, pipe or socket, or two opens
 * of one file.  Its two streams then share one pipe: their order is kept.
 */
static bool same_place(int a, int b)
{
	struct stat x, y;

	return a >= 0 && b >= 0 && fstat(a, &x) == 0 && fstat(b, &y) == 0 &&
	       x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

int runx_relay_setup(struct runx_relay *r, struct runx_stdio *stdio)
{
	int dst[3] = {-1, destination(stdio, 1), destination(stdio, 2)};
	int source[3] = {-1, stdio->source[1], stdio->source[2]};

	r->nstreams = 0;
	r->error = r->error_slot = 0;
	r->dropped = false;
	r->child_end[0] = r->child_end[1] = -1;
	for (int slot = 1; slot <= 2; slot++) {
		if (dst[slot] < 0)
			continue; /* closed, or read-only: as it is */
		if (slot == 2 && dst[1] >= 0 &&
		    (dst[2] == dst[1] || same_place(dst[1], dst[2]))) {
			/* -m, -o F -e F, >F 2>&1, a terminal: one pipe */
			source[2] = source[1];
			if (r->nstreams > 0)
				r->stream[r->nstreams - 1].slot = 3; /* both */
			continue;
		}
		int i = r->nstreams;
		int ret = open_stream(&r->stream[i], slot, dst[slot],
				      &r->child_end[i]);
		if (ret < 0) {
			runx_relay_launched(r);
			runx_relay_finish(r, 0, NULL);
			return ret;
		}
		r->nstreams++;
		source[slot] = r->child_end[i];
	}
	stdio->source[1] = source[1];
	stdio->source[2] = source[2];
	return 0;
}

void runx_relay_launched(struct runx_relay *r)
{
	for (int i = 0; i < 2; i++) {
		if (r->child_end[i] >= 0)
			close(r->child_end[i]);
		r->child_end[i] = -1;
	}
}

int runx_relay_poll_fds(const struct runx_relay *r, struct pollfd *p)
{
	int n = 0;

	for (int i = 0; i < r->nstreams; i++) {
		const struct runx_relay_stream *s = &r->stream[i];
		if (s->src < 0)
			continue;
		if (s->dst_full || s->len > 0)
			p[n++] =
			    (struct pollfd){.fd = s->dst, .events = POLLOUT};
		else
			p[n++] =
			    (struct pollfd){.fd = s->src, .events = POLLIN};
	}
	return n;
}

/* Writes the buffered bytes; false if dst failed for good. */
static bool flush_buffer(struct runx_relay_stream *s)
{
	while (s->len > 0) {
		ssize_t n = s->is_socket
				? send(s->dst, s->buf + s->off, s->len,
				       MSG_DONTWAIT | MSG_NOSIGNAL)
				: write(s->dst, s->buf + s->off, s->len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				s->dst_full = true;
				return true;
			}
			s->error = errno;
			return false;
		}
		s->off += (size_t)n;
		s->len -= (size_t)n;
	}
	s->off = 0;
	s->dst_full = false;
	return true;
}

/*
 * True if the pipe fd is empty and has no writer left: FIONREAD says 0
 * bytes (pipe(7)) and poll(2) says POLLHUP.  A pipe that is empty while a
 * writer still holds it is not at EOF.
 */
static bool at_eof(int fd)
{
	int queued = -1;
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return ioctl(fd, FIONREAD, &queued) == 0 && queued == 0 &&
	       poll(&p, 1, 0) == 1 && (p.revents & POLLHUP);
}

/*
 * Moves one chunk from the pipe.  Returns bytes read (>0), 0 for nothing
 * now, -1 when the stream is finished (EOF or a failed destination).
 */
static ssize_t move_chunk(struct runx_relay_stream *s)
{
	ssize_t n;

	if (s->use_splice) {
		n = splice(s->src, NULL, s->dst, NULL, s->chunk,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0)
			return n;
		if (n == 0)
			return -1;
		if (errno == EAGAIN) {
			/* the pipe said readable: either the destination is
			 * full, or the pipe is empty with no writer left
			 * (splice(2) tries the full destination first) */
			if (at_eof(s->src))
				return -1;
			s->dst_full = true;
			return 0;
		}
		if (errno != EINVAL && errno != ENOSYS) {
			s->error = errno;
			return -1;
		}
		s->use_splice = false; /* e.g. a terminal: read/write */
	}
	if (s->buf == NULL && (s->buf = malloc(RUNX_RELAY_BUFSIZE)) == NULL)
		return -1;
	n = read(s->src, s->buf, RUNX_RELAY_BUFSIZE);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		return -1;
	if (n < 0)
		return 0;
	s->off = 0;
	s->len = (size_t)n;
	return flush_buffer(s) ? n : -1;
}

size_t runx_relay_pump(struct runx_relay *r, const struct pollfd *p, int n)
{
	size_t moved = 0;

	for (int k = 0; k < n; k++) {
		if (p[k].revents == 0)
			continue;
		for (int i = 0; i < r->nstreams; i++) {
			struct runx_relay_stream *s = &r->stream[i];
			if (s->src < 0)
				continue;
			if (p[k].fd == s->dst && (s->dst_full || s->len > 0)) {
				s->dst_full = false;
				if (!flush_buffer(s))
					end_stream(r, s);
			} else if (p[k].fd == s->src) {
				ssize_t m = move_chunk(s);
				if (m < 0)
					end_stream(r, s);
				else
					moved += (size_t)m;
			}
		}
	}
	return moved;
}

/* True if the pipe has something to read (or reached EOF) right now. */
static bool readable_now(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 0) > 0;
}

/* What one round of the final drain did. */
enum drain {
	DRAIN_MOVED, /* a destination took more: progress */
	DRAIN_WOKE,  /* the wake fd was readable (not a stop), or EINTR */
	DRAIN_OVER,  /* no stream left, the wait passed, or told to stop */
};

/* Bytes still held for stream s: buffered, and queued in its pipe. */
static size_t held_bytes(const struct runx_relay_stream *s)
{
	int queued = 0;

	if (s->src < 0)
		return 0;
	if (ioctl(s->src, FIONREAD, &queued) < 0 || queued < 0)
		queued = 0;
	return s->len + (size_t)queued;
}

/*
 * One round of the final drain over every open stream: a stream whose pipe
 * is empty now is closed; the others move a chunk each.  When none could
 * move anything (every open destination is full), one poll(2) waits for
 * any of them to take more, or for wake->fd, at most wait_ms, so that
 * readers that all stopped are waited for once, not once per stream.
 */
static enum drain drain_round(struct runx_relay *r, int wait_ms,
			      const struct runx_relay_wake *wake)
{
	struct pollfd p[3];
	struct runx_relay_stream *waiting[2];
	int n = 0;
	bool moved = false;

	for (int i = 0; i < r->nstreams; i++) {
		struct runx_relay_stream *s = &r->stream[i];
		if (s->src >= 0 && !s->dst_full && s->len == 0) {
			ssize_t m = readable_now(s->src) ? move_chunk(s) : -1;
			if (m < 0 || (m == 0 && !s->dst_full && s->len == 0))
				end_stream(r, s); /* empty, EOF or failed */
			moved = moved || m > 0;
		}
		if (s->src >= 0 && (s->dst_full || s->len > 0)) {
			p[n] = (struct pollfd){.fd = s->dst, .events = POLLOUT};
			waiting[n++] = s;
		}
	}
	if (moved)
		return DRAIN_MOVED;
	if (n == 0)
		return DRAIN_OVER;
	p[n] = (struct pollfd){.fd = wake != NULL ? wake->fd : -1,
			       .events = POLLIN};
	int k = poll(p, (nfds_t)n + 1, wait_ms);
	if (k < 0 && errno == EINTR)
		return DRAIN_WOKE;
	if (k <= 0)
		return DRAIN_OVER; /* the readers stalled: drop the rest */
	bool took = false;
	for (int j = 0; j < n; j++) {
		if (p[j].revents == 0)
			continue;
		took = true;
		waiting[j]->dst_full = false;
		if (waiting[j]->len > 0 && !flush_buffer(waiting[j]))
			end_stream(r, waiting[j]);
	}
	if (p[n].revents != 0 && wake->stop(wake->arg))
		return DRAIN_OVER;
	return took ? DRAIN_MOVED : DRAIN_WOKE;
}

/* What is left of a wait of stall_ms that began at since (ns, the
 * monotonic clock), in whole ms rounded up; 0 once it has passed. */
static int ms_left(int stall_ms, int64_t since)
{
	int64_t left = (int64_t)stall_ms * 1000000 - (runx_now_ns() - since);

	return left <= 0 ? 0 : (int)((left + 999999) / 1000000);
}

size_t runx_relay_finish(struct runx_relay *r, int stall_ms,
			 const struct runx_relay_wake *wake)
{
	size_t dropped = 0;
	int64_t since = runx_now_ns(); /* the last progress */

	/* every round counts (a wait, or a chunk per stream), so that no
	 * pattern of poll(2) answers, and no writer outside the scope that
	 * never stops, can keep runx here; a wake-up that was not a stop
	 * only shortens the wait that follows */
	for (int rounds = 0; rounds < RUNX_RELAY_DRAIN_CHUNKS;) {
		enum drain d = drain_round(r, ms_left(stall_ms, since), wake);
		if (d == DRAIN_OVER)
			break;
		if (d == DRAIN_MOVED) {
			since = runx_now_ns();
			rounds++;
		} else if (ms_left(stall_ms, since) == 0) {
			break;
		}
	}
	for (int i = 0; i < r->nstreams; i++) {
		struct runx_relay_stream *s = &r->stream[i];
		dropped += held_bytes(s);
		if (s->src >= 0 || s->dst >= 0)
			close_stream(s);
	}
	r->nstreams = 0;
	runx_relay_launched(r);
	return dropped;
}

bool runx_relay_holds_output(const struct runx_relay *r)
{
	for (int i = 0; i < r->nstreams; i++) {
		const struct runx_relay_stream *s = &r->stream[i];
		/* a destination that took more in the round the idle timer
		 * fired in is no longer full, but what the command wrote is
		 * still in the pipe, unread: not silence either */
		if (s->src >= 0 && (s->dst_full || held_bytes(s) > 0))
			return true;
	}
	return false;
}
