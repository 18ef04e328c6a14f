/* Sets of process incarnations (pid and start time), indexed by pid. */
#ifndef RUNX_PIDSET_H
#define RUNX_PIDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * A set of processes, each one incarnation: pid and start time.  A stop's
 * scopes remember in one the processes a catchable signal reached, and
 * whether it reached them while they were still an unexec'd copy of their
 * parent (see runx_resend_after_exec(), runx_reach_again()).
 */
struct runx_pidset_entry {
	pid_t pid;
	unsigned long long start_time; /* /proc/PID/stat field 22, or 0 */
	unsigned long long start_stack, arg_start; /* the image then */
	bool fork_copy; /* signalled where its next execve(2) needs the
			 * signal again (runx_resend_after_exec()) */
};

struct runx_pidset {
	struct runx_pidset_entry *v;
	size_t n, cap;
	size_t *slot;  /* hash index by pid: entry number + 1, 0 = free */
	size_t nslots; /* a power of two, at least twice n (or 0) */
};

struct runx_proc_stat;

/* This incarnation (pid and start time) of p in set, or NULL. */
struct runx_pidset_entry *runx_pidset_find(const struct runx_pidset *set,
					   const struct runx_proc_stat *p);

/* True if set holds this incarnation (pid and start time) of p. */
bool runx_pidset_has(const struct runx_pidset *set,
		     const struct runx_proc_stat *p);

/*
 * Adds p to set (fork_copy: a signal reaches it before its execve(2));
 * 0 or -ENOMEM.
 */
int runx_pidset_add(struct runx_pidset *set, const struct runx_proc_stat *p,
		    bool fork_copy);

/*
 * Adds p to set, or, if set holds this incarnation already, records its
 * image and fork_copy mark anew (a signal reached it again); 0 or -ENOMEM.
 */
int runx_pidset_remember(struct runx_pidset *set,
			 const struct runx_proc_stat *p, bool fork_copy);

/* Frees the set's memory and empties it. */
void runx_pidset_free(struct runx_pidset *set);

/*
 * A plain set of pids: one bit per pid, in a bitmap that grows to the
 * largest pid added (pid_max / 8 bytes at most: 512 KiB for the 64-bit
 * kernel's largest, 4,194,304).  {NULL, 0} is the empty set.
 */
struct runx_pidbits {
	unsigned char *bits;
	size_t size; /* bytes */
};

/* True if pid (> 0) is in b. */
bool runx_pidbits_has(const struct runx_pidbits *b, pid_t pid);

/* Adds pid (> 0) to b, growing the bitmap; 0 or -ENOMEM (b unchanged). */
int runx_pidbits_add(struct runx_pidbits *b, pid_t pid);

/* Takes pid out of b, if it is there; b NULL: nothing. */
void runx_pidbits_forget(struct runx_pidbits *b, pid_t pid);

/* Takes every pid p with lo < p <= hi out of b (none if hi <= lo). */
void runx_pidbits_forget_range(struct runx_pidbits *b, long lo, long hi);

/* Empties b, keeping its memory. */
void runx_pidbits_clear(struct runx_pidbits *b);

/* Frees b's memory: the empty set {NULL, 0}. */
void runx_pidbits_free(struct runx_pidbits *b);

#endif
