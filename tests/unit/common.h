/* Scaffolding shared by the libcheck unit tests (tests/unit/check_*.c). */
#ifndef RUNX_TESTS_UNIT_COMMON_H
#define RUNX_TESTS_UNIT_COMMON_H

#include <check.h>
#include <stdlib.h>

/* NELEM(a): the number of elements of array a, as an int. */
#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* add_table_test(tc, test, table): test runs once per entry of table (_i). */
#define add_table_test(tc, test, table)                                        \
	tcase_add_loop_test((tc), test, 0, NELEM(table))

/*
 * run_suite(s): runs every test of s and frees it; EXIT_SUCCESS when all
 * passed.  Zero tests run means a test list went missing: that is a failure.
 */
static inline int run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int run, failed;

	srunner_run_all(sr, CK_NORMAL);
	run = srunner_ntests_run(sr);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 && run > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
