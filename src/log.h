/* Messages on standard error: errors always, decisions with -v. */
#ifndef RUNX_LOG_H
#define RUNX_LOG_H

#include <stdbool.h>

/* Turns the -v/--verbose lines on or off (off by default). */
void runx_log_set_verbose(bool verbose);

/* True when -v/--verbose lines are wanted. */
bool runx_log_verbose(void);

/*
 * Writes "runx: " + the formatted text + "\n" to fd 2 in one write(2).
 * Errors (EPIPE, EBADF, ...) are ignored: a closed or broken stderr never
 * changes what runx does.  SIGPIPE stays blocked in runx for this reason.
 */
void runx_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same as runx_error(), only with -v/--verbose. */
void runx_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
