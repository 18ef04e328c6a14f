/* Signal names and numbers for -s/--signal and for messages. */
#include "config.h"

#include "signals.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sigmask.h"

struct signame {
	const char *name;
	int signo;
};

/* Linux signal(7) names; aliases after the canonical name. */
static const struct signame signames[] = {
    {"HUP", SIGHUP},	   {"INT", SIGINT},	  {"QUIT", SIGQUIT},
    {"ILL", SIGILL},	   {"TRAP", SIGTRAP},	  {"ABRT", SIGABRT},
    {"BUS", SIGBUS},	   {"FPE", SIGFPE},	  {"KILL", SIGKILL},
    {"USR1", SIGUSR1},	   {"SEGV", SIGSEGV},	  {"USR2", SIGUSR2},
    {"PIPE", SIGPIPE},	   {"ALRM", SIGALRM},	  {"TERM", SIGTERM},
    {"STKFLT", SIGSTKFLT}, {"CHLD", SIGCHLD},	  {"CONT", SIGCONT},
    {"STOP", SIGSTOP},	   {"TSTP", SIGTSTP},	  {"TTIN", SIGTTIN},
    {"TTOU", SIGTTOU},	   {"URG", SIGURG},	  {"XCPU", SIGXCPU},
    {"XFSZ", SIGXFSZ},	   {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF},
    {"WINCH", SIGWINCH},   {"IO", SIGIO},	  {"PWR", SIGPWR},
    {"SYS", SIGSYS},	   {"IOT", SIGABRT},	  {"CLD", SIGCHLD},
    {"POLL", SIGPOLL},
};

/* Reads a decimal number that is all of text; -1 if it is not one. */
static long whole_number(const char *text)
{
	long v = 0;

	if (*text == '\0')
		return -1;
	for (; *text != '\0'; text++) {
		if (!isdigit((unsigned char)*text) || v > 1000)
			return -1;
		v = v * 10 + (*text - '0');
	}
	return v;
}

/* "RTMIN", "RTMIN+n", "RTMAX", "RTMAX-n" (name without SIG). */
static int parse_realtime(const char *name, int *signo)
{
	int base, sign;
	long n = 0;

	if (strncasecmp(name, "RTMIN", 5) == 0) {
		base = SIGRTMIN;
		sign = 1;
	} else if (strncasecmp(name, "RTMAX", 5) == 0) {
		base = SIGRTMAX;
		sign = -1;
	} else {
		return -EINVAL;
	}
	name += 5;
	if (*name != '\0') {
		if (*name != (sign > 0 ? '+' : '-'))
			return -EINVAL;
		n = whole_number(name + 1);
		if (n < 0)
			return -EINVAL;
	}
	long v = base + sign * n;
	if (v < SIGRTMIN || v > SIGRTMAX)
		return -EINVAL;
	*signo = (int)v;
	return 0;
}

int runx_signal_parse(const char *text, int *signo)
{
	const char *name = text;
	long n;

	if (text == NULL)
		return -EINVAL;
	n = whole_number(text);
	if (n >= 0) {
		if (n > SIGRTMAX)
			return -EINVAL;
		*signo = (int)n;
		return 0;
	}
	if (strncasecmp(name, "SIG", 3) == 0)
		name += 3;
	for (size_t i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
		if (strcasecmp(name, signames[i].name) == 0) {
			*signo = signames[i].signo;
			return 0;
		}
	return parse_realtime(name, signo);
}

bool runx_signal_is_handled(int signo)
{
	static const int handled[] = {SIGHUP,  SIGINT,	 SIGQUIT,
				      SIGTERM, SIGUSR1,	 SIGUSR2,
				      SIGALRM, SIGWINCH, SIGCONT};

	for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		if (handled[i] == signo)
			return true;
	return signo >= RUNX_KERNEL_SIGRTMIN && signo <= RUNX_KERNEL_SIGRTMAX;
}

bool runx_signal_can_end(int signo)
{
	static const int never[] = {SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU,
				    SIGCONT, SIGCHLD, SIGURG,  SIGWINCH};

	if (signo < 1 || signo > 64)
		return false;
	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		if (never[i] == signo)
			return false;
	return true;
}

const char *runx_signal_name(int signo, char *buf, size_t size)
{
	for (size_t i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
		if (signames[i].signo == signo) {
			snprintf(buf, size, "SIG%s", signames[i].name);
			return buf;
		}
	if (signo >= SIGRTMIN && signo <= SIGRTMAX) {
		if (signo == SIGRTMIN)
			snprintf(buf, size, "SIGRTMIN");
		else if (signo == SIGRTMAX)
			snprintf(buf, size, "SIGRTMAX");
		else if (signo - SIGRTMIN <= SIGRTMAX - signo)
			snprintf(buf, size, "SIGRTMIN+%d", signo - SIGRTMIN);
		else
			snprintf(buf, size, "SIGRTMAX-%d", SIGRTMAX - signo);
		return buf;
	}
	snprintf(buf, size, "%d", signo);
	return buf;
}
