/* Delivering a report's text to where --report=FILE says (runx(1)). */
#ifndef RUNX_REPORT_FILE_H
#define RUNX_REPORT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Writes text (len bytes) to path: "-" and /dev/stderr mean fd 2, and
 * /dev/stdout, /dev/fd/N, /proc/self/fd/N and /proc/thread-self/fd/N
 * runx's fd 1 or N, written as they are (not opened again: not
 * truncated); a path that exists and is no regular file (a symlink, a
 * device, a FIFO: lstat(2)) is written through, as a shell's > would (a
 * FIFO's reader is waited for 5 s at most, one that is missing is
 * -ENXIO); else a temporary file in the same directory (unnamed,
 * O_TMPFILE, until it is written and linked; else ".runx-report.XXXXXX":
 * room for a last component of NAME_MAX bytes), fsync(2)ed and renamed
 * over path, so readers never see a partial report (rename(2)); where
 * that is refused (-EACCES: the directory; -EPERM: a sticky directory and
 * another user's file), an existing path is written through.  A full pipe
 * on fd 2 is waited for as runx_write_stderr() says, one on another fd
 * 5 s at most (-EAGAIN then).  Returns 0 or -errno (the temporary file is
 * removed on failure).
 */
int runx_report_deliver(const char *path, const char *text, size_t len);

/*
 * Whether runx_report_deliver() can be expected to write path, checked
 * before the command starts (runx(1), --report): "-" and /dev/stderr
 * always; /dev/stdout, /dev/fd/N, /proc/self/fd/N (thread-self too) if
 * that fd of runx's was open for writing when runx started (else -EBADF);
 * a directory is -EISDIR; a path of PATH_MAX bytes or more -ENAMETOOLONG;
 * a path that exists and is no regular file must pass access(2) W_OK; a
 * socket at its end is -ENXIO, /dev/tty must open for writing
 * (O_WRONLY|O_NONBLOCK: with no controlling terminal -ENXIO), and no
 * other device or FIFO is opened (side effects: a hang-up, a FIFO's
 * reader seeing an end of file).  A regular file of proc, sysfs or a
 * cgroup file system (statfs(2)), named or at the end of a symlink, is
 * -EACCES: the kernel's interface, never a report.  A symlink to no file
 * (dangling) is checked where the write's own walk of the links leads
 * (a relative target from its link's directory), up to 40 links deep:
 * the write's O_CREAT makes the file there.  Else its directory must
 * exist (-ENOENT, -ENOTDIR) and take a temporary file, which is made
 * there as the write would make it, unnamed where it can (O_TMPFILE; else
 * mkostemp(3) and removed): -EACCES, -EROFS, -ENOENT in /proc (access(2)
 * alone passes root there); an existing file must not be another user's
 * in a sticky directory that is not runx's either, unless runx is root
 * (-EPERM, inode(7)); a new name must fit the directory's NAME_MAX
 * (pathconf(3); -ENAMETOOLONG).  Where the directory refuses in a way
 * runx_report_deliver() writes through (-EACCES, -EPERM, -EBUSY, -EXDEV,
 * -ENAMETOOLONG), an existing file must open for writing (O_WRONLY, not
 * truncated).  What only the write can tell (a full disk, a FIFO without
 * a reader) is still reported after the run.  An existing file whose
 * directory answers -ENOENT (/proc) is -EACCES.  Returns 0 or -errno;
 * leaves the directory as it was (its mtime aside).
 */
int runx_report_check(const char *path);

/*
 * True if a report to report would replace (by rename(2), at the end) the
 * file that path names, which a redirect opens: both name one existing
 * regular file (device and inode, symlinks followed), or neither exists
 * and both name the same last component in the same directory, through
 * any symlinks to no file.  False where the report is written through (a
 * device, FIFO or socket; a name of runx's own fd such as /dev/stdout).
 */
bool runx_report_is_file_of(const char *report, const char *path);

/* Which link of a report's path runx does not follow. */
enum runx_link_refusal {
	RUNX_LINK_FOLLOWED, /* none: every link is followed */
	RUNX_LINK_FOREIGN,  /* a symlink of another user */
	RUNX_LINK_OTHER_FD, /* a link on proc not of runx's own fds */
};

/*
 * Whether path (a symbolic link, or a chain of them: 40 at most, as the
 * kernel's limit, path_resolution(7)) leads through a link that runx
 * does not follow, looked at as runx_report_deliver() follows them: one
 * at a time, each through an O_PATH | O_NOFOLLOW fd (open(2)), nothing
 * opened for writing.  RUNX_LINK_FOREIGN: a symlink owned by neither
 * runx's effective user nor root, its owner into *owner: that user would
 * choose the file that runx, as root, writes (/etc/shadow) -- a link made
 * beforehand in a directory the user can write, or by the command run
 * with --user.  The kernel refuses such a link only in a sticky
 * world-writable directory, with fs.protected_symlinks=1
 * (proc_sys_fs(5), may_follow_link(), fs/namei.c).  RUNX_LINK_OTHER_FD:
 * a link on proc (whoever owns it) that is not in runx's own
 * /proc/self/fd or /proc/thread-self/fd (another process's
 * /proc/PID/fd/N, root's where that process is not dumpable:
 * task_dump_owner(), fs/proc/base.c; through it, root would write a file
 * that the process only holds an O_PATH fd of; /proc/self/exe).  runx
 * writes no report through either, before the run (runx_report_check():
 * -EACCES) or after it (runx_report_deliver(): -EACCES).  The
 * directories of path are followed as the kernel follows them.
 */
enum runx_link_refusal runx_report_refused_link(const char *path, uid_t *owner);

#endif
