/* Reading process facts from /proc (proc(5)). */
#ifndef RUNX_PROC_H
#define RUNX_PROC_H

#include <stdbool.h>
#include <sys/types.h>

struct runx_proc_stat {
	pid_t pid;
	char state; /* 'R', 'S', 'D', 'T', 'Z', 'X', ... (proc(5)) */
	pid_t ppid;
	pid_t pgrp;
	pid_t session;
};

/*
 * Reads fields 3-6 of /proc/PID/stat (parsing after the last ')', since
 * the command name may hold spaces and parentheses).  Returns 0, or -errno
 * (-ENOENT once the process is reaped).
 */
int runx_proc_stat(pid_t pid, struct runx_proc_stat *st);

/* True for a process that has exited (zombie or dead, proc(5) state). */
bool runx_proc_is_dead(const struct runx_proc_stat *st);

/*
 * Calls fn for every process listed in /proc, stopping early when fn
 * returns non-zero (which is then returned).  Processes that vanish while
 * being read are skipped.  Returns 0, fn's value, or -errno if /proc
 * cannot be read.
 */
int runx_proc_each(int (*fn)(const struct runx_proc_stat *st, void *arg),
		   void *arg);

/*
 * True if /proc belongs to runx's own pid namespace (its "self" link
 * names getpid()); if not (unshare --pid without --mount-proc), the pids
 * /proc lists are not the ones kill(2) takes.
 */
bool runx_proc_is_own_namespace(void);

#endif
