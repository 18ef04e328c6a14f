/*
 * Who releases runx's children: runx's own wait(2), or the kernel as each
 * exits (SA_NOCLDWAIT), and whether a pidfd still tells a released
 * child's exit status (runx(1), STOPPING: the tree scope).
 */
#ifndef RUNX_AUTOREAP_H
#define RUNX_AUTOREAP_H

#include <stdbool.h>

/*
 * on: the kernel releases each child of runx as it exits, instead of
 * leaving a zombie to reap: SIGCHLD keeps SIG_DFL, with SA_NOCLDWAIT
 * (sigaction(2); kernel/signal.c, do_notify_parent(): the exiting child
 * releases itself, and SIGCHLD is still queued, since the disposition is
 * not SIG_IGN, so the signalfd still wakes runx).  Only for children that
 * exit while it is on: a zombie stays one until reaped.  A released child
 * leaves no status to wait(2) for, and its resource usage is not added to
 * runx's RUSAGE_CHILDREN (getrusage(2): only waited-for children count).
 * off: plain SIG_DFL again, as runx_signals_block() leaves it.  0 or
 * -errno of sigaction(2) (none is expected for SIGCHLD).
 */
int runx_autoreap(bool on);

/*
 * True if the kernel keeps the exit status of a process past its release,
 * whoever released it, for a pidfd opened before (ioctl PIDFD_GET_INFO
 * with PIDFD_INFO_EXIT, Linux 6.15: pidfs records it as the task is
 * released).  Found once per runx process, by a child (vfork(2)) that
 * exits at once with status 7: its pidfd must tell exactly that once
 * waitid(2) has reaped it; about 0.1 ms.  False too if that child or its
 * pidfd cannot be made (EAGAIN, ENOMEM, a seccomp filter).  No fd stays
 * open; the child is reaped before this returns.
 */
bool runx_exit_status_kept(void);

#endif
