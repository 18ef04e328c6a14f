# shellcheck shell=bash
# Shared helpers for the runx integration tests (sourced as `. "$TESTLIB"`).
#
# Environment: RUNX (absolute path of the built runx), TESTLIB (this file),
# optionally RUNX_LAUNCH (posix_spawn, fork, vfork or clone3): the `runx`
# wrapper then adds --launch=$RUNX_LAUNCH to every run.
#
# Conventions:
# - every test process that must die carries a marker, a word of the form
#   1000.<digits> (so `sleep $m` sleeps ~1000 s), from new_marker;
#   marked_count/marked_list scan /proc/*/cmdline for it (a zombie counts
#   as dead); the EXIT trap SIGKILLs whatever still carries one of this
#   script's markers;
# - TAP: every script announces its plan first (`plan N`, computed before
#   the first test, also where the count depends on the machine), then
#   ok/not_ok/skip/assert_eq/assert_true...; done_testing at the end.  A
#   case dropped or a script that dies half way leaves fewer tests than
#   the plan: the TAP driver reports that as an ERROR, and lib.sh says so
#   on exit.  What cannot run here is a TAP skip with its reason (skip,
#   skips), so the count stays the plan's;
# - helper programs of the tests (embedded python3 and the like) are
#   checked: a helper's failure is a test failure (not ok, with its
#   stderr) or a "Bail out!", never a silently shorter run;
# - timing: a job that must be set up before a short deadline fires runs
#   under on_time, which repeats the run with a long deadline when the
#   job was late (a loaded machine), instead of asserting on a run that
#   tested nothing.

set -u

# Start every script with a clean signal state (nothing blocked, nothing
# ignored), whatever make or the caller inherited: the tests compare the
# command's mask and dispositions against what runx was started with, and
# send signals that an inherited SIG_IGN would swallow.  Signals 32 to 34
# are the C library's own (glibc refuses to reset 32 and 33, so perl
# cannot): where python3 knows the system calls' numbers, rawsig.py resets
# all 64 with rt_sigaction(2) and rt_sigprocmask(2) themselves; else perl
# resets the others, and backends.sh compares against this shell's state.
_sig_dirty() {
	local blk ign
	blk=$(sed -n 's/^SigBlk:[[:space:]]*//p' /proc/self/status)
	ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status)
	(((16#$blk | 16#$ign) & ~${1:-0}))
}
RAWSIG=$(dirname "${BASH_SOURCE[0]}")/rawsig.py
if [ -z "${RUNX_TEST_CLEAN_SIGNALS:-}" ] && _sig_dirty; then
	if command -v python3 >/dev/null && python3 "$RAWSIG" known; then
		RUNX_TEST_CLEAN_SIGNALS=1 exec python3 "$RAWSIG" reset \
			"$BASH" "$0" "$@"
	fi
	_sig_dirty 0x180000000 &&
		RUNX_TEST_CLEAN_SIGNALS=1 exec perl -e '
		use POSIX;
		sigprocmask(SIG_SETMASK, POSIX::SigSet->new());
		local $SIG{__WARN__} = sub {};
		for my $s (keys %SIG) {
			next if $s =~ /^(KILL|STOP|ZERO|__WARN__|__DIE__)$/;
			eval { $SIG{$s} = "DEFAULT" };
		}
		exec { $ARGV[0] } @ARGV or die "exec: $!";
	' "$BASH" "$0" "$@"
fi
export RUNX_TEST_CLEAN_SIGNALS=1

# bail_out REASON: "Bail out!" (the TAP driver reports an ERROR) and exit 1:
# the script cannot go on (a helper it needs failed, a misuse of lib.sh).
bail_out() {
	local line
	TAP_BAILED=1
	line=${*//$'\n'/ }
	echo "Bail out! $line"
	exit 1
}

# skip_all REASON: the whole script is skipped (a prerequisite is
# missing): prints the plan "1..0 # SKIP REASON" and exits 77, the automake
# convention (tests/integration/run-tap turns that 77 into 0 for the TAP
# driver, which reports the plan as SKIP).  Only before the plan: once
# tests are announced, a missing prerequisite is a skip per test (skips).
skip_all() {
	if [ -n "${TAP_PLAN:-}" ]; then
		bail_out "skip_all after the plan ($*): skip the tests one by one"
	fi
	TAP_SKIPPED_ALL=1
	echo "1..0 # SKIP $*"
	exit 77
}

# require_root: skip_all unless this script runs as root.
require_root() {
	[ "$(id -u)" = 0 ] || skip_all "needs root${1:+ $1}"
}

: "${RUNX:?RUNX must name the runx binary}"
[ -x "$RUNX" ] || skip_all "runx binary '$RUNX' not built"

ALL_BACKENDS="posix_spawn fork vfork clone3"

# is_backend NAME: true when NAME is one of runx's launch backends (one
# word: "fork vfork" is not one).
is_backend() {
	case $1 in
	"" | *[[:space:]]*) return 1 ;;
	esac
	case " $ALL_BACKENDS " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

LAUNCH_ARGS=()
if [ -n "${RUNX_LAUNCH:-}" ]; then
	if ! is_backend "$RUNX_LAUNCH"; then
		echo "Bail out! RUNX_LAUNCH='$RUNX_LAUNCH' is not one of: $ALL_BACKENDS"
		exit 1
	fi
	LAUNCH_ARGS=("--launch=$RUNX_LAUNCH")
	echo "# RUNX_LAUNCH=$RUNX_LAUNCH: every run adds --launch=$RUNX_LAUNCH"
fi

# backend_rerun: true when this run is run-tap's rerun of the script with
# another launch backend (NAME_BACKEND.launch sets RUNX_TEST_RERUN=1): a
# script whose cases do not all depend on how the command is started runs
# only those that do then; the others ran with the default backend.
backend_rerun() {
	[ "${RUNX_TEST_RERUN:-}" = 1 ] && [ -n "${RUNX_LAUNCH:-}" ]
}

# CG_LAUNCH_ARGS: LAUNCH_ARGS for runs in the cgroup scope: RUNX_LAUNCH,
# unless that backend cannot start a command inside a cgroup here
# (posix_spawn before glibc 2.39, whose refusal cgroup.sh tests on its
# own), then runx's default backend.
CG_LAUNCH_ARGS=("${LAUNCH_ARGS[@]}")
if [ "${RUNX_LAUNCH:-}" = posix_spawn ] &&
	[ "$("$RUNX" --launch=posix_spawn -C -- true 2>/dev/null; echo $?)" = 125 ]; then
	CG_LAUNCH_ARGS=()
	echo "# posix_spawn cannot do the cgroup scope here: cgroup runs use runx's default backend"
fi

# runx_cg ARGS...: the binary under test for a run in the cgroup scope.
runx_cg() {
	"$RUNX" "${CG_LAUNCH_ARGS[@]}" "$@"
}

# --- TAP ---------------------------------------------------------------

TAP_N=0
TAP_FAILED=0
TAP_PLAN=""
TAP_DONE=""
TAP_BAILED=""
TAP_SKIPPED_ALL=""
PENDING_DIAG=""

diag() {
	local line
	while IFS= read -r line; do
		printf '# %s\n' "$line"
	done <<<"$*"
}

# plan N: announces the N tests of the script ("1..N"), before the first.
# Compute N before running anything (loops over backends or scopes: from
# their lists; a case that cannot run here still counts, as skips).
plan() {
	case $1 in
	'' | *[!0-9]*) bail_out "plan: '$1' is not a count" ;;
	esac
	if [ -n "$TAP_PLAN" ] || [ "$TAP_N" -gt 0 ]; then
		bail_out "plan: given twice, or after a test"
	fi
	TAP_PLAN=$1
	echo "1..$TAP_PLAN"
}

# _tap_next: the number of the next test line; the plan must be out (a
# test line before it would be a plan at the end, which cannot tell a
# dropped case).  Prints what on_time noted for this test first.
_tap_next() {
	[ -n "$TAP_PLAN" ] || bail_out "a test before the plan: call plan N first"
	TAP_N=$((TAP_N + 1))
	if [ -n "$PENDING_DIAG" ]; then
		diag "$PENDING_DIAG"
		PENDING_DIAG=""
	fi
}

ok() {
	_tap_next
	printf 'ok %d - %s\n' "$TAP_N" "$1"
}

# not_ok NAME [DIAGNOSTIC...]
not_ok() {
	_tap_next
	TAP_FAILED=$((TAP_FAILED + 1))
	printf 'not ok %d - %s\n' "$TAP_N" "$1"
	shift
	if [ $# -gt 0 ]; then
		diag "$*"
	fi
}

# skip NAME REASON: a test that cannot run here (TAP "# SKIP REASON").
skip() {
	_tap_next
	printf 'ok %d - %s # SKIP %s\n' "$TAP_N" "$1" "${2:-}"
}

# skips COUNT NAME REASON: COUNT tests of the case NAME that cannot run
# here, each a skip ("NAME (i of COUNT)"): the plan's count stays right.
skips() {
	local i
	for ((i = 1; i <= $1; i++)); do
		skip "$2 ($i of $1)" "$3"
	done
}

# assert_eq NAME EXPECTED GOT [extra diagnostic]
assert_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "expected: '$2'
got:      '$3'${4:+
$4}"
	fi
}

# assert_ne NAME UNEXPECTED GOT
assert_ne() {
	if [ "$2" != "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "expected anything but '$2'"
	fi
}

# assert_match NAME EXTENDED-REGEX TEXT
assert_match() {
	if [[ "$3" =~ $2 ]]; then
		ok "$1"
	else
		not_ok "$1" "expected to match /$2/:
$3"
	fi
}

# assert_true NAME COMMAND...: ok when COMMAND succeeds
assert_true() {
	local name=$1
	shift
	if "$@"; then
		ok "$name"
	else
		not_ok "$name" "failed: $*"
	fi
}

# assert_false NAME COMMAND...: ok when COMMAND fails
assert_false() {
	local name=$1
	shift
	if "$@"; then
		not_ok "$name" "unexpectedly succeeded: $*"
	else
		ok "$name"
	fi
}

# done_testing: the end of the script: exactly the planned tests ran
# (else a diagnostic, and exit status 1 besides the TAP driver's ERROR).
done_testing() {
	[ -n "$TAP_PLAN" ] || bail_out "done_testing without a plan"
	TAP_DONE=1
	if [ "$TAP_N" -ne "$TAP_PLAN" ]; then
		diag "planned $TAP_PLAN tests, ran $TAP_N"
		exit 1
	fi
	exit 0
}

# _tap_at_exit STATUS: a script that ends without done_testing (it died,
# or exit was called) says how far it got, and does not exit 0.
_tap_at_exit() {
	[ -z "$TAP_DONE$TAP_BAILED$TAP_SKIPPED_ALL" ] || return 0
	diag "the script ended (status $1) after $TAP_N of ${TAP_PLAN:-no plan of} tests, without done_testing"
	[ "$1" != 0 ] || return 1
	return "$1"
}

# --- running runx --------------------------------------------------------

# runx ARGS...: the binary under test, with --launch=$RUNX_LAUNCH if set.
runx() {
	"$RUNX" "${LAUNCH_ARGS[@]}" "$@"
}

# runx_with BACKEND ARGS...: the binary with an explicit backend (ignores
# RUNX_LAUNCH; for tests that loop over the backends themselves).
runx_with() {
	local b=$1
	shift
	"$RUNX" --launch="$b" "$@"
}

# runx_bg ARGS...: start runx in the background; RUNX_PID is its pid.
# A non-interactive shell starts background jobs with SIGINT and SIGQUIT
# ignored (and runx would pass that on to the command), so they are reset
# to default through env(1), which execs runx (same pid).
# Returns once that pid runs runx (see wait_exec).
runx_bg() {
	env --default-signal=INT,QUIT "$RUNX" "${LAUNCH_ARGS[@]}" "$@" &
	RUNX_PID=$!
	wait_exec "$RUNX_PID"
}

runx_bg_with() {
	local b=$1
	shift
	env --default-signal=INT,QUIT "$RUNX" --launch="$b" "$@" &
	RUNX_PID=$!
	wait_exec "$RUNX_PID"
}

# wait_exec PID [BINARY]: wait until PID runs BINARY (default: the runx
# binary), or is gone (busy at first, then in 1 ms steps; a hang guard of
# 60 s).  Until then PID is its shell's forked child, which handles a
# terminating signal itself (bash may even run the EXIT trap): a signal
# meant for the program must not be sent before.
wait_exec() {
	local pid=$1 bin=${2:-$RUNX} i end=$((EPOCHSECONDS + 60))
	for ((i = 0; ; i++)); do
		[[ /proc/$pid/exe -ef $bin ]] && return 0
		[ -e "/proc/$pid" ] || return 0
		if [ "$i" -ge 2000 ]; then
			[ "$EPOCHSECONDS" -lt "$end" ] || return 0
			sleep 0.001
		fi
	done
}

# guarded SECONDS COMMAND...: run COMMAND under GNU timeout as a hang
# guard (status 124/137 from the guard means the command hung).
guarded() {
	local secs=$1
	shift
	timeout -k 5 "$secs" "$@"
}

# st COMMAND...: prints the exit status of COMMAND.
st() {
	local s=0
	"$@" || s=$?
	echo "$s"
}

# --- a job set up before its deadline ----------------------------------------

# ON_TIME_TRIES: the deadlines (seconds) of the runs after the first, when
# the job was late.
ON_TIME_TRIES=(3 10 30)

# on_time SECONDS READY [FILE|MARKER|>OUT|2>ERR...] -- COMMAND...: run
# COMMAND, a runx run whose deadline (or idle deadline) is written @T in
# its words (@2T: twice that), SECONDS the first time.  The job writes the
# file READY once it is set up (traps installed, children started; with
# ": >FILE", no process of its own).  If READY is missing afterwards, or
# was written more than half the deadline after the start, the deadline
# may have come before the job was ready, and the run tells nothing of
# runx (a loaded machine): it runs again with the deadlines of
# ON_TIME_TRIES, and the next test line's diagnostic says so.  READY and
# the FILEs are removed before each run, and what carries a MARKER
# (1000.<digits>) is killed (a run may leave processes its scope does not
# cover).  ">OUT" and "2>ERR" send COMMAND's stdout and stderr to OUT and
# ERR, afresh for each run.  COMMAND runs in the background (INT and QUIT
# at their defaults) under a hang guard of 60 s plus 4 deadlines; runx and
# runx_cg as its first word are the binary under test as those functions
# run it, else it must be a program (not a function).  Sets OT_STATUS
# (its exit status, "hung" if the guard fired), OT_T (the deadline of the
# run the test looks at; a caller's expectations use it), OT_PID (its pid)
# and OT_ELAPSED (its seconds, from before its start to after its end).
# The environment of the run has RUNX_TEST_T0, when it started
# ($EPOCHREALTIME), for jobs that time themselves against the deadline.
on_time() {
	local t=$1 ready=$2 late t0 mt i out="" err=""
	local -a files=() markers=() cmd words runs=("$1" "${ON_TIME_TRIES[@]}")
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		if [ "${1#>}" != "$1" ]; then
			out=${1#>}
		elif [ "${1#2>}" != "$1" ]; then
			err=${1#2>}
		elif [[ $1 =~ ^1000\.[0-9]+$ ]]; then
			markers+=("$1")
		else
			files+=("$1")
		fi
		shift
	done
	[ "${1:-}" = -- ] || bail_out "on_time: no -- before the command"
	shift
	case $1 in
	runx) cmd=("$RUNX" "${LAUNCH_ARGS[@]}") && shift ;;
	runx_cg) cmd=("$RUNX" "${CG_LAUNCH_ARGS[@]}") && shift ;;
	*) cmd=() ;;
	esac
	for ((i = 0; i < ${#runs[@]}; i++)); do
		t=${runs[$i]}
		rm -f "$ready" "${files[@]}"
		[ ${#markers[@]} = 0 ] || kill_marked "${markers[@]}"
		words=("${@//@2T/$(awk -v t="$t" 'BEGIN { print 2 * t }')}")
		words=("${words[@]//@T/$t}")
		t0=${EPOCHREALTIME/,/.}
		(
			[ -z "$out" ] || exec >"$out"
			[ -z "$err" ] || exec 2>"$err"
			RUNX_TEST_T0=$t0 exec env --default-signal=INT,QUIT "${cmd[@]}" "${words[@]}"
		) &
		OT_PID=$!
		wait_pid_exit "$OT_PID" "$(awk -v t="$t" 'BEGIN { printf "%d", 60 + 4 * t }')"
		# shellcheck disable=SC2034 # for the scripts that source this file
		OT_STATUS=$WAIT_STATUS OT_T=$t
		# shellcheck disable=SC2034
		OT_ELAPSED=$(awk -v a="$t0" -v b="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%.2f\n", b - a }')
		mt=$(stat -c %.9Y "$ready" 2>/dev/null) || mt=""
		late=$(awk -v t0="$t0" -v mt="${mt:-x}" -v t="$t" 'BEGIN {
			if (mt == "x") print "never got ready"
			else if (mt - t0 > t / 2) printf "was ready %.2f s after the start\n", mt - t0 }')
		[ -n "$late" ] || return 0
		PENDING_DIAG+="${PENDING_DIAG:+$'\n'}on_time: the job $late, with a deadline of ${t} s: "
		if [ "$i" = $((${#runs[@]} - 1)) ]; then
			PENDING_DIAG+="no more tries, the results are this run's"
		else
			PENDING_DIAG+="run again with a longer one"
		fi
	done
	return 0
}

# duration_text SECONDS: SECONDS as runx's messages show a duration
# (0.5 -> 500ms, 10 -> 10s).
duration_text() {
	awk -v t="$1" 'BEGIN { if (t < 1) printf "%dms\n", t * 1000 + 0.5; else print t "s" }'
}

# --- helper programs -----------------------------------------------------------

# helper_failure STATUS ERRFILE: the diagnostic for a helper program of
# the test (not the program under test) that exited with STATUS, its
# stderr in ERRFILE.  A helper that prints the results of several tests
# and fails leaves each test it did not report a not ok with this text
# (so the count stays the plan's); one that failed after reporting all
# of them bails out.
helper_failure() {
	printf 'the helper exited with status %s; its stderr:\n%s' "$1" \
		"$(tail -n 20 "$2" 2>/dev/null)"
}

# --- prerequisites ---------------------------------------------------------

# require_command NAME [WHY]: skip_all unless NAME is on PATH.
require_command() {
	command -v "$1" >/dev/null || skip_all "$1 is needed${2:+ $2}"
}

# require_python3 WHY: sets PY to python3 (/usr/bin/python3 first), or
# skip_all "python3 is needed WHY".
# shellcheck disable=SC2034 # PY: for the scripts that source this file
require_python3() {
	if [ -x /usr/bin/python3 ]; then
		PY=/usr/bin/python3
	else
		PY=$(command -v python3) || skip_all "python3 is needed $*"
	fi
}

# glibc_at_least VERSION: true if this is glibc VERSION or later
# (GLIBC_VERSION: empty where the C library is not glibc).
GLIBC_VERSION=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
glibc_at_least() {
	[ -n "$GLIBC_VERSION" ] &&
		[ "$(printf '%s\n%s\n' "$GLIBC_VERSION" "$1" | sort -V | head -n 1)" = "$1" ]
}

# as_nobody COMMAND...: run COMMAND as uid/gid 65534 (setpriv).
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
}

# as_nobody_bg CMD ARGS...: as_nobody in the background, NOBODY_PID the
# pid of CMD itself (setpriv(1) execs it), to be killed by it: "as_nobody
# CMD &" forks a subshell for the function, and its pid is not CMD's.
# shellcheck disable=SC2034 # NOBODY_PID: for the scripts that source this file
as_nobody_bg() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@" &
	NOBODY_PID=$!
}

# setup_nobody: NOBODY_DIR, a scratch directory uid 65534 can write
# (removed on exit), and NRUNX, a runx binary it can run (a copy there if
# it cannot reach $RUNX).
# shellcheck disable=SC2034 # NRUNX: for the scripts that source this file
setup_nobody() {
	NOBODY_DIR=$(mktemp -d /tmp/runx-nobody.XXXXXX)
	chmod 777 "$NOBODY_DIR"
	at_exit 'rm -rf "$NOBODY_DIR"'
	NRUNX=$RUNX
	if ! as_nobody test -x "$RUNX"; then
		cp "$RUNX" "$NOBODY_DIR/runx"
		chmod 755 "$NOBODY_DIR/runx"
		NRUNX=$NOBODY_DIR/runx
	fi
}

# --- cgroup v2 ---------------------------------------------------------------

# require_writable_cgroup2 [WHY]: sets CGMNT (the cgroup2 mount), CGOWN_REL
# (this script's cgroup, as in /proc/self/cgroup) and CGOWN (its directory;
# runx makes its cgroups below its own, which is ours), or skip_all when
# there is no cgroup2 or this script cannot make a cgroup in CGOWN.
require_writable_cgroup2() {
	CGMNT=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
	[ -n "$CGMNT" ] || skip_all "no cgroup2 file system is mounted"
	CGOWN_REL=$(sed -n 's/^0:://p' /proc/self/cgroup)
	CGOWN=$CGMNT${CGOWN_REL%/}
	[ "$CGOWN_REL" = / ] && CGOWN=$CGMNT
	PROBE_CG=$CGOWN/runx-test-probe.$$
	at_exit 'rmdir "$PROBE_CG" 2>/dev/null'
	if ! mkdir "$PROBE_CG" 2>/dev/null; then
		skip_all "no writable cgroup v2 here ($CGOWN)${1:+: $1}"
	fi
	rmdir "$PROBE_CG"
}

# runx_cgroups PID: cgroup directories named after runx pid PID still
# there, made since this script began (one of an earlier runx that had
# the same pid before a pid wrap, and was SIGKILLed, is not this one's).
runx_cgroups() {
	find "$CGMNT" -maxdepth 4 -type d -name "runx-$1-*" -newer "$TMPD/.began" 2>/dev/null
}

# assert_no_cgroup NAME PID: runx PID left no cgroup behind.
assert_no_cgroup() {
	local left
	left=$(runx_cgroups "$2")
	if [ -z "$left" ]; then
		ok "$1"
	else
		not_ok "$1" "left behind: $left"
	fi
}

# --- markers and /proc -----------------------------------------------------

MARK_BASE="$$$((RANDOM % 90 + 10))"
MARK_SEQ=0
MARK_RE_ALL="1000\\.${MARK_BASE}9\\d+"

# lines FILE: the number of lines in FILE (0 if there is none).
lines() {
	if [ -e "$1" ]; then
		wc -l <"$1" | tr -d ' '
	else
		echo 0
	fi
}

# scope_launch_args SCOPE: SCOPE_LAUNCH_ARGS, the launch options for a run
# in SCOPE (CG_LAUNCH_ARGS for cgroup, else LAUNCH_ARGS).
SCOPE_LAUNCH_ARGS=()
# shellcheck disable=SC2034 # SCOPE_LAUNCH_ARGS is for the caller
scope_launch_args() {
	SCOPE_LAUNCH_ARGS=("${LAUNCH_ARGS[@]}")
	[ "$1" = cgroup ] && SCOPE_LAUNCH_ARGS=("${CG_LAUNCH_ARGS[@]}")
	return 0
}

# probe_scopes: finds out once whether the cgroup and pidns scopes can run
# here, for scope_missing (call it before the plan's skips).
SCOPE_CGROUP_OK=unknown
SCOPE_PIDNS_OK=unknown
probe_scopes() {
	SCOPE_CGROUP_OK=no
	[ "$(runx_cg -C -- true 2>/dev/null; echo $?)" = 0 ] && SCOPE_CGROUP_OK=yes
	SCOPE_PIDNS_OK=no
	[ "$(runx --kill-scope=pidns -- true 2>/dev/null; echo $?)" = 0 ] && SCOPE_PIDNS_OK=yes
	return 0
}

# scope_missing SCOPE: why SCOPE cannot run here (empty: it can), as
# probe_scopes found.
scope_missing() {
	case $1 in
	cgroup) [ $SCOPE_CGROUP_OK = yes ] || echo "no writable cgroup v2 here" ;;
	pidns) [ $SCOPE_PIDNS_OK = yes ] || echo "runx cannot make a PID namespace here" ;;
	esac
	return 0
}

# new_marker VAR: stores a fresh marker (1000.<digits>) in VAR.
new_marker() {
	MARK_SEQ=$((MARK_SEQ + 1))
	printf -v "$1" '1000.%s9%d' "$MARK_BASE" "$MARK_SEQ"
}

# settid_cases WHAT LEVELS RUNX-ARGS...: settid.py's job (a newcomer
# whose pid is chosen with clone3's set_tid, LEVELS as there) in both its
# modes, fork and read, under runx RUNX-ARGS -t 1 -k 10: 3 checks each
# (124, the child's TERM trap ran, nothing left), named "WHAT (MODE)";
# 3 skips each without python3 ($PY) or where set_tid is refused.
settid_cases() {
	local what=$1 levels=$2 mode m f s
	shift 2
	for mode in fork read; do
		new_marker m
		f=$TMPD/settid.$m
		s=0
		if [ -z "${PY:-}" ]; then
			skips 3 "$what ($mode)" "python3 is needed"
			continue
		fi
		runx "$@" -t 1 -k 10 -- "$PY" "$(dirname "$TESTLIB")/settid.py" "$f" "$m" "$mode" "$levels" \
			2>"$f.err" || s=$?
		if grep -q '^clone3: ' "$f.err"; then
			skips 3 "$what ($mode)" "clone3's set_tid refused here: $(cat "$f.err")"
			continue
		fi
		assert_eq "$what ($mode): 124" 124 "$s" "$(cat "$f.err")"
		assert_eq "$what ($mode): its TERM trap ran" TERM "$(cat "$f" 2>&1)" "$(cat "$f.err")"
		assert_dead "$what ($mode): nothing left" "$m"
	done
}

# The /proc scanner: prints "pid state cmdline" for every live (not zombie)
# process whose command line holds a match of the regex in $SCAN_RE as a
# whole word (not preceded by a digit or '.', not followed by a digit).
# The regex travels in the environment so that the scanner's own command
# line does not match.
_scan_proc() {
	SCAN_RE=$1 perl -e '
		my $re = qr/(?<![\d.])(?:$ENV{SCAN_RE})(?!\d)/;
		opendir(my $d, "/proc") or die "no /proc: $!";
		for my $pid (grep { /^\d+$/ } readdir($d)) {
			next if $pid == $$;
			open(my $f, "<", "/proc/$pid/cmdline") or next;
			local $/; my $cmd = <$f>; close $f;
			next unless defined $cmd && length $cmd;
			$cmd =~ s/\0+$//; $cmd =~ s/\0/ /g;
			next unless $cmd =~ $re;
			open(my $s, "<", "/proc/$pid/stat") or next;
			my $st = <$s>; close $s;
			next unless defined $st && $st =~ /\)\s+(\S)/;
			my $state = $1;
			next if $state eq "Z" || $state eq "X" || $state eq "x";
			print "$pid $state $cmd\n";
		}'
}

# marked_list MARKER...: live processes carrying one of the markers.
marked_list() {
	local re="" m
	for m in "$@"; do
		re="${re:+$re|}${m//./\\.}"
	done
	_scan_proc "$re"
}

# marked_count MARKER...: how many live processes carry one of the markers.
marked_count() {
	marked_list "$@" | wc -l | tr -d ' '
}

# marked_pids MARKER...
marked_pids() {
	marked_list "$@" | awk '{print $1}'
}

# kill_marked MARKER...: SIGKILL every process carrying one of them.
kill_marked() {
	local pids
	pids=$(marked_pids "$@")
	if [ -n "$pids" ]; then
		# shellcheck disable=SC2086
		kill -KILL $pids 2>/dev/null
	fi
	return 0
}

# assert_dead NAME MARKER...: no live process carries any of the markers;
# kills the leftovers so that one failure does not spill into later tests.
assert_dead() {
	local name=$1 left
	shift
	left=$(marked_list "$@")
	if [ -z "$left" ]; then
		ok "$name"
	else
		not_ok "$name" "still alive:
$left"
		kill_marked "$@"
	fi
}

# poll TRIES STEP COMMAND...: run COMMAND until it succeeds, sleeping STEP
# seconds between tries; fails once it has failed 1 + TRIES times.
poll() {
	local tries=$1 step=$2 i=0
	shift 2
	until "$@"; do
		i=$((i + 1))
		if [ "$i" -gt "$tries" ]; then
			return 1
		fi
		sleep "$step"
	done
	return 0
}

# pid_of MARKER ARGV0 [SECONDS]: the pid of the live process carrying
# MARKER whose argv[0] is ARGV0 (waits for it, default 20 s); runx, whose
# command line carries its command's marker too, has its own argv[0]
pid_of() {
	local i p
	for ((i = 0; i < ${3:-20} * 20; i++)); do
		p=$(marked_list "$1" | awk -v a="$2" '$3 == a { print $1; exit }')
		[ -n "$p" ] && echo "$p" && return 0
		sleep 0.05
	done
	return 1
}

# marked_at_least MARKER COUNT: at least COUNT live processes carry MARKER.
marked_at_least() {
	[ "$(marked_count "$1")" -ge "$2" ]
}

# wait_marked MARKER COUNT [SECONDS]: wait until at least COUNT live
# processes carry MARKER (hang guard: SECONDS, default 20).
wait_marked() {
	poll $((${3:-20} * 20)) 0.05 marked_at_least "$1" "$2"
}

# marked_none MARKER: no live process carries MARKER.
marked_none() {
	[ "$(marked_count "$1")" -eq 0 ]
}

# wait_gone MARKER [SECONDS]: wait until no live process carries MARKER.
wait_gone() {
	poll $((${2:-20} * 20)) 0.05 marked_none "$1"
}

# wait_file FILE [SECONDS]: wait until FILE exists (hang guard: SECONDS,
# default 20).
wait_file() {
	poll $((${2:-20} * 50)) 0.02 test -e "$1"
}

# pid_alive PID: true if PID exists and is not a zombie.
pid_alive() {
	local st
	st=$(stat_field "$1" 3 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# pid_gone PID STARTTIME: PID is no longer the process that started at
# STARTTIME (/proc/PID/stat field 22): reaped, not even a zombie.
pid_gone() {
	[ "$(stat_field "$1" 22 2>/dev/null)" != "$2" ]
}

# pid_in_state PID STATE: PID's state (proc(5), field 3) is STATE (T:
# stopped...).
pid_in_state() {
	[ "$(stat_field "$1" 3)" = "$2" ]
}

# stat_field PID N: field N (1-based, as in proc(5)) of /proc/PID/stat
# (read by the shell itself: no process per look, as polling loops do).
stat_field() {
	local line rest n=$2
	local -a f
	{ read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
	rest=${line##*) }
	# rest starts at field 3 (state)
	read -r -a f <<<"$rest"
	[ "$n" -ge 3 ] && [ -n "${f[$((n - 3))]:-}" ] || return 1
	echo "${f[$((n - 3))]}"
}

# term_when_ready NAME STATUS READY MARKER N [child]: once the file READY
# exists and N processes carry MARKER, SIGTERM to the runx of runx_bg
# (RUNX_PID; with "child", to its child: runx under a tracer); two tests:
# "NAME: STATUS" (RUNX_PID's exit status) and "NAME: the N MARKER
# processes are gone"; then kills what is left of them.
term_when_ready() {
	local name=$1 want=$2 ready=$3 m=$4 n=$5 target=$RUNX_PID
	if wait_file "$ready" 60 && wait_marked "$m" "$n"; then
		# under a tracer (strace runx ...): runx is RUNX_PID's child
		[ "${6:-}" = child ] && target=$(pgrep -P "$RUNX_PID")
		kill -TERM "$target"
		wait_pid_exit "$RUNX_PID" 60
		assert_eq "$name: $want" "$want" "$WAIT_STATUS"
	else
		not_ok "$name: $want" "the job was never ready"
		kill -KILL "$RUNX_PID" 2>/dev/null
		wait_pid_exit "$RUNX_PID" 10
	fi
	assert_dead "$name: the $n marked processes are gone" "$m"
	kill_marked "$m"
}

# have_strace N NAME: true if strace is here and may trace (ptrace(2)
# allowed: a container's seccomp profile or Yama may refuse it); else N
# skips of NAME and false.
have_strace() {
	if ! command -v strace >/dev/null; then
		skips "$1" "$2" "needs strace (scripts/install-deps --test installs it)"
		return 1
	fi
	strace -qq -o /dev/null true 2>/dev/null && return 0
	skips "$1" "$2" "strace cannot trace here (ptrace(2) refused)"
	return 1
}

# runx_traced_bg TRACE SYSCALLS MARKER RUNX_ARGS...: runx in the background
# under strace -e trace=SYSCALLS (its trace in TRACE), with M=MARKER in its
# environment, not in an argv that wait_marked reads; RUNX_PID is the
# tracer's pid (term_when_ready's "child" signals runx itself).
# LeakSanitizer cannot run under ptrace (an ASan build aborts at exit), so
# leak checks are off.
runx_traced_bg() {
	local trace=$1 calls=$2 m=$3
	shift 3
	M=$m ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -qq -o "$trace" -e trace="$calls" "$RUNX" "$@" &
	RUNX_PID=$!
}

# group_first_case NAME LEADER_TRAP STATUS TRAPS RUNX_ARGS...: the first
# signal of a stop goes to the command's process group with one
# pidfd_send_signal(2) (PIDFD_SIGNAL_PROCESS_GROUP, Linux 6.9) and to each
# process outside it on its own (runx(1): tree, cgroup), unless the
# command catches the signal.  The job: 10 shells in the command's group
# and 10 in sessions of their own, each with a TERM trap that writes a
# file, and a marked sleep; runx (RUNX_ARGS, then "-k 5 --") under strace
# gets SIGTERM.  Five tests: runx exits STATUS, nothing marked is left,
# TRAPS traps ran (LEADER_TRAP "yes" gives the command one too: exit 7),
# one SIGTERM to the group (none with LEADER_TRAP "yes"; EINVAL counts: a
# kernel that refuses the flag), and SIGTERM on its own (a pidfd's, or
# kill(2)'s in a frozen cgroup) to the 20 outside the group, or to all 41
# where the group was not signalled at once.
group_first_case() {
	local name=$1 trap=$2 want=$3 traps=$4 m d group refused
	shift 4
	new_marker m
	d=$(mktemp -d "$TMPD/pgrp.XXXXXX")
	cat >"$d/member.sh" <<'EOS'
trap 'echo >"$1/t.$$"; exit 0' TERM
sleep "$M" &
wait
EOS
	cat >"$d/job.sh" <<'EOS'
[ "$2" = yes ] && trap 'echo >"$1/t.$$"; exit 7' TERM
i=0
while [ $i -lt 10 ]; do
	sh "$1/member.sh" "$1" &
	setsid sh "$1/member.sh" "$1" &
	i=$((i + 1))
done
: >"$1/ready"
wait
EOS
	runx_traced_bg "$d/trace" pidfd_send_signal,kill "$m" \
		"$@" -k 5 -- sh "$d/job.sh" "$d" "$trap"
	# every sleep starts at least a clock tick (10 ms) before runx gets
	# SIGTERM, so none counts as born since the group send (a member that
	# started in that tick is signalled on its own too: 21, not 20)
	wait_file "$d/ready" 60 && wait_marked "$m" 20 && sleep 0.05
	term_when_ready "$name: runx exits with the command's status" "$want" "$d/ready" "$m" 20 child
	assert_eq "$name: every TERM trap ran" "$traps" "$(find "$d" -name 't.*' | wc -l | tr -d ' ')"
	group=$(grep -cE '^pidfd_send_signal\([0-9]+, SIGTERM, NULL, (0x4|PIDFD_SIGNAL_PROCESS_GROUP)\) = 0$' "$d/trace")
	refused=$(grep -cE '^pidfd_send_signal\([0-9]+, SIGTERM, NULL, (0x4|PIDFD_SIGNAL_PROCESS_GROUP)\) = -1 EINVAL' "$d/trace")
	if [ "$trap" = yes ]; then
		assert_eq "$name: no SIGTERM to the group at once" 0 "$((group + refused))" "$(cat "$d/trace")"
	else
		assert_eq "$name: one SIGTERM to the group (or refused by the kernel)" 1 \
			"$((group + refused))" "$(cat "$d/trace")"
	fi
	assert_eq "$name: SIGTERM on its own to each process the group send did not reach" \
		"$([ "$group" -eq 1 ] && echo 20 || echo 41)" \
		"$(grep -cE '^(pidfd_send_signal\([0-9]+|kill\([1-9][0-9]*), SIGTERM(, NULL, 0)?\)' "$d/trace")" \
		"$(cat "$d/trace")"
}

# group_first_cases SCOPE RUNX_ARGS...: group_first_case's two cases (10
# tests) in --kill-scope=SCOPE, or their skips without strace.
group_first_cases() {
	local sc=$1
	shift
	have_strace 10 "$sc, the command's group at once" || return 0
	group_first_case "$sc, the command's group at once" no 143 20 "$@" --kill-scope="$sc"
	group_first_case "$sc, a command that traps TERM: each on its own" yes 7 21 "$@" --kill-scope="$sc"
}

# wait_pid_exit PID [SECONDS]: wait for a background job of this shell (do
# not call it in a subshell: $(...) cannot wait for the shell's jobs); sets
# WAIT_STATUS to its exit status.  If the guard expires, the job is
# SIGKILLed and WAIT_STATUS is "hung".
wait_pid_exit() {
	local pid=$1 secs=${2:-30} st=0 line end
	end=$((EPOCHSECONDS + secs))
	while kill -0 "$pid" 2>/dev/null; do
		{ read -r line <"/proc/$pid/stat"; } 2>/dev/null || break
		line=${line##*) }
		[ "${line%% *}" != Z ] || break
		if [ "$EPOCHSECONDS" -gt "$end" ]; then
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			WAIT_STATUS=hung
			return
		fi
		sleep 0.02
	done
	wait "$pid" 2>/dev/null || st=$?
	# shellcheck disable=SC2034 # for the scripts that source this file
	WAIT_STATUS=$st
}

# require_room_for N: skips the whole script (skip_all) unless this machine
# lets it start N more processes: kernel.pid_max and kernel.threads-max
# with 1000 to spare over what runs now, and ulimit -u (not root).
require_room_for() {
	local n=$1 procs pid_max threads_max nproc_limit
	procs=$(find /proc -maxdepth 1 -name '[0-9]*' | wc -l)
	pid_max=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 0)
	threads_max=$(cat /proc/sys/kernel/threads-max 2>/dev/null || echo 0)
	if [ "$pid_max" -lt $((procs + n + 1000)) ]; then
		skip_all "kernel.pid_max $pid_max leaves no room for $n more processes ($procs now)"
	fi
	if [ "$threads_max" -lt $((procs + n + 1000)) ]; then
		skip_all "kernel.threads-max $threads_max leaves no room for $n more processes"
	fi
	nproc_limit=$(ulimit -u)
	if [ "$(id -u)" != 0 ] && [ "$nproc_limit" != unlimited ] &&
		[ "$nproc_limit" -lt $(($(ps -U "$(id -u)" -o pid= | wc -l) + n + 100)) ]; then
		skip_all "ulimit -u $nproc_limit leaves no room for $n more processes"
	fi
	return 0
}

# reuse_ahead_case NAME JOB T RUNX_ARGS...: pidpick.py's JOB (ahead or
# linger: A, pid 20001, ends after the first signal, then B is forked
# with its pid, the pid counter moving forward from 1000) under runx
# RUNX_ARGS -t @T -k 20, in a PID namespace of its own, through on_time
# (a first deadline of T s); 4 tests: "NAME: setup: B has A's pid", B
# got the first signal (124 within 7.5 s of the deadline, not after the
# 20 s grace), both TERM handlers ran (or B's TERM came before its
# trap), nothing left.  4 skips where such a namespace cannot be had.
reuse_ahead_case() {
	local name=$1 job=$2 t=$3 m d a b
	shift 3
	if ! unshare --pid --fork --mount-proc true 2>/dev/null; then
		skips 4 "$name" "needs root (unshare --pid --mount-proc)"
		return 0
	fi
	new_marker m
	d=$TMPD/$job
	mkdir "$d"
	on_time "$t" "$d/ready" "$d/f" "$d/pids" "$m" -- unshare --pid --fork --kill-child --mount-proc \
		sh -c '"$@"; exit $?' sh "$RUNX" "$@" -t @T -k 20 -- "$PY" "$(dirname "$TESTLIB")/pidpick.py" "$job" "$d" "$m"
	read -r a b <"$d/pids" || true
	assert_eq "$name: setup: B has A's pid" "20001 20001" "${a:-none} ${b:-none}"
	assert_eq "$name: B got the first signal, no 20 s grace (124 within 7.5 s of the deadline)" \
		"124 yes" "$OT_STATUS $(awk -v e="$OT_ELAPSED" -v t="$OT_T" 'BEGIN { print (e <= t + 7.5) ? "yes" : "no" }')" \
		"$OT_ELAPSED s, deadline $OT_T s"
	assert_match "$name: both TERM handlers ran, or B's TERM came before its trap" "^A (B|TERM)\$" \
		"$(tr '\n' ' ' <"$d/f" 2>/dev/null | sed 's/ $//')"
	poll 500 0.02 marked_none "$m"
	assert_dead "$name: nothing left" "$m"
}

# --- scratch directory and cleanup ----------------------------------------

TMPD=$(mktemp -d "${TMPDIR:-/tmp}/runx-test.XXXXXX")
: >"$TMPD/.began" # when this script began (runx_cgroups)
MAIN_PID=$BASHPID
AT_EXIT=()

# at_exit COMMAND: cleanup runs COMMAND (eval'd, in the order given) once
# the processes carrying this script's markers are killed.
at_exit() {
	AT_EXIT+=("$1")
}

cleanup() {
	local status=$? tap_status=0
	# bash may run the EXIT trap in a forked child that got a signal
	# before it could exec: only the script itself cleans up.
	[ "$BASHPID" = "$MAIN_PID" ] || return 0
	# Every process left with one of this script's markers.
	local pids
	pids=$(_scan_proc "$MARK_RE_ALL" | awk '{print $1}')
	if [ -n "$pids" ]; then
		# shellcheck disable=SC2086
		kill -KILL $pids 2>/dev/null
	fi
	local cmd
	for cmd in "${AT_EXIT[@]}"; do
		eval "$cmd"
	done
	rm -rf "$TMPD"
	_tap_at_exit "$status" || tap_status=$?
	[ "$tap_status" = 0 ] || exit "$tap_status"
}
trap cleanup EXIT

# --- orphans that end one after another -------------------------------------------

# one_after_another_case SCOPE setsid|group [RUNX ARGS...]: 5 checks.  The
# command leaves three orphans (runx's children: the tree and group scopes
# make runx a subreaper), in sessions of their own (setsid) or in its
# process group (group), and exits 6; they end 0.3, 1.2 and 2.4 s after
# their TERM (a handler that sleeps: no new process), the last forked,
# with the largest pid, first: the one a scope that keeps one process to
# tell it is not empty yet finds first (runx(1), tree; group).  Each writes
# DIR/end.I as it ends: all three are there when runx exits, with the
# command's own status, and none is left.  Their stdio is /dev/null, not
# the test's pipe, which $(...) would wait for whenever runx exits.
one_after_another_case() {
	local scope=$1 how=$2 d m i
	shift 2
	require_python3 "for orphans that end one after another"
	new_marker m
	d=$TMPD/one-after-another.$m
	mkdir "$d"
	local job='import os, signal, sys, time
d, how = sys.argv[1], sys.argv[3]
for i, delay in enumerate((2.4, 1.2, 0.3)):
    if os.fork() == 0:
        if how == "setsid":
            os.setsid()
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            def end(signum, frame, i=i, delay=delay):
                time.sleep(delay)
                with open("%s/end.%d" % (d, i), "w") as f:
                    f.write("ended")
                os._exit(0)
            signal.signal(signal.SIGTERM, end)
            open("%s/ready.%d" % (d, i), "w").close()
            while True:
                signal.pause()
        os._exit(0)
    os.wait()
while not all(os.path.exists("%s/ready.%d" % (d, i)) for i in range(3)):
    time.sleep(0.02)
sys.exit(6)'
	assert_eq "$scope, orphans ($how) that end one after another: the command's own status" 6 \
		"$(st guarded 60 "$RUNX" "$@" --kill-scope="$scope" -k 30 -- "$PY" -c "$job" "$d" "$m" "$how")"
	for i in 0 1 2; do
		assert_eq "$scope, orphans ($how) that end one after another: orphan $i ended before runx exited" \
			ended "$(cat "$d/end.$i" 2>/dev/null)"
	done
	assert_dead "$scope, orphans ($how) that end one after another: none left" "$m"
}
