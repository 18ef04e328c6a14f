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
