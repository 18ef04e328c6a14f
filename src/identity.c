/* The passwd and group reader, and the identity steps of the child. */
#include "config.h"

#include "identity.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "syscalls.h"

#ifndef PR_SET_NO_NEW_PRIVS
#define PR_SET_NO_NEW_PRIVS 38
#endif

/* The most fields a line of passwd(5) (7) or group(5) (4) has. */
#define FIELDS_MAX 7

static const struct {
	const char *name;
	int resource;
} rlimit_names[] = {
    {"as", RLIMIT_AS},
    {"core", RLIMIT_CORE},
    {"cpu", RLIMIT_CPU},
    {"data", RLIMIT_DATA},
    {"fsize", RLIMIT_FSIZE},
    {"memlock", RLIMIT_MEMLOCK},
    {"msgqueue", RLIMIT_MSGQUEUE},
    {"nice", RLIMIT_NICE},
    {"nofile", RLIMIT_NOFILE},
    {"nproc", RLIMIT_NPROC},
    {"rss", RLIMIT_RSS},
    {"rtprio", RLIMIT_RTPRIO},
    {"rttime", RLIMIT_RTTIME},
    {"sigpending", RLIMIT_SIGPENDING},
    {"stack", RLIMIT_STACK},
};

int runx_rlimit_lookup(const char *name)
{
	for (size_t i = 0; i < sizeof(rlimit_names) / sizeof(*rlimit_names);
	     i++)
		if (strcmp(rlimit_names[i].name, name) == 0)
			return rlimit_names[i].resource;
	return -1;
}

const char *runx_rlimit_name(int resource)
{
	for (size_t i = 0; i < sizeof(rlimit_names) / sizeof(*rlimit_names);
	     i++)
		if (rlimit_names[i].resource == resource)
			return rlimit_names[i].name;
	return "?";
}

bool runx_identity_any(const struct runx_identity *id)
{
	return id->nrlimits > 0 || id->umask >= 0 || id->chdir != NULL ||
	       id->set_user || id->no_new_privs;
}

int runx_id_parse(const char *text, unsigned int *id)
{
	uint64_t v = 0;
	const char *s = text;

	if (*s == '\0')
		return -EINVAL;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v >= UINT32_MAX) /* (uid_t)-1 is no id */
			return -EINVAL;
	}
	*id = (unsigned int)v;
	return 0;
}

/* Splits line (its newline removed) at ':' into at most FIELDS_MAX
 * fields; the number of fields, or 0 for a line that is no entry. */
static int split(char *line, char **field)
{
	int n = 0;
	char *s = line;

	line[strcspn(line, "\n")] = '\0';
	if (*line == '\0' || *line == '#' || *line == '+' || *line == '-' ||
	    *line == ':')
		return 0;
	for (;;) {
		if (n == FIELDS_MAX)
			return n; /* the rest is not read */
		field[n++] = s;
		s = strchr(s, ':');
		if (s == NULL)
			return n;
		*s++ = '\0';
	}
}

/* Called for each entry of a file; returns 0 to go on, else stops. */
typedef int entry_fn(char **field, int nfields, void *ctx);

/*
 * Calls fn for each entry line of the file at path (getline(3): lines of
 * any length; a last line without a newline counts).  Returns what fn
 * stopped with, 0 at the end, or -errno of the file.
 */
static int each_entry(const char *path, entry_fn *fn, void *ctx)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, *field[FIELDS_MAX];
	size_t cap = 0;
	int r = 0;

	if (f == NULL)
		return -errno;
	errno = 0;
	while (r == 0 && getline(&line, &cap, f) >= 0) {
		int n = split(line, field);

		if (n > 0)
			r = fn(field, n, ctx);
	}
	if (r == 0 && ferror(f))
		r = -(errno != 0 ? errno : EIO);
	free(line);
	fclose(f);
	return r;
}

struct passwd_query {
	const char *name; /* or NULL: by uid */
	uid_t uid;
	struct runx_passwd_entry *e;
};

/* One passwd line: 1 when it is the entry asked for (then copied). */
static int passwd_match(char **field, int n, void *ctx)
{
	struct passwd_query *q = ctx;
	unsigned int uid, gid;
	const char *home;

	if (n < 6 || runx_id_parse(field[2], &uid) < 0 ||
	    runx_id_parse(field[3], &gid) < 0)
		return 0;
	if (q->name != NULL ? strcmp(field[0], q->name) != 0 : uid != q->uid)
		return 0;
	home = field[5][0] != '\0' ? field[5] : "/";
	if (strlen(field[0]) >= sizeof(q->e->name) ||
	    strlen(home) >= sizeof(q->e->home))
		return -ENAMETOOLONG; /* the entry, not one found later */
	strcpy(q->e->name, field[0]);
	strcpy(q->e->home, home);
	q->e->uid = uid;
	q->e->gid = gid;
	return 1;
}

int runx_passwd_lookup(const char *path, const char *name, uid_t uid,
		       struct runx_passwd_entry *e)
{
	struct passwd_query q = {name, uid, e};

	return each_entry(path, passwd_match, &q);
}

struct group_query {
	const char *name;
	gid_t gid;
};

/* One group line: 1 when it is the group asked for. */
static int group_match(char **field, int n, void *ctx)
{
	struct group_query *q = ctx;
	unsigned int gid;

	if (n < 3 || runx_id_parse(field[2], &gid) < 0 ||
	    strcmp(field[0], q->name) != 0)
		return 0;
	q->gid = gid;
	return 1;
}

int runx_group_lookup(const char *path, const char *name, gid_t *gid)
{
	struct group_query q = {name, 0};
	int r = each_entry(path, group_match, &q);

	if (r == 1)
		*gid = q.gid;
	return r;
}

struct group_list {
	const char *user;
	gid_t *groups;
	size_t max, n;
};

/* True if the comma list members names user. */
static bool is_member(const char *members, const char *user)
{
	size_t len = strlen(user);

	for (const char *s = members; *s != '\0';) {
		size_t m = strcspn(s, ",");

		if (m == len && strncmp(s, user, len) == 0)
			return true;
		s += m;
		if (*s == ',')
			s++;
	}
	return false;
}

/* Adds gid to the list once; -E2BIG when it is full. */
static int add_group(struct group_list *l, gid_t gid)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->groups[i] == gid)
			return 0;
	if (l->n == l->max)
		return -E2BIG;
	l->groups[l->n++] = gid;
	return 0;
}

/* One group line: its gid joins the list if it names the user. */
static int group_names_user(char **field, int n, void *ctx)
{
	struct group_list *l = ctx;
	unsigned int gid;

	if (n < 4 || runx_id_parse(field[2], &gid) < 0 ||
	    !is_member(field[3], l->user))
		return 0;
	return add_group(l, gid);
}

int runx_group_list(const char *path, const char *user, gid_t primary,
		    gid_t *groups, size_t max, size_t *n)
{
	struct group_list l = {user, groups, max, 0};
	int r = add_group(&l, primary);

	if (r == 0)
		r = each_entry(path, group_names_user, &l);
	*n = l.n;
	return r;
}

/* setrlimit(2) of each setting, umask(2), chdir(2); 0 or -1 (errno). */
static int apply_settings(const struct runx_identity *id, const char **step)
{
	for (int i = 0; i < id->nrlimits; i++)
		if (setrlimit(id->rlimits[i].resource, &id->rlimits[i].rl) <
		    0) {
			*step = "setrlimit";
			return -1;
		}
	if (id->umask >= 0)
		umask((mode_t)id->umask);
	if (id->chdir != NULL && chdir(id->chdir) < 0) {
		*step = "chdir";
		return -1;
	}
	return 0;
}

/* capget(2), version 3 (_LINUX_CAPABILITY_VERSION_3): two words each. */
struct caps {
	uint32_t effective, permitted, inheritable;
};

/* This process's capability sets into data; 0 or -1 (errno). */
static int get_caps(struct caps data[2])
{
	struct {
		uint32_t version;
		int pid;
	} head = {0x20080522, 0};

	return (int)syscall(SYS_capget, &head, data);
}

bool runx_capable(int cap)
{
	struct caps data[2];

	if (cap < 0 || cap >= 64 || get_caps(data) < 0)
		return false;
	return (data[cap / 32].effective >> (cap % 32)) & 1;
}

/* True if the effective or permitted set is not empty (or unknown). */
static bool has_capabilities(void)
{
	struct caps data[2];

	if (get_caps(data) < 0)
		return true; /* cannot tell: do not run the command */
	return (data[0].effective | data[1].effective | data[0].permitted |
		data[1].permitted) != 0;
}

/* 32-bit ids: where the plain calls take 16-bit ones (i386, arm), the
 * kernel has *32 variants (syscalls(2)). */
#ifdef SYS_setresuid32
#define SYS_SETGROUPS SYS_setgroups32
#define SYS_SETRESGID SYS_setresgid32
#define SYS_SETRESUID SYS_setresuid32
#else
#define SYS_SETGROUPS SYS_setgroups
#define SYS_SETRESGID SYS_setresgid
#define SYS_SETRESUID SYS_setresuid
#endif

/*
 * The drop: groups, then gids, then uids (a uid left root last so the
 * first two are still allowed), each a raw system call.
 */
static int drop(const struct runx_identity *id, const char **step)
{
	*step = "setgroups";
	if (syscall(SYS_SETGROUPS, id->ngroups, id->groups) < 0)
		return -1;
	*step = "setresgid";
	if (syscall(SYS_SETRESGID, id->gid, id->gid, id->gid) < 0)
		return -1;
	*step = "setresuid";
	if (syscall(SYS_SETRESUID, id->uid, id->uid, id->uid) < 0)
		return -1;
	*step = "capget";
	if (id->uid != 0 && has_capabilities()) {
		errno =
		    EPERM; /* SECBIT_NO_SETUID_FIXUP or KEEP_CAPS kept them */
		return -1;
	}
	return 0;
}

int runx_identity_apply(const struct runx_identity *id, pid_t parent,
			const char **step)
{
	if (apply_settings(id, step) < 0)
		return -1;
	if (id->set_user) {
		if (drop(id, step) < 0)
			return -1;
		*step = "prctl(PR_SET_PDEATHSIG)";
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
			return -1;
		if (getppid() != parent) {
			errno = ESRCH;
			return -1;
		}
	}
	*step = "prctl(PR_SET_NO_NEW_PRIVS)";
	if (id->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return 0;
}
