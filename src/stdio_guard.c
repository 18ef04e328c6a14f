/* Keeping fds 0, 1 and 2 occupied while runx runs (stdio_guard.h). */
#include "config.h"

#include "stdio_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int runx_stdio_guard(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* open(2) returns the lowest free descriptor: this one. */
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (nul < 0)
			return -errno;
		if (nul != fd) {
			close(nul);
			return -EBADF;
		}
	}
	return 0;
}

bool runx_stdio_was_closed(int fd)
{
	int flags = fcntl(fd, F_GETFD);

	return flags < 0 || (flags & FD_CLOEXEC) != 0;
}

bool runx_fd_read_only(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	return flags >= 0 && (flags & O_ACCMODE) == O_RDONLY;
}

int runx_reopen_nonblocking(int fd, const struct stat *st)
{
	char path[64];

	if (!S_ISFIFO(st->st_mode) && !S_ISCHR(st->st_mode)) {
		errno = EINVAL;
		return -1;
	}
	if (runx_fd_read_only(fd)) {
		errno = EBADF; /* no write access that it was opened with */
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}
