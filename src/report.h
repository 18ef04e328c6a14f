/* --report=FILE: a JSON object describing the run (runx(1), REPORT). */
#ifndef RUNX_REPORT_H
#define RUNX_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "plan.h"
#include "result.h"

/* The attempts of a run, for the report's "attempts" array. */
struct runx_report_attempts {
	const struct runx_result *v; /* the last n attempts, oldest first */
	int n;
	int64_t count; /* attempts started in all ("attempt_count") */
};

/*
 * Writes the report of the run planned as *plan that ended as *res, as one
 * JSON object, to path: "-" means fd 2; a path that exists and is no
 * regular file (a symlink, a device, a FIFO: lstat(2)) is written
 * through, as a shell's > would (a FIFO's reader is waited for 5 s at
 * most, one that is missing is -ENXIO); else a temporary file in the same
 * directory, fsync(2)ed and renamed over path, so readers never see a
 * partial report (rename(2)).  Strings that are not valid UTF-8
 * (arguments are bytes) get U+FFFD for each bad byte.  The children's CPU
 * time and peak memory come from getrusage(2) RUSAGE_CHILDREN: the command
 * and every orphan runx reaped; with a cgroup, the job's own figures
 * (res->usage: memory_peak in bytes, cpu_time in seconds, pids_peak,
 * oom_kills; null for a figure the kernel lacks and for other scopes).
 * attempts (NULL: none) gives "attempt_count" and one object per kept
 * attempt in "attempts" (its number, pid, times, reason, statuses,
 * signals, the processes named at its deadline and after its grace
 * period, its cgroup's figures); res is the run's end and last attempt.
 * Returns 0 or -errno (the temporary file is removed on failure).
 */
int runx_report_write(const char *path, const struct runx_plan *plan,
		      const struct runx_result *res,
		      const struct runx_report_attempts *attempts);

/*
 * Says with -v (runx_verbose) how many processes of the job the kernel's
 * OOM killer ended, from the cgroup's memory.events oom_kill (cgroup-v2.rst;
 * it counts a kill whichever limit was reached), naming --memory-max if
 * it was given.  Says nothing when there was none or no cgroup.
 */
void runx_report_tell_usage(const struct runx_scope_policy *scope,
			    const struct runx_cgroup_usage *u);

#endif
