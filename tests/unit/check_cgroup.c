/*
 * The iterative walk of a cgroup tree (cgroup_walk.c) on plain directories
 * in a scratch directory: every directory once, parents first, at any
 * depth (3,000 levels, beyond PATH_MAX), with three fds to spare, and the
 * removal deepest first.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup_walk.h"
#include "common.h"

/* Deeper than PATH_MAX allows to name: 3000 levels of "d/" are 6000 bytes. */
#define DEEP 3000

/* A fresh scratch directory under TMPDIR (or /tmp) into buf. */
static void scratch(char *buf, size_t size)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, size, "%s/check_cgroup.XXXXXX", tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(buf));
}

/* Opens dir (O_DIRECTORY) or fails the test. */
static int open_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	return fd;
}

/* Makes the chain name/name/... (levels deep) below the directory fd,
 * one mkdirat(2) relative to the level above at a time. */
static void make_chain(int fd, const char *name, int levels)
{
	int at = dup(fd);

	ck_assert_int_ge(at, 0);
	for (int i = 0; i < levels; i++) {
		ck_assert_int_eq(mkdirat(at, name, 0755), 0);
		int next = openat(at, name, O_RDONLY | O_DIRECTORY);
		ck_assert_int_ge(next, 0);
		close(at);
		at = next;
	}
	close(at);
}

/* What a counting walk saw. */
struct seen {
	int entered;
	int left;
	size_t deepest;
	int stuck;
	int stop_at; /* enter returns 7 at this call (0: never) */
};

/* enter that counts. */
static int count_enter(int dir_fd, size_t depth, void *arg)
{
	struct seen *s = arg;

	(void)dir_fd;
	s->entered++;
	if (depth > s->deepest)
		s->deepest = depth;
	return s->stop_at != 0 && s->entered == s->stop_at ? 7 : 0;
}

/* leave that counts. */
static int count_leave(int parent_fd, const char *name, bool stuck, void *arg)
{
	struct seen *s = arg;

	(void)parent_fd;
	(void)name;
	s->left++;
	s->stuck += stuck;
	return 0;
}

START_TEST(a_walk_enters_every_directory_once)
{
	char top[PATH_MAX];
	struct seen s = {0};
	struct runx_cgroup_visit v = {count_enter, count_leave, &s};

	scratch(top, sizeof(top));
	int fd = open_dir(top);
	/* top/{a,b,c}, a 5 deep, b 1, c 2 with a file and a symlink */
	make_chain(fd, "a", 5);
	make_chain(fd, "b", 1);
	make_chain(fd, "c", 2);
	ck_assert_int_eq(symlinkat(top, fd, "c/link"), 0);
	int file = openat(fd, "c/file", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ck_assert_int_ge(file, 0);
	close(file);
	ck_assert_int_eq(runx_cgroup_walk(fd, &v), 0);
	ck_assert_int_eq(s.entered, 1 + 5 + 1 + 2); /* the link not followed */
	ck_assert_int_eq(s.left, 5 + 1 + 2);
	ck_assert_uint_eq(s.deepest, 5);
	ck_assert_int_eq(s.stuck, 0);
	/* the removal leaves c (its file and link stay) and nothing else */
	ck_assert_int_eq(runx_cgroup_remove_tree(top), -ENOTEMPTY);
	ck_assert_int_eq(faccessat(fd, "a", F_OK, 0), -1);
	ck_assert_int_eq(faccessat(fd, "b", F_OK, 0), -1);
	ck_assert_int_eq(faccessat(fd, "c/c", F_OK, 0), -1);
	ck_assert_int_eq(unlinkat(fd, "c/file", 0), 0);
	ck_assert_int_eq(unlinkat(fd, "c/link", 0), 0);
	close(fd);
	ck_assert_int_eq(runx_cgroup_remove_tree(top), 0);
	ck_assert_int_eq(access(top, F_OK), -1);
}
END_TEST

START_TEST(a_walk_ends_where_enter_says)
{
	char top[PATH_MAX];
	struct seen s = {.stop_at = 3};
	struct runx_cgroup_visit v = {count_enter, NULL, &s};

	scratch(top, sizeof(top));
	int fd = open_dir(top);
	make_chain(fd, "a", 10);
	ck_assert_int_eq(runx_cgroup_walk(fd, &v), 7);
	ck_assert_int_eq(s.entered, 3);
	close(fd);
	ck_assert_int_eq(runx_cgroup_remove_tree(top), 0);
}
END_TEST

START_TEST(a_tree_deeper_than_path_max_is_walked_and_removed)
{
	char top[PATH_MAX];
	struct seen s = {0};
	struct runx_cgroup_visit v = {count_enter, count_leave, &s};

	scratch(top, sizeof(top));
	int fd = open_dir(top);
	make_chain(fd, "d", DEEP);
	ck_assert_int_eq(runx_cgroup_walk(fd, &v), 0);
	ck_assert_int_eq(s.entered, DEEP + 1);
	ck_assert_uint_eq(s.deepest, DEEP);
	ck_assert_int_eq(s.left, DEEP);
	close(fd);
	ck_assert_int_eq(runx_cgroup_remove_tree(top), 0);
	ck_assert_int_eq(access(top, F_OK), -1);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

/* The fds that leave_spare_fds took, to give back. */
static int fillers[128], nfillers;

/* Takes every free fd but `spare` of them, under a soft RLIMIT_NOFILE
 * lowered to 64 above the highest fd open now (fd, just opened). */
static void leave_spare_fds(int fd, int spare)
{
	struct rlimit rl;
	int f;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = (rlim_t)fd + 64;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	nfillers = 0;
	while ((f = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0) {
		ck_assert_int_lt(nfillers, 128);
		fillers[nfillers++] = f;
	}
	ck_assert_int_eq(errno, EMFILE);
	ck_assert_int_ge(nfillers, spare);
	for (int i = 0; i < spare; i++)
		close(fillers[--nfillers]);
}

/* Gives the fds back and lifts the limit again. */
static void restore_fds(void)
{
	struct rlimit rl;

	while (nfillers > 0)
		close(fillers[--nfillers]);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = rl.rlim_max;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

START_TEST(a_deep_walk_works_with_three_spare_fds)
{
	char top[PATH_MAX];
	struct seen s = {0};
	struct runx_cgroup_visit v = {count_enter, count_leave, &s};

	scratch(top, sizeof(top));
	int fd = open_dir(top);
	make_chain(fd, "d", DEEP);
	leave_spare_fds(fd, 3);
	ck_assert_int_eq(runx_cgroup_walk(fd, &v), 0);
	restore_fds();
	ck_assert_int_eq(s.entered, DEEP + 1);
	ck_assert_int_eq(s.left, DEEP);
	close(fd);
	ck_assert_int_eq(runx_cgroup_remove_tree(top), 0);
}
END_TEST

START_TEST(a_walk_out_of_fds_fails_with_emfile)
{
	char top[PATH_MAX];
	struct seen s = {0};
	struct runx_cgroup_visit v = {count_enter, count_leave, &s};

	scratch(top, sizeof(top));
	int fd = open_dir(top);
	make_chain(fd, "d", 100);
	leave_spare_fds(fd, 1);
	ck_assert_int_eq(runx_cgroup_walk(fd, &v), -EMFILE);
	restore_fds();
	close(fd);
	ck_assert_int_eq(runx_cgroup_remove_tree(top), 0);
}
END_TEST

/* What the moving enter needs: the walk's root, and what it did. */
struct mover {
	int root_fd;
	bool moved;
	int entered;
};

/* Renames whichever of a/b/s0..s9 is dir_fd to the root's "moved". */
static void move_out(int root_fd, int dir_fd)
{
	struct stat here, st;
	char name[32];

	ck_assert_int_eq(fstat(dir_fd, &here), 0);
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "a/b/s%d", i);
		if (fstatat(root_fd, name, &st, 0) == 0 &&
		    st.st_ino == here.st_ino) {
			ck_assert_int_eq(
			    renameat(root_fd, name, root_fd, "moved"), 0);
			return;
		}
	}
	ck_abort_msg("the walk is in no a/b/sN");
}

/* enter that counts and moves the first directory it enters at depth 3
 * out to the root: ".." from there then leads to the root, not to b. */
static int move_enter(int dir_fd, size_t depth, void *arg)
{
	struct mover *m = arg;

	m->entered++;
	if (depth == 3 && !m->moved) {
		move_out(m->root_fd, dir_fd);
		m->moved = true;
	}
	return 0;
}

START_TEST(a_walk_comes_back_up_when_a_directory_moved)
{
	char top[PATH_MAX], name[32];
	struct mover m = {0};
	struct runx_cgroup_visit v = {move_enter, NULL, &m};

	scratch(top, sizeof(top));
	int fd = open_dir(top);
	m.root_fd = fd;
	make_chain(fd, "a", 2); /* a/a */
	ck_assert_int_eq(renameat(fd, "a/a", fd, "a/b"), 0);
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "a/b/s%d", i);
		ck_assert_int_eq(mkdirat(fd, name, 0755), 0);
	}
	ck_assert_int_eq(runx_cgroup_walk(fd, &v), 0);
	/* root, a, b, the ten s: the nine after the moved one too */
	ck_assert(m.moved);
	ck_assert_int_eq(m.entered, 13);
	close(fd);
	ck_assert_int_eq(runx_cgroup_remove_tree(top), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cgroup");
	TCase *tc = tcase_create("walk");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, a_walk_enters_every_directory_once);
	tcase_add_test(tc, a_walk_ends_where_enter_says);
	tcase_add_test(tc, a_tree_deeper_than_path_max_is_walked_and_removed);
	tcase_add_test(tc, a_deep_walk_works_with_three_spare_fds);
	tcase_add_test(tc, a_walk_out_of_fds_fails_with_emfile);
	tcase_add_test(tc, a_walk_comes_back_up_when_a_directory_moved);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
