/*
 * A set of processes, each one incarnation (pid and start time), with a
 * hash index by pid: the processes a stop's signal reached.  And plain
 * bitmaps of pids, for the walks that pass over pids known unchanged.
 */
#include "config.h"

#include "pidset.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

bool runx_pidbits_has(const struct runx_pidbits *b, pid_t pid)
{
	return pid > 0 && (size_t)pid / 8 < b->size &&
	       (b->bits[pid / 8] & (1u << (pid % 8))) != 0;
}

int runx_pidbits_add(struct runx_pidbits *b, pid_t pid)
{
	size_t need = (size_t)pid / 8 + 1;

	if (need > b->size) {
		size_t size = b->size * 2 > need ? b->size * 2 : need + 4096;
		unsigned char *bits = realloc(b->bits, size);
		if (bits == NULL)
			return -ENOMEM;
		memset(bits + b->size, 0, size - b->size);
		b->bits = bits;
		b->size = size;
	}
	b->bits[pid / 8] |= (unsigned char)(1u << (pid % 8));
	return 0;
}

void runx_pidbits_forget(struct runx_pidbits *b, pid_t pid)
{
	if (b != NULL && runx_pidbits_has(b, pid))
		b->bits[pid / 8] &= (unsigned char)~(1u << (pid % 8));
}

void runx_pidbits_forget_range(struct runx_pidbits *b, long lo, long hi)
{
	long top = (long)(b->size * 8) - 1; /* the largest pid b can hold */

	if (lo < 0)
		lo = 0;
	if (hi > top)
		hi = top;
	/* bit by bit up to a whole byte, then bytes, then the last bits */
	long p = lo + 1;
	for (; p <= hi && p % 8 != 0; p++)
		runx_pidbits_forget(b, (pid_t)p);
	if (hi - p + 1 >= 8) {
		size_t bytes = (size_t)(hi - p + 1) / 8;
		memset(b->bits + p / 8, 0, bytes);
		p += (long)bytes * 8;
	}
	for (; p <= hi; p++)
		runx_pidbits_forget(b, (pid_t)p);
}

void runx_pidbits_clear(struct runx_pidbits *b)
{
	if (b->bits != NULL)
		memset(b->bits, 0, b->size);
}

void runx_pidbits_free(struct runx_pidbits *b)
{
	free(b->bits);
	*b = (struct runx_pidbits){NULL, 0};
}
