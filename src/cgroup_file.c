/* Reading and writing cgroup control files by path (cgroup_impl.h). */
#include "config.h"

#include "cgroup_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int runx_cgroup_read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n = 0;

	if (fd < 0)
		return -errno;
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[len] = '\0';
	return 0;
}

int runx_cgroup_open_in(const char *dir, const char *name, int flags)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, flags | O_CLOEXEC);
}

int runx_cgroup_open_optional(const char *dir, const char *name)
{
	int fd = runx_cgroup_open_in(dir, name, O_WRONLY);

	if (fd >= 0)
		return fd;
	return errno == EMFILE || errno == ENFILE ? -errno : -1;
}

int runx_cgroup_write_in(const char *dir, const char *name, const char *text)
{
	int fd = runx_cgroup_open_in(dir, name, O_WRONLY);
	size_t len = strlen(text);

	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, len);
	int e = n < 0 ? errno : EIO;
	close(fd);
	return n == (ssize_t)len ? 0 : -e;
}
