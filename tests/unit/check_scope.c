/*
 * Every kill scope (scope.h) on a known process tree: the test binary as
 * its own helper (helper.h, tree mode) forks three sleepers, one of which
 * leaves the session (setsid) and one of which ignores SIGTERM.  Each
 * scope must count what it holds, reach it with a signal and with its
 * kill, say EMPTY only once it is empty, UNKNOWN (never EMPTY) when it
 * cannot look, and release.  The cgroup and pidns scopes run where the
 * machine allows them; elsewhere the test says why and checks nothing.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "common.h"
#include "helper.h"
#include "scope.h"
#include "scope_impl.h"
#include "syscalls.h"

extern char **environ;

/* How long anything the tests wait for may take (ms): a loaded machine. */
#define WAIT_MS 10000

/* The processes of the helper's tree, in the order it names them. */
enum { HELPER, PLAIN, ESCAPER, STUBBORN, NPROCS };

static const char *const proc_names[NPROCS] = {
    "the helper", "the plain sleeper", "the sleeper that called setsid",
    "the sleeper that ignores SIGTERM"};

/* A scope kind and what it holds of the helper's tree. */
static const struct scope_case {
	enum runx_scope_kind kind;
	enum runx_launch_kind backend; /* as the plan would choose */
	bool holds[NPROCS];
	int count;   /* how many it holds */
	int watched; /* pidfds a census hands out to wait on */
} cases[] = {
    {RUNX_SCOPE_CHILD, RUNX_LAUNCH_VFORK, {true, false, false, false}, 1, 1},
    /* setsid(2) leaves the process group: the group's documented limit */
    {RUNX_SCOPE_GROUP, RUNX_LAUNCH_VFORK, {true, true, false, true}, 3, 3},
    {RUNX_SCOPE_TREE, RUNX_LAUNCH_VFORK, {true, true, true, true}, 4, 4},
    /* the cgroup is waited on through cgroup.events instead */
    {RUNX_SCOPE_CGROUP, RUNX_LAUNCH_CLONE3, {true, true, true, true}, 4, 0},
    /* the init's pidfd: its exit is the namespace's end */
    {RUNX_SCOPE_PIDNS, RUNX_LAUNCH_VFORK, {true, true, true, true}, 4, 1},
};

/* The helper's tree once launched. */
struct tree {
	struct runx_scope scope;
	struct runx_launched out;
	pid_t pid[NPROCS]; /* on this side of any pid namespace */
	int pidfd[NPROCS];
};

static char self[PATH_MAX];
static sigset_t empty_mask;

/* Per test, in its own process. */
static void setup(void)
{
	ck_assert_int_eq(helper_self(self, sizeof(self)), 0);
	sigemptyset(&empty_mask);
}

/* True once pidfd's process has exited (POLLIN), within ms. */
static bool exits_within(int pidfd, int ms)
{
	struct pollfd p = {pidfd, POLLIN, 0};

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/* A census into c, with the pids it names into pids (room for 8). */
static void census(struct runx_scope *s, struct runx_census *c, pid_t *pids)
{
	*c = (struct runx_census){
	    .want_count = true, .pids = pids, .maxpids = 8};
	runx_scope_census(s, c);
}

/*
 * Takes censuses until one says state with count (a process that just
 * exited may still be listed for a moment), within WAIT_MS; the last.
 */
static struct runx_census census_until(struct runx_scope *s,
				       enum runx_census_state state, int count)
{
	const struct timespec tick = {0, 10000000};
	struct runx_census c;
	pid_t pids[8];

	for (int i = 0; i < WAIT_MS / 10; i++) {
		census(s, &c, pids);
		if (c.state == state && c.count == count)
			break;
		nanosleep(&tick, NULL);
	}
	return c;
}

/* Reads the helper's "pids A B C D" line from fd within WAIT_MS. */
static void read_pids(int fd, pid_t *pids)
{
	char buf[128];
	size_t used = 0;
	struct pollfd p = {fd, POLLIN, 0};

	while (memchr(buf, '\n', used) == NULL) {
		ck_assert_msg(poll(&p, 1, WAIT_MS) == 1, "no pids from helper");
		ssize_t n = read(fd, buf + used, sizeof(buf) - 1 - used);
		ck_assert_int_gt(n, 0);
		used += (size_t)n;
	}
	buf[used] = '\0';
	int a, b, c, d;
	ck_assert_int_eq(sscanf(buf, "pids %d %d %d %d", &a, &b, &c, &d), 4);
	pids[HELPER] = a;
	pids[PLAIN] = b;
	pids[ESCAPER] = c;
	pids[STUBBORN] = d;
}

/* The last number of the NSpid line of /proc/PID/status, or -1. */
static pid_t innermost_pid(pid_t pid)
{
	char path[64], line[256];
	pid_t inner = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "NSpid:", 6) == 0) {
			char *last = strrchr(line, '\t');
			inner = last != NULL ? atoi(last + 1) : -1;
		}
	fclose(f);
	return inner;
}

/* The link /proc/PID/ns/pid into buf ("" if gone). */
static void pid_namespace(pid_t pid, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	ssize_t n = readlink(path, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
}

/*
 * The pid on this side of the process whose pid is inner in the pid
 * namespace of init (a child of the init's namespace), or -1.
 */
static pid_t outer_pid(pid_t init, pid_t inner)
{
	char want[64], ns[64];
	struct dirent *e;
	pid_t found = -1;
	DIR *dir = opendir("/proc");

	ck_assert_ptr_nonnull(dir);
	/* the init's children live in the namespace it is the init of */
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/ns/pid_for_children", (int)init);
	ssize_t n = readlink(path, want, sizeof(want) - 1);
	ck_assert_int_gt(n, 0);
	want[n] = '\0';
	while (found < 0 && (e = readdir(dir)) != NULL) {
		pid_t pid = atoi(e->d_name);
		if (pid <= 0 || pid == init)
			continue;
		pid_namespace(pid, ns, sizeof(ns));
		if (strcmp(ns, want) == 0 && innermost_pid(pid) == inner)
			found = pid;
	}
	closedir(dir);
	return found;
}

/* The request that starts argv as the plan would, fd 1 from *stdio. */
static struct runx_launch_request request(enum runx_launch_kind backend,
					  char **argv,
					  const struct runx_stdio *stdio)
{
	return (struct runx_launch_request){
	    .backend = backend,
	    .path = argv[0],
	    .argv = argv,
	    .envp = environ,
	    .new_session = true,
	    .parent = getpid(),
	    .stdio = stdio,
	    .close_fds = false,
	    .child_mask = &empty_mask,
	    .cgroup_fd = -1,
	    .cgroup_procs_fd = -1,
	};
}

/*
 * Prepares the scope of c, launches the helper's tree in it and adopts
 * it; every process of the tree gets a pidfd here.
 */
static void launch_tree(const struct scope_case *c, struct tree *t)
{
	char *argv[] = {self, (char *)"--helper", (char *)"tree", NULL};
	char err[PATH_MAX + 256];
	int p[2];

	/* zeroed, as an attempt is (runx_attempt_init) */
	memset(t, 0, sizeof(*t));
	ck_assert_msg(
	    runx_scope_prepare(&t->scope, c->kind, NULL, err, sizeof(err)) == 0,
	    "prepare: %s", err);
	runx_scope_describe(&t->scope, err, sizeof(err));
	if (strncmp(err, "cgroup /", 8) == 0)
		leftover_note(err + 7);
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	struct runx_stdio stdio = {.source = {-1, p[1], -1}};
	struct runx_launch_request req = request(c->backend, argv, &stdio);
	ck_assert_int_eq(runx_scope_launch(&t->scope, &req, &t->out), 0);
	ck_assert_int_eq(t->out.exec_errno, 0);
	close(p[1]);
	runx_scope_adopt(&t->scope, t->out.pid, t->out.pidfd);
	read_pids(p[0], t->pid);
	close(p[0]);
	for (int i = 0; i < NPROCS; i++) {
		if (c->kind == RUNX_SCOPE_PIDNS)
			t->pid[i] = outer_pid(t->out.pid, t->pid[i]);
		ck_assert_int_gt(t->pid[i], 0);
		t->pidfd[i] = runx_pidfd_open(t->pid[i], 0);
		ck_assert_int_ge(t->pidfd[i], 0);
	}
	ck_assert_int_eq(runx_scope_command_pid(&t->scope), t->pid[HELPER]);
}

/* True if the census named exactly the processes c holds. */
static bool names_what_it_holds(const struct scope_case *c,
				const struct tree *t, const pid_t *pids,
				int npids)
{
	if (npids != c->count)
		return false;
	for (int i = 0; i < NPROCS; i++) {
		bool named = false;
		for (int j = 0; j < npids; j++)
			named = named || pids[j] == t->pid[i];
		if (named != c->holds[i])
			return false;
	}
	return true;
}

/*
 * The cgroup scope checks a pid through its pidfd's cgroup id (ioctl
 * PIDFD_GET_INFO, Linux 6.13): for each process of the job it is the
 * inode number of the job cgroup's directory.
 */
static void check_cgroup_ids(const struct tree *t)
{
	char where[PATH_MAX + 64];
	struct stat st;
	uint64_t id;

	runx_scope_describe(&t->scope, where, sizeof(where));
	ck_assert_int_eq(strncmp(where, "cgroup /", 8), 0);
	ck_assert_int_eq(stat(where + 7, &st), 0);
	if (runx_pidfd_cgroupid(t->pidfd[HELPER], &id) < 0) {
		/* before 6.13: the scope reads /proc/PID/cgroup instead */
		ck_assert_msg(errno == ENOTTY || errno == EINVAL ||
				  errno == ENODATA,
			      "PIDFD_GET_INFO: %s", strerror(errno));
		return;
	}
	for (int i = 0; i < NPROCS; i++) {
		ck_assert_int_eq(runx_pidfd_cgroupid(t->pidfd[i], &id), 0);
		ck_assert_uint_eq(id, (uint64_t)st.st_ino);
	}
}

/* Census of the whole tree: ALIVE, the count and the names it holds. */
static void check_alive(const struct scope_case *c, struct tree *t)
{
	struct runx_census n;
	pid_t pids[8];
	int watch[8];

	census(&t->scope, &n, pids);
	ck_assert_int_eq(n.state, RUNX_CENSUS_ALIVE);
	ck_assert_int_eq(n.count, c->count);
	ck_assert_msg(names_what_it_holds(c, t, pids, n.npids),
		      "the census named other processes than the scope's");
	/* something to wait on without polling */
	n = (struct runx_census){.want_count = true, .watch = watch, .max = 8};
	runx_scope_census(&t->scope, &n);
	ck_assert_int_eq(n.nwatch, c->watched);
	for (int i = 0; i < n.nwatch; i++)
		close(watch[i]);
	if (c->kind == RUNX_SCOPE_CGROUP) {
		ck_assert_int_ge(runx_scope_event_fd(&t->scope), 0);
		check_cgroup_ids(t);
	}
}

/* SIGTERM: what the scope holds dies, but for the stubborn sleeper. */
static void check_term(const struct scope_case *c, struct tree *t)
{
	ck_assert_int_eq(runx_scope_signal(&t->scope, SIGTERM, true), c->count);
	for (int i = 0; i < NPROCS; i++)
		if (c->holds[i] && i != STUBBORN)
			ck_assert_msg(exits_within(t->pidfd[i], WAIT_MS),
				      "%s survived SIGTERM", proc_names[i]);
	for (int i = 0; i < NPROCS; i++)
		if (!c->holds[i] || i == STUBBORN)
			ck_assert_msg(!exits_within(t->pidfd[i], 0), "%s died",
				      proc_names[i]);
	struct runx_census n =
	    c->holds[STUBBORN] ? census_until(&t->scope, RUNX_CENSUS_ALIVE, 1)
			       : census_until(&t->scope, RUNX_CENSUS_EMPTY, 0);
	ck_assert_int_eq(n.state, c->holds[STUBBORN] ? RUNX_CENSUS_ALIVE
						     : RUNX_CENSUS_EMPTY);
	ck_assert_int_eq(n.count, c->holds[STUBBORN] ? 1 : 0);
}

/*
 * Reaps the direct child and, as subreaper, the orphans: in the tree
 * scope every one, in time; in the group scope the dead ones (those it
 * holds died before this), while those outside it live on.
 */
static void reap(const struct scope_case *c, struct tree *t)
{
	const struct timespec tick = {0, 10000000};
	int status;

	ck_assert_int_eq(waitpid(t->out.pid, &status, 0), t->out.pid);
	runx_scope_child_reaped(&t->scope, &status);
	for (int i = 0; runx_scope_adopts_orphans(&t->scope); i++) {
		pid_t r = waitpid(-1, NULL, WNOHANG);
		if (r < 0 && errno == ECHILD)
			break;
		if (r == 0 && c->kind != RUNX_SCOPE_TREE)
			break;
		ck_assert_msg(i < WAIT_MS / 10, "orphans left unreaped");
		if (r == 0)
			nanosleep(&tick, NULL);
	}
}

/*
 * The kill empties the scope (census EMPTY once reaped); what it does not
 * hold lives on, and is killed here by its pidfd.
 */
static void check_kill(const struct scope_case *c, struct tree *t)
{
	ck_assert_int_ge(runx_scope_kill(&t->scope), 0);
	for (int i = 0; i < NPROCS; i++)
		if (c->holds[i])
			ck_assert_msg(exits_within(t->pidfd[i], WAIT_MS),
				      "%s survived the kill", proc_names[i]);
	reap(c, t);
	struct runx_census n = census_until(&t->scope, RUNX_CENSUS_EMPTY, 0);
	ck_assert_int_eq(n.state, RUNX_CENSUS_EMPTY);
	ck_assert_int_eq(n.count, 0);
	for (int i = 0; i < NPROCS; i++) {
		if (c->holds[i])
			continue;
		ck_assert_msg(!exits_within(t->pidfd[i], 0),
			      "the kill reached %s", proc_names[i]);
		ck_assert_int_eq(runx_pidfd_send_signal(t->pidfd[i], SIGKILL),
				 0);
		ck_assert(exits_within(t->pidfd[i], WAIT_MS));
	}
}

/* Release succeeds; the cgroup's directory is gone then. */
static void check_release(struct tree *t)
{
	char where[PATH_MAX + 64];
	struct stat st;

	runx_scope_describe(&t->scope, where, sizeof(where));
	ck_assert_int_eq(runx_scope_release(&t->scope), 0);
	if (strncmp(where, "cgroup /", 8) == 0) {
		ck_assert_int_eq(stat(where + 7, &st), -1);
		ck_assert_int_eq(errno, ENOENT);
	}
	for (int i = 0; i < NPROCS; i++)
		close(t->pidfd[i]);
	close(t->out.pidfd);
}

START_TEST(a_scope_counts_signals_kills_and_releases_what_it_holds)
{
	const struct scope_case *c = &cases[_i];
	struct tree t;

	if (!scope_available(c->kind))
		return;
	launch_tree(c, &t);
	check_alive(c, &t);
	check_term(c, &t);
	check_kill(c, &t);
	check_release(&t);
}
END_TEST

/* The scopes whose census walks /proc, so that a lack of fds blinds it. */
static const enum runx_scope_kind walking[] = {RUNX_SCOPE_TREE,
					       RUNX_SCOPE_GROUP};

/*
 * A census with no fd to spare: RLIMIT_NOFILE lowered to the lowest free
 * fd (setrlimit(2)), so that nothing more can be opened; restored after.
 */
static struct runx_census census_without_fds(struct runx_scope *s)
{
	struct runx_census n = {.want_count = true};
	struct rlimit saved, none;
	int lowest = dup(0);

	ck_assert_int_ge(lowest, 0);
	close(lowest);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
	none = saved;
	none.rlim_cur = (rlim_t)lowest;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &none), 0);
	runx_scope_census(s, &n);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &saved), 0);
	return n;
}

START_TEST(a_census_that_cannot_look_is_unknown_never_empty)
{
	char *argv[] = {self, (char *)"--helper", (char *)"ignore-term", NULL};
	struct tree t = {0};
	struct runx_census n;
	char err[256];
	int status, null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	ck_assert_int_ge(null_fd, 0);
	ck_assert_int_eq(
	    runx_scope_prepare(&t.scope, walking[_i], NULL, err, sizeof(err)),
	    0);
	struct runx_stdio stdio = {.source = {-1, null_fd, -1}};
	struct runx_launch_request req =
	    request(RUNX_LAUNCH_VFORK, argv, &stdio);
	ck_assert_int_eq(runx_scope_launch(&t.scope, &req, &t.out), 0);
	runx_scope_adopt(&t.scope, t.out.pid, t.out.pidfd);
	n = census_without_fds(&t.scope);
	ck_assert_int_eq(n.state, RUNX_CENSUS_UNKNOWN);
	ck_assert_int_eq(n.error, -EMFILE);
	/* able to look again: the helper is there */
	n = (struct runx_census){.want_count = true};
	runx_scope_census(&t.scope, &n);
	ck_assert_int_eq(n.state, RUNX_CENSUS_ALIVE);
	ck_assert_int_eq(n.count, 1);
	ck_assert_int_ge(runx_scope_kill(&t.scope), 0);
	ck_assert(exits_within(t.out.pidfd, WAIT_MS));
	ck_assert_int_eq(waitpid(t.out.pid, &status, 0), t.out.pid);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	runx_scope_child_reaped(&t.scope, &status);
	n = (struct runx_census){.want_count = true};
	runx_scope_census(&t.scope, &n);
	ck_assert_int_eq(n.state, RUNX_CENSUS_EMPTY);
	ck_assert_int_eq(runx_scope_release(&t.scope), 0);
	close(t.out.pidfd);
	close(null_fd);
}
END_TEST

/*
 * A newcomer pass reads only a window of pids where every fork since the
 * last mark moved the pid counter: not after a wrap past the mark (more
 * forks than the counter moved, or the counter went down), a pid chosen
 * with clone3's set_tid (a fork that did not move it), a move of more
 * than 4096, a mark not read, or while a fork copy waits.
 */
START_TEST(a_window_needs_forks_that_match_the_counter)
{
	struct runx_scope sc;
	struct runx_pass_mark from = {1000, 5000, 0}, now = {1300, 5300, 0};
	struct runx_proc_stat copy = {.pid = 1200, .start_time = 7};

	memset(&sc, 0, sizeof(sc));
	ck_assert(runx_newcomer_window(&sc, &from, &now));
	now.forks = 5301; /* one fork took a pid without moving the counter */
	ck_assert(!runx_newcomer_window(&sc, &from, &now));
	now.forks = 5300 + 32768; /* a whole wrap, ending 300 past */
	ck_assert(!runx_newcomer_window(&sc, &from, &now));
	now = (struct runx_pass_mark){900, 5100, 0}; /* went down: wrapped */
	ck_assert(!runx_newcomer_window(&sc, &from, &now));
	now = (struct runx_pass_mark){1000 + 4097, 5100, 0};
	ck_assert(!runx_newcomer_window(&sc, &from, &now));
	now = (struct runx_pass_mark){1000 + 4096, 5100, 0};
	ck_assert(runx_newcomer_window(&sc, &from, &now));
	from.forks = -1; /* not read */
	ck_assert(!runx_newcomer_window(&sc, &from, &now));
	from = (struct runx_pass_mark){0, 5000, 0};
	ck_assert(!runx_newcomer_window(&sc, &from, &now));
	from = (struct runx_pass_mark){1000, 5000, 0};
	ck_assert_int_eq(runx_pidset_add(&sc.reached, &copy, true), 0);
	ck_assert(!runx_newcomer_window(&sc, &from, &now));
	runx_pidset_free(&sc.reached);
}
END_TEST

/*
 * A newcomer pass walks all of /proc when it is the last before the
 * SIGKILL, and once a second (the count of forks can be fooled); the
 * walk's time is then the next pass's walked_ns.
 */
START_TEST(a_pass_walks_all_when_last_or_a_second_after_the_last_walk)
{
	struct runx_scope sc;
	struct runx_pass_mark from, now;

	memset(&sc, 0, sizeof(sc));
	runx_pass_mark_take(&from);
	int64_t t = runx_now_ns();
	from.walked_ns = t;
	ck_assert(!runx_newcomer_pass_begin(&sc, &from, &now, true));
	ck_assert(now.walked_ns >= t);
	from.walked_ns = t - RUNX_NEWCOMER_WALK_NS;
	ck_assert(!runx_newcomer_pass_begin(&sc, &from, &now, false));
	ck_assert(now.walked_ns >= t);
	/* a window keeps the time of the last walk */
	from = (struct runx_pass_mark){now.pid, now.forks, t};
	if (runx_newcomer_pass_begin(&sc, &from, &now, false))
		ck_assert(now.walked_ns == t);
	else
		ck_assert(now.walked_ns >= t); /* forks elsewhere meanwhile */
}
END_TEST

/* A mark's fork count moves with each fork (/proc/stat "processes"). */
START_TEST(a_mark_counts_forks)
{
	struct runx_pass_mark before, after;

	runx_pass_mark_take(&before);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	runx_pass_mark_take(&after);
	ck_assert_int_gt(before.pid, 0);
	ck_assert(before.forks > 0);
	ck_assert(after.forks >= before.forks + 1);
}
END_TEST

int main(int argc, char **argv)
{
	HELPER_DISPATCH(argc, argv);
	Suite *s = suite_create("scope");
	TCase *tc = tcase_create("scope");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	add_table_test(
	    tc, a_scope_counts_signals_kills_and_releases_what_it_holds, cases);
	add_table_test(tc, a_census_that_cannot_look_is_unknown_never_empty,
		       walking);
	tcase_add_test(tc, a_window_needs_forks_that_match_the_counter);
	tcase_add_test(tc, a_mark_counts_forks);
	tcase_add_test(
	    tc, a_pass_walks_all_when_last_or_a_second_after_the_last_walk);
	suite_add_tcase(s, tc);
	leftovers_open();
	int status = run_suite(s);
	leftovers_clean();
	return status;
}
