/* The signals of an attempt, head and tail kept (signal_log.h). */
#include "config.h"

#include "signal_log.h"

void runx_signal_log_add(struct runx_signal_log *l,
			 const struct runx_signal_event *e, bool forwarded)
{
	if (l->nhead < RUNX_SIGNALS_HEAD)
		l->head[l->nhead++] = *e;
	else if (forwarded)
		l->forwarded_omitted++;
	else if (l->nfirst < RUNX_SIGNALS_STOP_FIRST)
		l->first[l->nfirst++] = *e;
	else
		l->last[l->nlast++ % RUNX_SIGNALS_STOP_LAST] = *e;
}

/* How many of last[] hold a signal. */
static int nlast_listed(const struct runx_signal_log *l)
{
	return l->nlast < RUNX_SIGNALS_STOP_LAST ? (int)l->nlast
						 : RUNX_SIGNALS_STOP_LAST;
}

int runx_signal_log_listed(const struct runx_signal_log *l)
{
	return l->nhead + l->nfirst + nlast_listed(l);
}

const struct runx_signal_event *
runx_signal_log_at(const struct runx_signal_log *l, int i)
{
	if (i < l->nhead)
		return &l->head[i];
	i -= l->nhead;
	if (i < l->nfirst)
		return &l->first[i];
	i -= l->nfirst;
	/* the ring from its oldest: the slot after the newest, once full */
	int64_t oldest = l->nlast - nlast_listed(l);
	return &l->last[(oldest + i) % RUNX_SIGNALS_STOP_LAST];
}

int64_t runx_signal_log_omitted(const struct runx_signal_log *l)
{
	return l->forwarded_omitted + l->nlast - nlast_listed(l);
}
