/* PATH resolution: which file execve(2) runs for a command name. */
#ifndef RUNX_PATH_H
#define RUNX_PATH_H

#include <stddef.h>

/*
 * Finds the file execve(2) should run for name the way execvp(3) searches
 * PATH (default "/bin:/usr/bin"; a name with '/' is used as it is, after
 * the same checks), using faccessat(2) with AT_EACCESS instead of trying
 * each candidate.  Writes it into buf (size bytes).  Returns 0, -ENOENT
 * when nothing is found, -EACCES when only non-executable candidates (or
 * directories) were found (execvp's rule), -ENAMETOOLONG, or for a name
 * with '/' -EISDIR for a directory, -EACCES for a file that may not be
 * executed, or the -errno of stat(2) (ENOENT, ENOTDIR, ELOOP, ...).
 */
int runx_resolve_command(const char *name, char *buf, size_t size);

#endif
