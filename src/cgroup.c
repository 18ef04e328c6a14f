/* cgroup v2 discovery, creation, kill and removal. */
#include "config.h"

#include "cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "syscalls.h"

/* Reads a whole small file into buf (NUL-terminated); -errno on failure. */
static int read_file(const char *path, char *buf, size_t size)
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

/* runx's cgroup v2 path from /proc/self/cgroup ("0::/a/b"). */
static int own_cgroup_path(char *buf, size_t size)
{
	char text[8192];
	int r = read_file("/proc/self/cgroup", text, sizeof(text));

	if (r < 0)
		return r;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		if (strncmp(line, "0::", 3) == 0) {
			if (strlen(line + 3) >= size)
				return -ENAMETOOLONG;
			strcpy(buf, line + 3);
			return 0;
		}
	return -ENOENT;
}

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] &&
		    s[3]) {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
					(s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/*
 * True if the cgroup directory dir lists pid in its cgroup.procs, read as
 * a stream (the list has no size bound: a fork storm elsewhere in the same
 * cgroup can make it long).  The kernel reads the list while processes
 * come and go (cgroup-v2.rst: "cgroup.procs ... unordered"), so a miss is
 * re-read a few times before it counts.
 */
static bool dir_holds_pid(const char *dir, pid_t pid)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	for (int attempt = 0; attempt < 3; attempt++) {
		FILE *f = fopen(path, "re");
		long v;
		bool found = false;

		if (f == NULL)
			return false;
		while (!found && fscanf(f, "%ld", &v) == 1)
			found = v == (long)pid;
		fclose(f);
		if (found)
			return true;
	}
	return false;
}

/* If mount root is an ancestor of own, joins mount point and the rest. */
static bool join_mount(const char *root, const char *point, const char *own,
		       char *buf, size_t size)
{
	size_t rlen = strlen(root);
	int n;

	if (strcmp(root, "/") == 0) {
		n = snprintf(buf, size, "%s%s", point,
			     strcmp(own, "/") == 0 ? "" : own);
	} else {
		if (strncmp(own, root, rlen) != 0 ||
		    (own[rlen] != '/' && own[rlen] != '\0'))
			return false; /* "/.." or another subtree */
		n = snprintf(buf, size, "%s%s", point, own + rlen);
	}
	return n > 0 && (size_t)n < size;
}

int runx_cgroup_find_own(char *buf, size_t size)
{
	char own[PATH_MAX], line[4 * PATH_MAX];
	FILE *f;
	int r = own_cgroup_path(own, sizeof(own));

	if (r < 0)
		return r;
	f = fopen("/proc/self/mountinfo", "re");
	if (f == NULL)
		return -errno;
	r = -ENOENT;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *field[8], *sep = strstr(line, " - ");
		int n = 0;

		if (sep == NULL || strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		*sep = '\0';
		for (char *t = strtok(line, " "); t && n < 8;
		     t = strtok(NULL, " "))
			field[n++] = t;
		if (n < 5)
			continue;
		unescape(field[3]);
		unescape(field[4]);
		if (join_mount(field[3], field[4], own, buf, size) &&
		    dir_holds_pid(buf, getpid())) {
			r = 0;
			break;
		}
	}
	fclose(f);
	return r;
}

static int open_in(const char *dir, const char *name, int flags)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return open(path, flags | O_CLOEXEC);
}

/* An optional control file, O_WRONLY: fd, -1 if the kernel lacks it, or
 * -EMFILE/-ENFILE when runx is out of fds (which must fail the set-up). */
static int open_optional(const char *dir, const char *name)
{
	int fd = open_in(dir, name, O_WRONLY);

	if (fd >= 0)
		return fd;
	return errno == EMFILE || errno == ENFILE ? -errno : -1;
}

int runx_cgroup_probe(const char *parent)
{
	char procs[PATH_MAX + 16];

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", parent);
	if (faccessat(AT_FDCWD, parent, W_OK | X_OK, AT_EACCESS) < 0 ||
	    faccessat(AT_FDCWD, procs, W_OK, AT_EACCESS) < 0)
		return -errno;
	return 0;
}

int runx_cgroup_create(struct runx_cgroup *cg, const char *parent, char *err,
		       size_t errsize)
{
	static unsigned serial;
	struct timespec ts;
	int n;

	cg->dir_fd = cg->procs_fd = cg->events_fd = -1;
	cg->kill_fd = cg->freeze_fd = -1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = snprintf(cg->path, sizeof(cg->path), "%s/runx-%d-%lx%x", parent,
		     (int)getpid(), (unsigned long)ts.tv_nsec, serial++);
	if (n < 0 || (size_t)n >= sizeof(cg->path)) {
		snprintf(err, errsize, "cgroup path under '%s' is too long",
			 parent);
		return -ENAMETOOLONG;
	}
	if (mkdir(cg->path, 0755) < 0) {
		int e = errno;
		snprintf(err, errsize, "cannot create cgroup '%s': %s",
			 cg->path, strerror(e));
		cg->path[0] = '\0';
		return -e;
	}
	cg->dir_fd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cg->procs_fd = open_in(cg->path, "cgroup.procs", O_WRONLY);
	cg->events_fd = open_in(cg->path, "cgroup.events", O_RDONLY);
	cg->kill_fd = open_optional(cg->path, "cgroup.kill");
	cg->freeze_fd = open_optional(cg->path, "cgroup.freeze");
	if (cg->dir_fd < 0 || cg->procs_fd < 0 || cg->events_fd < 0 ||
	    cg->kill_fd == -EMFILE || cg->freeze_fd == -EMFILE ||
	    cg->kill_fd == -ENFILE || cg->freeze_fd == -ENFILE) {
		int e = errno;
		snprintf(err, errsize, "cannot open cgroup '%s': %s", cg->path,
			 strerror(e));
		runx_cgroup_remove(cg, 0);
		cg->path[0] = '\0';
		return -e;
	}
	/* as /proc/PID/cgroup names it: runx's own path, then "/runx-..." */
	char mine[PATH_MAX];
	cg->rel[0] = '\0';
	if (own_cgroup_path(mine, sizeof(mine)) == 0)
		snprintf(cg->rel, sizeof(cg->rel), "%s%s",
			 strcmp(mine, "/") == 0 ? "" : mine,
			 strrchr(cg->path, '/'));
	return 0;
}

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
	while (r == 0 && fscanf(f, "%ld", &pid) == 1)
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

bool runx_cgroup_holds(const struct runx_cgroup *cg, pid_t pid)
{
	char path[64], text[PATH_MAX + 64];

	if (cg->rel[0] == '\0')
		return false;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (read_file(path, text, sizeof(text)) < 0)
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

static int kill_one(pid_t pid, void *arg)
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

int runx_cgroup_kill(struct runx_cgroup *cg)
{
	if (cg->kill_fd >= 0)
		return pwrite(cg->kill_fd, "1", 1, 0) == 1 ? 1 : -errno;
	/* Before Linux 5.14: freeze, so nothing forks while we kill. */
	int count = 0;
	runx_cgroup_freeze(cg, true, 100 * 1000 * 1000LL);
	int r = runx_cgroup_each_pid(cg, kill_one, &count);
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
static int remove_tree(const char *dir)
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
				int s = remove_tree(sub);
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

	if (cg->path[0] == '\0')
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
	r = remove_tree(cg->path);
	return r;
}
