/*
 * The kinds of kill scope and launch backend, and their names: shared by
 * the option parser (which reads them), the plan (which decides them) and
 * the layers that carry them out, none of which needs another's header.
 */
#ifndef RUNX_KINDS_H
#define RUNX_KINDS_H

/* Which processes a stop reaches (runx(1), KILL SCOPE). */
enum runx_scope_kind {
	RUNX_SCOPE_CHILD,
	RUNX_SCOPE_GROUP,
	RUNX_SCOPE_TREE,
	RUNX_SCOPE_CGROUP,
	RUNX_SCOPE_PIDNS,
	RUNX_SCOPE_AUTO, /* cgroup where it works, else tree: the plan */
};

#define RUNX_SCOPE_KINDS (RUNX_SCOPE_AUTO + 1)

/* How the command is started (runx(1), LAUNCH BACKEND). */
enum runx_launch_kind {
	RUNX_LAUNCH_DEFAULT, /* the best backend for the scope: the plan */
	RUNX_LAUNCH_POSIX_SPAWN,
	RUNX_LAUNCH_FORK,
	RUNX_LAUNCH_VFORK,
	RUNX_LAUNCH_CLONE3,
};

#define RUNX_LAUNCH_KINDS (RUNX_LAUNCH_CLONE3 + 1)

/* "child", "group", ... for options, messages and reports. */
const char *runx_scope_kind_name(enum runx_scope_kind kind);

/* "default", "posix_spawn", ... for options, messages and reports. */
const char *runx_launch_kind_name(enum runx_launch_kind kind);

/*
 * The kind named name (as runx_scope_kind_name() writes it), or -1.  No
 * errors beyond that.
 */
int runx_scope_kind_lookup(const char *name);

/* The backend named name (as runx_launch_kind_name() writes it), or -1. */
int runx_launch_kind_lookup(const char *name);

#endif
