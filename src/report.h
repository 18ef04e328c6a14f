/* --report=FILE: a JSON object describing the run (runx(1), REPORT). */
#ifndef RUNX_REPORT_H
#define RUNX_REPORT_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "options.h"
#include "supervise.h"

/* Why the run ended, beyond enum runx_end_reason. */
enum runx_report_reason {
	RUNX_REPORT_SUPERVISED,  /* see result->reason */
	RUNX_REPORT_EXEC_FAILED, /* the command could not be executed */
	RUNX_REPORT_RUNX_ERROR,  /* runx itself failed (exit 125) */
};

struct runx_report {
	const struct runx_options *opts;
	enum runx_report_reason kind;
	const char *scope;       /* scope actually used ("group", ...) */
	const char *scope_where; /* "process group 123", a cgroup path; or NULL */
	const char *backend;     /* launch backend used, or NULL */
	pid_t pid;               /* the command's pid, 0 if none ran */
	struct timespec start;   /* CLOCK_REALTIME at start */
	struct timespec end;     /* CLOCK_REALTIME at end */
	int64_t wall_ns;         /* CLOCK_MONOTONIC end - start, ns */
	const struct runx_result *result; /* with RUNX_REPORT_SUPERVISED */
	int exec_errno;                   /* with RUNX_REPORT_EXEC_FAILED */
	const char *error;                /* message, or NULL */
	int exit_status;                  /* runx's exit status */
};

/*
 * Writes the report as one JSON object (json.h) to path: "-" means fd 2;
 * else a temporary file in the same directory, fsync(2)ed and renamed over
 * path, so readers never see a partial report (rename(2)).  Strings that
 * are not valid UTF-8 (arguments are bytes) get U+FFFD for each bad byte.
 * Returns 0 or -errno (the temporary file is removed on failure).
 */
int runx_report_write(const char *path, const struct runx_report *r);

/* The "reason" string for a report ("exited", "timeout", ...). */
const char *runx_report_reason_name(const struct runx_report *r);

#endif
