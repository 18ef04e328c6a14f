/*
 * floor: the kernel's floor for the cleanup of a cgroup, the row that
 * scripts/bench's cleanup section compares every supervisor with.  Run by
 * hand through scripts/bench; never part of `make check`.
 *
 *   tests/bench/floor [--release] CGROUP_PARENT COMMAND [ARG]...
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
 * Exit status: 0 after the cleanup; 125 if the cgroup cannot be made or
 * the command not started; 1 if the kill or the wait fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
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

int main(int argc, char **argv)
{
	char dir[PATH_MAX], procs[PATH_MAX + 16], pid[32];
	sigset_t term;
	pid_t child;
	int release = argc > 1 && strcmp(argv[1], "--release") == 0;

	argc -= release;
	argv += release;
	if (argc < 3) {
		fprintf(stderr, "usage: floor [--release] CGROUP_PARENT "
				"COMMAND [ARG]...\n");
		return 125;
	}
	if (release) {
		struct sigaction sa = {.sa_handler = SIG_DFL,
				       .sa_flags = SA_NOCLDWAIT};
		if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 ||
		    sigaction(SIGCHLD, &sa, NULL) < 0) {
			perror("floor: subreaper");
			return 125;
		}
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
	while (sigwaitinfo(&term, NULL) < 0 && errno == EINTR)
		;
	int r = kill_and_wait(dir);
	rmdir(dir);
	/* with SA_NOCLDWAIT, wait(2) returns once every child is released */
	while (release && (wait(NULL) >= 0 || errno == EINTR))
		;
	if (release && errno != ECHILD)
		r = -1;
	return r == 0 ? 0 : 1;
}
