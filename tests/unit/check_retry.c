/* Unit tests of src/retry.h: the attempt options' parsers and rules. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "duration.h"
#include "retry.h"
#include "signals.h"

#define SEC INT64_C(1000000000)

/* True if exit status s is in set. */
static bool has_status(const struct runx_outcomes *set, int s)
{
	return (set->status[s / 64] >> (s % 64)) & 1;
}

START_TEST(attempts_takes_whole_numbers_and_inf)
{
	int64_t max = 7;

	ck_assert_int_eq(runx_attempts_parse("1", &max), 0);
	ck_assert(max == 1);
	ck_assert_int_eq(runx_attempts_parse("1000000000", &max), 0);
	ck_assert(max == 1000000000);
	static const char *const inf[] = {"inf", "INF", "Infinity", "infinity"};
	for (int i = 0; i < NELEM(inf); i++) {
		max = 7;
		ck_assert_int_eq(runx_attempts_parse(inf[i], &max), 0);
		ck_assert_msg(max == RUNX_ATTEMPTS_INF, "'%s'", inf[i]);
	}
	max = 7;
	static const char *const bad[] = {
	    "",	   "0",	  "-1",	  "+2",	   " 2",   "2 ",
	    "1.5", "1e3", "infx", "infin", "inf ", "99999999999999999999999"};
	for (int i = 0; i < NELEM(bad); i++) {
		ck_assert_msg(runx_attempts_parse(bad[i], &max) == -EINVAL,
			      "'%s' accepted", bad[i]);
		ck_assert(max == 7);
	}
}
END_TEST

START_TEST(retry_on_lists_kinds_statuses_ranges_and_signals)
{
	struct runx_outcomes set;
	char bad[64];

	ck_assert_int_eq(runx_outcomes_parse("failure,timeout,signal,oom,0-1,"
					     "3-5,255,SIGSEGV,term,RTMIN+1",
					     true, &set, bad, sizeof(bad)),
			 0);
	ck_assert_uint_eq(set.kinds, RUNX_ON_FAILURE | RUNX_ON_TIMEOUT |
					 RUNX_ON_SIGNAL | RUNX_ON_OOM);
	for (int s = 0; s < 256; s++)
		ck_assert_msg(has_status(&set, s) ==
				  (s <= 1 || (s >= 3 && s <= 5) || s == 255),
			      "status %d", s);
	ck_assert(set.signals ==
		  ((UINT64_C(1) << (SIGSEGV - 1)) |
		   (UINT64_C(1) << (SIGTERM - 1)) | (UINT64_C(1) << SIGRTMIN)));
}
END_TEST

START_TEST(outcome_lists_reject_bad_items_naming_them)
{
	static const struct {
		const char *text;
		bool kinds;
		const char *bad;
	} cases[] = {
	    {"", true, ""},
	    {"1,", true, ""},
	    {",1", true, ""},
	    {"256", true, "256"},
	    {"4-3", true, "4-3"},
	    {"1-", true, "1-"},
	    {"-1", true, "-1"},
	    {"1--2", true, "1--2"},
	    {"0", false, NULL},
	    {"failure", false, "failure"},
	    {"SIGNOPE", true, "SIGNOPE"},
	    {"KILLx", false, "KILLx"},
	    {"0x1", true, "0x1"},
	    {"1 ", true, "1 "},
	    {"Failure", true, "Failure"},
	};
	struct runx_outcomes set;
	char bad[64];

	for (int i = 0; i < NELEM(cases); i++) {
		int r = runx_outcomes_parse(cases[i].text, cases[i].kinds, &set,
					    bad, sizeof(bad));
		if (cases[i].bad == NULL) {
			ck_assert_int_eq(r, 0);
			continue;
		}
		ck_assert_msg(r == -EINVAL, "'%s' accepted", cases[i].text);
		ck_assert_str_eq(bad, cases[i].bad);
	}
}
END_TEST

START_TEST(status_0_alone_is_refused_in_retry_on_only)
{
	static const char *const zero[] = {"0", "0-0", "00", "1,0", "0-00"};
	struct runx_outcomes set;
	char bad[64];

	for (int i = 0; i < NELEM(zero); i++) {
		int r =
		    runx_outcomes_parse(zero[i], true, &set, bad, sizeof(bad));
		ck_assert_msg(r == -ERANGE, "'%s': %d, not -ERANGE", zero[i],
			      r);
		ck_assert_int_eq(
		    runx_outcomes_parse(zero[i], false, &set, bad, sizeof(bad)),
		    0); /* --success-exit: 0 is one already */
	}
	ck_assert_int_eq(
	    runx_outcomes_parse("0-3", true, &set, bad, sizeof(bad)), 0);
	ck_assert(set.status[0] == 0xf);
}
END_TEST

START_TEST(signals_no_process_dies_by_are_refused)
{
	static const char *const never[] = {
	    "SIGSTOP", "tstp", "TTIN",	"SIGTTOU",   "cont",
	    "SIGCHLD", "URG",  "winch", "1,SIGSTOP", "segv,CONT"};
	static const char *const fine[] = {"SIGKILL", "segv",	"RTMIN",
					   "RTMAX",   "SIGHUP", "SIGPIPE"};
	struct runx_outcomes set;
	char bad[64];

	for (int i = 0; i < NELEM(never); i++)
		for (int kinds = 0; kinds < 2; kinds++) {
			int r = runx_outcomes_parse(never[i], kinds, &set, bad,
						    sizeof(bad));
			ck_assert_msg(r == -EDOM, "'%s': %d, not -EDOM",
				      never[i], r);
			ck_assert_str_eq(bad, strrchr(never[i], ',') != NULL
						  ? strrchr(never[i], ',') + 1
						  : never[i]);
		}
	for (int i = 0; i < NELEM(fine); i++)
		ck_assert_int_eq(
		    runx_outcomes_parse(fine[i], true, &set, bad, sizeof(bad)),
		    0);
	ck_assert(!runx_signal_can_end(0));
	ck_assert(!runx_signal_can_end(65));
	ck_assert(runx_signal_can_end(SIGRTMIN + 1));
}
END_TEST

START_TEST(a_very_long_item_is_refused_shortened)
{
	char text[300], bad[16];
	struct runx_outcomes set;

	memset(text, '1', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	ck_assert_int_eq(
	    runx_outcomes_parse(text, true, &set, bad, sizeof(bad)), -EINVAL);
	ck_assert_uint_eq(strlen(bad), sizeof(bad) - 1);
}
END_TEST

START_TEST(a_long_bad_item_is_given_whole_and_long_items_parse)
{
	char text[200], bad[200];
	struct runx_outcomes set;

	/* the message quotes the whole item (it shortens it in the middle),
	 * so the parser cuts nothing when the buffer has room */
	snprintf(text, sizeof(text), "1,%0100d-tail,2", 0);
	ck_assert_int_eq(
	    runx_outcomes_parse(text, true, &set, bad, sizeof(bad)), -EINVAL);
	ck_assert_uint_eq(strlen(bad), 105);
	ck_assert_str_eq(bad + 100, "-tail");
	/* 99 zeros and a 1 is status 1, as a short "1" is */
	snprintf(text, sizeof(text), "%0100d", 1);
	ck_assert_int_eq(
	    runx_outcomes_parse(text, false, &set, bad, sizeof(bad)), 0);
	ck_assert(set.status[0] == 2 && set.status[1] == 0 &&
		  set.status[2] == 0 && set.status[3] == 0);
}
END_TEST

START_TEST(decimals_are_plain_digits_within_bounds)
{
	double v = -1;

	ck_assert_int_eq(runx_decimal_parse("1", 1, 1000, &v), 0);
	ck_assert(v == 1);
	ck_assert_int_eq(runx_decimal_parse("2.5", 1, 1000, &v), 0);
	ck_assert(v == 2.5);
	ck_assert_int_eq(runx_decimal_parse(".5", 0, 1, &v), 0);
	ck_assert(v == 0.5);
	ck_assert_int_eq(runx_decimal_parse("1.", 0, 1, &v), 0);
	ck_assert(v == 1);
	ck_assert_int_eq(runx_decimal_parse("0.99", 1, 1000, &v), -ERANGE);
	ck_assert_int_eq(runx_decimal_parse("1000.1", 1, 1000, &v), -ERANGE);
	static const char *const bad[] = {"",	 ".",	"-1", "+1", "1e2",
					  "inf", "nan", " 1", "1 ", "0x2"};
	for (int i = 0; i < NELEM(bad); i++)
		ck_assert_msg(runx_decimal_parse(bad[i], 0, 1000, &v) ==
				  -EINVAL,
			      "'%s' accepted", bad[i]);
}
END_TEST

/* The outcome of a command that exited with code. */
static struct runx_outcome exited(int code)
{
	return (struct runx_outcome){
	    .exit_status = code, .exited = true, .code = code};
}

/* The outcome of a command killed by sig (runx_sent: by runx's stop). */
static struct runx_outcome killed(int sig, bool runx_sent, bool timed_out)
{
	return (struct runx_outcome){.exit_status = timed_out ? 124 : 128 + sig,
				     .signal = sig,
				     .runx_sent = runx_sent,
				     .timed_out = timed_out,
				     .deadline = timed_out};
}

/* The policy with --retry-on=text (and --success-exit=success). */
static struct runx_attempts_policy policy(const char *text, const char *success)
{
	struct runx_attempts_policy p;
	char bad[64];

	runx_attempts_defaults(&p);
	p.max = 5;
	if (text != NULL)
		ck_assert_int_eq(runx_outcomes_parse(text, true, &p.retry_on,
						     bad, sizeof(bad)),
				 0);
	if (success != NULL)
		ck_assert_int_eq(runx_outcomes_parse(success, false, &p.success,
						     bad, sizeof(bad)),
				 0);
	return p;
}

/* The verdict on outcome o under policy p. */
static enum runx_verdict verdict(const struct runx_attempts_policy *p,
				 struct runx_outcome o)
{
	return runx_retry_verdict(p, &o);
}

START_TEST(the_verdict_follows_retry_on_and_success_exit)
{
	struct runx_attempts_policy fail = policy(NULL, NULL);
	struct runx_attempts_policy p = policy("timeout,2-3,SIGSEGV", "4,USR1");
	struct runx_attempts_policy sig = policy("signal,oom", NULL);
	struct runx_outcome setup = {.exit_status = 127, .setup_failed = true};
	struct runx_outcome oom = killed(SIGKILL, false, false);

	ck_assert_int_eq(verdict(&fail, exited(0)), RUNX_VERDICT_SUCCESS);
	ck_assert_int_eq(verdict(&fail, exited(1)), RUNX_VERDICT_RETRY);
	ck_assert_int_eq(verdict(&fail, killed(SIGTERM, true, 1)),
			 RUNX_VERDICT_RETRY);
	ck_assert_int_eq(verdict(&p, exited(3)), RUNX_VERDICT_RETRY);
	ck_assert_int_eq(verdict(&p, exited(1)), RUNX_VERDICT_END);
	ck_assert_int_eq(verdict(&p, exited(4)), RUNX_VERDICT_SUCCESS);
	ck_assert_int_eq(verdict(&p, killed(SIGUSR1, false, 0)),
			 RUNX_VERDICT_SUCCESS);
	/* a death by a stop signal runx received and forwarded (docker
	 * stop) is a success too; one at a deadline, the attempt's or the
	 * run's total, is not */
	struct runx_outcome forwarded = killed(SIGUSR1, true, 0);
	forwarded.stop_signal = SIGUSR1;
	ck_assert_int_eq(verdict(&p, forwarded), RUNX_VERDICT_SUCCESS);
	/* but not runx's SIGKILL after the grace period of that stop */
	struct runx_attempts_policy kill = policy(NULL, "SIGKILL");
	struct runx_outcome killed_by_runx = killed(SIGKILL, true, 0);
	killed_by_runx.stop_signal = SIGTERM;
	ck_assert_int_ne(verdict(&kill, killed_by_runx), RUNX_VERDICT_SUCCESS);
	ck_assert_int_ne(verdict(&p, killed(SIGUSR1, true, 1)),
			 RUNX_VERDICT_SUCCESS);
	struct runx_outcome total = killed(SIGUSR1, true, 0);
	total.deadline = true;
	ck_assert_int_ne(verdict(&p, total), RUNX_VERDICT_SUCCESS);
	ck_assert_int_eq(verdict(&p, killed(SIGSEGV, false, 0)),
			 RUNX_VERDICT_RETRY);
	ck_assert_int_eq(verdict(&p, killed(SIGTERM, true, 1)),
			 RUNX_VERDICT_RETRY);
	ck_assert_int_eq(verdict(&sig, killed(SIGTERM, true, 0)),
			 RUNX_VERDICT_END);
	ck_assert_int_eq(verdict(&sig, killed(SIGHUP, false, 0)),
			 RUNX_VERDICT_RETRY);
	ck_assert_int_eq(verdict(&sig, exited(1)), RUNX_VERDICT_END);
	oom.oom = true;
	oom.runx_sent = true;
	ck_assert_int_eq(verdict(&sig, oom), RUNX_VERDICT_RETRY);
	/* 125, 126, 127: only when listed by number */
	ck_assert_int_eq(verdict(&fail, setup), RUNX_VERDICT_END);
	ck_assert_int_eq(verdict(&fail, exited(126)), RUNX_VERDICT_END);
	struct runx_attempts_policy listed = policy("127", NULL);
	ck_assert_int_eq(verdict(&listed, setup), RUNX_VERDICT_RETRY);
}
END_TEST

START_TEST(a_set_up_status_may_be_retried_only_when_listed)
{
	struct runx_attempts_policy fail = policy(NULL, NULL);
	struct runx_attempts_policy listed = policy("125,127", NULL);
	struct runx_attempts_policy range = policy("120-126", NULL);

	for (int s = 125; s <= 127; s++)
		ck_assert(!runx_retry_may_retry_status(&fail, s));
	ck_assert(runx_retry_may_retry_status(&listed, 125));
	ck_assert(!runx_retry_may_retry_status(&listed, 126));
	ck_assert(runx_retry_may_retry_status(&listed, 127));
	ck_assert(runx_retry_may_retry_status(&range, 126));
	ck_assert(!runx_retry_may_retry_status(&range, 127));
	/* not a set-up status, or no attempt to spare */
	ck_assert(!runx_retry_may_retry_status(&range, 124));
	listed.max = 1;
	ck_assert(!runx_retry_may_retry_status(&listed, 127));
}
END_TEST

START_TEST(waits_grow_by_the_backoff_up_to_the_maximum)
{
	struct runx_attempts_policy p = policy(NULL, NULL);

	p.delay_ns = SEC / 2;
	ck_assert(runx_retry_wait_ns(&p, 1, 0) == SEC / 2);
	ck_assert(runx_retry_wait_ns(&p, 2, 0) == SEC);
	ck_assert(runx_retry_wait_ns(&p, 4, 0) == 4 * SEC);
	ck_assert(runx_retry_wait_ns(&p, 30, 0) == 300 * SEC);
	ck_assert(runx_retry_wait_ns(&p, INT64_MAX, 0) == 300 * SEC);
	p.backoff = 1;
	ck_assert(runx_retry_wait_ns(&p, 1000000, 0) == SEC / 2);
	p.delay_ns = 0;
	ck_assert(runx_retry_wait_ns(&p, INT64_MAX, UINT64_MAX) == 0);
	p.delay_ns = RUNX_DURATION_INF;
	p.delay_max_ns = RUNX_DURATION_INF;
	ck_assert(runx_retry_wait_ns(&p, 3, 0) == RUNX_DURATION_INF);
	/* a wait with no end keeps none with a jitter */
	p.jitter = 0.5;
	ck_assert(runx_retry_wait_ns(&p, 1, UINT64_MAX / 2) ==
		  RUNX_DURATION_INF);
}
END_TEST

START_TEST(jitter_shortens_a_wait_by_at_most_its_fraction)
{
	struct runx_attempts_policy p = policy(NULL, NULL);

	p.delay_ns = 10 * SEC;
	p.jitter = 0.5;
	ck_assert(runx_retry_wait_ns(&p, 1, 0) == 10 * SEC);
	ck_assert(runx_retry_wait_ns(&p, 1, UINT64_C(1) << 63) == 15 * SEC / 2);
	int64_t least = runx_retry_wait_ns(&p, 1, UINT64_MAX);
	ck_assert(least >= 5 * SEC && least < 5 * SEC + 1000);
	p.jitter = 1;
	ck_assert(runx_retry_wait_ns(&p, 1, UINT64_MAX) >= 0);
}
END_TEST

static Suite *retry_suite(void)
{
	Suite *s = suite_create("retry");
	TCase *tc = tcase_create("retry");

	tcase_add_test(tc, attempts_takes_whole_numbers_and_inf);
	tcase_add_test(tc, retry_on_lists_kinds_statuses_ranges_and_signals);
	tcase_add_test(tc, outcome_lists_reject_bad_items_naming_them);
	tcase_add_test(tc, status_0_alone_is_refused_in_retry_on_only);
	tcase_add_test(tc, signals_no_process_dies_by_are_refused);
	tcase_add_test(tc, a_very_long_item_is_refused_shortened);
	tcase_add_test(tc, a_long_bad_item_is_given_whole_and_long_items_parse);
	tcase_add_test(tc, decimals_are_plain_digits_within_bounds);
	tcase_add_test(tc, the_verdict_follows_retry_on_and_success_exit);
	tcase_add_test(tc, a_set_up_status_may_be_retried_only_when_listed);
	tcase_add_test(tc, waits_grow_by_the_backoff_up_to_the_maximum);
	tcase_add_test(tc, jitter_shortens_a_wait_by_at_most_its_fraction);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(retry_suite());
}
