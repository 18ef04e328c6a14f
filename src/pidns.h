/*
 * --kill-scope=pidns: the job in a new PID namespace (pid_namespaces(7)),
 * with a new mount namespace holding a fresh /proc, and, when runx is not
 * root, a new user namespace that maps the caller's own uid and gid
 * (user_namespaces(7)).  PID 1 of the namespace is runx's small init: the
 * same binary after clone(2), no second program.  It starts the command
 * with the chosen backend, forwards the signals runx sends it to the whole
 * namespace (kill(2) of -1 from PID 1 reaches every process in it but
 * itself), reaps every orphan, and tells runx how the command ended over a
 * pipe.  When the init dies, the kernel SIGKILLs every process of the
 * namespace (pid_namespaces(7), "namespace init"), so nothing of the job
 * outlives runx, even when runx itself is SIGKILLed (the init has
 * PR_SET_PDEATHSIG SIGKILL).
 */
#ifndef RUNX_PIDNS_H
#define RUNX_PIDNS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "pidns_init.h"

struct runx_launch_request;
struct runx_launched;

/*
 * Checks, before anything is started, that the namespaces can be made:
 * /proc/sys/user/max_pid_namespaces and max_mnt_namespaces (and, when
 * new_user, max_user_namespaces and Debian's
 * /proc/sys/kernel/unprivileged_userns_clone) are not 0 (sysctl files,
 * user_namespaces(7)).  A missing file counts as "allowed".  Returns 0, or
 * -EPERM with a one-line message in err naming the setting and what to use
 * instead.  What only clone(2) can tell (a seccomp filter, no privilege,
 * an AppArmor restriction) is reported by runx_pidns_launch().
 */
int runx_pidns_probe(bool new_user, char *err, size_t errsize);

/*
 * Starts the init of a new PID namespace and, through it, req->argv with
 * the backend req->backend; returns once the command has called execve(2)
 * or failed to (as runx_launch()).  The init is made with clone3(2)
 * (Linux 5.3; else clone(2)) with CLONE_NEWPID | CLONE_NEWNS, CLONE_NEWUSER
 * if new_user (runx then writes "deny" to its setgroups and
 * "UID UID 1" / "GID GID 1" to its uid_map and gid_map, the caller's
 * effective ids; user_namespaces(7)) and CLONE_PIDFD.  The init waits until
 * that is done, sets PR_SET_PDEATHSIG SIGKILL and checks that runx did not
 * die before (runx's end of their socket pair is closed then: POLLHUP),
 * starts a
 * new session, makes every mount private (MS_REC | MS_PRIVATE), mounts a
 * new proc on /proc (mount(2)), and starts the command, which is never
 * PID 1.  status_fd is the status pipe's write end (the init
 * writes a struct runx_pidns_status when the command was reaped); runx
 * keeps its own copy.
 *
 * Returns 0 with out->pid, out->pidfd (the init's; owned by the caller)
 * and out->ns_pid (the command's pid in the namespace), and *cmd_pidfd, a
 * pidfd of the command that the init sent with its report (SCM_RIGHTS,
 * unix(7); owned by the caller, O_CLOEXEC), or -1 (a backend without one,
 * or runx out of fds: the kernel drops it); or 0 with out->exec_errno
 * when execve failed (126/127; the init is reaped; *cmd_pidfd -1).  An
 * init SIGKILLed before it reaped the command (runx's SIGKILL right after
 * the first signal, -k 0) cannot tell its status; the pidfd still can
 * (runx_pidfd_exit_status(), Linux 6.15), since the dying init reaps the
 * whole namespace before runx sees it exit (zap_pid_ns_processes()).
 * Returns -errno when the namespaces or the init could not be set up
 * (EPERM, EINVAL, ENOSPC, EUSERS from clone; EACCES from a map; EPERM from
 * mount: out->scope_failed true), or when no process could be made
 * (EAGAIN, ENOMEM from clone, or the init's launch of the command:
 * scope_failed false), with a one-line message in out->why; nothing is
 * left running.
 */
int runx_pidns_launch(const struct runx_launch_request *req, bool new_user,
		      int status_fd, struct runx_launched *out, int *cmd_pidfd);

#endif
