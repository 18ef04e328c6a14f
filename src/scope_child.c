/*
 * --kill-scope=child: only the direct child.  Everything goes through its
 * pidfd, so no other process can be hit by a reused pid.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>

#include "scope_impl.h"

/* Nothing to set up: the pidfd comes with the launch. */
static int child_prepare(struct runx_scope *s,
			 const struct runx_cgroup_limits *limits, char *err,
			 size_t errsize)
{
	(void)s;
	(void)limits;
	(void)err;
	(void)errsize;
	return 0;
}

/* The child, if it has not exited (zombies are dead). */
static void child_census(struct runx_scope *s, struct runx_census *c)
{
	if (runx_scope_child_alive(s))
		runx_census_found(c, s->child);
}

/* Signals the child through its pidfd. */
static int child_signal(struct runx_scope *s, int sig, bool count)
{
	(void)count;
	return runx_scope_signal_child(s, sig);
}

/* SIGKILLs the child through its pidfd. */
static int child_kill(struct runx_scope *s)
{
	return runx_scope_signal_child(s, SIGKILL);
}

/* "process 123". */
static void child_describe(const struct runx_scope *s, char *buf, size_t size)
{
	snprintf(buf, size, "process %d", (int)s->child);
}

const struct runx_scope_ops runx_scope_child_ops = {
    .kind = RUNX_SCOPE_CHILD,
    .prepare = child_prepare,
    .signal = child_signal,
    .census = child_census,
    .kill = child_kill,
    .event_fd = NULL,
    .describe = child_describe,
    .release = NULL,
};
