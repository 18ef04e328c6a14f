/* The iterative walk of a cgroup tree and its removal (cgroup_walk.h). */
#include "config.h"

#include "cgroup_walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* One directory on the way from the root down to where the walk is. */
struct level {
	char *names;  /* its subdirectories' names, each NUL-terminated */
	size_t size;  /* bytes used in names */
	size_t cap;   /* bytes allocated */
	size_t next;  /* offset of the next name to walk */
	size_t below; /* offset of the name being walked below it */
	dev_t dev;    /* the directory itself, to check a return by ".." */
	ino_t ino;
	bool stuck; /* leave failed for one of its subdirectories */
};

struct walk {
	const struct runx_cgroup_visit *v;
	int root_fd;	  /* the caller's */
	int fd;		  /* the deepest level's directory (root_fd at 0) */
	struct level *lv; /* lv[0] is the root; n levels */
	size_t n;
	size_t cap;
};

/* Opening a directory below fd, never through a symbolic link. */
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* True if e (read from d) is a directory other than "." and "..". */
static bool is_subdir(DIR *d, const struct dirent *e)
{
	struct stat st;

	if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
		return false;
	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_DIR;
	return fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISDIR(st.st_mode);
}

/* Appends name (with its NUL) to l->names; 0 or -ENOMEM. */
static int add_name(struct level *l, const char *name)
{
	size_t len = strlen(name) + 1;

	if (l->size + len > l->cap) {
		size_t cap = l->cap ? l->cap : 64;
		while (cap < l->size + len)
			cap *= 2;
		char *p = realloc(l->names, cap);
		if (p == NULL)
			return -ENOMEM;
		l->names = p;
		l->cap = cap;
	}
	memcpy(l->names + l->size, name, len);
	l->size += len;
	return 0;
}

/*
 * Lists the subdirectories of fd into l, through a new open file
 * description (fd's offset stays; a directory removed meanwhile lists
 * as empty).  0 or -errno.
 */
static int list_subdirs(int fd, struct level *l)
{
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *e;
	int r = 0;

	if (dfd < 0)
		return errno == ENOENT || errno == ENODEV ? 0 : -errno;
	DIR *d = fdopendir(dfd);
	if (d == NULL) {
		r = -errno;
		close(dfd);
		return r;
	}
	while (r == 0) {
		errno = 0;
		if ((e = readdir(d)) == NULL) {
			r = errno == ENOENT || errno == ENODEV ? 0 : -errno;
			break;
		}
		if (is_subdir(d, e))
			r = add_name(l, e->d_name);
	}
	closedir(d);
	return r;
}

/* Pushes the level of the directory w->fd, enters it and lists it. */
static int push_level(struct walk *w)
{
	struct stat st;

	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		struct level *lv = realloc(w->lv, cap * sizeof(*lv));
		if (lv == NULL)
			return -ENOMEM;
		w->lv = lv;
		w->cap = cap;
	}
	if (fstat(w->fd, &st) < 0)
		return -errno;
	struct level *l = &w->lv[w->n++];
	*l = (struct level){.dev = st.st_dev, .ino = st.st_ino};
	if (w->v->enter != NULL) {
		int r = w->v->enter(w->fd, w->n - 1, w->v->arg);
		if (r != 0)
			return r;
	}
	return list_subdirs(w->fd, l);
}

/* Makes fd the walk's current directory, closing the one before. */
static void move_to(struct walk *w, int fd)
{
	if (w->fd != w->root_fd)
		close(w->fd);
	w->fd = fd;
}

/* Goes down into the next subdirectory of the deepest level (one that
 * vanished meanwhile is skipped).  0 or the walk's error. */
static int descend(struct walk *w)
{
	struct level *l = &w->lv[w->n - 1];
	size_t at = l->next;

	l->next += strlen(l->names + at) + 1;
	int fd = openat(w->fd, l->names + at, DIR_FLAGS);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP
			   ? 0
			   : -errno;
	l->below = at;
	move_to(w, fd);
	return push_level(w);
}

/* True if fd is the directory of level l. */
static bool is_level(int fd, const struct level *l)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_dev == l->dev &&
	       st.st_ino == l->ino;
}

/* The directory of level `to` (> 0) opened again from the root by the
 * names on the way: an fd, or -1 with errno. */
static int reopen(const struct walk *w, size_t to)
{
	int fd = w->root_fd;

	for (size_t i = 0; i < to; i++) {
		const struct level *l = &w->lv[i];
		int next = openat(fd, l->names + l->below, DIR_FLAGS);
		int e = errno;
		if (fd != w->root_fd)
			close(fd);
		if (next < 0) {
			errno = e;
			return -1;
		}
		fd = next;
		if (!is_level(fd, &w->lv[i + 1])) {
			close(fd);
			errno = ESTALE;
			return -1;
		}
	}
	return fd;
}

/*
 * The parent of the deepest level, as an fd: through ".." (a removed
 * directory still has its parent), checked to be the directory the walk
 * came from, or else re-opened from the root.  An fd or -1 with errno.
 */
static int open_parent(const struct walk *w)
{
	size_t to = w->n - 2;

	if (to == 0)
		return w->root_fd;
	int fd = openat(w->fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && is_level(fd, &w->lv[to]))
		return fd;
	if (fd >= 0)
		close(fd);
	else if (errno == EMFILE || errno == ENFILE)
		return -1;
	return reopen(w, to);
}

/* Goes back up from the deepest level, then calls leave for it. */
static int ascend(struct walk *w)
{
	struct level *child = &w->lv[w->n - 1];
	bool stuck = child->stuck;
	int fd = open_parent(w);

	if (fd < 0)
		return -errno;
	move_to(w, fd);
	free(child->names);
	w->n--;
	struct level *l = &w->lv[w->n - 1];
	if (w->v->leave != NULL &&
	    w->v->leave(w->fd, l->names + l->below, stuck, w->v->arg) < 0)
		l->stuck = true;
	return 0;
}

int runx_cgroup_walk(int root_fd, const struct runx_cgroup_visit *v)
{
	struct walk w = {.v = v, .root_fd = root_fd, .fd = root_fd};
	int r = push_level(&w);

	while (r == 0 && w.n > 0) {
		struct level *l = &w.lv[w.n - 1];
		if (l->next < l->size)
			r = descend(&w);
		else if (w.n == 1)
			break;
		else
			r = ascend(&w);
	}
	move_to(&w, root_fd);
	for (size_t i = 0; i < w.n; i++)
		free(w.lv[i].names);
	free(w.lv);
	return r;
}

/*
 * rmdir(2) of name in dir_fd; on EBUSY (a cgroup whose last task has just
 * exited is busy for a moment) again, up to 200 times 5 ms apart, if
 * retry.  0 (also if it is gone already) or -errno.
 */
static int rmdir_at(int dir_fd, const char *name, bool retry)
{
	for (int tries = 0;; tries++) {
		if (unlinkat(dir_fd, name, AT_REMOVEDIR) == 0 ||
		    errno == ENOENT)
			return 0;
		if (errno != EBUSY || !retry || tries == 199)
			return -errno;
		struct timespec pause = {0, 5 * 1000 * 1000};
		nanosleep(&pause, NULL);
	}
}

/* What a removal found: its first failure (-errno), or 0. */
struct removal {
	int error;
};

/* leave of a removal: rmdir, retried only where it can succeed. */
static int remove_one(int parent_fd, const char *name, bool stuck, void *arg)
{
	struct removal *rm = arg;
	int r = rmdir_at(parent_fd, name, !stuck);

	if (r < 0 && rm->error == 0)
		rm->error = r;
	return r;
}

int runx_cgroup_remove_tree(const char *dir)
{
	struct removal rm = {0};
	struct runx_cgroup_visit v = {NULL, remove_one, &rm};
	int fd = open(dir, DIR_FLAGS);

	if (fd < 0 && errno != ENOENT)
		rm.error = -errno;
	if (fd >= 0) {
		int r = runx_cgroup_walk(fd, &v);
		close(fd);
		if (r < 0 && rm.error == 0)
			rm.error = r;
	}
	/* with something left below, dir is not empty: one try says so */
	int r = rmdir_at(AT_FDCWD, dir, rm.error == 0);
	return rm.error != 0 ? rm.error : r;
}
