/*
 * A set of processes, each one incarnation (pid and start time), with a
 * hash index by pid: the processes a stop's signal reached.
 */
#include "config.h"

#include "pidset.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "proc.h"

/* The first slot to probe for pid (Fibonacci hashing). */
static size_t slot_of(const struct runx_pidset *set, pid_t pid)
{
	return ((size_t)(uint32_t)pid * 2654435761u) & (set->nslots - 1);
}

/* Puts entry number i into the first free slot of its probe sequence. */
static void place(struct runx_pidset *set, size_t i)
{
	size_t k = slot_of(set, set->v[i].pid);

	while (set->slot[k] != 0)
		k = (k + 1) & (set->nslots - 1);
	set->slot[k] = i + 1;
}

/* Rebuilds the hash index with nslots slots; 0 or -ENOMEM. */
static int reindex(struct runx_pidset *set, size_t nslots)
{
	size_t *slot = calloc(nslots, sizeof(*slot));

	if (slot == NULL)
		return -ENOMEM;
	free(set->slot);
	set->slot = slot;
	set->nslots = nslots;
	for (size_t i = 0; i < set->n; i++)
		place(set, i);
	return 0;
}

struct runx_pidset_entry *runx_pidset_find(const struct runx_pidset *set,
					   const struct runx_proc_stat *p)
{
	if (set->nslots == 0)
		return NULL;
	for (size_t k = slot_of(set, p->pid); set->slot[k] != 0;
	     k = (k + 1) & (set->nslots - 1)) {
		struct runx_pidset_entry *e = &set->v[set->slot[k] - 1];
		if (e->pid == p->pid && e->start_time == p->start_time)
			return e;
	}
	return NULL;
}

bool runx_pidset_has(const struct runx_pidset *set,
		     const struct runx_proc_stat *p)
{
	return runx_pidset_find(set, p) != NULL;
}

int runx_pidset_add(struct runx_pidset *set, const struct runx_proc_stat *p,
		    bool fork_copy)
{
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 64;
		struct runx_pidset_entry *v = realloc(set->v, cap * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		set->v = v;
		set->cap = cap;
	}
	if (2 * (set->n + 1) > set->nslots &&
	    reindex(set, set->nslots ? set->nslots * 2 : 128) < 0)
		return -ENOMEM;
	set->v[set->n] = (struct runx_pidset_entry){
	    p->pid, p->start_time, p->start_stack, p->arg_start, fork_copy};
	place(set, set->n++);
	return 0;
}

int runx_pidset_remember(struct runx_pidset *set,
			 const struct runx_proc_stat *p, bool fork_copy)
{
	struct runx_pidset_entry *e = runx_pidset_find(set, p);

	if (e == NULL)
		return runx_pidset_add(set, p, fork_copy);
	e->start_stack = p->start_stack;
	e->arg_start = p->arg_start;
	e->fork_copy = fork_copy;
	return 0;
}

void runx_pidset_free(struct runx_pidset *set)
{
	free(set->v);
	free(set->slot);
	*set = (struct runx_pidset){NULL, 0, 0, NULL, 0};
}
