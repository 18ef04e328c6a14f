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
#include <unistd.h>

int runx_proc_stat(pid_t pid, struct runx_proc_stat *st)
{
	char path[64], buf[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	int ppid, pgrp, session;
	if (p == NULL || sscanf(p + 1, " %c %d %d %d", &st->state, &ppid,
				&pgrp, &session) != 4)
		return -EINVAL;
	st->pid = pid;
	st->ppid = ppid;
	st->pgrp = pgrp;
	st->session = session;
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
	while (r == 0 && (d = readdir(dir)) != NULL) {
		struct runx_proc_stat st;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		if (runx_proc_stat((pid_t)atoi(d->d_name), &st) == 0)
			r = fn(&st, arg);
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
