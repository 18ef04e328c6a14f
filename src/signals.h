/* Signal names and numbers, as runx(1) accepts and prints them. */
#ifndef RUNX_SIGNALS_H
#define RUNX_SIGNALS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Parses SIG text: a name with or without "SIG" in any case ("term",
 * "SIGTERM"), a decimal number from 0 to SIGRTMAX, or "RTMIN+n" /
 * "RTMAX-n" (also bare "RTMIN", "RTMAX"), where n keeps the result within
 * SIGRTMIN..SIGRTMAX as the C library reports them at run time
 * (signal(7)): SIGRTMIN is 34 with glibc, 35 with musl.
 * Stores the signal number in *signo.  0 is accepted (the null signal of
 * kill(2)); callers that do not want it must reject it.
 * Returns 0, or -EINVAL for an unknown name or a number out of range.
 */
int runx_signal_parse(const char *text, int *signo);

/*
 * True for the signals runx catches and forwards to the scope (runx(1),
 * STOPPING): HUP INT QUIT TERM USR1 USR2 ALRM WINCH CONT and the kernel's
 * real-time signals, 32 to 64 (signal(7)), the C library's reserved ones
 * (below its SIGRTMIN) included.  These and the implicit stop signals
 * (sigmask.h) can be --stop-signals.  No errors.
 */
bool runx_signal_is_handled(int signo);

/*
 * True if a process can die by signal signo (1-64): its default action
 * ends the process (signal(7), "Standard signals"; every real-time signal
 * does).  False for STOP TSTP TTIN TTOU (default: stop), CONT (continue),
 * CHLD URG WINCH (ignore): no process dies by them, whatever its
 * handlers, so no wait status names them.  No errors.
 */
bool runx_signal_can_end(int signo);

/*
 * Writes the name of signal number signo with the "SIG" prefix
 * ("SIGTERM", "SIGRTMIN+2"), or its number for one without a name, into buf
 * (at most size bytes with the NUL).  Returns buf.
 */
const char *runx_signal_name(int signo, char *buf, size_t size);

#endif
