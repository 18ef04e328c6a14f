/*
 * Unit tests of src/plan.h: every decision of the plan, with the machine's
 * answers injected (struct runx_plan_probes), and the report path check
 * (report_file.h) on real files.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "duration.h"
#include "options.h"
#include "plan.h"
#include "report_file.h"

#define MAX_ARGS 16

/* What the fake machine answers. */
static int cgroup_answer;  /* 0 or -errno */
static bool clone3_answer; /* the kernel has clone3 */
static int resolve_answer; /* 0 or -errno */
static int report_answer;  /* 0 or -errno */
static int cgroup_asked;   /* calls, to see what the plan asks */

static int fake_cgroup(char *why, size_t whysize)
{
	cgroup_asked++;
	snprintf(why, whysize, "fake: no cgroup");
	return cgroup_answer;
}

static bool fake_clone3(void)
{
	return clone3_answer;
}

static bool resolve_relative; /* the command is found as fake/bin/NAME */

static int fake_resolve(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/bin/%s", resolve_relative ? "fake" : "/fake",
		 name);
	return resolve_answer;
}

static int fake_report_dir(const char *path)
{
	(void)path;
	return report_answer;
}

static bool capable_answer; /* runx has every capability asked for */
static rlim_t hard_now;	    /* runx's own hard limit, every resource */
static int dir_answer;	    /* --chdir: 0 or -errno */

static bool fake_capable(int cap)
{
	(void)cap;
	return capable_answer;
}

static int fake_getrlimit(int resource, struct rlimit *rl)
{
	(void)resource;
	rl->rlim_cur = rl->rlim_max = hard_now;
	return 0;
}

static int fake_is_dir(const char *path)
{
	(void)path;
	return dir_answer;
}

static char passwd_path[96], group_path[96];

static struct runx_plan_probes fake = {
    .cgroup = fake_cgroup,
    .clone3 = fake_clone3,
    .resolve = fake_resolve,
    .report_dir = fake_report_dir,
    .passwd = passwd_path,
    .group = group_path,
    .capable = fake_capable,
    .getrlimit = fake_getrlimit,
    .is_dir = fake_is_dir,
};

static struct runx_options opts;
static struct runx_plan plan;
static char err[512];

/* A machine where everything works. */
static void setup(void)
{
	cgroup_answer = 0;
	clone3_answer = true;
	resolve_answer = 0;
	report_answer = 0;
	cgroup_asked = 0;
	capable_answer = true;
	hard_now = 1024;
	dir_answer = 0;
	snprintf(passwd_path, sizeof(passwd_path), "/nonexistent/passwd");
	snprintf(group_path, sizeof(group_path), "/nonexistent/group");
	memset(err, 'X', sizeof(err) - 1);
	err[sizeof(err) - 1] = '\0';
}

/* Parses words (NULL-terminated; "cmd" is appended) and plans them. */
static int plan_words(const char *const *words)
{
	static char *argv[MAX_ARGS + 3];
	int argc = 0;
	char oerr[256];

	argv[argc++] = (char *)"runx";
	for (; *words != NULL; words++) {
		ck_assert_int_lt(argc, MAX_ARGS + 1);
		argv[argc++] = (char *)*words;
	}
	argv[argc++] = (char *)"cmd";
	argv[argc] = NULL;
	ck_assert_int_eq(
	    runx_options_parse(argc, argv, &opts, oerr, sizeof(oerr)),
	    RUNX_PARSE_OK);
	return runx_plan_make(&opts, &fake, &plan, err, sizeof(err));
}

/* Combinations the plan refuses, and words of the one-line message. */
static const struct {
	const char *words[6];
	const char *message;
} refused[] = {
    {{"--foreground", "--kill-scope=group"},
     "--foreground keeps the command in runx's process group; it cannot be "
     "combined with --kill-scope=group (use tree, cgroup, child or auto)"},
    {{"--foreground", "-G"}, "--kill-scope=group (use tree"},
    {{"--foreground", "--kill-scope=pidns"}, "--kill-scope=pidns (use tree"},
    {{"--kill-scope=group", "--foreground"}, "--kill-scope=group (use tree"},
    {{"--memory-max=1M", "-G"},
     "--memory-max sets a limit on the job's cgroup; it cannot be combined "
     "with --kill-scope=group"},
    {{"--memory-max=1M", "--kill-scope=tree"}, "--memory-max sets a limit"},
    {{"--kill-scope=group", "--pids-max=5"}, "--pids-max sets a limit"},
    {{"-G", "--cpu-max=1"}, "with --kill-scope=group"},
    {{"--cpu-max=1", "--kill-scope=auto"}, "with --kill-scope=auto"},
    {{"--cpu-max=1", "--kill-scope=child"}, "with --kill-scope=child"},
    {{"--pids-max=5", "--kill-scope=pidns"}, "with --kill-scope=pidns"},
    {{"--pids-max=5", "--memory-max=1M", "--kill-scope=tree"},
     "--pids-max sets a limit on the job's cgroup; it cannot be combined "
     "with --kill-scope=tree"},
    {{"-C", "--pids-max=5", "--kill-scope=tree"}, "with --kill-scope=tree"},
    {{"--attempts=2", "--retry-on=oom", "-G"},
     "--retry-on=oom reads the job's cgroup (memory.events); it cannot be "
     "combined with --kill-scope=group"},
    {{"--kill-scope=tree", "--retry-on=timeout,oom", "--attempts=inf"},
     "--retry-on=oom reads the job's cgroup"},
    {{"--attempts=2", "--retry-on=oom", "--pids-max=5", "--kill-scope=pidns"},
     "--pids-max sets a limit on the job's cgroup"},
    {{"--wait-all", "--kill-scope=child"},
     "--wait-all needs a scope larger than the child (--kill-scope=group, "
     "tree, cgroup or pidns)"},
    {{"--kill-scope=child", "--wait-all"}, "--wait-all needs a scope"},
    {{"-m", "-e", "err.log"},
     "--merge and --stderr='err.log' both say where standard error goes"},
    {{"--stderr=x.log", "--merge"}, "--stderr='x.log'"},
    {{"-m", "-e", "a\nb"},
     "--merge and --stderr='a\\nb' both say where standard error goes"},
};

START_TEST(refused_combinations_name_both_options)
{
	ck_assert_int_eq(plan_words(refused[_i].words), -EINVAL);
	ck_assert_msg(strstr(err, refused[_i].message) != NULL,
		      "message '%s' lacks '%s'", err, refused[_i].message);
	ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

START_TEST(a_refused_combination_asks_the_machine_nothing)
{
	cgroup_answer = -EACCES;
	ck_assert_int_eq(plan_words((const char *[]){"--kill-scope=auto",
						     "--cpu-max=1", NULL}),
			 -EINVAL);
	ck_assert_int_eq(cgroup_asked, 0);
}
END_TEST

/* What a set of words leaves as scope and backend. */
static const struct {
	const char *words[6];
	enum runx_scope_kind scope;
	enum runx_launch_kind backend;
} decided[] = {
    {{NULL}, RUNX_SCOPE_GROUP, RUNX_LAUNCH_VFORK},
    {{"--foreground"}, RUNX_SCOPE_TREE, RUNX_LAUNCH_VFORK},
    {{"--foreground", "--kill-scope=child"},
     RUNX_SCOPE_CHILD,
     RUNX_LAUNCH_VFORK},
    {{"--foreground", "-C"}, RUNX_SCOPE_CGROUP, RUNX_LAUNCH_VFORK},
    {{"--foreground", "--wait-all"}, RUNX_SCOPE_TREE, RUNX_LAUNCH_VFORK},
    {{"--foreground", "--pids-max=5"}, RUNX_SCOPE_CGROUP, RUNX_LAUNCH_VFORK},
    {{"--memory-max=1M"}, RUNX_SCOPE_CGROUP, RUNX_LAUNCH_VFORK},
    {{"-C", "--cpu-max=0.5"}, RUNX_SCOPE_CGROUP, RUNX_LAUNCH_VFORK},
    {{"--attempts=2", "--retry-on=oom"}, RUNX_SCOPE_CGROUP, RUNX_LAUNCH_VFORK},
    {{"--foreground", "--retry-on=timeout,oom", "--attempts=3"},
     RUNX_SCOPE_CGROUP,
     RUNX_LAUNCH_VFORK},
    /* oom that can start no attempt: no cgroup needed */
    {{"--retry-on=oom"}, RUNX_SCOPE_GROUP, RUNX_LAUNCH_VFORK},
    {{"--attempts=2", "--retry-on=failure,oom"},
     RUNX_SCOPE_GROUP,
     RUNX_LAUNCH_VFORK},
    {{"--kill-scope=tree"}, RUNX_SCOPE_TREE, RUNX_LAUNCH_VFORK},
    {{"--kill-scope=pidns"}, RUNX_SCOPE_PIDNS, RUNX_LAUNCH_VFORK},
    {{"--kill-scope=auto"}, RUNX_SCOPE_CGROUP, RUNX_LAUNCH_VFORK},
    /* the SPEC refuses only group and pidns with --foreground */
    {{"--foreground", "--kill-scope=auto"},
     RUNX_SCOPE_CGROUP,
     RUNX_LAUNCH_VFORK},
    {{"-C", "--launch=fork"}, RUNX_SCOPE_CGROUP, RUNX_LAUNCH_FORK},
    {{"--launch=posix_spawn"}, RUNX_SCOPE_GROUP, RUNX_LAUNCH_POSIX_SPAWN},
    {{"--kill-scope=tree", "--launch=clone3"},
     RUNX_SCOPE_TREE,
     RUNX_LAUNCH_CLONE3},
};

START_TEST(options_decide_scope_and_backend)
{
	ck_assert_int_eq(plan_words(decided[_i].words), 0);
	ck_assert_int_eq(plan.scope.kind, decided[_i].scope);
	ck_assert_int_eq(plan.launch.backend, decided[_i].backend);
	ck_assert_int_eq(plan.launch.resolve_errno, 0);
	ck_assert_str_eq(plan.launch.path, "/fake/bin/cmd");
}
END_TEST

START_TEST(auto_is_tree_where_no_cgroup_can_be_made)
{
	cgroup_answer = -EACCES;
	ck_assert_int_eq(
	    plan_words((const char *[]){"--kill-scope=auto", NULL}), 0);
	ck_assert_int_eq(plan.scope.kind, RUNX_SCOPE_TREE);
	ck_assert(plan.scope.auto_chosen);
	ck_assert_str_eq(plan.scope.auto_note,
			 "auto scope: using tree, since the cgroup scope is "
			 "not available (fake: no cgroup)");
	ck_assert_int_eq(plan.launch.backend, RUNX_LAUNCH_VFORK);
	/* with --foreground too */
	ck_assert_int_eq(plan_words((const char *[]){"--kill-scope=auto",
						     "--foreground", NULL}),
			 0);
	ck_assert_int_eq(plan.scope.kind, RUNX_SCOPE_TREE);
	ck_assert(plan.stop.foreground);
}
END_TEST

/* --retry-on=oom asks for the memory controller (memory.events), with no
 * limit of its own; a limit keeps its value beside it. */
START_TEST(oom_asks_for_the_memory_controller)
{
	ck_assert_int_eq(plan_words((const char *[]){"--retry-on=oom",
						     "--attempts=2", NULL}),
			 0);
	ck_assert(plan.scope.has_limits);
	ck_assert(plan.scope.limits.count_oom);
	ck_assert_int_eq(plan.scope.limits.memory_max, -1);
	ck_assert_int_eq(plan.scope.limits.pids_max, -1);
	ck_assert_int_eq(
	    plan_words((const char *[]){"--retry-on=oom", "--attempts=inf",
					"--memory-max=1M", NULL}),
	    0);
	ck_assert(plan.scope.limits.count_oom);
	ck_assert_int_eq(plan.scope.limits.memory_max, 1 << 20);
	ck_assert_int_eq(
	    plan_words((const char *[]){"-C", "--retry-on=failure", NULL}), 0);
	ck_assert(!plan.scope.has_limits);
	ck_assert(!plan.scope.limits.count_oom);
	/* oom that can start no attempt asks for nothing */
	ck_assert_int_eq(
	    plan_words((const char *[]){"-C", "--retry-on=oom", NULL}), 0);
	ck_assert(!plan.scope.limits.count_oom);
	ck_assert_int_eq(
	    plan_words((const char *[]){"-C", "--attempts=2",
					"--retry-on=oom,failure", NULL}),
	    0);
	ck_assert(!plan.scope.limits.count_oom);
}
END_TEST

START_TEST(auto_with_a_cgroup_says_nothing_more)
{
	ck_assert_int_eq(
	    plan_words((const char *[]){"--kill-scope=auto", NULL}), 0);
	ck_assert(plan.scope.auto_chosen);
	ck_assert_str_eq(plan.scope.auto_note, "");
	ck_assert_int_eq(cgroup_asked, 1);
}
END_TEST

START_TEST(no_clone3_leaves_the_cgroup_scope_as_it_is)
{
	clone3_answer = false;
	ck_assert_int_eq(plan_words((const char *[]){"-C", NULL}), 0);
	ck_assert_int_eq(plan.launch.backend, RUNX_LAUNCH_VFORK);
}
END_TEST

START_TEST(clone3_asked_for_where_there_is_none_is_refused)
{
	clone3_answer = false;
	ck_assert_int_eq(plan_words((const char *[]){"--launch=clone3", NULL}),
			 -ENOSYS);
	ck_assert_str_eq(err, "--launch=clone3: clone3 is not available on "
			      "this system");
}
END_TEST

START_TEST(posix_spawn_in_a_cgroup_needs_glibc_2_39)
{
	int r =
	    plan_words((const char *[]){"-C", "--launch=posix_spawn", NULL});
#ifdef HAVE_POSIX_SPAWNATTR_SETCGROUP_NP
	ck_assert_int_eq(r, 0);
#else
	ck_assert_int_eq(r, -ENOTSUP);
	ck_assert_str_eq(err,
			 "--launch=posix_spawn cannot start the command inside "
			 "its cgroup (posix_spawnattr_setcgroup_np needs glibc "
			 "2.39); use --launch=vfork or --launch=fork, or no "
			 "--launch");
	/* auto, told posix_spawn, takes the tree without asking */
	ck_assert_int_eq(
	    plan_words((const char *[]){"--kill-scope=auto",
					"--launch=posix_spawn", NULL}),
	    0);
	ck_assert_int_eq(plan.scope.kind, RUNX_SCOPE_TREE);
	ck_assert_int_eq(cgroup_asked, 0);
#endif
}
END_TEST

START_TEST(a_command_not_found_is_no_plan_error)
{
	resolve_answer = -ENOENT;
	ck_assert_int_eq(plan_words((const char *[]){"-C", NULL}), 0);
	ck_assert_int_eq(plan.launch.resolve_errno, ENOENT);
}
END_TEST

START_TEST(a_command_not_found_that_may_be_retried_is_planned_in_full)
{
	char cwd[PATH_MAX], want[PATH_MAX + 32];

	resolve_answer = -ENOENT;
	/* not listed, or one attempt: the plan stops at the command */
	ck_assert_int_eq(plan_words((const char *[]){"--attempts=3", NULL}), 0);
	ck_assert_int_eq(plan.launch.resolve_errno, ENOENT);
	ck_assert_int_eq(plan.launch.backend, RUNX_LAUNCH_DEFAULT);
	ck_assert_int_eq(plan_words((const char *[]){"--retry-on=127",
						     "--launch=posix_spawn",
						     "--umask=0", NULL}),
			 0);
	ck_assert_int_eq(plan.launch.resolve_errno, ENOENT);
	/* listed by number, with attempts to spare: the rest is decided,
	 * and refused as bad input if it is */
	ck_assert_int_eq(plan_words((const char *[]){"--attempts=3",
						     "--retry-on=1,127", NULL}),
			 0);
	ck_assert_int_eq(plan.launch.resolve_errno, ENOENT);
	ck_assert_int_eq(plan.launch.backend, RUNX_LAUNCH_VFORK);
	ck_assert_int_eq(plan_words((const char *[]){
			     "--attempts=3", "--retry-on=127",
			     "--launch=posix_spawn", "--umask=0", NULL}),
			 -ENOTSUP);
	/* 126 is not 127: a file without execute permission */
	resolve_answer = -EACCES;
	ck_assert_int_eq(plan_words((const char *[]){"--attempts=3",
						     "--retry-on=127", NULL}),
			 0);
	ck_assert_int_eq(plan.launch.backend, RUNX_LAUNCH_DEFAULT);
	ck_assert_int_eq(plan_words((const char *[]){"--attempts=3",
						     "--retry-on=126", NULL}),
			 0);
	ck_assert_int_eq(plan.launch.resolve_errno, EACCES);
	ck_assert_int_eq(plan.launch.backend, RUNX_LAUNCH_VFORK);
	/* found later: a relative path made absolute, as at the start */
	resolve_answer = 0;
	resolve_relative = true;
	ck_assert_int_eq(plan_words((const char *[]){"--chdir=/", NULL}), 0);
	plan.launch.resolve_errno = ENOENT;
	plan.launch.path[0] = '\0';
	ck_assert_int_eq(runx_plan_resolve(&plan, &fake, err, sizeof(err)), 0);
	ck_assert_int_eq(plan.launch.resolve_errno, 0);
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	snprintf(want, sizeof(want), "%s/fake/bin/cmd", cwd);
	ck_assert_str_eq(plan.launch.path, want);
	resolve_relative = false;
	resolve_answer = -ENOENT;
	ck_assert_int_eq(runx_plan_resolve(&plan, &fake, err, sizeof(err)), 0);
	ck_assert_int_eq(plan.launch.resolve_errno, ENOENT);
}
END_TEST

START_TEST(a_report_that_cannot_be_written_is_refused_first)
{
	report_answer = -ENOENT;
	resolve_answer = -ENOENT; /* the report is checked before this */
	ck_assert_int_eq(
	    plan_words((const char *[]){"--report=/no/such/r.json", NULL}),
	    -ENOENT);
	ck_assert_str_eq(err, "cannot write the report '/no/such/r.json': No "
			      "such file or directory");
	/* without --report nothing asks */
	ck_assert_int_eq(plan_words((const char *[]){NULL}), 0);
}
END_TEST

START_TEST(the_stop_policy_is_the_options)
{
	ck_assert_int_eq(
	    plan_words((const char *[]){"-t", "2s", "-k", "300ms", "-s", "INT",
					"-p", "--idle-timeout=1m", NULL}),
	    0);
	ck_assert_int_eq(plan.stop.deadline_ns, 2000000000LL);
	ck_assert_int_eq(plan.stop.grace_ns, 300000000LL);
	ck_assert_int_eq(plan.stop.idle_deadline_ns, 60000000000LL);
	ck_assert_int_eq(plan.stop.first_signal, SIGINT);
	ck_assert(plan.stop.preserve_status);
	ck_assert(plan.launch.relay);
	ck_assert(plan.launch.new_session);
	ck_assert(!plan.report.count);
	ck_assert_int_eq(plan.attempts.max, 1);
	ck_assert_int_eq(sigismember(&plan.stop.stop_signals, SIGTERM), 1);
	ck_assert_int_eq(
	    plan_words((const char *[]){"-v", "--foreground", NULL}), 0);
	ck_assert(plan.report.count);
	ck_assert(!plan.launch.new_session);
	ck_assert(!plan.launch.relay);
	ck_assert_int_eq(plan.stop.deadline_ns, RUNX_DURATION_INF);
}
END_TEST

/* runx_report_check on real paths, in a directory of the test's own. */
static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/check_plan.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(report_paths_are_checked_on_the_file_system)
{
	char p[160];

	make_dir();
	ck_assert_int_eq(runx_report_check("-"), 0);
	ck_assert_int_eq(runx_report_check("/dev/null"), 0);
	snprintf(p, sizeof(p), "%s/r.json", dir);
	ck_assert_int_eq(runx_report_check(p), 0); /* new file */
	ck_assert_int_eq(runx_report_check(dir), -EISDIR);
	snprintf(p, sizeof(p), "%s/missing/r.json", dir);
	ck_assert_int_eq(runx_report_check(p), -ENOENT);
	snprintf(p, sizeof(p), "%s/file", dir);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(runx_report_check(p), 0); /* replaced */
	snprintf(p, sizeof(p), "%s/file/r.json", dir);
	ck_assert_int_eq(runx_report_check(p), -ENOTDIR);
	ck_assert_int_eq(runx_report_check(""), -ENOENT);
	remove_dir();
}
END_TEST

/* A passwd and a group file of the test's own, in dir. */
static void identity_files(void)
{
	FILE *f;

	make_dir();
	snprintf(passwd_path, sizeof(passwd_path), "%s/passwd", dir);
	snprintf(group_path, sizeof(group_path), "%s/group", dir);
	f = fopen(passwd_path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("app:x:1000:1000::/home/app:/bin/sh\n"
	      "svc:x:1001:1001::/srv:/bin/sh\n",
	      f);
	fclose(f);
	f = fopen(group_path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("app:x:1000:\nstaff:x:50:app\nsvc:x:1001:\ndocker:x:999:app\n",
	      f);
	fclose(f);
}

START_TEST(user_by_name_has_its_groups_and_environment)
{
	const struct runx_identity *id = &plan.identity;

	identity_files();
	ck_assert_int_eq(plan_words((const char *[]){"--user=app", NULL}), 0);
	ck_assert(id->set_user && id->has_entry);
	ck_assert_int_eq(id->uid, 1000);
	ck_assert_int_eq(id->gid, 1000);
	ck_assert_uint_eq(id->ngroups, 3);
	ck_assert_int_eq(id->groups[1], 50);
	ck_assert_int_eq(id->groups[2], 999);
	ck_assert_str_eq(id->env_home, "HOME=/home/app");
	ck_assert_str_eq(id->env_user, "USER=app");
	ck_assert_str_eq(id->env_logname, "LOGNAME=app");
	ck_assert_int_eq(
	    plan_words((const char *[]){"--user=1000:staff", NULL}), 0);
	ck_assert_int_eq(id->uid, 1000);
	ck_assert_int_eq(id->gid, 50);
	ck_assert_uint_eq(id->ngroups, 2); /* 50 first, then 999 */
	ck_assert_int_eq(plan_words((const char *[]){"--user=4242:7", NULL}),
			 0);
	ck_assert(id->set_user && !id->has_entry);
	ck_assert_int_eq(id->uid, 4242);
	ck_assert_int_eq(id->gid, 7);
	ck_assert_uint_eq(id->ngroups, 0);
	ck_assert_str_eq(id->env_home, "HOME=/");
	ck_assert_int_eq(plan_words((const char *[]){"--user=4242", NULL}), 0);
	ck_assert_int_eq(id->gid, 4242);
	remove_dir();
}
END_TEST

/* Identity options the plan refuses, and the whole message. */
static const struct {
	const char *words[4];
	const char *message;
} identity_refused[] = {
    {{"--user=nobody"},
     "--user: unknown user 'nobody' (not in '/fake/passwd')"},
    {{"--user=app:wheel\n"},
     "--user: unknown group 'wheel\\n' (not in '/fake/group')"},
    {{"--user=:staff"}, "--user=':staff': a GROUP needs a USER (USER:GROUP)"},
    {{"--user="}, "--user='': empty user name"},
    {{"--user=app:"}, "--user='app:': empty GROUP after the colon"},
    {{"--rlimit=nofile=10:5"}, "--rlimit='nofile=10:5': SOFT is above HARD"},
    {{"--rlimit=core=unlimited:5"},
     "--rlimit='core=unlimited:5': SOFT is above HARD"},
    {{"--rlimit=nofile=10:2048"},
     "--rlimit='nofile=10:2048': HARD is above runx's own hard limit "
     "(1024), which only CAP_SYS_RESOURCE may raise"},
    {{"--launch=posix_spawn", "--umask=022"},
     "--launch=posix_spawn cannot apply --umask: it runs no code of runx's "
     "in the child; use --launch=vfork (the default), fork or clone3"},
    {{"--launch=posix_spawn", "--kill-scope=pidns", "--no-new-privs"},
     "--launch=posix_spawn cannot apply --no-new-privs"},
};

START_TEST(identity_refusals_name_the_value)
{
	identity_files();
	capable_answer = false; /* no CAP_SYS_RESOURCE; names checked first */
	int r = plan_words(identity_refused[_i].words);
	remove_dir();
	ck_assert_int_lt(r, 0);
	char want[512];
	snprintf(want, sizeof(want), "%s", identity_refused[_i].message);
	/* the test's files stand where the messages say /fake/... */
	char *at = strstr(err, dir);
	if (at != NULL) {
		char fixed[512];
		snprintf(fixed, sizeof(fixed), "%.*s/fake%s", (int)(at - err),
			 err, at + strlen(dir));
		snprintf(err, sizeof(err), "%s", fixed);
	}
	ck_assert_msg(strncmp(err, want, strlen(want)) == 0,
		      "message '%s', want '%s'", err, want);
}
END_TEST

START_TEST(user_without_setid_capabilities_is_refused)
{
	identity_files();
	capable_answer = false;
	ck_assert_int_eq(plan_words((const char *[]){"--user=app", NULL}),
			 -EPERM);
	remove_dir();
	ck_assert_msg(strstr(err, "--user='app': runx is not allowed to change "
				  "identity") != NULL,
		      "message '%s'", err);
}
END_TEST

START_TEST(chdir_must_be_a_directory_and_the_command_absolute)
{
	char cwd[PATH_MAX], want[PATH_MAX + 16];

	dir_answer = -ENOTDIR;
	ck_assert_int_eq(plan_words((const char *[]){"--chdir=f\tx", NULL}),
			 -ENOTDIR);
	ck_assert_str_eq(err, "--chdir='f\\tx': Not a directory");
	dir_answer = 0;
	resolve_relative = true;
	ck_assert_int_eq(plan_words((const char *[]){"--chdir=/", NULL}), 0);
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	snprintf(want, sizeof(want), "%s/fake/bin/cmd", cwd);
	ck_assert_str_eq(plan.launch.path, want);
	ck_assert_int_eq(plan_words((const char *[]){"--umask=0", NULL}), 0);
	ck_assert_str_eq(plan.launch.path, "fake/bin/cmd");
	ck_assert_int_eq(plan.identity.umask, 0);
	resolve_relative = false;
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plan");
	TCase *rules = tcase_create("rules");

	tcase_add_checked_fixture(rules, setup, NULL);
	add_table_test(rules, refused_combinations_name_both_options, refused);
	tcase_add_test(rules, a_refused_combination_asks_the_machine_nothing);
	add_table_test(rules, options_decide_scope_and_backend, decided);
	tcase_add_test(rules, auto_is_tree_where_no_cgroup_can_be_made);
	tcase_add_test(rules, auto_with_a_cgroup_says_nothing_more);
	tcase_add_test(rules, oom_asks_for_the_memory_controller);
	tcase_add_test(rules, no_clone3_leaves_the_cgroup_scope_as_it_is);
	tcase_add_test(rules, clone3_asked_for_where_there_is_none_is_refused);
	tcase_add_test(rules, posix_spawn_in_a_cgroup_needs_glibc_2_39);
	tcase_add_test(rules, a_command_not_found_is_no_plan_error);
	tcase_add_test(
	    rules, a_command_not_found_that_may_be_retried_is_planned_in_full);
	tcase_add_test(rules, a_report_that_cannot_be_written_is_refused_first);
	tcase_add_test(rules, the_stop_policy_is_the_options);
	tcase_add_test(rules, report_paths_are_checked_on_the_file_system);
	tcase_add_test(rules, user_by_name_has_its_groups_and_environment);
	add_table_test(rules, identity_refusals_name_the_value,
		       identity_refused);
	tcase_add_test(rules, user_without_setid_capabilities_is_refused);
	tcase_add_test(rules,
		       chdir_must_be_a_directory_and_the_command_absolute);
	suite_add_tcase(s, rules);
	return run_suite(s);
}
