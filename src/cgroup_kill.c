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
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup_walk.h"
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

/* What runx_cgroup_each_pid calls for each pid. */
struct pid_visit {
	int (*fn)(pid_t pid, void *arg);
	void *arg;
};

/* enter of the pid walk: fn for each pid of dir_fd's cgroup.procs (a
 * cgroup removed meanwhile has none). */
static int visit_procs(int dir_fd, size_t depth, void *arg)
{
	struct pid_visit *pv = arg;
	int fd = openat(dir_fd, "cgroup.procs", O_RDONLY | O_CLOEXEC), r = 0;
	long pid;

	(void)depth;
	if (fd < 0)
		return errno == ENOENT || errno == ENODEV ? 0 : -errno;
	FILE *f = fdopen(fd, "r");
	if (f == NULL) {
		r = -errno;
		close(fd);
		return r;
	}
	while (r == 0 && runx_read_long(f, &pid))
		if (pid > 0)
			r = pv->fn((pid_t)pid, pv->arg);
	fclose(f);
	return r;
}

int runx_cgroup_each_pid(struct runx_cgroup *cg,
			 int (*fn)(pid_t pid, void *arg), void *arg)
{
	struct pid_visit pv = {fn, arg};
	struct runx_cgroup_visit v = {visit_procs, NULL, &pv};
	int fd = cg->dir_fd;

	if (fd < 0 &&
	    (fd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? 0 : -errno;
	int r = runx_cgroup_walk(fd, &v);
	if (fd != cg->dir_fd)
		close(fd);
	return r;
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

int runx_cgroup_where(const struct runx_cgroup *cg, pid_t pid)
{
	char path[64], text[PATH_MAX + 64];

	if (cg->rel[0] == '\0')
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	/* a path longer than text (a cgroup nested deep below the job's) is
	 * cut short, after the prefix compared here */
	if (runx_cgroup_read_file(path, text, sizeof(text)) < 0)
		return -1;
	char *line = strstr(text, "0::");
	if (line == NULL || (line != text && line[-1] != '\n'))
		return -1;
	line += 3;
	line[strcspn(line, "\n")] = '\0';
	size_t wl = strlen(cg->rel);
	return strncmp(line, cg->rel, wl) == 0 &&
	       (line[wl] == '\0' || line[wl] == '/');
}

bool runx_cgroup_holds(const struct runx_cgroup *cg, pid_t pid)
{
	return runx_cgroup_where(cg, pid) == 1;
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

/*
 * SIGKILLs pid, just read from a cgroup.procs of the subtree, with
 * kill(2), and counts it in *arg.  The pid cannot name another process
 * yet: a listed process is not reaped, and after cgroup.kill its parent
 * is runx (busy here), a process of the job (dying), or an init that
 * reaps it; a new process would then need the pid after a wrap of the
 * whole pid space within the microseconds since the read.
 */
static int kill_listed(pid_t pid, void *arg)
{
	int *count = arg;

	if (kill(pid, SIGKILL) == 0)
		(*count)++;
	return 0;
}

int runx_cgroup_kill_each(struct runx_cgroup *cg)
{
	int count = 0;
	int r = runx_cgroup_each_pid(cg, kill_listed, &count);

	return r < 0 && count == 0 ? r : count;
}

int runx_cgroup_kill(struct runx_cgroup *cg)
{
	int count = 0;

	if (cg->kill_fd >= 0) {
		int w = pwrite(cg->kill_fd, "1", 1, 0) == 1 ? 1 : -errno;
		int n = runx_cgroup_kill_each(cg);
		return w > 0 ? w : n > 0 ? n : w;
	}
	/* Before Linux 5.14: freeze, so nothing forks while we kill. */
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

/* runx_cgroup_thaw_below()'s enter: a cgroup below the job's whose own
 * cgroup.freeze reads 1 gets 0; counts it in *arg. */
static int thaw_one(int dir_fd, size_t depth, void *arg)
{
	char c = '0';

	if (depth == 0)
		return 0; /* the job's own: its caller's */
	int fd = openat(dir_fd, "cgroup.freeze", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 0; /* gone meanwhile, or no freezer: nothing to thaw */
	if (pread(fd, &c, 1, 0) == 1 && c == '1' && pwrite(fd, "0", 1, 0) == 1)
		++*(int *)arg;
	close(fd);
	return 0;
}

int runx_cgroup_thaw_below(struct runx_cgroup *cg)
{
	struct runx_cgroup_visit v = {.enter = thaw_one};
	int thawed = 0;

	if (cg->dir_fd < 0)
		return 0;
	v.arg = &thawed;
	int r = runx_cgroup_walk(cg->dir_fd, &v);
	return r < 0 && thawed == 0 ? r : thawed;
}

int runx_cgroup_wait_empty(struct runx_cgroup *cg, long long timeout_ns)
{
	return wait_flag(cg, "populated", 0, timeout_ns);
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
