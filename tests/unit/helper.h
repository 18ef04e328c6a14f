/*
 * The helper program of the unit tests that start processes
 * (check_launch, check_scope, check_supervise): each of those binaries,
 * started as "BINARY --helper MODE [ARG]", is its own helper, as libuv's
 * test-spawn.c runs itself, so that a test starts a program it knows
 * without depending on what the machine has.  Modes:
 *   facts N      writes one line of facts about itself to fd 1 (helper_facts)
 *                and exits N;
 *   exit N       exits N;
 *   ignore-term  ignores SIGTERM, writes "ready\n" to fd 1, then waits;
 *   tree         forks three sleepers (the second calls setsid(2), the
 *                third ignores SIGTERM), then writes "pids SELF A B C\n"
 *                to fd 1 once all three are set up, and waits.
 * What waits ends when the test process that started the helper ends
 * (a pidfd of it, opened first): a test that fails half-way, whose
 * process check ends at once, leaves nothing running.
 *
 * And for the tests: whether a scope kind can run here, and notes of what
 * they make, so that the test binary removes what a failed test left.
 */
#ifndef RUNX_TESTS_UNIT_HELPER_H
#define RUNX_TESTS_UNIT_HELPER_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pidns.h"
#include "scope.h"
#include "syscalls.h"

/* The path of this test binary (/proc/self/exe) into buf; 0 or -1. */
static inline int helper_self(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/*
 * The open fds above 2 of this process as "3,7" ("-" for none) into buf,
 * in ascending order; with inherited_only, only those without
 * FD_CLOEXEC (the ones an execve(2) keeps).  0 or -1.
 */
static inline int helper_fds_above_2(char *buf, size_t size,
				     bool inherited_only)
{
	DIR *dir = opendir("/proc/self/fd");
	bool seen[1024] = {false};
	struct dirent *e;
	size_t used = 0;

	if (dir == NULL)
		return -1;
	while ((e = readdir(dir)) != NULL) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] < '0' || e->d_name[0] > '9' ||
		    fd == dirfd(dir) || fd <= 2 || fd >= 1024)
			continue;
		if (!inherited_only || (fcntl(fd, F_GETFD) & FD_CLOEXEC) == 0)
			seen[fd] = true;
	}
	closedir(dir);
	buf[0] = '\0';
	for (int fd = 3; fd < 1024; fd++)
		if (seen[fd] && used < size)
			used += (size_t)snprintf(buf + used, size - used,
						 "%s%d", used ? "," : "", fd);
	if (used == 0)
		snprintf(buf, size, "-");
	return used < size ? 0 : -1;
}

/* The hex value of field ("SigBlk", "SigIgn") of /proc/self/status. */
static inline void helper_status_field(const char *field, char *buf,
				       size_t size)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	size_t len = strlen(field);

	snprintf(buf, size, "?");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, field, len) == 0 && line[len] == ':') {
			snprintf(buf, size, "%s",
				 line + len + 1 +
				     strspn(line + len + 1, " \t"));
			buf[strcspn(buf, "\n")] = '\0';
		}
	fclose(f);
}

/* "dfl", "ign" or "handler": the disposition of sig here. */
static inline const char *helper_disposition(int sig)
{
	struct sigaction sa;

	if (sigaction(sig, NULL, &sa) < 0)
		return "?";
	if (sa.sa_handler == SIG_DFL)
		return "dfl";
	return sa.sa_handler == SIG_IGN ? "ign" : "handler";
}

/* "DEV:INO" of fd, or "closed". */
static inline void helper_fd_identity(int fd, char *buf, size_t size)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		snprintf(buf, size, "closed");
	else
		snprintf(buf, size, "%llu:%llu", (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino);
}

/*
 * One line of "key=value" words about this process: pid ppid sid pgid,
 * fd0-fd2 (their DEV:INO), open (the fds above 2), blk and ign (SigBlk,
 * SigIgn of /proc/self/status), the dispositions of INT TERM USR1 USR2,
 * and pdeath (PR_GET_PDEATHSIG).
 */
static inline int helper_facts(void)
{
	char fds[3][64], open_fds[512], blk[32], ign[32], line[1024];
	int pdeath = -1;

	for (int i = 0; i < 3; i++)
		helper_fd_identity(i, fds[i], sizeof(fds[i]));
	if (helper_fds_above_2(open_fds, sizeof(open_fds), false) < 0)
		snprintf(open_fds, sizeof(open_fds), "?");
	helper_status_field("SigBlk", blk, sizeof(blk));
	helper_status_field("SigIgn", ign, sizeof(ign));
	prctl(PR_GET_PDEATHSIG, &pdeath, 0, 0, 0);
	int n = snprintf(
	    line, sizeof(line),
	    "pid=%d ppid=%d sid=%d pgid=%d fd0=%s fd1=%s fd2=%s "
	    "open=%s blk=%s ign=%s int=%s term=%s usr1=%s "
	    "usr2=%s pdeath=%d\n",
	    (int)getpid(), (int)getppid(), (int)getsid(0), (int)getpgrp(),
	    fds[0], fds[1], fds[2], open_fds, blk, ign,
	    helper_disposition(SIGINT), helper_disposition(SIGTERM),
	    helper_disposition(SIGUSR1), helper_disposition(SIGUSR2), pdeath);
	return write(1, line, (size_t)n) == n ? 0 : -1;
}

/*
 * Waits until the test process that started the helper (starter, a pidfd
 * of it, or -1) has ended, and exits then; signals aside, never returns.
 */
static inline void helper_wait(int starter)
{
	struct pollfd p = {starter, POLLIN, 0};

	for (;;) {
		if (starter < 0)
			pause();
		else if (poll(&p, 1, -1) == 1)
			_exit(0);
	}
}

/* A sleeper of the tree mode: number i of 0..2, set up, then waiting. */
static inline void helper_sleeper(int i, int ready, int starter)
{
	if (i == 1)
		setsid();
	if (i == 2)
		signal(SIGTERM, SIG_IGN);
	(void)!write(ready, "x", 1);
	close(ready);
	helper_wait(starter);
}

/* The tree mode: three sleepers, their pids on fd 1, then a wait. */
static inline int helper_tree(int starter)
{
	pid_t kids[3];
	int ready[2], n = 0;
	char c;

	if (pipe(ready) < 0)
		return 1;
	for (int i = 0; i < 3; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			return 1;
		if (kids[i] == 0) {
			close(ready[0]);
			helper_sleeper(i, ready[1], starter);
		}
	}
	close(ready[1]);
	while (n < 3 && read(ready[0], &c, 1) == 1)
		n++;
	if (n < 3)
		return 1;
	dprintf(1, "pids %d %d %d %d\n", (int)getpid(), (int)kids[0],
		(int)kids[1], (int)kids[2]);
	helper_wait(starter);
	return 0;
}

/* The helper's main: argv after "--helper" (argc words); exit status. */
static inline int helper_main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[0], "facts") == 0)
		return helper_facts() == 0 ? atoi(argv[1]) : 100;
	if (argc == 2 && strcmp(argv[0], "exit") == 0)
		return atoi(argv[1]);
	/* in a pid namespace, the parent is the init, which dies with it */
	int starter = runx_pidfd_open(getppid(), 0);
	if (argc == 1 && strcmp(argv[0], "ignore-term") == 0) {
		signal(SIGTERM, SIG_IGN);
		(void)!write(1, "ready\n", 6);
		helper_wait(starter);
	}
	if (argc == 1 && strcmp(argv[0], "tree") == 0)
		return helper_tree(starter);
	fprintf(stderr, "helper: unknown mode\n");
	return 100;
}

/*
 * True if a scope of kind can run here; else says why on stdout (a check
 * test cannot skip).  pidns is probed as the scope probes it (a user
 * namespace too when not root).
 */
static inline bool scope_available(enum runx_scope_kind kind)
{
	char why[PATH_MAX + 256];

	if (kind == RUNX_SCOPE_CGROUP &&
	    runx_scope_cgroup_probe(why, sizeof(why)) < 0) {
		printf("cgroup: not available here: %s\n", why);
		return false;
	}
	if (kind == RUNX_SCOPE_PIDNS &&
	    runx_pidns_probe(geteuid() != 0, why, sizeof(why)) < 0) {
		printf("pidns: not available here: %s\n", why);
		return false;
	}
	return true;
}

/*
 * What the tests make on the machine (temporary files and directories,
 * job cgroups), one path a line, noted by the test processes (check's
 * fork mode ends a failing one at once, before any teardown) and removed
 * by the test binary's main() once the tests are over.
 */
static int leftovers[2] = {-1, -1};

/* In main(), before the tests run: where the tests note their paths. */
static inline void leftovers_open(void)
{
	if (pipe2(leftovers, O_CLOEXEC | O_NONBLOCK) < 0)
		leftovers[0] = leftovers[1] = -1;
}

/* In a test: notes path, to be removed at the end if it is still there;
 * what is inside a directory is noted after it. */
static inline void leftover_note(const char *path)
{
	char line[PATH_MAX + 2];
	int n = snprintf(line, sizeof(line), "%s\n", path);

	/* one write below PIPE_BUF: whole lines only (pipe(7)) */
	if (leftovers[1] >= 0 && n > 0 && n < 4096)
		(void)!write(leftovers[1], line, (size_t)n);
}

/*
 * Removes path, a file or an empty directory; a cgroup directory may still
 * hold processes of a failed test for a moment (they end with it,
 * helper_wait): rmdir(2) is tried again on EBUSY for up to 10 s.
 */
static inline void leftover_remove(const char *path)
{
	const struct timespec tick = {0, 10000000};

	if (unlink(path) == 0 || errno == ENOENT)
		return;
	for (int i = 0; i < 1000 && rmdir(path) < 0 && errno == EBUSY; i++)
		nanosleep(&tick, NULL);
	if (access(path, F_OK) == 0)
		fprintf(stderr, "left behind: %s\n", path);
}

/* In main(), after the tests: removes what was noted, last noted first. */
static inline void leftovers_clean(void)
{
	static char buf[65536];
	char *lines[2048];
	int nlines = 0;
	size_t used = 0;
	ssize_t n;

	if (leftovers[0] < 0)
		return;
	while (used < sizeof(buf) - 1 &&
	       (n = read(leftovers[0], buf + used, sizeof(buf) - 1 - used)) > 0)
		used += (size_t)n;
	buf[used] = '\0';
	for (char *line = strtok(buf, "\n"); line != NULL && nlines < 2048;
	     line = strtok(NULL, "\n"))
		lines[nlines++] = line;
	while (nlines-- > 0)
		leftover_remove(lines[nlines]);
}

/* In a test's main(): runs the helper if this process is one. */
#define HELPER_DISPATCH(argc, argv)                                            \
	do {                                                                   \
		if ((argc) >= 2 && strcmp((argv)[1], "--helper") == 0)         \
			return helper_main((argc)-2, (argv) + 2);              \
	} while (0)

#endif
