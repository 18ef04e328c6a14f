/*
 * Thin wrappers for the Linux system calls runx uses that glibc 2.36 does
 * not wrap (or wraps only in newer versions).  Each returns what the raw
 * system call returns: a value >= 0, or -1 with errno set; ENOSYS where the
 * kernel or the headers do not know the call.  Callers never need #ifdef.
 */
#ifndef RUNX_SYSCALLS_H
#define RUNX_SYSCALLS_H

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/*
 * struct clone_args of clone3(2) up to version 2 (Linux 5.7, with cgroup).
 * Older kernels accept the larger struct as long as the fields they do not
 * know are zero (clone(2), "The size argument").
 */
struct runx_clone_args {
	uint64_t flags;
	uint64_t pidfd;
	uint64_t child_tid;
	uint64_t parent_tid;
	uint64_t exit_signal;
	uint64_t stack;
	uint64_t stack_size;
	uint64_t tls;
	uint64_t set_tid;
	uint64_t set_tid_size;
	uint64_t cgroup;
};

/*
 * clone3(2), Linux 5.3: a child as *args says (fork-like, no stack).
 * Returns the child's pid in the parent, 0 in the child, or -1 with errno
 * (ENOSYS without clone3, or where a seccomp filter hides it).
 */
static inline long runx_clone3(struct runx_clone_args *args)
{
	return syscall(SYS_clone3, args, sizeof(*args));
}

/* pidfd_open(2), Linux 5.3: a pidfd (O_CLOEXEC) for pid; the caller owns it. */
static inline int runx_pidfd_open(pid_t pid, unsigned int flags)
{
	return (int)syscall(SYS_pidfd_open, pid, flags);
}

/* pidfd_send_signal(2), Linux 5.1: signal number sig to the process of pidfd.
 */
static inline int runx_pidfd_send_signal(int pidfd, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

#ifndef PIDFD_SIGNAL_PROCESS_GROUP
#define PIDFD_SIGNAL_PROCESS_GROUP (1U << 2) /* include/uapi/linux/pidfd.h */
#endif

/*
 * pidfd_send_signal(2) with PIDFD_SIGNAL_PROCESS_GROUP, Linux 6.9: signal
 * number sig to every process of the process group whose id is pidfd's
 * pid (kernel/signal.c: kill_pgrp_info() of the pidfd's own struct pid,
 * so once that pid is freed and reused, a new group of that number is not
 * reached).  0, or -1 with errno: ESRCH (the group has no member left),
 * EINVAL (a kernel before 6.9), EPERM.
 */
static inline int runx_pidfd_signal_group(int pidfd, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL,
			    PIDFD_SIGNAL_PROCESS_GROUP);
}

/* runx_pidfd_send_signal() as a count: 1 if sent, 0 if the process is gone
 * (ESRCH), or -errno. */
static inline int runx_pidfd_signal_reached(int pidfd, int sig)
{
	if (runx_pidfd_send_signal(pidfd, sig) < 0)
		return errno == ESRCH ? 0 : -errno;
	return 1;
}

/*
 * The part of struct pidfd_info (include/uapi/linux/pidfd.h, Linux 6.13;
 * exit_code 6.15) that runx reads; the kernel fills what fits in the size
 * the ioctl names (PIDFD_INFO_SIZE_VER0, 64 bytes, is the first version).
 */
struct runx_pidfd_info {
	uint64_t mask; /* in: what to report; out: what was */
	uint64_t cgroupid;
	uint32_t pid, tgid, ppid; /* in runx's pid namespace */
	uint32_t ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code; /* PIDFD_INFO_EXIT: as wait(2)'s status */
};
_Static_assert(sizeof(struct runx_pidfd_info) == 64, "PIDFD_INFO_SIZE_VER0");

/* ioctl PIDFD_GET_INFO: _IOWR(0xFF, 11, struct pidfd_info). */
#define RUNX_PIDFD_GET_INFO                                                    \
	_IOC(_IOC_READ | _IOC_WRITE, 0xFF, 11, sizeof(struct runx_pidfd_info))
#define RUNX_PIDFD_INFO_PID	 (1ULL << 0)
#define RUNX_PIDFD_INFO_CGROUPID (1ULL << 2)
#define RUNX_PIDFD_INFO_EXIT	 (1ULL << 3)

/*
 * ioctl PIDFD_GET_INFO of pidfd into *info, asking for the PIDFD_INFO_*
 * bits want: 0 once the kernel answered with all of them, else -1 with
 * errno: ENODATA if it answered without one of them (the process runs
 * still, for PIDFD_INFO_EXIT; a kernel that keeps no such field), ESRCH
 * once the process is reaped (but for PIDFD_INFO_EXIT), ENOTTY or EINVAL
 * from a kernel without the ioctl (before Linux 6.13).  PIDFD_INFO_PID is
 * always answered.
 */
static inline int runx_pidfd_get_info(int pidfd, uint64_t want,
				      struct runx_pidfd_info *info)
{
	*info = (struct runx_pidfd_info){.mask = want};
	if (ioctl(pidfd, RUNX_PIDFD_GET_INFO, info) < 0)
		return -1;
	if ((info->mask & want) != want) {
		errno = ENODATA;
		return -1;
	}
	return 0;
}

/*
 * The parent of pidfd's process (ioctl PIDFD_GET_INFO, Linux 6.13), in
 * runx's pid namespace, into *ppid: 0, or -1 with errno ESRCH once it is
 * reaped (a zombie may still answer), ENOTTY or EINVAL from a kernel
 * without it.
 */
static inline int runx_pidfd_ppid(int pidfd, pid_t *ppid)
{
	struct runx_pidfd_info info;

	if (runx_pidfd_get_info(pidfd, RUNX_PIDFD_INFO_PID, &info) < 0)
		return -1;
	*ppid = (pid_t)info.ppid;
	return 0;
}

/*
 * The pid of pidfd's process in runx's pid namespace (ioctl PIDFD_GET_INFO,
 * Linux 6.13; 0 for a process runx's namespace cannot see), into *pid: 0,
 * or -1 with errno as runx_pidfd_ppid().
 */
static inline int runx_pidfd_pid(int pidfd, pid_t *pid)
{
	struct runx_pidfd_info info;

	if (runx_pidfd_get_info(pidfd, RUNX_PIDFD_INFO_PID, &info) < 0)
		return -1;
	*pid = (pid_t)info.tgid;
	return 0;
}

/*
 * The id of the cgroup v2 that pidfd's process is in (ioctl PIDFD_GET_INFO
 * with PIDFD_INFO_CGROUPID, Linux 6.13: the kernel reads it under RCU,
 * taking no cgroup lock, where /proc/PID/cgroup takes cgroup_mutex), into
 * *id: the inode number of that cgroup's directory.  0, or -1 with errno
 * (ESRCH once it is reaped; ENOTTY, EINVAL or ENODATA where the kernel
 * cannot tell).
 */
static inline int runx_pidfd_cgroupid(int pidfd, uint64_t *id)
{
	struct runx_pidfd_info info;

	if (runx_pidfd_get_info(pidfd, RUNX_PIDFD_INFO_CGROUPID, &info) < 0)
		return -1;
	*id = info.cgroupid;
	return 0;
}

/*
 * The cgroup v2 that pidfd's process was in when it exited, once it was
 * reaped (ioctl PIDFD_GET_INFO with PIDFD_INFO_EXIT, Linux 6.15: pidfs
 * records the cgroup's id with the exit code as the process is released,
 * fs/pidfs.c pidfs_exit(), for a process that some pidfd was open for),
 * into *id: the inode number of that cgroup's directory.  0, or -1 with
 * errno: ENODATA while it runs or is a zombie not yet reaped, or where the
 * kernel kept no cgroup id; ESRCH, ENOTTY or EINVAL where the kernel
 * cannot tell.
 */
static inline int runx_pidfd_exit_cgroupid(int pidfd, uint64_t *id)
{
	struct runx_pidfd_info info;

	if (runx_pidfd_get_info(pidfd,
				RUNX_PIDFD_INFO_EXIT | RUNX_PIDFD_INFO_CGROUPID,
				&info) < 0)
		return -1;
	*id = info.cgroupid;
	return 0;
}

/*
 * How pidfd's process ended, once it was reaped (ioctl PIDFD_GET_INFO with
 * PIDFD_INFO_EXIT, Linux 6.15: pidfs keeps the exit code past the reaping,
 * whoever reaped it), into *status as waitpid(2) gives it.  0, or -1 with
 * errno: ENODATA while it runs or is a zombie not yet reaped, ESRCH,
 * ENOTTY or EINVAL where the kernel cannot tell.
 */
static inline int runx_pidfd_exit_status(int pidfd, int *status)
{
	struct runx_pidfd_info info;

	if (runx_pidfd_get_info(pidfd, RUNX_PIDFD_INFO_EXIT, &info) < 0)
		return -1;
	*status = info.exit_code;
	return 0;
}

/*
 * close_range(2), Linux 5.9 (CLOSE_RANGE_CLOEXEC 5.11).  Async-signal-safe,
 * so it may run in a child between fork and execve.
 */
static inline int runx_close_range(unsigned int first, unsigned int last,
				   unsigned int flags)
{
	return (int)syscall(SYS_close_range, first, last, flags);
}

#endif
