/* The kill scope interface: the table of kinds and what they share. */
#include "config.h"

#include "scope.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "scope_impl.h"
#include "syscalls.h"

const struct runx_scope_ops *runx_scope_ops_for(enum runx_scope_kind kind)
{
	switch (kind) {
	case RUNX_SCOPE_CHILD:
		return &runx_scope_child_ops;
	case RUNX_SCOPE_GROUP:
		return &runx_scope_group_ops;
	case RUNX_SCOPE_TREE:
		return &runx_scope_tree_ops;
	case RUNX_SCOPE_CGROUP:
		return &runx_scope_cgroup_ops;
	case RUNX_SCOPE_PIDNS:
		return &runx_scope_pidns_ops;
	default:
		return NULL;
	}
}

int runx_scope_prepare(struct runx_scope *s, enum runx_scope_kind kind,
		       const struct runx_cgroup_limits *limits, char *err,
		       size_t errsize)
{
	memset(s, 0, sizeof(*s));
	s->child_pidfd = -1;
	s->ops = runx_scope_ops_for(kind);
	if (s->ops == NULL) {
		snprintf(err, errsize, "the %s scope is not available",
			 runx_scope_kind_name(kind));
		return -ENOTSUP;
	}
	s->proc_trusted = runx_proc_is_own_namespace();
	int r = s->ops->prepare(s, limits, err, errsize);
	if (r < 0 && s->ops->release != NULL)
		s->ops->release(s); /* what prepare made: another attempt
				     * prepares the scope anew */
	if (r < 0)
		s->ops = NULL;
	return r;
}

int runx_scope_launch(struct runx_scope *s, struct runx_launch_request *req,
		      struct runx_launched *out)
{
	s->child_leads_session = req->new_session;
	if (s->ops->launch != NULL)
		return s->ops->launch(s, req, out);
	return runx_launch(req, out);
}

pid_t runx_scope_command_pid(const struct runx_scope *s)
{
	if (s->ops->command_pid != NULL)
		return s->ops->command_pid(s);
	return s->child;
}

int runx_scope_signal_command(struct runx_scope *s, int sig)
{
	int pidfd =
	    s->ops->command_pidfd != NULL ? s->ops->command_pidfd(s) : -1;

	if (pidfd >= 0)
		return runx_pidfd_signal_reached(pidfd, sig);
	pid_t cmd = runx_scope_command_pid(s);

	if (cmd == s->child)
		return runx_scope_signal_child(s, sig);
	if (cmd <= 0)
		return 0;
	/* pidns: the init's child, which the init has not reaped while it
	 * still answers as the command (runx_scope_command_pid()) */
	int fd = runx_pidfd_open(cmd, 0);
	if (fd < 0)
		return errno == ESRCH ? 0 : -errno;
	int r = runx_pidfd_signal_reached(fd, sig);
	close(fd);
	return r;
}

int runx_scope_usage(const struct runx_scope *s, struct runx_cgroup_usage *u)
{
	u->valid = false;
	if (s->ops == NULL || s->ops->usage == NULL)
		return -ENOTSUP;
	return s->ops->usage(s, u);
}

void runx_scope_adopt(struct runx_scope *s, pid_t child, int child_pidfd)
{
	s->child = child;
	s->child_pidfd = child_pidfd;
	if (s->ops->adopted != NULL)
		s->ops->adopted(s);
}

void runx_scope_child_reaped(struct runx_scope *s, int *status)
{
	s->child_pidfd = -1;
	if (s->ops->child_reaped != NULL)
		s->ops->child_reaped(s, status);
}

int runx_scope_command_fd(const struct runx_scope *s)
{
	return s->ops->command_fd != NULL ? s->ops->command_fd(s) : -1;
}

bool runx_scope_command_ended(struct runx_scope *s, int *status)
{
	return s->ops->command_ended != NULL &&
	       s->ops->command_ended(s, status);
}

int runx_scope_signal(struct runx_scope *s, int sig, bool count)
{
	return s->ops->signal(s, sig, count);
}

int runx_scope_signal_times(struct runx_scope *s, int sig, int times,
			    bool count)
{
	int r = 0;

	if (s->ops->signal_times != NULL)
		return s->ops->signal_times(s, sig, times, count);
	for (int k = 0; k < times && r >= 0; k++) {
		int one = s->ops->signal(s, sig, count && k == 0);
		if (k == 0 || one < 0)
			r = one;
	}
	return r;
}

int runx_scope_signal_outside_group(struct runx_scope *s, int sig, pid_t pgrp)
{
	if (s->ops->signal_outside_group == NULL)
		return 0;
	return s->ops->signal_outside_group(s, sig, pgrp);
}

int runx_scope_stop_signal(struct runx_scope *s, int sig, bool count)
{
	if (s->ops->stop_signal != NULL)
		return s->ops->stop_signal(s, sig, count);
	int r = s->ops->signal(s, sig, count);
	if (r >= 0)
		s->ops->signal(s, SIGCONT, false);
	return r;
}

int runx_scope_newcomers(struct runx_scope *s, int sig, bool last)
{
	return s->ops->newcomers != NULL ? s->ops->newcomers(s, sig, last) : 0;
}

bool runx_scope_holds_child(const struct runx_scope *s)
{
	return s->ops->holds_child == NULL || s->child <= 0 ||
	       s->ops->holds_child(s);
}

bool runx_scope_died_outside(const struct runx_scope *s, int pidfd)
{
	return s->ops->died_outside != NULL && s->child > 0 &&
	       s->ops->died_outside(s, pidfd);
}

int runx_scope_kill(struct runx_scope *s)
{
	return s->ops->kill(s);
}

void runx_scope_census(struct runx_scope *s, struct runx_census *c)
{
	c->state = RUNX_CENSUS_EMPTY;
	c->count = 0;
	c->error = 0;
	c->nwatch = 0;
	c->npids = 0;
	s->ops->census(s, c);
	if (c->state == RUNX_CENSUS_EMPTY && c->count > 0)
		c->state = RUNX_CENSUS_ALIVE;
}

int runx_scope_event_fd(const struct runx_scope *s)
{
	return s->ops != NULL && s->ops->event_fd != NULL ? s->ops->event_fd(s)
							  : -1;
}

const char *runx_scope_describe(const struct runx_scope *s, char *buf,
				size_t size)
{
	if (s->ops == NULL)
		snprintf(buf, size, "no scope");
	else
		s->ops->describe(s, buf, size);
	return buf;
}

const char *runx_scope_name(const struct runx_scope *s)
{
	return s->ops != NULL ? runx_scope_kind_name(s->ops->kind) : "none";
}

bool runx_scope_adopts_orphans(const struct runx_scope *s)
{
	return s->ops != NULL && s->ops->adopts_orphans;
}

int runx_scope_release(struct runx_scope *s)
{
	int r = 0;

	if (s->ops != NULL && s->ops->release != NULL)
		r = s->ops->release(s);
	s->ops = NULL;
	return r;
}
