/*
 * Where a report goes: a file replaced atomically, a device, FIFO or
 * symlink written through, or standard error.
 */
#include "config.h"

#include "report_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How long a report written to a pipe may wait for its reader (ms). */
#define THROUGH_WAIT_MS 5000

/*
 * Writes text to fd completely; -errno on failure.  On an O_NONBLOCK fd a
 * full pipe is waited for (poll(2)), THROUGH_WAIT_MS at most in all, so
 * that a reader that never reads cannot keep runx from exiting; -EAGAIN
 * then.
 */
static int write_all(int fd, const char *text, size_t len)
{
	int waited = 0;

	while (len > 0) {
		ssize_t n = write(fd, text, len);
		if (n < 0 && errno == EAGAIN && waited < THROUGH_WAIT_MS) {
			struct pollfd p = {fd, POLLOUT, 0};
			if (poll(&p, 1, 100) < 0 && errno != EINTR)
				return -errno;
			waited += 100;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		text += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Writes text through path, which is no regular file (a symlink, a device,
 * a FIFO: /dev/stderr, /dev/null), as a shell's > would: open(2) follows
 * it, a regular file at the end of a symlink is truncated first, and a
 * FIFO without a reader gives -ENXIO rather than a wait.  0 or -errno.
 */
static int write_through(const char *path, const char *text, size_t len)
{
	struct stat st;
	int fd = open(
	    path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0666);

	if (fd < 0)
		return -errno;
	int ret = fstat(fd, &st) < 0 ? -errno : 0;
	if (ret == 0 && S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0)
		ret = -errno;
	if (ret == 0)
		ret = write_all(fd, text, len);
	if (close(fd) < 0 && ret == 0 && errno != EINTR)
		ret = -errno;
	return ret;
}

/*
 * Writes text to path as runx_report_deliver() says.
 */
int runx_report_deliver(const char *path, const char *text, size_t len)
{
	char tmp[PATH_MAX];
	struct stat st;
	int fd, ret;

	if (strcmp(path, "-") == 0)
		return write_all(STDERR_FILENO, text, len);
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		/* renaming over a device or a symlink would replace it */
		return write_through(path, text, len);
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, text, len);
	/* mkstemp makes 0600; a report is as readable as any output file */
	mode_t mask = umask(0);
	umask(mask);
	if (ret == 0 && fchmod(fd, 0666 & ~mask) < 0)
		ret = -errno;
	if (ret == 0 && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	if (ret == 0 && rename(tmp, path) < 0)
		ret = -errno;
	if (ret < 0)
		unlink(tmp);
	return ret;
}

/* The directory part of path into buf ("." for none); 0 or -ENAMETOOLONG. */
static int dir_of(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash == NULL ? 0 : (size_t)(slash - path);

	if (slash == path)
		n = 1; /* "/r.json": the root */
	if (n >= size)
		return -ENAMETOOLONG;
	if (n == 0)
		return snprintf(buf, size, ".") < 0 ? -EINVAL : 0;
	memcpy(buf, path, n);
	buf[n] = '\0';
	return 0;
}

int runx_report_check(const char *path)
{
	char dir[PATH_MAX];
	struct stat st;

	if (strcmp(path, "-") == 0 || path[0] == '\0')
		return path[0] == '\0' ? -ENOENT : 0;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return -EISDIR;
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		/* written through: a device, FIFO or symlink must take it */
		return access(path, W_OK) < 0 ? -errno : 0;
	int r = dir_of(path, dir, sizeof(dir));
	if (r < 0)
		return r;
	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	/* a temporary file is made there and renamed over path */
	return access(dir, W_OK | X_OK) < 0 ? -errno : 0;
}
