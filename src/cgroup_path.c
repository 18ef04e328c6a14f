/*
 * Finding runx's own cgroup v2 and its directory: /proc/self/cgroup joined
 * to a cgroup2 mount of /proc/self/mountinfo (cgroups(7); proc(5),
 * "/proc/pid/mountinfo"); whether a child cgroup could be made there.
 */
#include "config.h"

#include "cgroup_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"

/*
 * What runx_cgroup_find_own found last: the directory and runx's cgroup
 * as /proc/self/cgroup named it then, so that making the job's cgroup
 * there needs no second read (runx_cgroup_own_rel).
 */
static struct {
	char dir[PATH_MAX];
	char rel[PATH_MAX];
} found;

/* Set when dir_holds_pid could not look for lack of fds. */
static bool out_of_fds;

/* runx's cgroup v2 path from /proc/self/cgroup ("0::/a/b"). */
static int read_own_rel(char *buf, size_t size)
{
	char text[8192];
	int r = runx_cgroup_read_file("/proc/self/cgroup", text, sizeof(text));

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

int runx_cgroup_own_rel(const char *own_dir, char *buf, size_t size)
{
	if (found.dir[0] != '\0' && strcmp(own_dir, found.dir) == 0) {
		if (strlen(found.rel) >= size)
			return -ENAMETOOLONG;
		strcpy(buf, found.rel);
		return 0;
	}
	return read_own_rel(buf, size);
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
		bool hit = false;

		if (f == NULL) {
			/* out of fds is not "not here": say so upwards */
			if (errno == EMFILE || errno == ENFILE)
				out_of_fds = true;
			return false;
		}
		while (!hit && runx_read_long(f, &v))
			hit = v == (long)pid;
		fclose(f);
		if (hit)
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

/* True if the mountinfo line (cut up in place) is a cgroup2 mount that
 * holds own and whose directory for own lists runx: that into buf. */
static bool mount_holds_own(char *line, const char *own, char *buf, size_t size)
{
	char *field[8], *sep = strstr(line, " - ");
	int n = 0;

	if (sep == NULL || strncmp(sep + 3, "cgroup2 ", 8) != 0)
		return false;
	*sep = '\0';
	for (char *t = strtok(line, " "); t && n < 8; t = strtok(NULL, " "))
		field[n++] = t;
	if (n < 5)
		return false;
	unescape(field[3]);
	unescape(field[4]);
	return join_mount(field[3], field[4], own, buf, size) &&
	       dir_holds_pid(buf, getpid());
}

int runx_cgroup_find_own(char *buf, size_t size)
{
	char own[PATH_MAX], line[4 * PATH_MAX];
	FILE *f;
	int r = read_own_rel(own, sizeof(own));

	if (r < 0)
		return r;
	/* the next attempt's scope: runx still in the cgroup found then,
	 * whose directory needs no second mountinfo read and cgroup.procs
	 * scan (the latter lists every process of a root cgroup) */
	if (found.dir[0] != '\0' && strcmp(own, found.rel) == 0 &&
	    strlen(found.dir) < size) {
		strcpy(buf, found.dir);
		return 0;
	}
	out_of_fds = false;
	f = fopen("/proc/self/mountinfo", "re");
	if (f == NULL)
		return -errno;
	r = -ENOENT;
	while (r == -ENOENT && fgets(line, sizeof(line), f) != NULL)
		if (mount_holds_own(line, own, buf, size))
			r = 0;
	fclose(f);
	if (r == -ENOENT && out_of_fds)
		r = -EMFILE;
	if (r == 0 && strlen(buf) < sizeof(found.dir)) {
		strcpy(found.dir, buf);
		strcpy(found.rel, own);
	}
	return r;
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
