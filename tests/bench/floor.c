/*
 * floor: the kernel's floor for the cleanup of a cgroup, the row that
 * scripts/bench's cleanup section compares every supervisor with.  Run by
 * hand through scripts/bench; never part of `make check`.
 *
 *   tests/bench/floor [--release] CGROUP_PARENT COMMAND [ARG]...
 *   tests/bench/floor --group COMMAND [ARG]...
 *   tests/bench/floor --pidns COMMAND [ARG]...
 *   tests/bench/floor --tree COMMAND [ARG]...
 *
 * Makes the cgroup CGROUP_PARENT/runx-PID-floor, runs COMMAND in it, and
 * waits for SIGTERM (sigwaitinfo(2)).  Then it writes "1" to its
 * cgroup.kill (Linux 5.14, Documentation/admin-guide/cgroup-v2.rst), waits
 * until cgroup.events says "populated 0" (poll(2) on that file wakes with
 * POLLPRI when it changes, same document, "Core Interface Files"), removes
 * the cgroup and exits 0.  No census, no first signal, no grace period,
 * no polling interval: what the kernel alone takes.
 *
 * A process is out of cgroup.procs once it has exited, before it is
 * released (reaped): the plain floor leaves the release of COMMAND's
 * orphans to the machine's init, after its clock stopped.  With
 * --release it is a child subreaper (PR_SET_CHILD_SUBREAPER, prctl(2))
 * whose children the kernel releases as they exit (SA_NOCLDWAIT,
 * sigaction(2)), and it exits once none is left (wait(2) fails with
 * ECHILD then): the floor of a supervisor that, like runx's tree and
 * cgroup scopes, must see every process of the job released.
 *
 * With --group there is no cgroup: the floor of runx's group scope.
 * COMMAND runs in a new session (setsid(2)), so its pid is its process
 * group id.  On SIGTERM, one kill(2) of -pgid with SIGTERM (the kernel
 * signals every member under tasklist_lock, kernel/signal.c,
 * __kill_pgrp_info()), then it waits until kill(2) of -pgid with signal 0
 * says ESRCH, asking every millisecond (it is a child subreaper that
 * releases its children as they exit, as runx is in that scope).  Each
 * ask reads every member under that lock, which the dying members need
 * to exit: one at each SIGCHLD, thousands in a stop, doubled the
 * machine's CPU time for a stop of 10,000.  No census, no grace period.
 *
 * With --pidns there is no cgroup either: the floor of runx's pidns
 * scope.  It forks an init into a new PID namespace (unshare(2)
 * CLONE_NEWPID), which runs COMMAND as its child.  On SIGTERM it passes
 * SIGTERM to the init, which sends it to every process of the namespace
 * with one kill(2) of -1 (pid_namespaces(7); the kernel walks every
 * process of the machine under tasklist_lock, kernel/signal.c,
 * kill_something_info()), reaps until wait(2) says ECHILD, and exits;
 * then it reaps the init and exits.  No census, no grace period.
 *
 * With --tree, no cgroup either: the floor of runx's tree scope.
 * COMMAND runs in a new session, under a child subreaper that releases
 * its children as they exit.  On SIGTERM: one kill(2) of -pgid, one walk
 * of /proc reading every /proc/PID/stat (the parent of each process: no
 * other interface gives a subreaper its descendants, proc(5)), and
 * kill(2) of each descendant outside the process group; then it waits
 * until waitid(2) says ECHILD.  One walk (another each second while
 * children are left), no census, no grace: less than a tree scope must
 * do (newcomers are not looked for).
 *
 * Exit status: 0 after the cleanup; 125 if the cgroup cannot be made or
 * the command not started; 1 if the kill or the wait fails.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Writes s to the file path; 0 or -1 (errno set). */
static int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* Waits (sigwaitinfo(2)) for a signal of set, which the caller blocks. */
static void wait_signal(const sigset_t *set)
{
	while (sigwaitinfo(set, NULL) < 0 && errno == EINTR)
		;
}

/* Makes this process a child subreaper (PR_SET_CHILD_SUBREAPER,
 * prctl(2)) whose children the kernel releases as they exit
 * (SA_NOCLDWAIT, sigaction(2)); 0, or -1 (errno set). */
static int release_children(void)
{
	struct sigaction sa = {.sa_handler = SIG_DFL, .sa_flags = SA_NOCLDWAIT};

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return -1;
	return sigaction(SIGCHLD, &sa, NULL);
}

/* 1 if the cgroup.events open as fd says "populated 1", 0 if "populated
 * 0", -1 on a read error. */
static int populated(int fd)
{
	char buf[256];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	return strstr(buf, "populated 1") != NULL;
}

/* Kills the cgroup dir and waits until it is empty; 0 or -1. */
static int kill_and_wait(const char *dir)
{
	char path[PATH_MAX + 32];
	int fd, p;

	snprintf(path, sizeof(path), "%s/cgroup.events", dir);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/cgroup.kill", dir);
	if (put(path, "1") < 0) {
		close(fd);
		return -1;
	}
	while ((p = populated(fd)) == 1) {
		struct pollfd pfd = {fd, POLLPRI, 0};
		if (poll(&pfd, 1, 1000) < 0 && errno != EINTR)
			break;
	}
	close(fd);
	return p == 0 ? 0 : -1;
}

/* --group: kill(2) of -pgid, then waits until the group is empty; 0, or
 * -1 if a kill(2) fails otherwise than with ESRCH. */
static int kill_group_and_wait(pid_t pgid)
{
	struct timespec ms = {0, 1000000};

	if (kill(-pgid, SIGTERM) < 0)
		return errno == ESRCH ? 0 : -1;
	while (kill(-pgid, 0) == 0)
		nanosleep(&ms, NULL);
	return errno == ESRCH ? 0 : -1;
}

/* --tree: the pid and parent of each process in /proc into pid[] and
 * ppid[] (at most max); how many, or -1. */
static int list_parents(pid_t *pid, pid_t *ppid, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while (n < max && (e = readdir(d)) != NULL) {
		char path[64], buf[512], *paren;
		long p = atol(e->d_name);
		int fd;
		ssize_t len;

		if (p <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", p);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		/* "PID (COMM) STATE PPID ...": COMM may hold ") " */
		if ((paren = strrchr(buf, ')')) == NULL || paren[1] == '\0')
			continue;
		pid[n] = (pid_t)p;
		ppid[n++] = (pid_t)atol(paren + 4);
	}
	closedir(d);
	return n;
}

/* --tree: kill(2) of each descendant outside the process group pgid that
 * one walk of /proc finds; 0, or -1 if /proc cannot be read or a kill(2)
 * fails otherwise than with ESRCH. */
static int kill_descendants(pid_t pgid)
{
	enum { MAX = 1 << 17, PIDS = 1 << 22 /* PID_MAX_LIMIT */ };
	static pid_t pid[MAX], ppid[MAX];
	static char mine[PIDS]; /* by pid: a descendant */
	pid_t self = getpid();
	int n, r = 0;
	bool more = true;

	if ((n = list_parents(pid, ppid, MAX)) < 0)
		return -1;
	/* the command too: if it exits during the walk after its children
	 * with smaller pids (a wrap) were read, it is not listed */
	mine[self] = mine[pgid] = 1;
	while (more) { /* a child of a descendant is one; mostly 2 rounds */
		more = false;
		for (int i = 0; i < n; i++)
			if (!mine[pid[i]] && mine[ppid[i]]) {
				mine[pid[i]] = 1;
				more = true;
			}
	}
	for (int i = 0; i < n; i++)
		if (mine[pid[i]] && pid[i] != self && getpgid(pid[i]) != pgid &&
		    kill(pid[i], SIGTERM) < 0 && errno != ESRCH)
			r = -1;
	for (int i = 0; i < n; i++) /* clear for the next walk */
		mine[pid[i]] = 0;
	mine[self] = mine[pgid] = 0;
	return r;
}

/* --tree: true once no child is left (with SA_NOCLDWAIT, the kernel
 * released each one as it exited). */
static bool no_child(void)
{
	siginfo_t si;

	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 &&
	       errno == ECHILD;
}

/* --tree: on SIGTERM, as the top of this file says, then waits for
 * ECHILD (asking every millisecond, as --group does); a descendant that
 * one walk missed (a parent that exited during it, after a wrap of the
 * pid counter) is found by another walk a second later.  0, or -1. */
static int kill_tree_and_wait(pid_t pgid)
{
	struct timespec ms = {0, 1000000};
	int r = 0;

	if (kill(-pgid, SIGTERM) < 0 && errno != ESRCH)
		r = -1;
	while (!no_child()) {
		if (kill_descendants(pgid) < 0)
			r = -1;
		for (int i = 0; i < 1000 && !no_child(); i++)
			nanosleep(&ms, NULL);
	}
	return r;
}

/* floor --group or --tree COMMAND [ARG]...: see the top of this file. */
static int session_floor(char **argv, bool tree)
{
	sigset_t block;
	pid_t child;

	if (release_children() < 0) {
		perror("floor: subreaper");
		return 125;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, NULL);
	child = fork();
	if (child == 0) {
		sigprocmask(SIG_UNBLOCK, &block, NULL);
		if (setsid() >= 0)
			execvp(argv[0], argv);
		_exit(125);
	}
	if (child < 0)
		return 125;
	sigdelset(&block, SIGCHLD);
	wait_signal(&block);
	if (tree)
		return kill_tree_and_wait(child) == 0 ? 0 : 1;
	return kill_group_and_wait(child) == 0 ? 0 : 1;
}

/* The init of --pidns (pid 1 of its namespace; TERM blocked): runs argv
 * as its child, waits for SIGTERM, kill(2) of -1, reaps every process;
 * exits 0, or 1 if the kill fails. */
static int pidns_init(char **argv, sigset_t *term)
{
	pid_t child = fork();
	int r;

	if (child == 0) {
		sigprocmask(SIG_UNBLOCK, term, NULL);
		execvp(argv[0], argv);
		_exit(125);
	}
	if (child < 0)
		return 125;
	wait_signal(term);
	r = kill(-1, SIGTERM) == 0 || errno == ESRCH ? 0 : 1;
	while (wait(NULL) >= 0 || errno == EINTR)
		;
	return r;
}

/* floor --pidns COMMAND [ARG]...: see the top of this file. */
static int pidns_floor(char **argv)
{
	sigset_t term;
	pid_t init;
	int status;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	if (unshare(CLONE_NEWPID) < 0) {
		perror("floor: unshare");
		return 125;
	}
	init = fork();
	if (init == 0)
		_exit(pidns_init(argv, &term));
	if (init < 0)
		return 125;
	wait_signal(&term);
	if (kill(init, SIGTERM) < 0)
		return 1;
	while (waitpid(init, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	char dir[PATH_MAX], procs[PATH_MAX + 16], pid[32];
	sigset_t term;
	pid_t child;
	int release = argc > 1 && strcmp(argv[1], "--release") == 0;

	if (argc > 2 && strcmp(argv[1], "--group") == 0)
		return session_floor(argv + 2, false);
	if (argc > 2 && strcmp(argv[1], "--tree") == 0)
		return session_floor(argv + 2, true);
	if (argc > 2 && strcmp(argv[1], "--pidns") == 0)
		return pidns_floor(argv + 2);
	argc -= release;
	argv += release;
	if (argc < 3) {
		fprintf(stderr, "usage: floor [--release] CGROUP_PARENT "
				"COMMAND [ARG]...\n");
		return 125;
	}
	if (release && release_children() < 0) {
		perror("floor: subreaper");
		return 125;
	}
	snprintf(dir, sizeof(dir), "%s/runx-%d-floor", argv[1], (int)getpid());
	if (mkdir(dir, 0755) < 0) {
		perror("floor: mkdir");
		return 125;
	}
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	child = fork();
	if (child == 0) {
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		sigprocmask(SIG_UNBLOCK, &term, NULL);
		if (put(procs, pid) == 0)
			execvp(argv[2], argv + 2);
		_exit(125);
	}
	if (child < 0) {
		rmdir(dir);
		return 125;
	}
	wait_signal(&term);
	int r = kill_and_wait(dir);
	rmdir(dir);
	/* with SA_NOCLDWAIT, wait(2) returns once every child is released */
	while (release && (wait(NULL) >= 0 || errno == EINTR))
		;
	if (release && errno != ECHILD)
		r = -1;
	return r == 0 ? 0 : 1;
}
