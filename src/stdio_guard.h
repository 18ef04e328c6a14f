/* fds 0, 1 and 2 closed when runx started stay closed in the command. */
#ifndef RUNX_STDIO_GUARD_H
#define RUNX_STDIO_GUARD_H

#include <stdbool.h>
#include <sys/stat.h>

/*
 * Makes sure fds 0, 1 and 2 are open, so that no descriptor runx opens
 * later lands on them: each one that is closed gets /dev/null with
 * FD_CLOEXEC, so the command still starts with it closed, exactly as runx
 * was started.  Call first thing in main().  Returns 0 or -errno.
 */
int runx_stdio_guard(void);

/*
 * True if fd (0, 1 or 2) was closed when runx started, that is, it is one
 * of runx_stdio_guard()'s close-on-exec placeholders: a descriptor runx
 * inherited across execve(2) cannot have FD_CLOEXEC set.  No errors.
 */
bool runx_stdio_was_closed(int fd);

/*
 * True if fd is open for reading only (fcntl(2) F_GETFL, O_ACCMODE); false
 * where it is open for writing too, or where fcntl(2) fails (a write then
 * says why).  No errors.
 */
bool runx_fd_read_only(int fd);

/*
 * A file description of runx's own, O_WRONLY | O_NONBLOCK | O_NOCTTY |
 * O_CLOEXEC, of the FIFO (pipe) or character device (terminal) that fd
 * is, st its fstat(2): /proc/self/fd/N opened again (proc(5)), so that a
 * write to it returns EAGAIN rather than wait, without changing the flags
 * of the description runx shares with the command or the shell.  The
 * caller closes it.  -1 with errno: EINVAL for another kind of file,
 * EBADF where fd is open for reading only (a write access the open file
 * does not give is never opened anew), those of open(2) (ENOENT: no
 * /proc; ENXIO: a FIFO with no reader; EMFILE).
 */
int runx_reopen_nonblocking(int fd, const struct stat *st);

#endif
