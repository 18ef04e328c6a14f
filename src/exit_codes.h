/* runx's own exit statuses (runx(1), EXIT STATUS), with no dependency. */
#ifndef RUNX_EXIT_CODES_H
#define RUNX_EXIT_CODES_H

#include <errno.h>

enum {
	RUNX_EXIT_TIMEOUT = 124,    /* a deadline fired */
	RUNX_EXIT_FAILED = 125,	    /* runx itself failed */
	RUNX_EXIT_CANNOT_RUN = 126, /* found but not executable */
	RUNX_EXIT_NOT_FOUND = 127,  /* not found */
};

/*
 * The exit status of a command that cannot run, from the errno err of the
 * PATH search or of execve(2): 127 for ENOENT (not found), else 126.
 */
static inline int runx_exit_status_exec(int err)
{
	return err == ENOENT ? RUNX_EXIT_NOT_FOUND : RUNX_EXIT_CANNOT_RUN;
}

#endif
