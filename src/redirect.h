/* -i/-o/-e/-a/-m: the command's standard streams. */
#ifndef RUNX_REDIRECT_H
#define RUNX_REDIRECT_H

#include <stdbool.h>
#include <stddef.h>

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
 * duplicate onto fd i in the child, or -1 to keep what runx inherited.
 * Files runx opened are O_CLOEXEC and owned by this struct (opened[i]).
 */
struct runx_stdio {
	int source[3];
	bool opened[3]; /* source[i] is a file runx opened and must close */
};

/*
 * Opens the redirect files of *want (stdin O_RDONLY; stdout/stderr
 * O_WRONLY|O_CREAT with mode 0666 & ~umask, O_TRUNC or with -a O_APPEND;
 * all O_CLOEXEC|O_NOCTTY).  -o F -e F naming one file (same device and
 * inode) share one open file description; -m points stderr at stdout.
 * Returns 0, or -errno with a one-line message naming the file in err
 * (nothing is left open then).
 */
int runx_stdio_open(const struct runx_redirects *want, struct runx_stdio *s,
		    char *err, size_t errsize);

/* Closes what runx_stdio_open opened (safe to call twice). */
void runx_stdio_close(struct runx_stdio *s);

#endif
