/*
 * For pidns.c only: the init of a PID namespace and what it tells runx
 * over their socket pair while it sets up.
 */
#ifndef RUNX_PIDNS_INIT_H
#define RUNX_PIDNS_INIT_H

#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

struct runx_launch_request;

/* What the init writes on the status pipe once the command was reaped. */
struct runx_pidns_status {
	int wait_status; /* the command's, as waitpid(2) gives it */
	int alone;	 /* 1: nothing else was left; the init exits */
};

/* The steps of the init's set-up, for its report and runx's message. */
enum init_step {
	STEP_NONE,
	STEP_SYNC,	/* reading the sync pipe */
	STEP_PDEATHSIG, /* prctl(PR_SET_PDEATHSIG) */
	STEP_ORPHAN,	/* runx died before the init was armed */
	STEP_SETSID,
	STEP_PRIVATE,  /* mount(2) MS_REC | MS_PRIVATE of / */
	STEP_PROC,     /* mount(2) of a new proc on /proc */
	STEP_SIGNALFD, /* the init's signalfd */
	STEP_LAUNCH,   /* the backend inside the namespace */
	STEP_EXEC,     /* execve(2) of the command: 126/127 */
};

/* The init's report to runx once the command runs, or why not. */
struct init_report {
	int step;	 /* STEP_NONE when the command runs */
	int err;	 /* errno of the failed step */
	pid_t pid;	 /* the command's pid in the namespace */
	pid_t outer_pid; /* its pid in runx's namespace, or 0 (unknown) */
	char why[256];	 /* STEP_LAUNCH: the launch's own message, or "" */
};

/*
 * The report's message on sync, with room for one fd (SCM_RIGHTS,
 * unix(7)): the command's pidfd the init attaches.
 */
struct init_report_msg {
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} c;
	struct iovec iov;
	struct msghdr m;
};

/* Sets up *f for rep, its control buffer empty (msg_controllen the room
 * for one fd). */
static inline void init_report_msg(struct init_report_msg *f,
				   struct init_report *rep)
{
	memset(f, 0, sizeof(*f));
	f->iov.iov_base = rep;
	f->iov.iov_len = sizeof(*rep);
	f->m.msg_iov = &f->iov;
	f->m.msg_iovlen = 1;
	f->m.msg_control = f->c.buf;
	f->m.msg_controllen = sizeof(f->c.buf);
}

/*
 * The init's whole life, in the child of clone(2) with CLONE_NEWPID: waits
 * for runx on sync (PR_SET_PDEATHSIG SIGKILL first), makes a session,
 * private mounts and a new /proc, starts req with req->backend
 * (runx_launch()), writes a struct init_report on sync, then forwards
 * signals from outside the namespace to all of it (kill(2) of -1), reaps,
 * and writes a struct runx_pidns_status on status_fd when the command was
 * reaped.  Exits 0 once the command ended and nothing is left, 125 if its
 * signalfd fails (after SIGKILLing the namespace), 127 if set-up failed.
 * Never returns.  Closes every fd but the signalfd and status_fd.
 */
void runx_pidns_init_main(const struct runx_launch_request *req, int status_fd,
			  int sync) __attribute__((noreturn));

#endif
