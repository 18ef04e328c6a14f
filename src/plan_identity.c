/*
 * The identity part of the plan (plan.h, runx_plan_identity()): every
 * check of --user, --rlimit, --chdir, --umask and --no-new-privs that can
 * be made before anything starts.
 */
#include "config.h"

#include "plan.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

#ifndef CAP_SETGID
#define CAP_SETGID 6
#endif
#ifndef CAP_SETUID
#define CAP_SETUID 7
#endif
#ifndef CAP_SYS_RESOURCE
#define CAP_SYS_RESOURCE 24
#endif

/* What --user is being planned from, and where the message goes. */
struct user_query {
	const struct runx_plan_probes *pr;
	const char *given; /* --user's whole value */
	char *err;
	size_t errsize;
};

/* A lookup in a passwd or group file that found nothing, or failed. */
static int not_found(const struct user_query *q, const char *what,
		     const char *value, const char *file, int r)
{
	char qv[RUNX_QUOTE_SIZE], qf[RUNX_QUOTE_SIZE];

	runx_quote(file, qf, sizeof(qf));
	if (r < 0 && r != -ENOENT)
		return runx_plan_refuse(
		    q->err, q->errsize, r,
		    "--user: cannot read '%s' to find %s '%s': %s", qf, what,
		    runx_quote(value, qv, sizeof(qv)), strerror(-r));
	/* a number runx_id_parse() refused: out of range, or signed */
	const char *digits = value + (value[0] == '-');
	bool number =
	    *digits != '\0' && digits[strspn(digits, "0123456789")] == '\0';
	return runx_plan_refuse(q->err, q->errsize, -ENOENT,
				"--user: unknown %s '%s' (%s '%s'%s%s%s)", what,
				runx_quote(value, qv, sizeof(qv)),
				r < 0 ? "there is no" : "not in", qf,
				number ? "; a " : "", number ? what : "",
				number ? " id is 0 to 4294967294" : "");
}

/* USER (a number or a name) into id, with its entry's HOME etc. */
static int plan_user_entry(const struct user_query *q, const char *user,
			   struct runx_identity *id,
			   struct runx_passwd_entry *e)
{
	unsigned int uid = 0;
	bool number = runx_id_parse(user, &uid) == 0;
	int r = runx_passwd_lookup(q->pr->passwd, number ? NULL : user,
				   number ? uid : 0, e);

	if (r == -ENAMETOOLONG) {
		char qv[RUNX_QUOTE_SIZE], qf[RUNX_QUOTE_SIZE];
		return runx_plan_refuse(
		    q->err, q->errsize, r,
		    "--user: the entry of user '%s' in '%s' is too long for "
		    "runx (a name of %d bytes or more, or a home of %d or "
		    "more)",
		    runx_quote(user, qv, sizeof(qv)),
		    runx_quote(q->pr->passwd, qf, sizeof(qf)), RUNX_NAME_MAX,
		    PATH_MAX);
	}
	if (r < 0 && !(number && r == -ENOENT))
		return not_found(q, "user", user, q->pr->passwd, r);
	if (r == 0 && !number)
		return not_found(q, "user", user, q->pr->passwd, 0);
	id->set_user = true;
	id->has_entry = r == 1;
	id->uid = number ? uid : e->uid;
	id->gid = id->has_entry ? e->gid : uid; /* no entry: same number */
	if (!id->has_entry) { /* runx's own would name another user */
		strcpy(id->env_home, "HOME=/");
		strcpy(id->env_user, "USER=");
		strcpy(id->env_logname, "LOGNAME=");
		return 0;
	}
	snprintf(id->env_home, sizeof(id->env_home), "HOME=%s", e->home);
	snprintf(id->env_user, sizeof(id->env_user), "USER=%s", e->name);
	snprintf(id->env_logname, sizeof(id->env_logname), "LOGNAME=%s",
		 e->name);
	return 0;
}

/* GROUP (a number or a name) into id->gid. */
static int plan_group(const struct user_query *q, const char *group,
		      struct runx_identity *id)
{
	unsigned int gid;
	int r;

	if (runx_id_parse(group, &gid) == 0) {
		id->gid = gid;
		return 0;
	}
	r = runx_group_lookup(q->pr->group, group, &id->gid);
	if (r != 1)
		return not_found(q, "group", group, q->pr->group, r);
	return 0;
}

/* The supplementary groups of a user with an entry (initgroups(3)). */
static int plan_groups(const struct user_query *q, const char *name,
		       struct runx_identity *id)
{
	char qf[RUNX_QUOTE_SIZE];
	int r = runx_group_list(q->pr->group, name, id->gid, id->groups,
				RUNX_GROUPS_MAX, &id->ngroups);

	if (r == -E2BIG)
		return runx_plan_refuse(
		    q->err, q->errsize, r,
		    "--user: '%s' is in more than %d groups", name,
		    RUNX_GROUPS_MAX);
	if (r < 0 && r != -ENOENT)
		return runx_plan_refuse(
		    q->err, q->errsize, r, "--user: cannot read '%s': %s",
		    runx_quote(q->pr->group, qf, sizeof(qf)), strerror(-r));
	return 0;
}

/* Splits USER[:GROUP] at its first colon into user and *group. */
static int split_user(const struct user_query *q, char *user, size_t size,
		      const char **group)
{
	char qv[RUNX_QUOTE_SIZE];
	size_t len = strcspn(q->given, ":");

	*group = q->given[len] == ':' ? q->given + len + 1 : NULL;
	if (len == 0)
		return runx_plan_refuse(
		    q->err, q->errsize, -EINVAL,
		    *group != NULL
			? "--user='%s': a GROUP needs a USER (USER:GROUP)"
			: "--user='%s': empty user name",
		    runx_quote(q->given, qv, sizeof(qv)));
	if (*group != NULL && **group == '\0')
		return runx_plan_refuse(
		    q->err, q->errsize, -EINVAL,
		    "--user='%s': empty GROUP after the colon",
		    runx_quote(q->given, qv, sizeof(qv)));
	if (len >= size)
		return runx_plan_refuse(
		    q->err, q->errsize, -ENOENT,
		    "--user: unknown user '%s' (longer than any "
		    "user name)",
		    runx_quote(q->given, qv, sizeof(qv)));
	memcpy(user, q->given, len);
	user[len] = '\0';
	return 0;
}

/* --user=USER[:GROUP]: who the command runs as. */
static int plan_user(const struct user_query *q, struct runx_identity *id)
{
	struct runx_passwd_entry e;
	char user[RUNX_NAME_MAX], qv[RUNX_QUOTE_SIZE];
	const char *group;
	int r;

	if ((r = split_user(q, user, sizeof(user), &group)) < 0 ||
	    (r = plan_user_entry(q, user, id, &e)) < 0 ||
	    (group != NULL && (r = plan_group(q, group, id)) < 0) ||
	    (id->has_entry && (r = plan_groups(q, e.name, id)) < 0))
		return r;
	bool uid_ok = q->pr->capable(CAP_SETUID),
	     gid_ok = q->pr->capable(CAP_SETGID);
	if (!uid_ok || !gid_ok)
		return runx_plan_refuse(
		    q->err, q->errsize, -EPERM,
		    "--user='%s': runx is not allowed to change "
		    "identity (it runs as uid %u without %s)",
		    runx_quote(q->given, qv, sizeof(qv)), (unsigned)geteuid(),
		    !uid_ok && !gid_ok ? "CAP_SETUID and CAP_SETGID"
		    : !uid_ok	       ? "CAP_SETUID"
				       : "CAP_SETGID");
	return 0;
}

/* The text of a limit value for a message. */
static const char *rlim_text(rlim_t v, char *buf, size_t size)
{
	if (v == RLIM_INFINITY)
		return "unlimited";
	snprintf(buf, size, "%llu", (unsigned long long)v);
	return buf;
}

/* One --rlimit: SOFT not above HARD, HARD not above what runx may set. */
static int plan_rlimit(const struct runx_options *o, int i,
		       const struct runx_plan_probes *pr, char *err,
		       size_t errsize)
{
	const struct runx_rlimit_setting *s = &o->rlimits[i];
	char qv[RUNX_QUOTE_SIZE], now[32];
	struct rlimit cur;
	int r;

	runx_quote(o->rlimit_text[i], qv, sizeof(qv));
	if (s->rl.rlim_cur > s->rl.rlim_max)
		return runx_plan_refuse(err, errsize, -EINVAL,
					"--rlimit='%s': SOFT is above HARD",
					qv);
	if ((r = pr->getrlimit(s->resource, &cur)) < 0)
		return runx_plan_refuse(
		    err, errsize, r,
		    "--rlimit='%s': cannot read runx's own limit: "
		    "%s",
		    qv, strerror(-r));
	if (s->rl.rlim_max > cur.rlim_max && !pr->capable(CAP_SYS_RESOURCE))
		return runx_plan_refuse(
		    err, errsize, -EPERM,
		    "--rlimit='%s': HARD is above runx's own hard "
		    "limit (%s), which only CAP_SYS_RESOURCE may "
		    "raise",
		    qv, rlim_text(cur.rlim_max, now, sizeof(now)));
	return 0;
}

/* --chdir=DIR: a directory, seen from runx's own directory. */
static int plan_chdir(const char *dir, const struct runx_plan_probes *pr,
		      char *err, size_t errsize)
{
	char qv[RUNX_QUOTE_SIZE];
	int r = pr->is_dir(dir);

	if (r < 0)
		return runx_plan_refuse(err, errsize, r, "--chdir='%s': %s",
					runx_quote(dir, qv, sizeof(qv)),
					strerror(-r));
	return 0;
}

int runx_plan_identity(const struct runx_options *opts,
		       const struct runx_plan_probes *probes,
		       struct runx_identity *id, char *err, size_t errsize)
{
	const struct user_query q = {probes, opts->user, err, errsize};
	int r;

	memset(id, 0, sizeof(*id));
	id->umask = opts->umask;
	id->no_new_privs = opts->no_new_privs;
	id->nrlimits = opts->nrlimits;
	memcpy(id->rlimits, opts->rlimits, sizeof(id->rlimits));
	for (int i = 0; i < opts->nrlimits; i++)
		if ((r = plan_rlimit(opts, i, probes, err, errsize)) < 0)
			return r;
	if (opts->chdir_path != NULL &&
	    (r = plan_chdir(opts->chdir_path, probes, err, errsize)) < 0)
		return r;
	id->chdir = opts->chdir_path;
	if (opts->user != NULL && (r = plan_user(&q, id)) < 0)
		return r;
	return 0;
}
