/* Reading process facts from /proc (proc(5)). */
#ifndef RUNX_PROC_H
#define RUNX_PROC_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

struct runx_proc_stat {
	pid_t pid;
	char state; /* 'R', 'S', 'D', 'T', 'Z', 'X', ... (proc(5)) */
	pid_t ppid;
	pid_t pgrp;
	pid_t session;
	unsigned long long start_time; /* field 22: clock ticks after boot */
};

/*
 * Reads fields 3-6 and 22 of /proc/PID/stat (parsing after the last ')',
 * since the command name may hold spaces and parentheses).  Needs one fd
 * for the duration of the call.  Returns 0, or -errno: -ENOENT or -ESRCH
 * once the process is gone, -EMFILE/-ENFILE when runx is out of fds.
 */
int runx_proc_stat(pid_t pid, struct runx_proc_stat *st);

/*
 * Reads the next decimal integer (optionally signed) from f, skipping
 * white space before it, as fscanf(f, "%ld") would but without the
 * scanf machinery (which would double a static build's size of libc
 * code).  True if one was read into *v.
 */
bool runx_read_long(FILE *f, long *v);

/* True for a process that has exited (zombie or dead, proc(5) state). */
bool runx_proc_is_dead(const struct runx_proc_stat *st);

/*
 * Calls fn for every process listed in /proc, stopping early when fn
 * returns non-zero (which is then returned).  Only a process that vanished
 * while being read (ENOENT, ESRCH) is skipped; any other failure to read
 * an entry (EMFILE, EACCES, ...) ends the walk with -errno, since a census
 * that silently missed a process would count a live job as gone.  Needs two
 * fds while it runs.  Returns 0, fn's value, or -errno.
 */
int runx_proc_each(int (*fn)(const struct runx_proc_stat *st, void *arg),
		   void *arg);

/*
 * True if /proc belongs to runx's own pid namespace (its "self" link
 * names getpid()); if not (unshare --pid without --mount-proc), the pids
 * /proc lists are not the ones kill(2) takes.
 */
bool runx_proc_is_own_namespace(void);

/*
 * Reads /proc/PID/cmdline as it is (arguments NUL-separated) into buf, at
 * most size bytes (truncated).  Returns the length, or -errno.
 */
int runx_proc_cmdline_raw(pid_t pid, char *buf, size_t size);

/* Seconds since boot now, in clock ticks (for ages from start_time). */
uint64_t runx_proc_uptime_ticks(void);

#endif
