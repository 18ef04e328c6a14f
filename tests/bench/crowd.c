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
 * With CROWD_LINGER_MS=MS (1 to 100000) each child instead ends on SIGTERM
 * only after a delay of its own, spread over 0 to MS ms in an order that
 * is not that of the pids, as a job whose processes shut down gracefully
 * would: the parent still dies of the SIGTERM at once, so they end one by
 * one, as orphans.  What such a run measures is the stop's waiting, by
 * runx's own CPU time, for example (the deadline starts the stop once
 * the forks are done)
 *
 *   CROWD_N=5000 CROWD_LINGER_MS=4000 perf stat --no-inherit \
 *     -e task-clock src/runx -t 10 -k 20s --kill-scope=tree -- \
 *     bash -c 'exec -a sleep tests/bench/crowd 1000.1'
 *
 * Exit status: 0 once every child is reaped, 2 for a bad CROWD_N or
 * CROWD_LINGER_MS, 1 if a fork(2) fails (the bench kills the children
 * forked so far by marker).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The number in $name (1 to 100000); unset: unset; else -1. */
static long env_number(const char *name, long unset)
{
	const char *s = getenv(name);
	char *end;
	long n;

	if (s == NULL)
		return unset;
	errno = 0;
	n = strtol(s, &end, 10);
	if (*s == '\0' || errno != 0 || *end != '\0' || n < 1 || n > 100000)
		return -1;
	return n;
}

/* The delay (ms) of the child that ends on SIGTERM after it. */
static long linger_ms;

/* A lingering child's SIGTERM: sleeps its delay, then exits. */
static void linger_then_exit(int sig)
{
	struct timespec t = {linger_ms / 1000, (linger_ms % 1000) * 1000000};

	(void)sig;
	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
	_exit(0);
}

int main(int argc, char **argv)
{
	long n = env_number("CROWD_N", -1);
	long linger = env_number("CROWD_LINGER_MS", 0);

	if (argc != 2 || n < 0 || linger < 0) {
		fprintf(stderr, "usage: CROWD_N=N [CROWD_LINGER_MS=MS] exec -a "
				"sleep crowd 1000.MARKER (N, MS: 1 to "
				"100000)\n");
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
			if (linger > 0) {
				linger_ms = linger * ((i * 7919) % n) / n;
				signal(SIGTERM, linger_then_exit);
			}
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
