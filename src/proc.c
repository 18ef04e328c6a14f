/* /proc readers. */
#include "config.h"

#include "proc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Reads up to size-1 bytes of a small /proc file; length or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	return n;
}

int runx_proc_stat(pid_t pid, struct runx_proc_stat *st)
{
	char path[64], buf[1024];
	unsigned long long start;
	int ppid, pgrp, session;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	ssize_t n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	char *p = strrchr(buf, ')');
	/* fields 3-6, then skip 7-21 to the start time (22) */
	if (p == NULL ||
	    sscanf(p + 1,
		   " %c %d %d %d %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
		   "%*s %*s %*s %*s %llu",
		   &st->state, &ppid, &pgrp, &session, &start) != 5)
		return -EINVAL;
	st->pid = pid;
	st->ppid = ppid;
	st->pgrp = pgrp;
	st->session = session;
	st->start_time = start;
	return 0;
}

bool runx_proc_is_dead(const struct runx_proc_stat *st)
{
	return st->state == 'Z' || st->state == 'X' || st->state == 'x';
}

int runx_proc_each(int (*fn)(const struct runx_proc_stat *st, void *arg),
		   void *arg)
{
	DIR *dir = opendir("/proc");
	struct dirent *d;
	int r = 0;

	if (dir == NULL)
		return -errno;
	while (r == 0) {
		errno = 0;
		if ((d = readdir(dir)) == NULL) {
			r = -errno; /* 0 at the end of the list */
			break;
		}
		struct runx_proc_stat st;
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		int s = runx_proc_stat((pid_t)atoi(d->d_name), &st);
		if (s == 0)
			r = fn(&st, arg);
		else if (s != -ENOENT && s != -ESRCH)
			r = s;
	}
	closedir(dir);
	return r;
}

bool runx_proc_is_own_namespace(void)
{
	char buf[32];
	ssize_t n = readlink("/proc/self", buf, sizeof(buf) - 1);

	if (n <= 0)
		return false;
	buf[n] = '\0';
	return atoi(buf) == (int)getpid();
}

int runx_proc_cmdline_raw(pid_t pid, char *buf, size_t size)
{
	char path[64];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = read(fd, buf, size);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	return (int)n;
}

uint64_t runx_proc_uptime_ticks(void)
{
	struct timespec ts;
	long hz = sysconf(_SC_CLK_TCK);

	/* CLOCK_BOOTTIME is what /proc/PID/stat's start time counts from */
	clock_gettime(CLOCK_BOOTTIME, &ts);
	if (hz <= 0)
		hz = 100;
	return (uint64_t)ts.tv_sec * (uint64_t)hz +
	       (uint64_t)ts.tv_nsec / (1000000000ULL / (uint64_t)hz);
}
