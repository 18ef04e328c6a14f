/* Time: the monotonic clock of deadlines and the report's UTC dates. */
#ifndef RUNX_CLOCK_H
#define RUNX_CLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC now, in nanoseconds (clock_gettime(2)); no errors. */
int64_t runx_now_ns(void);

/*
 * The CPU time runx has used so far, user and system, in nanoseconds
 * (CLOCK_PROCESS_CPUTIME_ID, clock_gettime(2): a system call, not the
 * vDSO); -1 if the clock cannot be read (a seccomp filter).
 */
int64_t runx_cpu_ns(void);

/*
 * Writes ts (CLOCK_REALTIME; times before 1970 are written as 1970) as RFC
 * 3339 UTC with microseconds, "2026-11-30T23:45:13.123456Z", into buf
 * (size bytes, 28 needed).  No time zone is read.  Returns buf.
 */
const char *runx_rfc3339(const struct timespec *ts, char *buf, size_t size);

#endif
