/* Unit tests of src/signals.h: SIG text <-> signal numbers. */
#include <check.h>
#include <stdbool.h>
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "signals.h"

/* Not a signal number, so "unchanged" is visible. */
#define SENTINEL (-4242)

/* Expectations come from <signal.h>, never from hard-coded numbers. */
static const struct {
	const char *name; /* without SIG */
	int signo;
} linux_names[] = {
    {"HUP", SIGHUP},	   {"INT", SIGINT},	  {"QUIT", SIGQUIT},
    {"ILL", SIGILL},	   {"TRAP", SIGTRAP},	  {"ABRT", SIGABRT},
    {"BUS", SIGBUS},	   {"FPE", SIGFPE},	  {"KILL", SIGKILL},
    {"USR1", SIGUSR1},	   {"SEGV", SIGSEGV},	  {"USR2", SIGUSR2},
    {"PIPE", SIGPIPE},	   {"ALRM", SIGALRM},	  {"TERM", SIGTERM},
    {"STKFLT", SIGSTKFLT}, {"CHLD", SIGCHLD},	  {"CONT", SIGCONT},
    {"STOP", SIGSTOP},	   {"TSTP", SIGTSTP},	  {"TTIN", SIGTTIN},
    {"TTOU", SIGTTOU},	   {"URG", SIGURG},	  {"XCPU", SIGXCPU},
    {"XFSZ", SIGXFSZ},	   {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF},
    {"WINCH", SIGWINCH},   {"IO", SIGIO},	  {"PWR", SIGPWR},
    {"SYS", SIGSYS},
};

static const struct {
	const char *name;
	int signo;
} alias_names[] = {
    {"IOT", SIGABRT},  {"SIGIOT", SIGABRT},  {"iot", SIGABRT},
    {"CLD", SIGCHLD},  {"SIGCLD", SIGCHLD},  {"sigcld", SIGCHLD},
    {"POLL", SIGPOLL}, {"SIGPOLL", SIGPOLL}, {"Poll", SIGPOLL},
};

/* Parses text and asserts it gives want. */
static void expect_signal(const char *text, int want)
{
	int signo = SENTINEL;
	int rc = runx_signal_parse(text, &signo);

	ck_assert_msg(rc == 0, "\"%s\" was rejected (%d), want %d", text, rc,
		      want);
	ck_assert_msg(signo == want, "\"%s\" gave %d, want %d", text, signo,
		      want);
}

/* Asserts text is rejected with -EINVAL. */
static void expect_rejected(const char *text)
{
	int signo = SENTINEL;
	int rc = runx_signal_parse(text, &signo);

	ck_assert_msg(rc == -EINVAL, "\"%s\" gave %d (signal %d), want -EINVAL",
		      text, rc, signo);
}

static void lower(char *s)
{
	for (; *s != '\0'; s++)
		*s = (char)tolower((unsigned char)*s);
}

START_TEST(every_linux_name_parses_with_or_without_sig_in_any_case)
{
	const char *name = linux_names[_i].name;
	int want = linux_names[_i].signo;
	char text[32];

	expect_signal(name, want);
	snprintf(text, sizeof(text), "SIG%s", name);
	expect_signal(text, want);
	snprintf(text, sizeof(text), "%s", name);
	lower(text);
	expect_signal(text, want);
	snprintf(text, sizeof(text), "sig%s", name);
	lower(text);
	expect_signal(text, want);
	/* mixed case: "Sig" + the name with only its first letter upper */
	snprintf(text, sizeof(text), "Sig%s", name);
	lower(text + 4);
	expect_signal(text, want);
}
END_TEST

START_TEST(aliases_iot_cld_poll_are_accepted)
{
	expect_signal(alias_names[_i].name, alias_names[_i].signo);
}
END_TEST

/* _i runs over 0..SIGRTMAX. */
START_TEST(every_number_from_zero_to_sigrtmax_is_accepted)
{
	char text[16];

	snprintf(text, sizeof(text), "%d", _i);
	expect_signal(text, _i);
}
END_TEST

START_TEST(numbers_are_decimal_even_with_leading_zeros)
{
	expect_signal("010", 10);
	expect_signal("015", SIGTERM);
	expect_signal("00", 0);
	expect_signal("0009", SIGKILL);
}
END_TEST

START_TEST(realtime_names_follow_the_runtime_sigrtmin_and_sigrtmax)
{
	expect_signal("RTMIN", SIGRTMIN);
	expect_signal("RTMAX", SIGRTMAX);
	expect_signal("SIGRTMIN", SIGRTMIN);
	expect_signal("SIGRTMAX", SIGRTMAX);
	expect_signal("rtmin", SIGRTMIN);
	expect_signal("sigrtmax", SIGRTMAX);
	expect_signal("RTMIN+0", SIGRTMIN);
	expect_signal("RTMAX-0", SIGRTMAX);
	expect_signal("RTMIN+001", SIGRTMIN + 1);
}
END_TEST

/* _i runs over 0..SIGRTMAX-SIGRTMIN. */
START_TEST(every_realtime_offset_in_range_is_accepted)
{
	char text[32];

	snprintf(text, sizeof(text), "RTMIN+%d", _i);
	expect_signal(text, SIGRTMIN + _i);
	snprintf(text, sizeof(text), "SIGRTMIN+%d", _i);
	expect_signal(text, SIGRTMIN + _i);
	snprintf(text, sizeof(text), "RTMAX-%d", _i);
	expect_signal(text, SIGRTMAX - _i);
	snprintf(text, sizeof(text), "sigrtmax-%d", _i);
	expect_signal(text, SIGRTMAX - _i);
}
END_TEST

static const char *const rejected[] = {
    /* empty, or nothing after SIG */
    "",
    "SIG",
    "sig",
    "Sig",
    /* unknown names */
    "FOO",
    "SIGFOO",
    "TERMX",
    "TER",
    "SIGSIGTERM",
    "SIG_TERM",
    "SIG-TERM",
    "KILLL",
    "RT",
    "RTMID",
    "SIGRT",
    "NULL",
    "ZERO",
    /* white space */
    "SIGTERM ",
    " TERM",
    "TERM\n",
    "SIG TERM",
    " 15",
    "15 ",
    "1 5",
    /* not a plain decimal number */
    "-1",
    "-15",
    "+15",
    "15x",
    "1.5",
    "0xf",
    "1e1",
    /* numbers out of range */
    "999",
    "1000",
    "1001",
    "65536",
    "2147483648",
    "4294967311",
    "99999999999999999999",
    /* malformed real-time forms */
    "RTMIN-1",
    "RTMAX+1",
    "RTMIN+",
    "RTMAX-",
    "RTMIN+-1",
    "RTMIN++1",
    "RTMIN1",
    "RTMIN 1",
    "RTMIN+ 1",
    "RTMIN+1 ",
    "RTMIN+x",
    "RTMAX-1x",
    "RTMIN+1000",
    "RTMAX-1000",
    "RTMIN+99999999999999999999",
    "RTMIN+4294967296",
    "SIGRTMIN-0",
};

START_TEST(unknown_names_and_malformed_text_are_rejected)
{
	expect_rejected(rejected[_i]);
}
END_TEST

/*
 * Out of range by one: computed from the runtime SIGRTMIN/SIGRTMAX (with
 * glibc on Linux these are "65", "RTMIN+31", "RTMAX-31", ...).
 */
static void out_of_range_text(int i, char *buf, size_t size)
{
	int range = SIGRTMAX - SIGRTMIN;

	switch (i) {
	case 0:
		snprintf(buf, size, "%d", SIGRTMAX + 1);
		break;
	case 1:
		snprintf(buf, size, "RTMIN+%d", range + 1);
		break;
	case 2:
		snprintf(buf, size, "RTMAX-%d", range + 1);
		break;
	case 3:
		snprintf(buf, size, "SIGRTMIN+%d", range + 1);
		break;
	case 4:
		snprintf(buf, size, "sigrtmax-%d", range + 1);
		break;
	case 5:
		snprintf(buf, size, "%d", SIGRTMAX + 2);
		break;
	default:
		ck_abort_msg("no out-of-range case %d", i);
	}
}

START_TEST(numbers_and_offsets_just_out_of_range_are_rejected)
{
	char text[32];

	out_of_range_text(_i, text, sizeof(text));
	expect_rejected(text);
}
END_TEST

START_TEST(null_text_is_rejected)
{
	int signo = SENTINEL;

	ck_assert_int_eq(runx_signal_parse(NULL, &signo), -EINVAL);
	ck_assert_int_eq(signo, SENTINEL);
}
END_TEST

/* ---- runx_signal_name ---------------------------------------------- */

static const char *name_of(int signo)
{
	static char buf[64];

	return runx_signal_name(signo, buf, sizeof(buf));
}

START_TEST(names_use_the_sig_prefix_and_canonical_spelling)
{
	ck_assert_str_eq(name_of(SIGTERM), "SIGTERM");
	ck_assert_str_eq(name_of(SIGKILL), "SIGKILL");
	ck_assert_str_eq(name_of(SIGINT), "SIGINT");
	ck_assert_str_eq(name_of(SIGHUP), "SIGHUP");
	ck_assert_str_eq(name_of(SIGABRT), "SIGABRT"); /* not SIGIOT */
	ck_assert_str_eq(name_of(SIGCHLD), "SIGCHLD"); /* not SIGCLD */
	ck_assert_str_eq(name_of(SIGIO), "SIGIO");     /* not SIGPOLL */
	ck_assert_str_eq(name_of(SIGWINCH), "SIGWINCH");
}
END_TEST

START_TEST(every_linux_name_is_printed_as_sig_plus_that_name)
{
	char want[32];

	snprintf(want, sizeof(want), "SIG%s", linux_names[_i].name);
	ck_assert_str_eq(name_of(linux_names[_i].signo), want);
}
END_TEST

START_TEST(realtime_signals_are_named_from_the_nearer_end)
{
	char want[32];
	int range = SIGRTMAX - SIGRTMIN;

	ck_assert_str_eq(name_of(SIGRTMIN), "SIGRTMIN");
	ck_assert_str_eq(name_of(SIGRTMAX), "SIGRTMAX");
	ck_assert_str_eq(name_of(SIGRTMIN + 1), "SIGRTMIN+1");
	ck_assert_str_eq(name_of(SIGRTMIN + 2), "SIGRTMIN+2");
	ck_assert_str_eq(name_of(SIGRTMAX - 1), "SIGRTMAX-1");
	ck_assert_str_eq(name_of(SIGRTMAX - 2), "SIGRTMAX-2");
	/* the middle one (a tie when the range is even) counts from RTMIN */
	snprintf(want, sizeof(want), "SIGRTMIN+%d", range / 2);
	ck_assert_str_eq(name_of(SIGRTMIN + range / 2), want);
	snprintf(want, sizeof(want), "SIGRTMAX-%d", range - range / 2 - 1);
	ck_assert_str_eq(name_of(SIGRTMIN + range / 2 + 1), want);
}
END_TEST

START_TEST(signals_without_a_name_are_printed_as_numbers)
{
	char want[16];

	ck_assert_str_eq(name_of(0), "0");
	snprintf(want, sizeof(want), "%d", SIGRTMIN - 1); /* glibc-reserved */
	ck_assert_str_eq(name_of(SIGRTMIN - 1), want);
	snprintf(want, sizeof(want), "%d", SIGRTMAX + 1);
	ck_assert_str_eq(name_of(SIGRTMAX + 1), want);
}
END_TEST

/* _i runs over 0..SIGRTMAX. */
START_TEST(every_printed_name_parses_back_to_its_number)
{
	char buf[64];
	int signo = SENTINEL;

	runx_signal_name(_i, buf, sizeof(buf));
	ck_assert_msg(runx_signal_parse(buf, &signo) == 0,
		      "signal %d printed as unparsable \"%s\"", _i, buf);
	ck_assert_msg(signo == _i, "signal %d -> \"%s\" -> %d", _i, buf, signo);
}
END_TEST

START_TEST(name_writes_at_most_size_bytes)
{
	char buf[16];
	const char *got;

	memset(buf, 'X', sizeof(buf));
	got = runx_signal_name(SIGTERM, buf, 4);
	ck_assert_ptr_eq(got, buf);
	ck_assert_str_eq(buf, "SIG");
	ck_assert_int_eq(buf[4], 'X');

	memset(buf, 'X', sizeof(buf));
	runx_signal_name(SIGRTMIN + 1, buf, 9);
	ck_assert_str_eq(buf, "SIGRTMIN");
	ck_assert_int_eq(buf[9], 'X');
}
END_TEST

/* ---- the signals runx catches ------------------------------------- */

START_TEST(exactly_the_forwarded_signals_are_handled)
{
	static const int handled[] = {SIGHUP,  SIGINT,	 SIGQUIT,
				      SIGTERM, SIGUSR1,	 SIGUSR2,
				      SIGALRM, SIGWINCH, SIGCONT};

	/* the real-time signals from the kernel's first (32), the C
	 * library's reserved ones below its SIGRTMIN included */
	for (int sig = 0; sig <= SIGRTMAX + 1; sig++) {
		bool want = sig >= 32 && sig <= SIGRTMAX;

		for (int k = 0; k < NELEM(handled); k++)
			want = want || sig == handled[k];
		ck_assert_msg(runx_signal_is_handled(sig) == want,
			      "signal %d: handled %d, want %d", sig,
			      runx_signal_is_handled(sig), want);
	}
	ck_assert(!runx_signal_is_handled(-1));
	ck_assert(!runx_signal_is_handled(SIGKILL));
	ck_assert(!runx_signal_is_handled(SIGSTOP));
	ck_assert(!runx_signal_is_handled(SIGCHLD));
	ck_assert(!runx_signal_is_handled(SIGPIPE));
}
END_TEST

static Suite *signals_suite(void)
{
	Suite *s = suite_create("signals");
	TCase *parse = tcase_create("parse");
	TCase *reject = tcase_create("reject");
	TCase *name = tcase_create("name");

	add_table_test(parse,
		       every_linux_name_parses_with_or_without_sig_in_any_case,
		       linux_names);
	add_table_test(parse, aliases_iot_cld_poll_are_accepted, alias_names);
	tcase_add_loop_test(parse,
			    every_number_from_zero_to_sigrtmax_is_accepted, 0,
			    SIGRTMAX + 1);
	tcase_add_test(parse, numbers_are_decimal_even_with_leading_zeros);
	tcase_add_test(parse,
		       realtime_names_follow_the_runtime_sigrtmin_and_sigrtmax);
	tcase_add_loop_test(parse, every_realtime_offset_in_range_is_accepted,
			    0, SIGRTMAX - SIGRTMIN + 1);
	suite_add_tcase(s, parse);

	add_table_test(reject, unknown_names_and_malformed_text_are_rejected,
		       rejected);
	tcase_add_loop_test(
	    reject, numbers_and_offsets_just_out_of_range_are_rejected, 0, 6);
	tcase_add_test(reject, null_text_is_rejected);
	suite_add_tcase(s, reject);

	tcase_add_test(name, names_use_the_sig_prefix_and_canonical_spelling);
	add_table_test(name, every_linux_name_is_printed_as_sig_plus_that_name,
		       linux_names);
	tcase_add_test(name, realtime_signals_are_named_from_the_nearer_end);
	tcase_add_test(name, signals_without_a_name_are_printed_as_numbers);
	tcase_add_loop_test(name, every_printed_name_parses_back_to_its_number,
			    0, SIGRTMAX + 1);
	tcase_add_test(name, name_writes_at_most_size_bytes);
	tcase_add_test(name, exactly_the_forwarded_signals_are_handled);
	suite_add_tcase(s, name);
	return s;
}

int main(void)
{
	return run_suite(signals_suite());
}
