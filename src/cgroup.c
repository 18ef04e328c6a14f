/*
 * The job's cgroup v2: making it below runx's own cgroup, opening the
 * control files a stop needs in advance, reading what it measured.
 * Limits and their layout: cgroup_limits.c; runx's own cgroup:
 * cgroup_path.c; pids, kill, freeze and removal: cgroup_kill.c.
 */
#include "config.h"

#include "cgroup_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void runx_cgroup_reset(struct runx_cgroup *cg)
{
	cg->dir_fd = cg->procs_fd = cg->events_fd = -1;
	cg->kill_fd = cg->freeze_fd = -1;
	cg->path[0] = cg->rel[0] = cg->top[0] = cg->home[0] = '\0';
	cg->moved = false;
	cg->home_added = cg->top_added = 0;
	cg->id = 0;
}

int runx_cgroup_unique_name(char *buf, size_t size, const char *parent,
			    char *err, size_t errsize)
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

int runx_cgroup_make_dir(const char *dir, char *err, size_t errsize)
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
 * /proc/self/cgroup names (own_rel, read before runx moved anywhere), and
 * the job's path as /proc/PID/cgroup shows it is what follows the mount
 * point.
 */
static void set_rel(struct runx_cgroup *cg, const char *own_dir,
		    const char *own_rel)
{
	size_t dl = strlen(own_dir),
	       ml = strcmp(own_rel, "/") == 0 ? 0 : strlen(own_rel);

	cg->rel[0] = '\0';
	if (ml > dl || (ml > 0 && strcmp(own_dir + dl - ml, own_rel) != 0) ||
	    strncmp(cg->path, own_dir, dl - ml) != 0)
		return;
	snprintf(cg->rel, sizeof(cg->rel), "%s", cg->path + (dl - ml));
}

int runx_cgroup_open_job(struct runx_cgroup *cg, const char *own,
			 const char *own_rel, char *err, size_t errsize)
{
	cg->dir_fd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cg->procs_fd = runx_cgroup_open_in(cg->path, "cgroup.procs", O_WRONLY);
	cg->events_fd =
	    runx_cgroup_open_in(cg->path, "cgroup.events", O_RDONLY);
	cg->kill_fd = runx_cgroup_open_optional(cg->path, "cgroup.kill");
	cg->freeze_fd = runx_cgroup_open_optional(cg->path, "cgroup.freeze");
	if (cg->dir_fd < 0 || cg->procs_fd < 0 || cg->events_fd < 0 ||
	    cg->kill_fd == -EMFILE || cg->freeze_fd == -EMFILE ||
	    cg->kill_fd == -ENFILE || cg->freeze_fd == -ENFILE) {
		int e = errno;
		snprintf(err, errsize, "cannot open cgroup '%s': %s", cg->path,
			 strerror(e));
		return -e;
	}
	if (own_rel != NULL)
		set_rel(cg, own, own_rel);
	struct stat st;
	cg->id = fstat(cg->dir_fd, &st) == 0 ? (uint64_t)st.st_ino : 0;
	return 0;
}

int runx_cgroup_create(struct runx_cgroup *cg, const char *parent, char *err,
		       size_t errsize)
{
	char own_rel[PATH_MAX];
	bool rel = runx_cgroup_own_rel(parent, own_rel, sizeof(own_rel)) == 0;

	runx_cgroup_reset(cg);
	int r = runx_cgroup_unique_name(cg->path, sizeof(cg->path), parent, err,
					errsize);
	if (r == 0 && (r = runx_cgroup_make_dir(cg->path, err, errsize)) < 0)
		cg->path[0] = '\0';
	if (r == 0 &&
	    (r = runx_cgroup_open_job(cg, parent, rel ? own_rel : NULL, err,
				      errsize)) < 0) {
		runx_cgroup_remove(cg, 0);
		cg->path[0] = '\0';
	}
	return r;
}

/* The number after "key " in dir/file (a flat-keyed file), or -1. */
static int64_t read_key(const char *dir, const char *file, const char *key)
{
	char path[PATH_MAX + 32], text[2048];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (runx_cgroup_read_file(path, text, sizeof(text)) < 0)
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
	if (runx_cgroup_read_file(path, text, sizeof(text)) < 0)
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
