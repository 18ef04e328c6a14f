/*
 * The signals runx sent in one attempt, for -v's companion, the report's
 * signals_sent and signals_omitted (runx(1), REPORT).  Fixed in size, so
 * that a result can be copied and kept per attempt: the first
 * RUNX_SIGNALS_HEAD signals of any kind; after those, only a stop's own
 * signals (not the merely forwarded ones, whose burst cannot push them
 * out): the first RUNX_SIGNALS_STOP_FIRST, then the latest
 * RUNX_SIGNALS_STOP_LAST in a ring.  Listed in the order sent; what is
 * not listed is counted.  No I/O, no allocation.
 */
#ifndef RUNX_SIGNAL_LOG_H
#define RUNX_SIGNAL_LOG_H

#include <stdbool.h>
#include <stdint.h>

#define RUNX_SIGNALS_HEAD	32
#define RUNX_SIGNALS_STOP_FIRST 16
#define RUNX_SIGNALS_STOP_LAST	16

/* One signal runx sent. */
struct runx_signal_event {
	int64_t offset_ns; /* since the command started */
	int signo;
	int reached;	 /* processes it reached */
	bool to_command; /* forwarded to the command alone (--forward-to) */
};

/* Zeroed: empty. */
struct runx_signal_log {
	struct runx_signal_event head[RUNX_SIGNALS_HEAD];
	struct runx_signal_event first[RUNX_SIGNALS_STOP_FIRST];
	struct runx_signal_event last[RUNX_SIGNALS_STOP_LAST];
	int nhead, nfirst;
	int64_t nlast;		   /* a stop's signals past first[], all */
	int64_t forwarded_omitted; /* forwarded ones past head[] */
};

/*
 * Adds e (copied) to l: forwarded says whether runx only forwarded it
 * (not a stop's first signal, SIGCONT, newcomers' signal, SIGKILL or a
 * job-control SIGSTOP).  No errors: what does not fit is counted.
 */
void runx_signal_log_add(struct runx_signal_log *l,
			 const struct runx_signal_event *e, bool forwarded);

/* How many signals l lists (at most the three parts' sizes together). */
int runx_signal_log_listed(const struct runx_signal_log *l);

/* The i-th listed signal, 0 <= i < runx_signal_log_listed(l), in the
 * order sent. */
const struct runx_signal_event *
runx_signal_log_at(const struct runx_signal_log *l, int i);

/* How many signals were sent and are not listed. */
int64_t runx_signal_log_omitted(const struct runx_signal_log *l);

#endif
