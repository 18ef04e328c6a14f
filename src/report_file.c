/*
 * Where a report goes: a file replaced atomically, a device, FIFO or
 * symlink written through, or standard error.
 */
#include "config.h"

#include "report_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "stdio_guard.h"

/* How long a report written to a pipe may wait for its reader (ms). */
#define THROUGH_WAIT_MS 5000

/* How write_through() opens the file at the end of the links (open(2)):
 * for writing, not truncated, never waiting for a FIFO's reader. */
#define THROUGH_FLAGS (O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

/*
 * Writes text to fd completely (runx_write_until()), waiting for room
 * THROUGH_WAIT_MS at most in all, so that a reader that never reads (a
 * pipe, a FIFO, also runx's own standard error) cannot keep runx from
 * exiting.  0, -EAGAIN when that wait ran out, or -errno.
 */
static int write_all(int fd, const char *text, size_t len)
{
	return runx_write_until(
	    fd, text, len, runx_now_ns() + THROUGH_WAIT_MS * INT64_C(1000000));
}

struct walk_note;
static int open_through(const char *path, const struct stat *first, int flags,
			struct walk_note *why);

/*
 * Writes text through path, which is no regular file (a symlink, a device,
 * a FIFO: /dev/stderr, /dev/null) or a regular file that could not be
 * replaced, as a shell's > would: opened as open_through() says (first:
 * what path was when runx looked, if no link), a regular file at the end
 * truncated only then, and a FIFO without a reader gives -ENXIO rather
 * than a wait.  0 or -errno.
 */
static int write_through(const char *path, const char *text, size_t len,
			 const struct stat *first)
{
	struct stat st;
	int fd = open_through(path, first, THROUGH_FLAGS, NULL);

	if (fd < 0)
		return fd;
	int ret = fstat(fd, &st) < 0 ? -errno : 0;
	if (ret == 0 && S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0)
		ret = -errno;
	if (ret == 0)
		ret = write_all(fd, text, len);
	if (close(fd) < 0 && ret == 0 && errno != EINTR)
		ret = -errno;
	return ret;
}

/* The directory part of path into buf ("." for none); 0 or -ENAMETOOLONG. */
static int dir_of(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash == NULL ? 0 : (size_t)(slash - path);

	if (slash == path)
		n = 1; /* "/r.json": the root */
	if (n >= size)
		return -ENAMETOOLONG;
	if (n == 0)
		return snprintf(buf, size, ".") < 0 ? -EINVAL : 0;
	memcpy(buf, path, n);
	buf[n] = '\0';
	return 0;
}

/* The last component of path (path itself with no slash). */
static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/*
 * Opens the directory of name (dir_of(), relative to dfd) O_PATH |
 * O_DIRECTORY | O_CLOEXEC: the fd (the caller's to close), or -errno
 * (-ENAMETOOLONG: its directory part is PATH_MAX bytes or more; else
 * openat(2)'s).
 */
static int open_dir_of(int dfd, const char *name)
{
	char dir[PATH_MAX];
	int r = dir_of(name, dir, sizeof(dir));

	if (r < 0)
		return r;
	r = openat(dfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return r < 0 ? -errno : r;
}

/*
 * Makes a temporary file in dir (mkostemp(3), mode 0600, O_CLOEXEC), its
 * name into tmp (size bytes).  The fd (the caller's to close), or -errno
 * (-ENAMETOOLONG: no room for the name).
 */
static int make_temp(const char *dir, char *tmp, size_t size)
{
	if (snprintf(tmp, size, "%s/.runx-report.XXXXXX", dir) >= (int)size)
		return -ENAMETOOLONG;
	int fd = mkostemp(tmp, O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * Gives fd (the new temporary file; the caller's) the group of old, the
 * file it replaces, where it got another (a set-group-ID directory, a
 * grpid mount): fchown(2) of the group only, which the file's owner may
 * do for a group it is in (chown_ok()/chgrp_ok(), fs/attr.c), root with
 * CAP_CHOWN for any.  True if the file has old's group now.
 */
static bool keep_group(int fd, const struct stat *old)
{
	struct stat now;

	return (fstat(fd, &now) == 0 && now.st_gid == old->st_gid) ||
	       fchown(fd, (uid_t)-1, old->st_gid) == 0;
}

/*
 * Writes text to fd (a new temporary file; the caller's) and fsync(2)s
 * it, with mode 0666 & ~umask (mkstemp(3) and O_TMPFILE make 0600; a
 * report is as readable as any output file), or where it replaces old
 * (non-NULL: a file of runx's own, kept_from() says which), old's
 * permission bits and group, so a report made 0600 stays private (and
 * no group bits where its group cannot be kept).  The owner is runx's own
 * either way.  0 or -errno (write(2), fchmod(2),
 * fsync(2)).
 */
static int fill(int fd, const char *text, size_t len, const struct stat *old)
{
	int ret = write_all(fd, text, len);
	mode_t mask = umask(0);

	umask(mask);
	if (ret == 0 &&
	    fchmod(fd, old != NULL ? old->st_mode & 0777 : 0666 & ~mask) < 0)
		ret = -errno;
	/* no set-id bit for chown(2) to clear; a group it could not keep
	 * gets none of old's group bits, meant for another group */
	if (ret == 0 && old != NULL && !keep_group(fd, old) &&
	    fchmod(fd, old->st_mode & 0707) < 0)
		ret = -errno;
	if (ret == 0 && fsync(fd) < 0)
		ret = -errno;
	return ret;
}

/*
 * An unnamed file in dir (open(2) O_TMPFILE, Linux 3.11), or -errno:
 * -EOPNOTSUPP, -EISDIR (a kernel without it) or -EINVAL where the file
 * system or kernel has none, and -EOPNOTSUPP too where /proc/self/fd/N,
 * through which name_unnamed() links it, is missing (no /proc).  The fd
 * is the caller's.
 */
static int open_unnamed(const char *dir)
{
	char proc[64];
	int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (access(proc, F_OK) == 0)
		return fd;
	close(fd);
	return -EOPNOTSUPP;
}

/* True if err from open_unnamed() says there is no O_TMPFILE here. */
static bool no_unnamed(int err)
{
	return err == -EOPNOTSUPP || err == -EISDIR || err == -EINVAL;
}

/*
 * Gives the unnamed file fd a temporary name in dir (".runx-report." and
 * 6 random letters and digits, getrandom(2)), into tmp: linkat(2) of
 * /proc/self/fd/FD (AT_SYMLINK_FOLLOW; no privilege needed, unlike
 * AT_EMPTY_PATH).  0 or -errno (-ENOENT: no /proc).
 */
static int name_unnamed(int fd, const char *dir, char *tmp, size_t size)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	char proc[64];
	unsigned char r[6];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (int tries = 0; tries < 100; tries++) {
		if (getrandom(r, sizeof(r), GRND_NONBLOCK) !=
		    (ssize_t)sizeof(r))
			for (size_t i = 0; i < sizeof(r); i++)
				r[i] =
				    (unsigned char)(runx_now_ns() >> (i * 5));
		if (snprintf(tmp, size, "%s/.runx-report.%c%c%c%c%c%c", dir,
			     set[r[0] % 36], set[r[1] % 36], set[r[2] % 36],
			     set[r[3] % 36], set[r[4] % 36],
			     set[r[5] % 36]) >= (int)size)
			return -ENAMETOOLONG;
		if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) ==
		    0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/*
 * st (the lstat(2) of the file a report replaces, NULL if none) if its
 * mode and group are kept (fill()): a regular file of runx's own (its
 * effective uid) with no other name; else NULL.  A file that another user
 * made (in a sticky /tmp, or the command run with --user) or linked there
 * must not choose root's report's mode (0666: anyone could rewrite it).
 */
static const struct stat *kept_from(const struct stat *st)
{
	if (st != NULL && S_ISREG(st->st_mode) && st->st_uid == geteuid() &&
	    st->st_nlink == 1)
		return st;
	return NULL;
}

/*
 * Writes text into a temporary file of path's directory (a short name of
 * its own, so that a path whose last component is as long as the
 * directory allows still has room), fsync(2)s it and renames it over
 * path.  The file has no name while it is written (O_TMPFILE) where the
 * kernel, the file system and /proc allow: a runx killed (SIGKILL) while
 * it writes leaves nothing, and one killed between the link and the
 * rename(2), microseconds, a ".runx-report.*" file; else it is made with
 * its name (mkostemp(3)).  Its mode: fill()'s, from kept_from() of
 * was, path's lstat(2) (NULL: no file there).  0 or -errno (the temporary
 * file removed).
 */
static int replace(const char *path, const struct stat *was, const char *text,
		   size_t len)
{
	char dir[PATH_MAX], tmp[PATH_MAX];
	int ret = dir_of(path, dir, sizeof(dir));

	if (ret < 0)
		return ret;
	const struct stat *old = kept_from(was);
	int fd = open_unnamed(dir);
	if (fd >= 0) {
		ret = fill(fd, text, len, old);
		int named =
		    ret == 0 ? name_unnamed(fd, dir, tmp, sizeof(tmp)) : ret;
		close(fd);
		if (named == 0 && rename(tmp, path) < 0) {
			ret = -errno;
			unlink(tmp);
		}
		if (ret < 0 || named == 0)
			return ret;
	} else if (!no_unnamed(fd)) {
		return fd;
	}
	fd = make_temp(dir, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	ret = fill(fd, text, len, old);
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	if (ret == 0 && rename(tmp, path) < 0)
		ret = -errno;
	if (ret < 0)
		unlink(tmp);
	return ret;
}

/*
 * True if err (-errno) from replace() leaves an existing file to be
 * written through: a directory runx may not write in, or a sticky one
 * whose file is another user's (rename(2): EACCES, EPERM), a file that is
 * a mount point (a bind-mounted file: EBUSY, EXDEV), a temporary name too
 * long for the path: the file itself may still be writable, as for a
 * shell's >.
 */
static bool may_write_through(int err)
{
	return err == -EACCES || err == -EPERM || err == -EBUSY ||
	       err == -EXDEV || err == -ENAMETOOLONG;
}

/*
 * The fd of runx's own that path names ("-", /dev/stdout, /dev/stderr,
 * /dev/fd/N, /proc/self/fd/N, /proc/thread-self/fd/N), or -1: the
 * report goes to that fd as it
 * is, not opened again, which would truncate a regular file behind it
 * and lose the command's output there.  N is written as /proc writes it:
 * digits, no leading zero (/dev/fd/01 names no file, proc(5)).
 */
static int own_fd(const char *path)
{
	const char *n = NULL;
	char *end;

	if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stderr") == 0)
		return STDERR_FILENO;
	if (strcmp(path, "/dev/stdout") == 0)
		return STDOUT_FILENO;
	if (strncmp(path, "/dev/fd/", 8) == 0)
		n = path + 8;
	else if (strncmp(path, "/proc/self/fd/", 14) == 0)
		n = path + 14;
	else if (strncmp(path, "/proc/thread-self/fd/", 21) == 0)
		n = path + 21; /* runx's one thread: the same fds */
	if (n == NULL || *n < '0' || *n > '9' || (n[0] == '0' && n[1] != '\0'))
		return -1;
	errno = 0;
	long fd = strtol(n, &end, 10);
	return *end == '\0' && errno == 0 && fd <= INT_MAX ? (int)fd : -1;
}

/*
 * 0 if runx's fd (own_fd()) can take the report: fd 2 always (a closed
 * standard error never changes runx's exit status: its lines and report
 * are then lost); another fd must have been open when runx started
 * (runx_stdio_was_closed()), and for writing (fcntl(2) F_GETFL): else
 * -EBADF.
 */
static int own_fd_writable(int fd)
{
	int flags;

	if (fd == STDERR_FILENO)
		return 0;
	if (fd <= 2 && runx_stdio_was_closed(fd))
		return -EBADF;
	if ((flags = fcntl(fd, F_GETFL)) < 0)
		return -errno;
	return (flags & O_ACCMODE) == O_RDONLY ? -EBADF : 0;
}

/*
 * Writes text to path as runx_report_deliver() says.
 */
int runx_report_deliver(const char *path, const char *text, size_t len)
{
	struct stat st;
	int fd = own_fd(path);

	if (fd == STDERR_FILENO)
		return runx_write_stderr(text, len);
	if (fd >= 0)
		return write_all(fd, text, len);
	int exists = lstat(path, &st) == 0;
	if (exists && !S_ISREG(st.st_mode))
		/* renaming over a device or a symlink would replace it; a
		 * link to no file makes one where it points; another user's
		 * link (made during the run: --user's command) is refused
		 * there */
		return write_through(path, text, len,
				     S_ISLNK(st.st_mode) ? NULL : &st);
	int ret = replace(path, exists ? &st : NULL, text, len);
	if (exists && may_write_through(ret))
		ret = write_through(path, text, len, &st);
	return ret;
}

/*
 * True if rename(2) into dir (st) over a file owned by uid is refused by
 * the sticky bit (restricted deletion, inode(7)): neither the file nor
 * the directory is runx's, and runx is not root.
 */
static bool sticky_refuses(const struct stat *dir, uid_t uid)
{
	uid_t me = geteuid();

	return (dir->st_mode & S_ISVTX) && me != 0 && uid != me &&
	       dir->st_uid != me;
}

/*
 * Makes a temporary file in dir as replace() would, unnamed (O_TMPFILE)
 * where it can, so that a runx killed now leaves nothing, else with a
 * name, removed at once; 0 or -errno (-ENAMETOOLONG: no room for the
 * temporary name).
 */
static int probe_dir(const char *dir)
{
	char tmp[PATH_MAX];
	int fd = open_unnamed(dir);

	if (fd >= 0) {
		close(fd);
		return snprintf(tmp, sizeof(tmp), "%s/.runx-report.XXXXXX",
				dir) >= (int)sizeof(tmp)
			   ? -ENAMETOOLONG
			   : 0;
	}
	if (!no_unnamed(fd))
		return fd;
	fd = make_temp(dir, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	unlink(tmp);
	close(fd);
	return 0;
}

/*
 * Opens the regular file path for writing, as write_through() would,
 * without truncating it; 0 or -errno.
 */
static int probe_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* The most symlinks a check follows to a missing file (as the kernel's
 * limit for a path, path_resolution(7)). */
#define MAX_LINKS 40

/*
 * target, read from the symlink link, as a path from here (a relative
 * target is relative to the link's directory) into buf (size bytes; it
 * may be link itself, not target); 0 or -ENAMETOOLONG.
 */
static int join_target(const char *link, const char *target, char *buf,
		       size_t size)
{
	char dir[PATH_MAX];
	int len;

	if (target[0] == '/')
		len = snprintf(buf, size, "%s", target);
	else if (dir_of(link, dir, sizeof(dir)) < 0)
		return -ENAMETOOLONG;
	else
		len = snprintf(buf, size, "%s/%s", dir, target);
	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

/*
 * Where the symlink link points, as a path from here (join_target()),
 * into buf; 0 or -errno.
 */
static int link_target(const char *link, char *buf, size_t size)
{
	char target[PATH_MAX];
	ssize_t n = readlink(link, target, sizeof(target) - 1);

	if (n < 0)
		return -errno;
	target[n] = '\0';
	return join_target(link, target, buf, size);
}

/* What open_through() found on its way: why it refused a link (-EACCES),
 * for a message, and, looking only, where a missing end would be made. */
struct walk_note {
	enum runx_link_refusal kind;
	uid_t owner;		     /* RUNX_LINK_FOREIGN: the link's */
	int end_dir;		     /* -ENOENT, looking: an O_PATH fd of
				      * the missing end's directory (the
				      * caller's to close), else -1 */
	char end_name[NAME_MAX + 1]; /* and the end's last component */
};

/*
 * Notes in why the missing end of open_through()'s walk, name (relative
 * to dfd): an O_PATH fd of its directory, if there is one, and its last
 * component (NAME_MAX bytes at most).
 */
static void note_missing_end(int dfd, const char *name, struct walk_note *why)
{
	const char *base = base_of(name);
	size_t len = strlen(base);

	if (len >= sizeof(why->end_name))
		return;
	int fd = open_dir_of(dfd, name);
	if (fd < 0)
		return;
	why->end_dir = fd;
	memcpy(why->end_name, base, len + 1);
}

/*
 * File system types (statfs(2) f_type; linux/magic.h) whose regular files
 * are the kernel's interface, not storage: proc, sysfs, cgroup v1 and v2.
 */
#define PROC_FS_MAGIC	 0x9fa0UL
#define SYS_FS_MAGIC	 0x62656572UL
#define CGROUP1_FS_MAGIC 0x27e0ebUL
#define CGROUP2_FS_MAGIC 0x63677270UL

/*
 * One link of open_through()'s walk, name (size bytes, relative to *dfd),
 * looked at through pfd (O_PATH | O_NOFOLLOW) and st (its fstat(2)): 1
 * if it is on proc (a magic link: open_own_fd() opens it, if runx's own
 * fd); 0 with its target into name, and *dfd, for a relative target, the
 * link's directory (O_PATH | O_DIRECTORY, the caller's to close, the old
 * one closed), so that a chain of relative links never grows past
 * PATH_MAX as the kernel's walk does not; or -EACCES for a link of
 * neither runx's user nor root (why says so), -errno of readlinkat(2)
 * or of the directory's openat(2).
 */
static int next_link(int *dfd, int pfd, const struct stat *st, char *name,
		     size_t size, struct walk_note *why)
{
	char target[PATH_MAX];
	struct statfs fs;

	/* first: a link on proc is opened only if it is runx's own fd,
	 * whoever owns it (another user's process, or root's where the
	 * process is not dumpable) */
	if (fstatfs(pfd, &fs) < 0)
		return -errno; /* not known to be off proc: not followed */
	if ((unsigned long)fs.f_type == PROC_FS_MAGIC)
		return 1;
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		why->kind = RUNX_LINK_FOREIGN;
		why->owner = st->st_uid;
		return -EACCES;
	}
	/* "" with an O_PATH fd: the link's own target (readlinkat(2), Linux
	 * 2.6.39), of the inode whose owner st gave */
	ssize_t n = readlinkat(pfd, "", target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	int at = AT_FDCWD;
	if (target[0] != '/' && (at = open_dir_of(*dfd, name)) < 0)
		return at;
	if (*dfd >= 0)
		close(*dfd);
	*dfd = at;
	return snprintf(name, size, "%s", target) < 0 ? -EINVAL : 0;
}

/* The path of runx's fd (readlink(2) of /proc/self/fd/FD) into buf
 * (size bytes); 0 or -errno. */
static int fd_path(int fd, char *buf, size_t size)
{
	char self[64];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(self, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/*
 * True if pin (an O_PATH fd of a directory) is runx's own fd directory,
 * /proc/self/fd or /proc/thread-self/fd: the same directory (device and
 * inode) with the same path (fd_path()).  Not the inode alone: proc
 * numbers its directories from a counter that pipes and sockets share
 * (get_next_ino(), fs/inode.c), so a user who makes enough of them can
 * give another process's fd directory runx's number; its path names
 * that process's pid.
 */
static bool own_fd_dir(int pin)
{
	static const char *const own[] = {"/proc/self/fd",
					  "/proc/thread-self/fd"};
	char at[PATH_MAX], want[PATH_MAX];
	struct stat d, o;
	bool same = false;

	if (fstat(pin, &d) < 0 || fd_path(pin, at, sizeof(at)) < 0)
		return false;
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]) && !same; i++) {
		int ofd = open(own[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (ofd < 0)
			continue;
		same = fstat(ofd, &o) == 0 && o.st_dev == d.st_dev &&
		       o.st_ino == d.st_ino &&
		       fd_path(ofd, want, sizeof(want)) == 0 &&
		       strcmp(at, want) == 0;
		close(ofd);
	}
	return same;
}

/*
 * Opens (flags) the file behind name (relative to dfd), a link on proc,
 * only where it is one of runx's own descriptors: name's directory,
 * opened O_PATH | O_DIRECTORY (pinned from there on), must be runx's
 * own fd directory (own_fd_dir()), and the link is opened from it with
 * openat(2), through, as the kernel opens a magic link.  Another
 * process's /proc/PID/fd/N (root's where that process is not dumpable:
 * task_dump_owner(), fs/proc/base.c), /proc/self/cwd, /proc/self/exe
 * or /proc/mounts give -EACCES (why says so).  The fd (the caller's), or
 * -errno.
 */
static int open_own_fd(int dfd, const char *name, int flags,
		       struct walk_note *why)
{
	int fd = -EACCES;
	int pin = open_dir_of(dfd, name);

	if (pin < 0 && pin != -ENOTDIR && pin != -ENAMETOOLONG)
		return pin;
	if (pin >= 0 && own_fd_dir(pin)) {
		if ((fd = openat(pin, base_of(name), flags)) < 0)
			fd = -errno;
	} else {
		why->kind = RUNX_LINK_OTHER_FD;
	}
	if (pin >= 0)
		close(pin);
	return fd;
}

/*
 * Opens (flags) the file at the end of open_through()'s walk, name
 * (relative to dfd), which pfd (O_PATH | O_NOFOLLOW) and st (its
 * fstat(2)) looked at; first, if not NULL, is what runx found there
 * before (device and inode; -EACCES if another).  The file is opened
 * again through pfd's own /proc/self/fd/N, a magic link to the very
 * inode looked at (proc(5)), so that no other file put at name meanwhile
 * is opened, not even for an open and close (a FIFO's reader would see
 * an end of file, a pty a hang-up); with no /proc, by its name with
 * O_NOFOLLOW.  Either way it must be the file looked at (device and
 * inode, -EACCES else: a /proc that is no proc).  The fd (the caller's),
 * or -errno.
 */
static int open_end(int dfd, const char *name, int pfd, const struct stat *st,
		    const struct stat *first, int flags)
{
	char self[64];
	struct stat got;

	if (first != NULL &&
	    (first->st_dev != st->st_dev || first->st_ino != st->st_ino))
		return -EACCES; /* another file put there since */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	int fd = open(self, flags);
	if (fd < 0 && errno != ENOENT)
		return -errno;
	if (fd < 0 && (fd = openat(dfd, name, flags | O_NOFOLLOW)) < 0)
		return -errno;
	if (fstat(fd, &got) == 0 && got.st_dev == st->st_dev &&
	    got.st_ino == st->st_ino)
		return fd;
	close(fd);
	return -EACCES; /* another file put there since */
}

/*
 * Opens (flags: THROUGH_FLAGS to write, or O_PATH | O_CLOEXEC only to
 * look) the file that path names, following its symbolic links one at a
 * time, each looked at through an O_PATH | O_NOFOLLOW fd (open(2), Linux
 * 2.6.39), so that its owner and its target are of one inode: a link
 * owned by neither runx's user nor root gives -EACCES (another user who
 * can write in a directory on the way would choose the file, racing runx
 * as it likes).  A relative target is looked up from its link's
 * directory (next_link()).  The end, no link, is opened as open_end()
 * says (first: what runx found at path, if not NULL); a name that no file
 * has is made there with O_CREAT | O_EXCL | O_NOFOLLOW (0666 & ~umask;
 * not with first, nor to look: -ENOENT).  A link on proc is opened
 * through only where it is runx's own fd (open_own_fd()).  Directories
 * on the way are followed as the kernel does.  why, if not NULL, says
 * which link an -EACCES refused (RUNX_LINK_FOLLOWED: none, the end
 * changed), and, looking only, where a missing end (-ENOENT) would be
 * made (note_missing_end(); end_dir is -1 else).  The fd (the caller's),
 * or -errno (-ELOOP past MAX_LINKS links, -ENXIO for a FIFO without a
 * reader).
 */
static int open_through(const char *path, const struct stat *first, int flags,
			struct walk_note *why)
{
	char name[PATH_MAX];
	struct stat st;
	struct walk_note none;
	int dfd = AT_FDCWD, r = -ELOOP;

	if (why == NULL)
		why = &none;
	why->kind = RUNX_LINK_FOLLOWED;
	why->end_dir = -1;
	if ((size_t)snprintf(name, sizeof(name), "%s", path) >= sizeof(name))
		return -ENAMETOOLONG;
	for (int links = 0; links <= MAX_LINKS; links++) {
		int pfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (pfd < 0) {
			r = -errno;
			if (r == -ENOENT && (flags & O_PATH) && why != &none)
				note_missing_end(dfd, name, why);
			else if (r == -ENOENT && first == NULL &&
				 !(flags & O_PATH) &&
				 (r = openat(dfd, name,
					     flags | O_CREAT | O_EXCL |
						 O_NOFOLLOW,
					     0666)) < 0)
				r = -errno;
			break;
		}
		bool on = false; /* a link followed: on to its target */
		if (fstat(pfd, &st) < 0)
			r = -errno;
		else if (!S_ISLNK(st.st_mode))
			r = open_end(dfd, name, pfd, &st, first, flags);
		else if ((r = next_link(&dfd, pfd, &st, name, sizeof(name),
					why)) == 1)
			r = open_own_fd(dfd, name, flags, why);
		else
			on = r == 0;
		close(pfd);
		if (!on)
			break;
		r = -ELOOP; /* unless a link after this one ends the walk */
	}
	if (dfd >= 0)
		close(dfd);
	return r;
}

enum runx_link_refusal runx_report_refused_link(const char *path, uid_t *owner)
{
	struct walk_note why;
	int fd = open_through(path, NULL, O_PATH | O_CLOEXEC, &why);

	if (fd >= 0)
		close(fd);
	if (why.end_dir >= 0)
		close(why.end_dir);
	if (fd != -EACCES)
		return RUNX_LINK_FOLLOWED;
	if (why.kind == RUNX_LINK_FOREIGN)
		*owner = why.owner;
	return why.kind;
}

/*
 * True if path (any symlinks followed, /proc/self/fd/N's magic ones too)
 * is a regular file of proc, sysfs or a cgroup file system
 * (statfs(2)).  A report is never written there: root passes access(2)
 * and open(2) on such a file, and the write either fails after the run
 * (/proc/version: EIO) or sets what the file controls
 * (/proc/sys/kernel/hostname would become "{").
 */
static bool kernel_file(const char *path)
{
	struct stat st;
	struct statfs fs;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
	    statfs(path, &fs) < 0)
		return false;
	unsigned long type = (unsigned long)fs.f_type;
	return type == PROC_FS_MAGIC || type == SYS_FS_MAGIC ||
	       type == CGROUP1_FS_MAGIC || type == CGROUP2_FS_MAGIC;
}

/* True if st is /dev/tty's device, the controlling terminal (5, 0:
 * Documentation/admin-guide/devices.txt). */
static bool is_dev_tty(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 5 &&
	       minor(st->st_rdev) == 0;
}

/*
 * 0 if the file at the end of path, which exists, is no regular file
 * itself (a symlink, a device, a FIFO, a socket) and passed access(2)
 * W_OK, can take write_through()'s write as far as can be told without
 * side effects; else -errno.  A socket never opens (-ENXIO, open(2)).
 * /dev/tty is opened as the write opens it: with no controlling terminal
 * that is -ENXIO (tty(4)); with one, it is the session's terminal, which
 * the session holds open, so the close hangs nothing up.  Any other
 * device is not opened: an open and close can hang up a pty nobody else
 * holds, drop a serial line's DTR or arm a watchdog.  Nor is a FIFO: its
 * reader would see an end of file.
 */
static int check_through(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISSOCK(st.st_mode))
		return -ENXIO;
	return is_dev_tty(&st) ? probe_file(path) : 0;
}

/* True if path (lstat(2): st), reached after links symlinks, is a file
 * no report is written to: the kernel's (kernel_file()), or a symlink
 * that open_through() refuses (runx_report_refused_link(), which walks
 * the chain at once, so only for the first). */
static bool refused(const char *path, const struct stat *st, int links)
{
	uid_t owner;

	return kernel_file(path) ||
	       (links == 0 && S_ISLNK(st->st_mode) &&
		runx_report_refused_link(path, &owner) != RUNX_LINK_FOLLOWED);
}

/*
 * runx_report_check() of a report made in the directory dir as base, or
 * replacing path (st: its lstat(2); NULL: no file there yet).
 */
static int check_in_dir(const char *dir, const char *base, const char *path,
			const struct stat *st)
{
	struct stat d;

	if (stat(dir, &d) < 0)
		return -errno;
	if (!S_ISDIR(d.st_mode))
		return -ENOTDIR;
	/* a temporary file is made there and renamed over path: made (and
	 * removed) now, since access(2) passes root everywhere but on a
	 * read-only mount (a directory of /proc or /sys takes no new file) */
	int r = probe_dir(dir);
	if (r == 0 && st != NULL && sticky_refuses(&d, st->st_uid))
		r = -EPERM;
	long max = pathconf(dir, _PC_NAME_MAX);
	if (r == 0 && st == NULL &&
	    (long)strlen(base) > (max > 0 ? max : NAME_MAX))
		r = -ENAMETOOLONG;
	if (st != NULL && may_write_through(r))
		r = probe_file(path); /* as runx_report_deliver() falls back */
	else if (st != NULL && r == -ENOENT)
		/* /proc: the directory takes no new file, and its file opens
		 * for writing (root) but fails the write (EIO): refused, and
		 * not as "no such file" for a file that exists */
		r = -EACCES;
	return r;
}

static int check(const char *path, int links);

/*
 * runx_report_check() of path, links symlinks followed to it, itself a
 * symlink that leads to no file: the write makes the file where the
 * links lead (open(2)'s O_CREAT, as the shell's >), so that file's
 * directory must take it.  Found by open_through()'s own walk (a chain
 * of relative links is never joined into one long path), the directory
 * then named by its fd (/proc/self/fd/N); with no /proc, the links are
 * joined and followed here.
 */
static int check_missing(const char *path, int links)
{
	char dir[64], target[PATH_MAX];
	struct walk_note w;
	int fd = open_through(path, NULL, O_PATH | O_CLOEXEC, &w);

	if (fd >= 0) { /* made since: checked as it is now */
		close(fd);
		return links < MAX_LINKS ? check(path, links + 1) : -ELOOP;
	}
	if (fd == -ENOENT && w.end_dir >= 0) {
		snprintf(dir, sizeof(dir), "/proc/self/fd/%d", w.end_dir);
		int r = access(dir, F_OK) == 0
			    ? check_in_dir(dir, w.end_name, NULL, NULL)
			    : 1;
		close(w.end_dir);
		if (r != 1)
			return r;
	} else if (fd != -ENOENT) {
		return fd;
	}
	if (links < MAX_LINKS && link_target(path, target, sizeof(target)) == 0)
		return check(target, links + 1);
	return -ENOENT;
}

/* runx_report_check(), after links symlinks followed to path (runx's own
 * fds by name only as given: a link to /dev/stdout is followed). */
static int check(const char *path, int links)
{
	char dir[PATH_MAX];
	struct stat st;

	if (path[0] == '\0')
		return -ENOENT;
	int fd = links == 0 ? own_fd(path) : -1;
	if (fd >= 0)
		return own_fd_writable(fd);
	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return -EISDIR;
	int exists = lstat(path, &st) == 0;
	if (exists && refused(path, &st, links))
		return -EACCES;
	if (exists && !S_ISREG(st.st_mode)) {
		/* written through: a device, FIFO or symlink must take it; a
		 * symlink to no file makes one there */
		if (access(path, W_OK) == 0)
			return check_through(path);
		int e = -errno;
		return e == -ENOENT && S_ISLNK(st.st_mode)
			   ? check_missing(path, links)
			   : e;
	}
	int r = dir_of(path, dir, sizeof(dir));
	if (r < 0)
		return r;
	return check_in_dir(dir, base_of(path), path, exists ? &st : NULL);
}

/*
 * path, through symlinks to no file (MAX_LINKS at most), into buf (size
 * bytes): the name a write through it makes.  0, -ENAMETOOLONG (path
 * itself too long), or -ELOOP (too many links, or a link whose target
 * cannot be read or joined to its directory within PATH_MAX).
 */
static int final_name(const char *path, char *buf, size_t size)
{
	struct stat st;
	char target[PATH_MAX];
	int links = 0;

	if ((size_t)snprintf(buf, size, "%s", path) >= size)
		return -ENAMETOOLONG;
	while (lstat(buf, &st) == 0 && S_ISLNK(st.st_mode)) {
		if (links++ >= MAX_LINKS ||
		    link_target(buf, target, sizeof(target)) < 0 ||
		    (size_t)snprintf(buf, size, "%s", target) >= size)
			return -ELOOP;
	}
	return 0;
}

/* True if a and b, names that a write makes (final_name()), are one: the
 * same last component in the same directory (its device and inode). */
static bool same_new_file(const char *a, const char *b)
{
	char fa[PATH_MAX], fb[PATH_MAX], da[PATH_MAX], db[PATH_MAX];
	struct stat sa, sb;

	if (final_name(a, fa, sizeof(fa)) < 0 ||
	    final_name(b, fb, sizeof(fb)) < 0 ||
	    dir_of(fa, da, sizeof(da)) < 0 || dir_of(fb, db, sizeof(db)) < 0)
		return false;
	return strcmp(base_of(fa), base_of(fb)) == 0 && stat(da, &sa) == 0 &&
	       stat(db, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

bool runx_report_is_file_of(const char *report, const char *path)
{
	struct stat st, sp;

	if (own_fd(report) >= 0)
		return false; /* written to runx's fd, at its offset */
	bool er = stat(report, &st) == 0, ep = stat(path, &sp) == 0;
	if (er && !S_ISREG(st.st_mode))
		return false; /* written through */
	if (er || ep)
		return er && ep && st.st_dev == sp.st_dev &&
		       st.st_ino == sp.st_ino;
	return same_new_file(report, path);
}

int runx_report_check(const char *path)
{
	return check(path, 0);
}
