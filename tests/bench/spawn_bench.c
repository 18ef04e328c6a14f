/*
 * spawn_bench: how long runx_launch() takes with each backend while the
 * parent holds N MiB of touched heap.  Run by hand through scripts/bench
 * (section "spawn"); never part of `make check`.
 *
 *   tests/bench/spawn_bench [-r RUNS] [MIB]...    (default: 256 2048 8192)
 *
 * For each size the heap is allocated and memset, so every page is really
 * mapped (and must be copied by fork-style backends: page tables, not
 * data), then /bin/true is launched RUNS times (after 2 warm-up launches)
 * with each backend: a struct runx_stdio with every source -1, the current
 * signal mask, a new session, no cgroup, environ.  Only runx_launch() is
 * timed; the child is reaped with waitpid(2) and its pidfd closed after
 * the clock stops.  Sizes that do not fit in MemAvailable (less a 512 MiB
 * margin) are skipped.  Prints one Markdown table on stdout.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"
#include "options.h"
#include "redirect.h"

extern char **environ;

#define MAX_RUNS   1000
#define WARMUP	   2
#define MARGIN_MIB 512

static const enum runx_launch_kind backends[] = {
    RUNX_LAUNCH_POSIX_SPAWN,
    RUNX_LAUNCH_VFORK,
    RUNX_LAUNCH_FORK,
    RUNX_LAUNCH_CLONE3,
};

/* Keeps the compiler from dropping the memset of the heap. */
static volatile unsigned long sink;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A "Key:   123 kB" line of a /proc file, in kB; -1 if missing. */
static long proc_kb(const char *file, const char *key)
{
	char line[256];
	size_t klen = strlen(key);
	long kb = -1;
	FILE *f = fopen(file, "re");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			kb = strtol(line + klen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* One launch of /bin/true; returns its duration in ns, or -errno. */
static int64_t launch_once(struct runx_launch_request *req)
{
	struct runx_launched out;
	int status;

	int64_t t0 = now_ns();
	int r = runx_launch(req, &out);
	int64_t dt = now_ns() - t0;

	if (r < 0)
		return r;
	if (out.exec_errno != 0)
		return -out.exec_errno;
	while (waitpid(out.pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	close(out.pidfd);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -ECHILD;
	return dt;
}

static void print_ms(int64_t ns)
{
	printf(" %.3f |", (double)ns / 1e6);
}

/* Benchmarks every backend at the current heap size; 0 or 1 on failure. */
static int bench_size(long mib, long rss_mib, int runs,
		      struct runx_launch_request *req)
{
	static int64_t t[MAX_RUNS];
	int failed = 0;

	for (size_t b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
		int64_t d = 0;

		req->backend = backends[b];
		printf("| %ld | %ld | %s |", mib, rss_mib,
		       runx_launch_kind_name(backends[b]));
		for (int i = 0; i < WARMUP + runs; i++) {
			d = launch_once(req);
			if (d < 0)
				break;
			if (i >= WARMUP)
				t[i - WARMUP] = d;
		}
		if (d < 0) {
			printf(" failed: %s | | |\n", strerror((int)-d));
			failed = 1;
			continue;
		}
		qsort(t, (size_t)runs, sizeof(t[0]), cmp_i64);
		print_ms(runs % 2 ? t[runs / 2]
				  : (t[runs / 2 - 1] + t[runs / 2]) / 2);
		print_ms(t[0]);
		print_ms(t[runs - 1]);
		printf("\n");
		fflush(stdout);
	}
	return failed;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: spawn_bench [-r RUNS] [MIB]...  "
		   "(default: -r 30 256 2048 8192)\n");
}

int main(int argc, char **argv)
{
	static const long default_sizes[] = {256, 2048, 8192};
	static char arg0[] = "true";
	static char path[] = "/bin/true";
	char *child_argv[] = {arg0, NULL};
	struct runx_stdio stdio = {.source = {-1, -1, -1}};
	long sizes[64];
	int nsizes = 0, runs = 30, opt, failed = 0;
	sigset_t mask;

	while ((opt = getopt(argc, argv, "hr:")) != -1) {
		switch (opt) {
		case 'r':
			runs = atoi(optarg);
			if (runs < 1 || runs > MAX_RUNS) {
				fprintf(stderr, "spawn_bench: bad -r '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	for (int i = optind; i < argc && nsizes < 64; i++) {
		char *end;
		sizes[nsizes] = strtol(argv[i], &end, 10);
		if (end == argv[i] || *end != '\0' || sizes[nsizes] < 0) {
			fprintf(stderr, "spawn_bench: bad size '%s'\n",
				argv[i]);
			return 2;
		}
		nsizes++;
	}
	if (nsizes == 0)
		for (size_t i = 0; i < 3; i++)
			sizes[nsizes++] = default_sizes[i];
	if (sigprocmask(SIG_SETMASK, NULL, &mask) < 0) {
		perror("spawn_bench: sigprocmask");
		return 1;
	}
	struct runx_launch_request req = {
	    .backend = RUNX_LAUNCH_POSIX_SPAWN,
	    .path = path,
	    .argv = child_argv,
	    .envp = environ,
	    .new_session = true,
	    .parent = getpid(),
	    .stdio = &stdio,
	    .close_fds = false,
	    .child_mask = &mask,
	    .cgroup_fd = -1,
	    .cgroup_procs_fd = -1,
	};

	printf("| parent heap (MiB) | parent RSS (MiB) | backend | "
	       "median (ms) | min (ms) | max (ms) |\n");
	printf("|---:|---:|---|---:|---:|---:|\n");
	fflush(stdout);
	for (int s = 0; s < nsizes; s++) {
		long mib = sizes[s];
		long avail = proc_kb("/proc/meminfo", "MemAvailable");
		unsigned char *heap = NULL;
		size_t bytes = (size_t)mib << 20;

		if (avail >= 0 && mib + MARGIN_MIB > avail / 1024) {
			fprintf(stderr,
				"spawn_bench: skipping %ld MiB: only %ld MiB "
				"available\n",
				mib, avail / 1024);
			printf("| %ld | | (skipped: %ld MiB available) | | | "
			       "|\n",
			       mib, avail / 1024);
			continue;
		}
		if (bytes > 0) {
			heap = malloc(bytes);
			if (heap == NULL) {
				fprintf(stderr,
					"spawn_bench: cannot allocate "
					"%ld MiB\n",
					mib);
				failed = 1;
				continue;
			}
			memset(heap, 0x5a, bytes);
			for (size_t i = 0; i < bytes; i += 4096)
				sink += ((volatile unsigned char *)heap)[i];
		}
		long rss = proc_kb("/proc/self/status", "VmRSS");
		failed |= bench_size(mib, rss / 1024, runs, &req);
		free(heap);
	}
	return failed;
}
