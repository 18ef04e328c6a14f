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

#include "proc.h"
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
/* Set when dir_holds_pid could not look for lack of fds. */
static bool out_of_fds;

static bool dir_holds_pid(const char *dir, pid_t pid)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	for (int attempt = 0; attempt < 3; attempt++) {
		FILE *f = fopen(path, "re");
		long v;
		bool found = false;

		if (f == NULL) {
			/* out of fds is not "not here": say so upwards */
			if (errno == EMFILE || errno == ENFILE)
				out_of_fds = true;
			return false;
		}
		while (!found && runx_read_long(f, &v))
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
	out_of_fds = false;
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
	if (r == -ENOENT && out_of_fds)
		r = -EMFILE;
	return r;
}

/* Opens dir/name with flags | O_CLOEXEC: an fd, or -1 with errno. */
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

/* Marks every fd of cg closed and the layout fields empty. */
static void cgroup_reset(struct runx_cgroup *cg)
{
	cg->dir_fd = cg->procs_fd = cg->events_fd = -1;
	cg->kill_fd = cg->freeze_fd = -1;
	cg->path[0] = cg->rel[0] = cg->top[0] = cg->home[0] = '\0';
	cg->moved = false;
	cg->home_added = cg->top_added = 0;
}

/* A fresh "parent/runx-PID-N" name into buf; 0 or -ENAMETOOLONG + err. */
static int unique_name(char *buf, size_t size, const char *parent, char *err,
		       size_t errsize)
{
	static unsigned serial;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	int n = snprintf(buf, size, "%s/runx-%d-%lx%x", parent, (int)getpid(),
			 (unsigned long)ts.tv_nsec, serial++);
	if (n < 0 || (size_t)n >= size) {
		snprintf(err, errsize, "cgroup path under '%s' is too long",
			 parent);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* mkdir(2) of a cgroup directory; 0 or -errno with a message in err. */
static int make_dir(const char *dir, char *err, size_t errsize)
{
	if (mkdir(dir, 0755) == 0)
		return 0;
	int e = errno;
	snprintf(err, errsize, "cannot create cgroup '%s': %s", dir,
		 strerror(e));
	return -e;
}

/*
 * cg->rel for cg->path: the mount point is own_dir less the tail that
 * /proc/self/cgroup names, and the job's path as /proc/PID/cgroup shows
 * it is what follows the mount point.
 */
static void set_rel(struct runx_cgroup *cg, const char *own_dir)
{
	char mine[PATH_MAX];

	cg->rel[0] = '\0';
	if (own_cgroup_path(mine, sizeof(mine)) < 0)
		return;
	size_t dl = strlen(own_dir),
	       ml = strcmp(mine, "/") == 0 ? 0 : strlen(mine);
	if (ml > dl || (ml > 0 && strcmp(own_dir + dl - ml, mine) != 0) ||
	    strncmp(cg->path, own_dir, dl - ml) != 0)
		return;
	snprintf(cg->rel, sizeof(cg->rel), "%s", cg->path + (dl - ml));
}

/* Opens the fds of the job's cgroup cg->path; 0 or -errno + err. */
static int open_job(struct runx_cgroup *cg, const char *own, char *err,
		    size_t errsize)
{
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
		return -e;
	}
	set_rel(cg, own);
	return 0;
}

int runx_cgroup_create(struct runx_cgroup *cg, const char *parent, char *err,
		       size_t errsize)
{
	cgroup_reset(cg);
	int r = unique_name(cg->path, sizeof(cg->path), parent, err, errsize);
	if (r == 0 && (r = make_dir(cg->path, err, errsize)) < 0)
		cg->path[0] = '\0';
	if (r == 0 && (r = open_job(cg, parent, err, errsize)) < 0) {
		runx_cgroup_remove(cg, 0);
		cg->path[0] = '\0';
	}
	return r;
}

/* The controllers limits need, as bits of controller_names. */
enum { CTL_MEMORY = 1u, CTL_PIDS = 2u, CTL_CPU = 4u, CTL_COUNT = 3 };
static const char *const controller_names[CTL_COUNT] = {"memory", "pids",
							"cpu"};
static const char *const controller_options[CTL_COUNT] = {
    "--memory-max", "--pids-max", "--cpu-max"};

/* The bits of the controllers that the limits l need. */
static unsigned needed_controllers(const struct runx_cgroup_limits *l)
{
	return (l->memory_max >= 0 ? CTL_MEMORY : 0) |
	       (l->pids_max >= 0 ? CTL_PIDS : 0) |
	       (l->cpu_quota_us > 0 ? CTL_CPU : 0);
}

/* True if the space-separated list text holds the word name. */
static bool has_word(const char *text, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = text; (p = strstr(p, name)) != NULL; p += len)
		if ((p == text || p[-1] == ' ' || p[-1] == '\n') &&
		    (p[len] == '\0' || p[len] == ' ' || p[len] == '\n'))
			return true;
	return false;
}

/* dir/file (cgroup.controllers, ...) as text and as bits; 0 or -errno. */
static int read_controllers(const char *dir, const char *file, char *text,
			    size_t size, unsigned *bits)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	int r = read_file(path, text, size);
	if (r < 0)
		return r;
	text[strcspn(text, "\n")] = '\0';
	*bits = 0;
	for (int i = 0; i < CTL_COUNT; i++)
		if (has_word(text, controller_names[i]))
			*bits |= 1u << i;
	return 0;
}

/* Writes text to dir/name in one write(2); 0 or -errno. */
static int write_in(const char *dir, const char *name, const char *text)
{
	int fd = open_in(dir, name, O_WRONLY);
	size_t len = strlen(text);

	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, text, len);
	int e = n < 0 ? errno : EIO;
	close(fd);
	return n == (ssize_t)len ? 0 : -e;
}

/* "+memory +pids" (on) or "-memory -pids" into dir's subtree_control. */
static int write_subtree(const char *dir, unsigned bits, bool on)
{
	char text[64] = "";

	for (int i = 0; i < CTL_COUNT; i++)
		if (bits & (1u << i))
			snprintf(text + strlen(text),
				 sizeof(text) - strlen(text), "%s%c%s",
				 text[0] ? " " : "", on ? '+' : '-',
				 controller_names[i]);
	return text[0] ? write_in(dir, "cgroup.subtree_control", text) : 0;
}

/* Enables the controllers of bits in dir that are not yet enabled there,
 * recording them in *added; 0 or -errno with a message in err. */
static int enable_in(const char *dir, unsigned bits, unsigned *added, char *err,
		     size_t errsize)
{
	char text[256];
	unsigned have = 0;
	int r = read_controllers(dir, "cgroup.subtree_control", text,
				 sizeof(text), &have);

	if (r == 0 && (r = write_subtree(dir, bits & ~have, true)) == 0) {
		*added |= bits & ~have;
		return 0;
	}
	snprintf(err, errsize,
		 "cannot enable the controllers for the job in '%s': %s", dir,
		 strerror(-r));
	return r;
}

int runx_cgroup_check_controllers(const char *own,
				  const struct runx_cgroup_limits *l, char *err,
				  size_t errsize)
{
	char text[256], names[64] = "", opts[64] = "";
	unsigned have = 0, missing;
	int r = read_controllers(own, "cgroup.controllers", text, sizeof(text),
				 &have);

	if (r < 0) {
		snprintf(err, errsize,
			 "cannot read '%s/cgroup.controllers': %s", own,
			 strerror(-r));
		return r;
	}
	missing = needed_controllers(l) & ~have;
	if (missing == 0)
		return 0;
	for (int i = 0; i < CTL_COUNT; i++)
		if (missing & (1u << i)) {
			snprintf(names + strlen(names),
				 sizeof(names) - strlen(names), "%s%s",
				 names[0] ? ", " : "", controller_names[i]);
			snprintf(opts + strlen(opts),
				 sizeof(opts) - strlen(opts), "%s%s",
				 opts[0] ? ", " : "", controller_options[i]);
		}
	snprintf(err, errsize,
		 "%s: the cgroup v2 %s controller%s not offered to runx's "
		 "cgroup '%s' (its cgroup.controllers: '%s'; on hosts with "
		 "cgroup v1 controllers it lives there); run runx in a cgroup "
		 "delegated to you, e.g. 'systemd-run --user --scope -p "
		 "Delegate=yes runx ...'",
		 opts, names, strchr(names, ',') ? "s are" : " is", own, text);
	return -ENOTSUP;
}

/* 1 if dir's cgroup.procs lists a process other than runx, 0 if not. */
static int holds_others(const char *dir)
{
	char path[PATH_MAX + 16];
	long pid;
	int others = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return -errno;
	while (!others && runx_read_long(f, &pid))
		others = pid != (long)getpid();
	fclose(f);
	return others;
}

/* Writes the limits l into the job's cgroup cg->path; 0 or -errno + err. */
static int set_limits(const struct runx_cgroup *cg,
		      const struct runx_cgroup_limits *l, char *err,
		      size_t errsize)
{
	char text[3][64];
	const char *file[3] = {NULL, NULL, NULL};
	int r = 0;

	if (l->memory_max >= 0)
		file[0] = "memory.max";
	if (l->pids_max >= 0)
		file[1] = "pids.max";
	if (l->cpu_quota_us > 0)
		file[2] = "cpu.max";
	snprintf(text[0], sizeof(text[0]), "%lld", (long long)l->memory_max);
	snprintf(text[1], sizeof(text[1]), "%lld", (long long)l->pids_max);
	snprintf(text[2], sizeof(text[2]), "%lld %lld",
		 (long long)l->cpu_quota_us, (long long)l->cpu_period_us);
	for (int i = 0; r == 0 && i < 3; i++)
		if (file[i] != NULL &&
		    (r = write_in(cg->path, file[i], text[i])) < 0)
			snprintf(err, errsize,
				 "cannot set %s of '%s' to '%s': %s", file[i],
				 cg->path, text[i], strerror(-r));
	return r;
}

/* The parent directory of dir into buf (dir has a '/' after the mount). */
static void parent_dir(const char *dir, char *buf, size_t size)
{
	snprintf(buf, size, "%s", dir);
	char *slash = strrchr(buf, '/');
	if (slash != NULL && slash != buf)
		*slash = '\0';
}

/*
 * The crun/systemd layout: base/runx-PID-N with supervisor and job
 * below it, runx moved into supervisor, the controllers enabled in
 * base (only when base is own, which holds nothing else once runx has
 * left) and in runx-PID-N.  0 or -errno + err; cg records what to undo.
 */
static int nest(struct runx_cgroup *cg, const char *own, const char *base,
		unsigned bits, char *err, size_t errsize)
{
	char sup[PATH_MAX + 16], pid[32];
	int r = unique_name(cg->top, sizeof(cg->top), base, err, errsize);

	if (r < 0 || (r = make_dir(cg->top, err, errsize)) < 0) {
		cg->top[0] = '\0';
		return r;
	}
	snprintf(sup, sizeof(sup), "%s/supervisor", cg->top);
	if (strlen(cg->top) + sizeof("/job") > sizeof(cg->path)) {
		snprintf(err, errsize, "cgroup path '%s' is too long", cg->top);
		return -ENAMETOOLONG;
	}
	memcpy(cg->path, cg->top, strlen(cg->top));
	memcpy(cg->path + strlen(cg->top), "/job", sizeof("/job"));
	if ((r = make_dir(sup, err, errsize)) < 0 ||
	    (r = make_dir(cg->path, err, errsize)) < 0)
		return r;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(cg->home, sizeof(cg->home), "%s", own);
	if ((r = write_in(sup, "cgroup.procs", pid)) < 0) {
		snprintf(err, errsize, "cannot move runx into '%s': %s", sup,
			 strerror(-r));
		return r;
	}
	cg->moved = true;
	if (strcmp(base, own) == 0 &&
	    (r = enable_in(own, bits, &cg->home_added, err, errsize)) < 0)
		return r;
	return enable_in(cg->top, bits, &cg->top_added, err, errsize);
}

/*
 * The root layout: the controllers enabled in the root's
 * cgroup.subtree_control (left so: other jobs may use them), the job in
 * own/runx-PID-N.  The root is exempt from the no-internal-process rule;
 * the root of a cgroup namespace is not, and fails with EBUSY while it
 * holds processes.  0 or -errno with a message in err.
 */
static int root_layout(struct runx_cgroup *cg, const char *own, unsigned bits,
		       char *err, size_t errsize)
{
	unsigned added = 0;
	int r = enable_in(own, bits, &added, err, errsize);

	if (r < 0 || (r = unique_name(cg->path, sizeof(cg->path), own, err,
				      errsize)) < 0)
		return r;
	if ((r = make_dir(cg->path, err, errsize)) < 0)
		cg->path[0] = '\0';
	return r;
}

/* Lays the job's cgroup out for the limits (see the header); 0, -errno. */
static int lay_out(struct runx_cgroup *cg, const char *own, unsigned bits,
		   char *err, size_t errsize)
{
	char mine[PATH_MAX], parent[PATH_MAX];
	int r = own_cgroup_path(mine, sizeof(mine));
	bool root = r == 0 && strcmp(mine, "/") == 0;

	if (root && (r = root_layout(cg, own, bits, err, errsize)) != -EBUSY)
		return r;
	int others = r < 0 && !root ? r : holds_others(own);
	if (others < 0) {
		snprintf(err, errsize, "cannot read the processes of '%s': %s",
			 own, strerror(-others));
		return others;
	}
	if (!others)
		return nest(cg, own, own, bits, err, errsize);
	if (root) /* a cgroup namespace's root: its parent is not ours */
		return -EBUSY; /* err: root_layout's message */
	/* own holds other processes: no child of own can have the
	 * controllers, so the job goes next to own, below its parent */
	parent_dir(own, parent, sizeof(parent));
	if ((r = runx_cgroup_probe(parent)) < 0) {
		snprintf(
		    err, errsize,
		    "runx's cgroup '%s' holds other processes, so limits "
		    "need a cgroup next to it, and '%s' is not writable: %s",
		    own, parent, strerror(-r));
		return r;
	}
	return nest(cg, own, parent, bits, err, errsize);
}

int runx_cgroup_create_limited(struct runx_cgroup *cg, const char *own,
			       const struct runx_cgroup_limits *l, char *err,
			       size_t errsize)
{
	int r;

	cgroup_reset(cg);
	if ((r = runx_cgroup_check_controllers(own, l, err, errsize)) < 0)
		return r;
	r = lay_out(cg, own, needed_controllers(l), err, errsize);
	if (r == 0)
		r = set_limits(cg, l, err, errsize);
	if (r == 0)
		r = open_job(cg, own, err, errsize);
	if (r < 0) {
		runx_cgroup_remove(cg, 0);
		cg->path[0] = cg->top[0] = '\0';
	}
	return r;
}

/* The number after "key " in dir/file (a flat-keyed file), or -1. */
static int64_t read_key(const char *dir, const char *file, const char *key)
{
	char path[PATH_MAX + 32], text[2048];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (read_file(path, text, sizeof(text)) < 0)
		return -1;
	size_t len = strlen(key);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		if (strncmp(line, key, len) == 0 && line[len] == ' ')
			return strtoll(line + len + 1, NULL, 10);
	return -1;
}

/* The single number in dir/file (memory.peak, pids.peak), or -1. */
static int64_t read_number(const char *dir, const char *file)
{
	char path[PATH_MAX + 32], text[64], *end;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (read_file(path, text, sizeof(text)) < 0)
		return -1;
	long long v = strtoll(text, &end, 10);
	return end != text ? v : -1;
}

void runx_cgroup_read_usage(const struct runx_cgroup *cg,
			    struct runx_cgroup_usage *u)
{
	u->valid = cg->path[0] != '\0';
	u->memory_peak = u->cpu_usec = u->pids_peak = u->oom_kills = -1;
	if (!u->valid)
		return;
	u->memory_peak = read_number(cg->path, "memory.peak");
	u->pids_peak = read_number(cg->path, "pids.peak");
	u->cpu_usec = read_key(cg->path, "cpu.stat", "usage_usec");
	u->oom_kills = read_key(cg->path, "memory.events", "oom_kill");
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

/* SIGKILLs pid through a pidfd and counts it in *arg. */
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

/*
 * Undoes the layout of runx_cgroup_create_limited once the job's cgroup
 * is gone: the controllers runx enabled (top's first: a controller can
 * be disabled only where no child enables it), runx back into its own
 * cgroup (which must not enable domain controllers then), the rest.
 */
static int undo_layout(struct runx_cgroup *cg)
{
	char pid[32];
	int r = 0;

	if (cg->moved) {
		if (cg->home_added != 0) {
			write_subtree(cg->top, cg->top_added, false);
			r = write_subtree(cg->home, cg->home_added, false);
		}
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		int m = write_in(cg->home, "cgroup.procs", pid);
		if (m < 0 && r == 0)
			r = m;
		cg->moved = m < 0;
		if (m == 0)
			cg->home_added = cg->top_added = 0;
	}
	if (cg->top[0] != '\0' && !cg->moved) {
		int t = remove_tree(cg->top);
		if (r == 0)
			r = t;
	}
	return r;
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
		r = remove_tree(cg->path);
	int u = undo_layout(cg);
	return r != 0 ? r : u;
}
