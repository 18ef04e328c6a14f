/* --report=FILE: a JSON object describing the run (runx(1), REPORT). */
#ifndef RUNX_REPORT_H
#define RUNX_REPORT_H

#include "plan.h"
#include "result.h"

/*
 * Writes the report of the run planned as *plan that ended as *res, as one
 * JSON object, to path: "-" means fd 2; else a temporary file in the same
 * directory, fsync(2)ed and renamed over path, so readers never see a
 * partial report (rename(2)).  Strings that are not valid UTF-8
 * (arguments are bytes) get U+FFFD for each bad byte.  The children's CPU
 * time and peak memory come from getrusage(2) RUSAGE_CHILDREN: the command
 * and every orphan runx reaped.  Returns 0 or -errno (the temporary file is
 * removed on failure).
 */
int runx_report_write(const char *path, const struct runx_plan *plan,
		      const struct runx_result *res);

#endif
