/* -i/-o/-e/-a/-m: the command's standard streams. */
#ifndef RUNX_REDIRECT_H
#define RUNX_REDIRECT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The redirects asked for (-i, -o, -e, -a, -m); NULL paths: none. */
struct runx_redirects {
	const char *stdin_path;
	const char *stdout_path;
	const char *stderr_path;
	bool append; /* O_APPEND instead of O_TRUNC */
	bool merge;  /* stderr goes where stdout goes */
};

/*
 * What the child's fd 0, 1 and 2 become.  source[i] is the descriptor to
 * duplicate onto fd i in the child, -1 to keep what runx inherited, or
 * RUNX_STDIO_CLOSED to close fd i in the child (-m where runx's fd 1 was
 * closed when it started: 2>&1 then copies a closed descriptor).
 * Files runx opened are O_CLOEXEC and owned by this struct (opened[i]).
 */
#define RUNX_STDIO_CLOSED (-2)

struct runx_stdio {
	int source[3];
	bool opened[3]; /* source[i] is a file runx opened and must close */
	/* runx_stdio_open()'s output files: to truncate at the point of no
	 * return (runx_stdio_commit()); made by runx (O_EXCL), removed if
	 * the run is refused before it (runx_stdio_discard()) */
	bool truncate[3];
	bool created[3];
	const char *path[3]; /* the plan's, for runx_stdio_discard() */
	bool committed;
	const sigset_t *stop; /* runx_stdio_open()'s stop signals */
	int64_t until_ns;     /* and its total deadline; 0: none */
	int stopped; /* the stop signal that ended an open's wait, -1 for
		      * the total deadline, or 0 */
};

/*
 * Opens the redirect files of *want (stdin O_RDONLY; stdout/stderr
 * O_WRONLY|O_CREAT with mode 0666 & ~umask, with -a O_APPEND; all
 * O_CLOEXEC|O_NOCTTY), so that a bad path is found before anything
 * starts.  An output file is not truncated yet: runx_stdio_commit() does
 * that at the point of no return, so that a run refused before it (a
 * missing cgroup controller, no writable cgroup) leaves the file as it
 * was.  -o F -e F naming one file (same device and inode) share one open
 * file description; -m points stderr at stdout.  An open(2) that waits
 * (a FIFO until its other end is opened, fifo(7)) ends when one of the
 * signals of stop comes (not one runx inherited as ignored): -EINTR, with
 * that signal in s->stopped; or when until_ns of CLOCK_MONOTONIC passes
 * (the run's total deadline; 0: none; a POSIX timer's SIGALRM, timer_create(2),
 * while the open waits): -EINTR, with -1 in s->stopped.  Returns 0, or -errno
 * with a one-line message naming the file in err (nothing is left open or made
 * then). The paths of want and stop must live as long as s.
 */
int runx_stdio_open(const struct runx_redirects *want, const sigset_t *stop,
		    int64_t until_ns, struct runx_stdio *s, char *err,
		    size_t errsize);

/*
 * The point of no return: truncates the output files opened without -a
 * (ftruncate(2), regular files only: O_TRUNC is a no-op on the others,
 * open(2)).  Once per run; safe to call again.
 */
void runx_stdio_commit(struct runx_stdio *s);

/*
 * A run refused before runx_stdio_commit(): closes the files and removes
 * those runx_stdio_open() made, if their paths still name them (same
 * device and inode); nothing once committed.
 */
void runx_stdio_discard(struct runx_stdio *s);

/* Closes what runx_stdio_open opened (safe to call twice). */
void runx_stdio_close(struct runx_stdio *s);

#endif
