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
	char path[64];
	struct stat st;

	*is_socket = false;
	if (fstat(dst, &st) == 0 &&
	    (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", dst);
		int fd =
		    open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		if (errno == EMFILE || errno == ENFILE)
			return -1;
	}
	*is_socket = S_ISSOCK(st.st_mode);
	return fcntl(dst, F_DUPFD_CLOEXEC, 3);
}

/*
 * One stream: a pipe whose write end goes to the child, and runx's own
 * description of the destination (private_destination).  The
 * pipe is enlarged to RUNX_RELAY_PIPE_SIZE where the system allows it
 * (F_SETPIPE_SZ, fcntl(2); capped by /proc/sys/fs/pipe-max-size), so that
 * each splice(2) moves more and the supervisor wakes less often.
 */
static int open_stream(struct runx_relay_stream *s, int dst, int *child_end)
{
	int p[2];

	memset(s, 0, sizeof(*s));
	s->src = s->dst = -1;
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
 * runx's own fd, or -1 if that is a descriptor that was closed when runx
 * started (the command must find it closed too).
 */
static int destination(const struct runx_stdio *stdio, int slot)
{
	int fd = stdio->source[slot] >= 0 ? stdio->source[slot] : slot;

	/* files runx opened are above 2: runx_stdio_guard() holds 0-2 */
	return fd <= 2 && runx_stdio_was_closed(fd) ? -1 : fd;
}

int runx_relay_setup(struct runx_relay *r, struct runx_stdio *stdio)
{
	int dst[3] = {-1, destination(stdio, 1), destination(stdio, 2)};
	int source[3] = {-1, stdio->source[1], stdio->source[2]};

	r->nstreams = 0;
	r->child_end[0] = r->child_end[1] = -1;
	for (int slot = 1; slot <= 2; slot++) {
		if (dst[slot] < 0)
			continue; /* closed: stays closed in the command */
		if (slot == 2 && stdio->source[2] >= 0 && dst[2] == dst[1]) {
			source[2] = source[1]; /* -m, -o F -e F: one pipe */
			continue;
		}
		int i = r->nstreams;
		int ret =
		    open_stream(&r->stream[i], dst[slot], &r->child_end[i]);
		if (ret < 0) {
			runx_relay_launched(r);
			runx_relay_finish(r, 0);
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
		if (errno != EINVAL && errno != ENOSYS)
			return -1;
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
					close_stream(s);
			} else if (p[k].fd == s->src) {
				ssize_t m = move_chunk(s);
				if (m < 0)
					close_stream(s);
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

/*
 * One round of the final drain over every open stream: a stream whose pipe
 * is empty now is closed; the others move a chunk each.  When none could
 * move anything (every open destination is full), one poll(2) waits for
 * any of them to take more, at most stall_ms, so that readers that all
 * stopped are waited for stall_ms once, not once per stream.  Returns
 * false when the drain is over: no stream left open, or that wait passed
 * with no reader taking anything (the rest is dropped).
 */
static bool drain_round(struct runx_relay *r, int stall_ms)
{
	struct pollfd p[2];
	struct runx_relay_stream *waiting[2];
	int n = 0;
	bool moved = false;

	for (int i = 0; i < r->nstreams; i++) {
		struct runx_relay_stream *s = &r->stream[i];
		if (s->src >= 0 && !s->dst_full && s->len == 0) {
			ssize_t m = readable_now(s->src) ? move_chunk(s) : -1;
			if (m < 0 || (m == 0 && !s->dst_full && s->len == 0))
				close_stream(s); /* empty, EOF or failed */
			moved = moved || m > 0;
		}
		if (s->src >= 0 && (s->dst_full || s->len > 0)) {
			p[n] = (struct pollfd){.fd = s->dst, .events = POLLOUT};
			waiting[n++] = s;
		}
	}
	if (moved)
		return true;
	if (n == 0)
		return false;
	int k = poll(p, (nfds_t)n, stall_ms);
	if (k < 0 && errno == EINTR)
		return true;
	if (k <= 0)
		return false; /* the readers stalled: drop the rest */
	for (int j = 0; j < n; j++) {
		if (p[j].revents == 0)
			continue;
		waiting[j]->dst_full = false;
		if (waiting[j]->len > 0 && !flush_buffer(waiting[j]))
			close_stream(waiting[j]);
	}
	return true;
}

void runx_relay_finish(struct runx_relay *r, int stall_ms)
{
	/* every round counts (a wait, or a chunk per stream), so that no
	 * pattern of poll(2) answers, and no writer outside the scope that
	 * never stops, can keep runx here */
	for (int rounds = 0;
	     rounds < RUNX_RELAY_DRAIN_CHUNKS && drain_round(r, stall_ms);
	     rounds++)
		;
	for (int i = 0; i < r->nstreams; i++) {
		struct runx_relay_stream *s = &r->stream[i];
		if (s->src >= 0 || s->dst >= 0)
			close_stream(s);
	}
	r->nstreams = 0;
	runx_relay_launched(r);
}

bool runx_relay_holds_output(const struct runx_relay *r)
{
	for (int i = 0; i < r->nstreams; i++) {
		const struct runx_relay_stream *s = &r->stream[i];
		if (s->src >= 0 && (s->dst_full || s->len > 0))
			return true;
	}
	return false;
}
