/*
 * The processes of the job's cgroup subtree: listing them (every
 * cgroup.procs, at any depth), killing, freezing, waiting for the subtree
 * to empty, and removing it (Documentation/admin-guide/cgroup-v2.rst,
 * "Core Interface Files").
 */
#include "config.h"

#include "cgroup_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "syscalls.h"

/* Reads one "KEY 0|1" line of cgroup.events: 1, 0, or -errno. */
static int events_flag(const struct runx_cgroup *cg, const char *key)
{
	char text[256], *p;
	ssize_t n = pread(cg->events_fd, text, sizeof(text) - 1, 0);

	if (n < 0)
		return -errno;
	text[n] = '\0';
	for (p = text; (p = strstr(p, key)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && p[strlen(key)] == ' ')
			return p[strlen(key) + 1] == '1';
	return -EINVAL;
}

int runx_cgroup_populated(struct runx_cgroup *cg)
{
	return events_flag(cg, "populated");
}

/* Calls fn for each pid of dir/cgroup.procs, then recurses into subdirs. */
static int each_pid_in(const char *dir, int (*fn)(pid_t, void *), void *arg)
{
	char path[PATH_MAX + 16];
	int r = 0;
	FILE *f;
	long pid;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (f == NULL)
		return errno == ENOENT ? 0 : -errno;
	while (r == 0 && runx_read_long(f, &pid))
		if (pid > 0)
			r = fn((pid_t)pid, arg);
	fclose(f);
	if (r != 0)
		return r;

	DIR *d = opendir(dir);
	struct dirent *e;
	if (d == NULL)
		return errno == ENOENT ? 0 : -errno;
	while (r == 0 && (e = readdir(d)) != NULL) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		char sub[PATH_MAX];
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) <
		    (int)sizeof(sub))
			r = each_pid_in(sub, fn, arg);
	}
	closedir(d);
	return r;
}

int runx_cgroup_each_pid(struct runx_cgroup *cg,
			 int (*fn)(pid_t pid, void *arg), void *arg)
{
	return each_pid_in(cg->path, fn, arg);
}

/* Counts pid in *arg. */
static int count_one(pid_t pid, void *arg)
{
	(void)pid;
	(*(int *)arg)++;
	return 0;
}

int runx_cgroup_count(struct runx_cgroup *cg)
{
	int count = 0;
	int r = runx_cgroup_each_pid(cg, count_one, &count);

	return r < 0 ? r : count;
}

bool runx_cgroup_holds(const struct runx_cgroup *cg, pid_t pid)
{
	char path[64], text[PATH_MAX + 64];

	if (cg->rel[0] == '\0')
		return false;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	/* a path longer than text (a cgroup nested deep below the job's) is
	 * cut short, after the prefix compared here */
	if (runx_cgroup_read_file(path, text, sizeof(text)) < 0)
		return false;
	char *line = strstr(text, "0::");
	if (line == NULL || (line != text && line[-1] != '\n'))
		return false;
	line += 3;
	line[strcspn(line, "\n")] = '\0';
	size_t wl = strlen(cg->rel);
	return strncmp(line, cg->rel, wl) == 0 &&
	       (line[wl] == '\0' || line[wl] == '/');
}

/* SIGKILLs pid through a pidfd and counts it in *arg. */
static int kill_pinned(pid_t pid, void *arg)
{
	int *count = arg;
	int fd = runx_pidfd_open(pid, 0);

	if (fd >= 0) {
		runx_pidfd_send_signal(fd, SIGKILL);
		close(fd);
		(*count)++;
	}
	return 0;
}

int runx_cgroup_kill(struct runx_cgroup *cg)
{
	if (cg->kill_fd >= 0)
		return pwrite(cg->kill_fd, "1", 1, 0) == 1 ? 1 : -errno;
	/* Before Linux 5.14: freeze, so nothing forks while we kill. */
	int count = 0;
	runx_cgroup_freeze(cg, true, 100 * 1000 * 1000LL);
	int r = runx_cgroup_each_pid(cg, kill_pinned, &count);
	runx_cgroup_freeze(cg, false, 0);
	return r < 0 ? r : count;
}

/* Waits for cgroup.events' KEY to read want, at most timeout_ns. */
static int wait_flag(struct runx_cgroup *cg, const char *key, int want,
		     long long timeout_ns)
{
	struct timespec t0, now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int v = events_flag(cg, key);
		if (v < 0 || v == want)
			return v < 0 ? v : 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long long spent = (now.tv_sec - t0.tv_sec) * 1000000000LL +
				  (now.tv_nsec - t0.tv_nsec);
		if (spent >= timeout_ns)
			return -ETIMEDOUT;
		/* notifications are rate-limited: wake at least every 20 ms */
		long long left_ms = (timeout_ns - spent) / 1000000 + 1;
		struct pollfd p = {.fd = cg->events_fd, .events = POLLPRI};
		if (poll(&p, 1, left_ms < 20 ? (int)left_ms : 20) < 0 &&
		    errno != EINTR)
			return -errno;
	}
}

int runx_cgroup_freeze(struct runx_cgroup *cg, bool on, long long timeout_ns)
{
	if (cg->freeze_fd < 0)
		return -ENOTSUP;
	if (pwrite(cg->freeze_fd, on ? "1" : "0", 1, 0) != 1)
		return -errno;
	return on ? wait_flag(cg, "frozen", 1, timeout_ns) : 0;
}

int runx_cgroup_wait_empty(struct runx_cgroup *cg, long long timeout_ns)
{
	return wait_flag(cg, "populated", 0, timeout_ns);
}

/* rmdir of dir after its subdirectories, retrying briefly on EBUSY. */
int runx_cgroup_remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	if (d != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (e->d_type != DT_DIR || e->d_name[0] == '.')
				continue;
			char sub[PATH_MAX];
			if (snprintf(sub, sizeof(sub), "%s/%s", dir,
				     e->d_name) < (int)sizeof(sub)) {
				int s = runx_cgroup_remove_tree(sub);
				if (r == 0)
					r = s;
			}
		}
		closedir(d);
	}
	/* A cgroup whose last task just exited can be busy for a moment. */
	for (int tries = 0; tries < 200; tries++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return r;
		if (errno != EBUSY)
			break;
		struct timespec pause = {0, 5 * 1000 * 1000};
		nanosleep(&pause, NULL);
	}
	return r != 0 ? r : -errno;
}

/* Closes fd if open and marks it closed. */
static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int runx_cgroup_remove(struct runx_cgroup *cg, long long kill_wait_ns)
{
	int r = 0;

	if (cg->path[0] == '\0' && cg->top[0] == '\0')
		return 0;
	/* a launch that failed half-way can leave a process inside */
	if (cg->events_fd >= 0 && runx_cgroup_populated(cg) == 1 &&
	    kill_wait_ns > 0) {
		runx_cgroup_kill(cg);
		runx_cgroup_wait_empty(cg, kill_wait_ns);
	}
	close_fd(&cg->dir_fd);
	close_fd(&cg->procs_fd);
	close_fd(&cg->events_fd);
	close_fd(&cg->kill_fd);
	close_fd(&cg->freeze_fd);
	if (cg->path[0] != '\0')
		r = runx_cgroup_remove_tree(cg->path);
	int u = runx_cgroup_undo_layout(cg);
	return r != 0 ? r : u;
}
