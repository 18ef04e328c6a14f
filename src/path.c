/* Finding the file a command name stands for, as execvp(3) would. */
#include "config.h"

#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Joins dir (len bytes; empty means ".") and name into buf. */
static int join_path(const char *dir, size_t len, const char *name, char *buf,
		     size_t size)
{
	int n;

	if (len == 0)
		n = snprintf(buf, size, "%s", name);
	else
		n = snprintf(buf, size, "%.*s/%s", (int)len, dir, name);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/*
 * Whether execve(2) could start file: 0, -EISDIR for a directory (execve
 * says EACCES, which misleads: "Is a directory" is what a user needs),
 * -EACCES for a file runx may not execute (faccessat(2), AT_EACCESS), or
 * stat(2)'s -errno (-ENOENT, -ENOTDIR, ...).  *exists: whether stat(2) found
 * it.
 */
static int runnable(const char *file, bool *exists)
{
	struct stat st;

	*exists = stat(file, &st) == 0;
	if (!*exists)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (faccessat(AT_FDCWD, file, X_OK, AT_EACCESS) < 0)
		return -EACCES;
	return 0;
}

int runx_resolve_command(const char *name, char *buf, size_t size)
{
	const char *path = getenv("PATH");
	bool denied = false, exists;

	if (name[0] == '\0')
		return -ENOENT;
	if (strchr(name, '/') != NULL) {
		if (strlen(name) >= size)
			return -ENAMETOOLONG;
		strcpy(buf, name);
		/* what execve(2) would say, before any -o file is opened;
		 * execve reports the rest (ENOEXEC, ...) */
		return runnable(name, &exists);
	}
	if (path == NULL)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');

		if (join_path(p, (size_t)(end - p), name, buf, size) == 0) {
			/* a directory in PATH is passed over, as execvp(3) does
			 */
			int r = runnable(buf, &exists);
			if (r == 0)
				return 0;
			if (exists)
				denied = true; /* execvp would see EACCES */
		}
		if (*end == '\0')
			break;
		p = end;
	}
	return denied ? -EACCES : -ENOENT;
}
