/* The names of the scope and launch kinds. */
#include "config.h"

#include "kinds.h"

#include <string.h>

static const char *const scope_names[RUNX_SCOPE_KINDS] = {
    [RUNX_SCOPE_CHILD] = "child", [RUNX_SCOPE_GROUP] = "group",
    [RUNX_SCOPE_TREE] = "tree",	  [RUNX_SCOPE_CGROUP] = "cgroup",
    [RUNX_SCOPE_PIDNS] = "pidns", [RUNX_SCOPE_AUTO] = "auto",
};

static const char *const launch_names[RUNX_LAUNCH_KINDS] = {
    [RUNX_LAUNCH_DEFAULT] = "default",
    [RUNX_LAUNCH_POSIX_SPAWN] = "posix_spawn",
    [RUNX_LAUNCH_FORK] = "fork",
    [RUNX_LAUNCH_VFORK] = "vfork",
    [RUNX_LAUNCH_CLONE3] = "clone3",
};

const char *runx_scope_kind_name(enum runx_scope_kind kind)
{
	return (unsigned)kind < RUNX_SCOPE_KINDS ? scope_names[kind] : "none";
}

const char *runx_launch_kind_name(enum runx_launch_kind kind)
{
	return (unsigned)kind < RUNX_LAUNCH_KINDS ? launch_names[kind] : "none";
}

/* The index of name in table (n entries), or -1. */
static int lookup(const char *const *table, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(table[i], name) == 0)
			return i;
	return -1;
}

int runx_scope_kind_lookup(const char *name)
{
	return lookup(scope_names, RUNX_SCOPE_KINDS, name);
}

int runx_launch_kind_lookup(const char *name)
{
	return lookup(launch_names, RUNX_LAUNCH_KINDS, name);
}
