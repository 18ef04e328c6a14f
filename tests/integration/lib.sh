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
# - TAP: ok/not_ok/assert_eq/assert_true...; the plan is printed at the
#   end by done_testing (a script that dies half way is reported as an
#   error by the TAP driver because the plan is missing).

set -u

# Start every script with a clean signal state (nothing blocked, nothing
# ignored), whatever make or the caller inherited: the tests compare the
# command's mask and dispositions against what runx was started with.
# (Signals 32 and 33 are glibc's own: it refuses to reset them, so they
# are left as they are; backends.sh compares against this shell's state.)
_sig_dirty() {
	local blk ign
	blk=$(sed -n 's/^SigBlk:[[:space:]]*//p' /proc/self/status)
	ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status)
	(((16#$blk | 16#$ign) & ~0x180000000))
}
if [ -z "${RUNX_TEST_CLEAN_SIGNALS:-}" ] && _sig_dirty; then
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

# skip_all REASON: the whole script is skipped (a prerequisite is
# missing): prints the plan "1..0 # SKIP REASON" and exits 77, the automake
# convention (tests/integration/run-tap turns that 77 into 0 for the TAP
# driver, which reports the plan as SKIP).
skip_all() {
	echo "1..0 # SKIP $*"
	exit 77
}

: "${RUNX:?RUNX must name the runx binary}"
[ -x "$RUNX" ] || skip_all "runx binary '$RUNX' not built"

ALL_BACKENDS="posix_spawn fork vfork clone3"
LAUNCH_ARGS=()
if [ -n "${RUNX_LAUNCH:-}" ]; then
	case " $ALL_BACKENDS " in
	*" $RUNX_LAUNCH "*) ;;
	*)
		echo "Bail out! RUNX_LAUNCH='$RUNX_LAUNCH' is not one of: $ALL_BACKENDS"
		exit 1
		;;
	esac
	LAUNCH_ARGS=("--launch=$RUNX_LAUNCH")
	echo "# RUNX_LAUNCH=$RUNX_LAUNCH: every run adds --launch=$RUNX_LAUNCH"
fi

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

diag() {
	local line
	while IFS= read -r line; do
		printf '# %s\n' "$line"
	done <<<"$*"
}

ok() {
	TAP_N=$((TAP_N + 1))
	printf 'ok %d - %s\n' "$TAP_N" "$1"
}

# not_ok NAME [DIAGNOSTIC...]
not_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	printf 'not ok %d - %s\n' "$TAP_N" "$1"
	shift
	if [ $# -gt 0 ]; then
		diag "$*"
	fi
}

skip() {
	TAP_N=$((TAP_N + 1))
	printf 'ok %d - %s # SKIP %s\n' "$TAP_N" "$1" "${2:-}"
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

done_testing() {
	echo "1..$TAP_N"
	exit 0
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

# wait_exec PID: wait (busy, no sleep) until PID runs the runx binary, or
# is gone.  Until then PID is bash's forked child, which handles a
# terminating signal itself (it may even run the EXIT trap): a signal
# meant for runx must not be sent before.
wait_exec() {
	local pid=$1 i
	for ((i = 0; i < 20000; i++)); do
		[[ /proc/$pid/exe -ef $RUNX ]] && return 0
		[ -e "/proc/$pid" ] || return 0
	done
	return 0
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

# new_marker VAR: stores a fresh marker (1000.<digits>) in VAR.
new_marker() {
	MARK_SEQ=$((MARK_SEQ + 1))
	printf -v "$1" '1000.%s9%d' "$MARK_BASE" "$MARK_SEQ"
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

# stat_field PID N: field N (1-based, as in proc(5)) of /proc/PID/stat.
stat_field() {
	local line rest n=$2
	local -a f
	line=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	rest=${line##*) }
	# rest starts at field 3 (state)
	read -r -a f <<<"$rest"
	[ "$n" -ge 3 ] && [ -n "${f[$((n - 3))]:-}" ] || return 1
	echo "${f[$((n - 3))]}"
}

# wait_pid_exit PID [SECONDS]: wait for a background job of this shell (do
# not call it in a subshell: $(...) cannot wait for the shell's jobs); sets
# WAIT_STATUS to its exit status.  If the guard expires, the job is
# SIGKILLed and WAIT_STATUS is "hung".
wait_pid_exit() {
	local pid=$1 secs=${2:-30} i=0 st=0
	while kill -0 "$pid" 2>/dev/null && [ "$(stat_field "$pid" 3)" != Z ]; do
		i=$((i + 1))
		if [ "$i" -gt $((secs * 50)) ]; then
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			WAIT_STATUS=hung
			return
		fi
		sleep 0.02
	done
	wait "$pid" || st=$?
	# shellcheck disable=SC2034 # for the scripts that source this file
	WAIT_STATUS=$st
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
}
trap cleanup EXIT
