/*
 * The kill scope: the set of processes a stop reaches and runx waits for.
 * One interface, one implementation per kind (child, group, tree); the
 * cgroup kind lives in scope_cgroup.c.
 */
#ifndef RUNX_SCOPE_H
#define RUNX_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cgroup.h"
#include "options.h"

struct runx_scope {
	enum runx_scope_kind kind; /* never RUNX_SCOPE_AUTO once prepared */
	pid_t child;               /* the command, 0 before launch */
	int child_pidfd;           /* borrowed from the caller; -1 if reaped */
	bool proc_trusted;         /* /proc lists runx's pid namespace */
	bool has_cgroup;           /* cgroup: cg is made and must be removed */
	struct runx_cgroup cg;
	char auto_reason[256]; /* auto: why tree was chosen over cgroup */
};

/*
 * Sets the scope up before launch.  tree: makes runx a child subreaper
 * (PR_SET_CHILD_SUBREAPER, prctl(2), Linux 3.4), so every orphan of the
 * command re-parents to runx even after setsid(2).  cgroup: makes a new
 * cgroup v2 for the job below runx's own (cgroup.h); runx stays outside it.
 * auto: cgroup where that works, else tree (s->auto_reason says why).
 * Returns 0, or -errno with a one-line message in err; nothing is left
 * behind on failure.
 */
int runx_scope_prepare(struct runx_scope *s, enum runx_scope_kind kind,
		       char *err, size_t errsize);

/* True if the command must start in a new session (setsid(2)). */
bool runx_scope_new_session(const struct runx_scope *s, bool foreground);

/* Records the launched command (pid, and a pidfd the caller keeps owning). */
void runx_scope_adopt(struct runx_scope *s, pid_t child, int child_pidfd);

/* Tells the scope the command was reaped: its pidfd must not be used. */
void runx_scope_child_reaped(struct runx_scope *s);

/*
 * Sends signal number sig to every live process of the scope: the child
 * via pidfd_send_signal(2); the process group with kill(2) of -pgid (one
 * call reaches every member atomically, fork included, kill(2)); the tree
 * with a pidfd per descendant; the cgroup per pid from cgroup.procs, and
 * SIGKILL with cgroup.kill (Documentation/admin-guide/cgroup-v2.rst).
 * Returns the number of processes reached, or -errno; ESRCH (nothing
 * left) counts as 0 reached.  The process group has no member list: with
 * count false it is not counted (a /proc scan would delay the signal) and
 * 1 stands for "some"; with count true it is counted before the kill(2).
 */
int runx_scope_signal(struct runx_scope *s, int sig, bool count);

/*
 * Counts the live processes of the scope (zombies are dead).  Opens a pidfd
 * (owned by the caller, who must close it) for up to max of them into
 * watch[] and stores how many in *nwatch: each becomes readable when its
 * process exits (pidfd_open(2)), so the caller can wait for the scope to
 * empty without polling.  Returns the count, or -errno.
 */
int runx_scope_census(struct runx_scope *s, int *watch, int max, int *nwatch);

/*
 * An fd to poll(2) for POLLPRI while the scope empties (the cgroup's
 * cgroup.events), or -1 for scopes that hand out pidfds in the census.
 */
int runx_scope_event_fd(const struct runx_scope *s);

/* "process group 123", "process 123", "process tree of runx" for messages. */
const char *runx_scope_describe(const struct runx_scope *s, char *buf,
				size_t size);

/* Undoes runx_scope_prepare: removes the job's cgroup (after the scope is
 * empty).  Returns 0 or -errno of rmdir(2). */
int runx_scope_release(struct runx_scope *s);

#endif
