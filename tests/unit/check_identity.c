/*
 * Unit tests of src/identity.h's passwd and group reader, on real files
 * written by the tests (nasty ones: comments, empty fields, long lines,
 * no final newline, duplicates, numeric names, a crowded group), and of
 * the resource names of --rlimit.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "identity.h"

static char dir[64], passwd[96], group[96];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/check_identity.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(passwd, sizeof(passwd), "%s/passwd", dir);
	snprintf(group, sizeof(group), "%s/group", dir);
}

static void remove_dir(void)
{
	unlink(passwd);
	unlink(group);
	rmdir(dir);
}

/* Writes text (as is: no newline added) into the file at path. */
static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

static const char nasty_passwd[] =
    "# a comment: root:x:5:5::/c:/bin/sh\n"
    "\n"
    "root:x:0:0:root:/root:/bin/bash\n"
    "+nis:x:7:7::/nis:/bin/sh\n"
    "-minus:x:8:8::/m:/bin/sh\n"
    ":x:9:9::/noname:/bin/sh\n"
    "nouid:x::100::/h:/bin/sh\n"
    "baduid:x:12a:100::/h:/bin/sh\n"
    "minusone:x:4294967295:100::/h:/bin/sh\n"
    "short:x:30:30\n"
    "app:x:1000:1000:The App,,,:/home/app:/bin/sh\n"
    "app:x:1001:1001::/home/second:/bin/sh\n"
    "nohome:x:1002:1002:::/bin/sh\n"
    "2000:x:3000:3000::/home/numeric:/bin/sh\n"
    "noshell:x:1003:1003::/home/ns:\n"
    "last:x:1004:1004::/home/last:/bin/sh"; /* no final newline */

START_TEST(passwd_by_name_skips_what_is_no_entry)
{
	struct runx_passwd_entry e;

	make_dir();
	write_file(passwd, nasty_passwd);
	ck_assert_int_eq(runx_passwd_lookup(passwd, "root", 0, &e), 1);
	ck_assert_int_eq(e.uid, 0);
	ck_assert_str_eq(e.home, "/root");
	/* the first of two entries of one name wins */
	ck_assert_int_eq(runx_passwd_lookup(passwd, "app", 0, &e), 1);
	ck_assert_int_eq(e.uid, 1000);
	ck_assert_int_eq(e.gid, 1000);
	ck_assert_str_eq(e.home, "/home/app");
	/* an empty home is "/", an empty shell is fine */
	ck_assert_int_eq(runx_passwd_lookup(passwd, "nohome", 0, &e), 1);
	ck_assert_str_eq(e.home, "/");
	ck_assert_int_eq(runx_passwd_lookup(passwd, "noshell", 0, &e), 1);
	ck_assert_int_eq(runx_passwd_lookup(passwd, "last", 0, &e), 1);
	ck_assert_str_eq(e.home, "/home/last");
	const char *none[] = {"nis",	     "+nis",   "minus",	   "-minus",
			      "nouid",	     "baduid", "minusone", "short",
			      "# a comment", "",       "ap",	   "apps"};
	for (int i = 0; i < NELEM(none); i++)
		ck_assert_msg(runx_passwd_lookup(passwd, none[i], 0, &e) == 0,
			      "'%s' found", none[i]);
	remove_dir();
}
END_TEST

START_TEST(passwd_by_uid_and_numeric_names)
{
	struct runx_passwd_entry e;

	make_dir();
	write_file(passwd, nasty_passwd);
	ck_assert_int_eq(runx_passwd_lookup(passwd, NULL, 1001, &e), 1);
	ck_assert_str_eq(e.name, "app");
	ck_assert_str_eq(e.home, "/home/second");
	/* a numeric name is a name: uid 2000 has no entry */
	ck_assert_int_eq(runx_passwd_lookup(passwd, NULL, 2000, &e), 0);
	ck_assert_int_eq(runx_passwd_lookup(passwd, NULL, 3000, &e), 1);
	ck_assert_str_eq(e.name, "2000");
	ck_assert_int_eq(runx_passwd_lookup(passwd, "2000", 0, &e), 1);
	ck_assert_int_eq(e.uid, 3000);
	ck_assert_int_eq(runx_passwd_lookup(passwd, NULL, 5, &e), 0);
	remove_dir();
}
END_TEST

START_TEST(a_missing_file_is_enoent)
{
	struct runx_passwd_entry e;
	gid_t gid, groups[4];
	size_t n = 99;

	ck_assert_int_eq(
	    runx_passwd_lookup("/nonexistent/passwd", "root", 0, &e), -ENOENT);
	ck_assert_int_eq(runx_group_lookup("/nonexistent/group", "root", &gid),
			 -ENOENT);
	ck_assert_int_eq(
	    runx_group_list("/nonexistent/group", "root", 7, groups, 4, &n),
	    -ENOENT);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(groups[0], 7);
	/* a directory cannot be read as a file */
	ck_assert_int_eq(runx_passwd_lookup("/", "root", 0, &e), -EISDIR);
}
END_TEST

START_TEST(very_long_lines_are_read_whole)
{
	struct runx_passwd_entry e;
	size_t big = 200000;
	char *text = malloc(2 * big + 256);

	ck_assert_ptr_nonnull(text);
	make_dir();
	/* a long gecos before the entry, then an entry with a long gecos */
	strcpy(text, "long:x:1:1:");
	memset(text + strlen(text), 'g', big);
	strcpy(text + 11 + big, ":/home/long:/bin/sh\nafter:x:2:2:");
	size_t at = strlen(text);
	memset(text + at, 'h', big);
	strcpy(text + at + big, ":/home/after:/bin/sh\n");
	write_file(passwd, text);
	ck_assert_int_eq(runx_passwd_lookup(passwd, "after", 0, &e), 1);
	ck_assert_str_eq(e.home, "/home/after");
	ck_assert_int_eq(runx_passwd_lookup(passwd, "long", 0, &e), 1);
	ck_assert_str_eq(e.home, "/home/long");
	/* a home longer than PATH_MAX: that entry, too long for runx */
	strcpy(text, "deep:x:3:3::/");
	memset(text + 13, 'd', PATH_MAX + 10);
	strcpy(text + 13 + PATH_MAX + 10, ":/bin/sh\n");
	write_file(passwd, text);
	ck_assert_int_eq(runx_passwd_lookup(passwd, "deep", 0, &e),
			 -ENAMETOOLONG);
	ck_assert_int_eq(runx_passwd_lookup(passwd, NULL, 3, &e),
			 -ENAMETOOLONG);
	free(text);
	remove_dir();
}
END_TEST

static const char nasty_group[] = "# wheel:x:10:app\n"
				  "root:x:0:\n"
				  "app:x:1000:\n"
				  "wheel:x:10:root,app\n"
				  "apps:x:11:appx,xapp,ap,apps\n"
				  "empty::12:\n"
				  "nomembers:x:13\n"
				  ":x:14:app\n"
				  "bad:x:1x:app\n"
				  "dup:x:10:app\n"
				  "1000:x:2000:\n"
				  "audio:x:29:zed,app"; /* no final newline */

START_TEST(group_lookup_by_name)
{
	gid_t gid = 99;

	make_dir();
	write_file(group, nasty_group);
	ck_assert_int_eq(runx_group_lookup(group, "wheel", &gid), 1);
	ck_assert_int_eq(gid, 10);
	ck_assert_int_eq(runx_group_lookup(group, "empty", &gid), 1);
	ck_assert_int_eq(gid, 12);
	ck_assert_int_eq(runx_group_lookup(group, "nomembers", &gid), 1);
	ck_assert_int_eq(gid, 13);
	ck_assert_int_eq(runx_group_lookup(group, "1000", &gid), 1);
	ck_assert_int_eq(gid, 2000);
	ck_assert_int_eq(runx_group_lookup(group, "audio", &gid), 1);
	ck_assert_int_eq(gid, 29);
	ck_assert_int_eq(runx_group_lookup(group, "bad", &gid), 0);
	ck_assert_int_eq(runx_group_lookup(group, "", &gid), 0);
	ck_assert_int_eq(runx_group_lookup(group, "# wheel", &gid), 0);
	remove_dir();
}
END_TEST

START_TEST(group_list_is_exact_membership_each_gid_once)
{
	gid_t groups[8];
	size_t n = 0;

	make_dir();
	write_file(group, nasty_group);
	ck_assert_int_eq(runx_group_list(group, "app", 1000, groups, 8, &n), 0);
	/* primary, wheel (10; dup's 10 not again), audio; not apps (a
	 * prefix), not the nameless or bad lines */
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(groups[0], 1000);
	ck_assert_int_eq(groups[1], 10);
	ck_assert_int_eq(groups[2], 29);
	ck_assert_int_eq(runx_group_list(group, "ap", 5, groups, 8, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(groups[1], 11);
	ck_assert_int_eq(runx_group_list(group, "app", 1000, groups, 2, &n),
			 -E2BIG);
	remove_dir();
}
END_TEST

START_TEST(a_group_with_many_members)
{
	size_t members = 50000, n = 0;
	char *text = malloc(members * 12 + 64);
	gid_t groups[4];

	ck_assert_ptr_nonnull(text);
	make_dir();
	size_t at = (size_t)sprintf(text, "crowd:x:500:");
	for (size_t i = 0; i < members; i++)
		at += (size_t)sprintf(text + at, "%su%zu", i ? "," : "", i);
	strcpy(text + at, "\nother:x:501:u49999\n");
	write_file(group, text);
	ck_assert_int_eq(runx_group_list(group, "u49999", 7, groups, 4, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(groups[1], 500);
	ck_assert_int_eq(groups[2], 501);
	ck_assert_int_eq(runx_group_list(group, "u0", 7, groups, 4, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(runx_group_list(group, "u50000", 7, groups, 4, &n), 0);
	ck_assert_uint_eq(n, 1);
	free(text);
	remove_dir();
}
END_TEST

START_TEST(ids_are_decimal_below_minus_one)
{
	unsigned int id = 7;

	ck_assert_int_eq(runx_id_parse("0", &id), 0);
	ck_assert_uint_eq(id, 0);
	ck_assert_int_eq(runx_id_parse("4294967294", &id), 0);
	ck_assert_uint_eq(id, 4294967294U);
	const char *bad[] = {"",   "-1", "4294967295", "99999999999999999999",
			     "+1", " 1", "1 ",	       "0x10",
			     "1a"};
	for (int i = 0; i < NELEM(bad); i++)
		ck_assert_msg(runx_id_parse(bad[i], &id) == -EINVAL,
			      "'%s' taken", bad[i]);
}
END_TEST

START_TEST(rlimit_names_are_ulimits)
{
	ck_assert_int_eq(runx_rlimit_lookup("nofile"), RLIMIT_NOFILE);
	ck_assert_int_eq(runx_rlimit_lookup("core"), RLIMIT_CORE);
	ck_assert_int_eq(runx_rlimit_lookup("rttime"), RLIMIT_RTTIME);
	ck_assert_int_eq(runx_rlimit_lookup("NOFILE"), -1);
	ck_assert_int_eq(runx_rlimit_lookup("files"), -1);
	ck_assert_int_eq(runx_rlimit_lookup(""), -1);
	ck_assert_str_eq(runx_rlimit_name(RLIMIT_STACK), "stack");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("identity");
	TCase *tc = tcase_create("files");

	tcase_add_test(tc, passwd_by_name_skips_what_is_no_entry);
	tcase_add_test(tc, passwd_by_uid_and_numeric_names);
	tcase_add_test(tc, a_missing_file_is_enoent);
	tcase_add_test(tc, very_long_lines_are_read_whole);
	tcase_add_test(tc, group_lookup_by_name);
	tcase_add_test(tc, group_list_is_exact_membership_each_gid_once);
	tcase_add_test(tc, a_group_with_many_members);
	tcase_add_test(tc, ids_are_decimal_below_minus_one);
	tcase_add_test(tc, rlimit_names_are_ulimits);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
