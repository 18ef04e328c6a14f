/*
 * The command's identity and settings (runx(1), IDENTITY AND SETTINGS):
 * the user and groups it runs as, its resource limits, umask, working
 * directory and no_new_privs; the /etc/passwd and /etc/group reader that
 * finds them (runx reads the files itself: the static binary has no NSS),
 * and the steps that apply them in the child, just before execve(2).
 */
#ifndef RUNX_IDENTITY_H
#define RUNX_IDENTITY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

/* The resources --rlimit names: one setting each at most. */
#define RUNX_RLIMITS_MAX 16
/* The supplementary groups runx gives the command at most. */
#define RUNX_GROUPS_MAX 1024
/* The longest user name runx takes (useradd's limit is 32). */
#define RUNX_NAME_MAX 256

/* One --rlimit: RES=SOFT[:HARD], values in setrlimit(2)'s units. */
struct runx_rlimit_setting {
	int resource;	  /* RLIMIT_NOFILE, ... */
	struct rlimit rl; /* rlim_cur SOFT, rlim_max HARD; RLIM_INFINITY */
};

/* What the child does between its scope and execve(2), in this order. */
struct runx_identity {
	int nrlimits; /* --rlimit settings, 0..RUNX_RLIMITS_MAX */
	struct runx_rlimit_setting rlimits[RUNX_RLIMITS_MAX];
	int umask;	   /* --umask, 0..0777; -1: runx's own */
	const char *chdir; /* --chdir; NULL: runx's own directory */
	bool set_user;	   /* --user: setgroups, setresgid, setresuid */
	uid_t uid;	   /* with set_user */
	gid_t gid;	   /* with set_user */
	size_t ngroups;	   /* supplementary groups, with set_user */
	gid_t groups[RUNX_GROUPS_MAX];
	bool has_entry; /* the user has a passwd entry */
	/* with set_user, "NAME=value" in place of runx's own NAME; just
	 * "NAME=": NAME is removed (a number without an entry: HOME=/) */
	char env_home[PATH_MAX + 8];
	char env_user[RUNX_NAME_MAX + 8];
	char env_logname[RUNX_NAME_MAX + 8];
	bool no_new_privs; /* --no-new-privs */
};

/*
 * The resource --rlimit calls name (ulimit's names: as, core, cpu, data,
 * fsize, memlock, msgqueue, nice, nofile, nproc, rss, rtprio, rttime,
 * sigpending, stack): RLIMIT_*, or -1 for an unknown name.
 */
int runx_rlimit_lookup(const char *name);

/* The name of resource (an RLIMIT_* that runx_rlimit_lookup() gives). */
const char *runx_rlimit_name(int resource);

/* True if id asks anything of the child (so runx's code must run there). */
bool runx_identity_any(const struct runx_identity *id);

/*
 * True if capability cap (CAP_SETUID, ...) is in runx's effective set
 * (capget(2), version 3; false where capget fails).
 */
bool runx_capable(int cap);

/* A passwd(5) entry, the fields runx uses. */
struct runx_passwd_entry {
	char name[RUNX_NAME_MAX];
	uid_t uid;
	gid_t gid;
	char home[PATH_MAX]; /* "/" where the field is empty */
};

/*
 * A user or group id: decimal digits only, 0 to 4294967294 (-1 is the
 * "no change" of setresuid(2), never an id).  0 or -EINVAL.
 */
int runx_id_parse(const char *text, unsigned int *id);

/*
 * Looks up name (by_name) or uid (else) in the passwd(5) file at path:
 * lines "name:password:uid:gid:gecos:home:shell".  Comments ('#'), empty
 * lines, NIS lines ('+', '-'), lines with an empty name, fewer than 6
 * fields, or a bad uid or gid are skipped; lines of any length are read;
 * the first matching entry wins.  Returns 1 with *e filled, 0 if there is
 * none, -ENAMETOOLONG if that entry's name or home is too long for *e
 * (RUNX_NAME_MAX, PATH_MAX bytes with the NUL), or -errno of reading the
 * file (-ENOENT: it does not exist; -ENOMEM).
 */
int runx_passwd_lookup(const char *path, const char *name, uid_t uid,
		       struct runx_passwd_entry *e);

/*
 * The gid of group name in the group(5) file at path ("name:password:
 * gid:member,member,..."; skipped lines as for passwd).  Returns 1 with
 * *gid set, 0 if there is none, or -errno of reading the file.
 */
int runx_group_lookup(const char *path, const char *name, gid_t *gid);

/*
 * The groups of user (a name) as initgroups(3) gives them: primary, then
 * each group of the file at path that lists user as a member, in file
 * order, each gid once.  At most max into groups, *n their number.
 * Returns 0, -E2BIG if there are more than max, or -errno of reading the
 * file (a missing file: -ENOENT, and *n = 1, the primary group).
 */
int runx_group_list(const char *path, const char *user, gid_t primary,
		    gid_t *groups, size_t max, size_t *n);

/*
 * In the child, after it was placed in its scope and before execve(2):
 * setrlimit(2) of each setting, umask(2), chdir(2), then with set_user
 * setgroups(2), setresgid(2), setresuid(2) as raw system calls (glibc's
 * wrappers would signal the threads of the process, which a
 * clone(CLONE_VM) child shares with runx; nptl(7)), each result checked,
 * and a check that a non-root user kept no capability (capget(2): the
 * kernel clears them when every uid leaves 0, capabilities(7)); then
 * PR_SET_PDEATHSIG SIGKILL again (a change of credentials clears it,
 * prctl(2)) and the check that parent is still the parent; then
 * PR_SET_NO_NEW_PRIVS.  Async-signal-safe.  Returns 0, or -1 with errno
 * set and *step naming the step that failed ("setresuid", ...).
 */
int runx_identity_apply(const struct runx_identity *id, pid_t parent,
			const char **step);

#endif
