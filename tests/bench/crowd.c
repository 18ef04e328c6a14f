/*
 * crowd: the job of scripts/bench's cleanup section.  Run by hand through
 * scripts/bench; never part of `make check`.
 *
 *   CROWD_N=N exec -a sleep tests/bench/crowd 1000.MARKER
 *
 * Forks N children, every other one of which calls setsid(2) (a new
 * session: out of the process group), and each waits in pause(2) with
 * SIGTERM's default action, as sleep(1) does.  A child's argv is its
 * parent's (fork(2) copies the memory that /proc/PID/cmdline reads), so
 * each child reads in /proc as "sleep 1000.MARKER", the marker the bench
 * counts; the parent then rewrites its own argv[0] in place ("crowd"), so
 * that only the N children match, and reaps them as they die (wait(2)),
 * as a shell's `wait` would.
 *
 * Why not N `sleep` from a shell: fork(2) and execve(2) of each one cost
 * about 10 ms on the bench's 2-core VM (10,000 took two minutes to start);
 * a fork of this small static program costs about 1 ms and no exec.  The
 * stop being timed is the same: N processes that die by SIGTERM, half of
 * them in sessions of their own.
 *
 * Exit status: 0 once every child is reaped, 2 for a bad CROWD_N, 1 if a
 * fork(2) fails (the bench kills the children forked so far by marker).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The number of children from $CROWD_N (1 to 100000), or -1. */
static long crowd_size(void)
{
	const char *s = getenv("CROWD_N");
	char *end;
	long n;

	if (s == NULL || *s == '\0')
		return -1;
	errno = 0;
	n = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || n < 1 || n > 100000)
		return -1;
	return n;
}

int main(int argc, char **argv)
{
	long n = crowd_size();

	if (argc != 2 || n < 0) {
		fprintf(stderr, "usage: CROWD_N=N exec -a sleep crowd "
				"1000.MARKER (N: 1 to 100000)\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("crowd: fork"); /* the bench kills the
						  children by their marker */
			return 1;
		}
		if (pid == 0) {
			if (i % 2 == 1)
				setsid();
			for (;;)
				pause();
		}
	}
	/* the parent is no longer "sleep 1000.MARKER" in /proc */
	size_t len = strlen(argv[0]);
	memset(argv[0], 0, len);
	memcpy(argv[0], "crowd", len < 5 ? len : 5);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	return 0;
}
