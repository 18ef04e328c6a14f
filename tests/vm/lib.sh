# shellcheck shell=sh
# Helpers for the guest tests of scripts/vm-check (busybox sh, sourced as
# `. /tests/lib.sh`).  The guest is a pure cgroup v2 machine: /tests/init.sh
# (PID 1) mounted the hierarchy and runs each test script once per layout;
# VM_LAYOUT names the layout (root or session), RUNX the static runx.
#
# TAP-ish: ok/not_ok print "ok N - [LAYOUT] NAME" / "not ok N - ...", with
# "# " diagnostics; done_testing prints the plan "1..N" last and exits 1 if
# anything failed (the host counts the lines and checks the plan).
#
# Markers: every process a test expects to die runs `sleep MARKER` (or has
# MARKER in its command line), MARKER = 1000.<digits> from new_marker;
# alive MARKER counts the processes whose /proc/PID/cmdline holds it (a
# zombie has an empty cmdline: it counts as dead).

RUNX=${RUNX:-/bin/runx}
CG=/sys/fs/cgroup
LAYOUT=${VM_LAYOUT:-unknown}
T_N=0
T_FAIL=0
MARK_SEQ=0
# A job may source this file too: it shares the test's TMPD.
[ -n "${TMPD:-}" ] || TMPD=$(mktemp -d /tmp/vmtest.XXXXXX)
export TMPD

# diag TEXT...: TAP diagnostic, one "# " line per line of TEXT.
diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

# ok NAME: one passing test.
ok() {
	T_N=$((T_N + 1))
	echo "ok $T_N - [$LAYOUT] $1"
}

# not_ok NAME [DIAGNOSTIC...]: one failing test.
not_ok() {
	T_N=$((T_N + 1))
	T_FAIL=$((T_FAIL + 1))
	echo "not ok $T_N - [$LAYOUT] $1"
	shift
	[ $# -eq 0 ] || diag "$*"
}

# assert_eq NAME EXPECTED GOT [DIAGNOSTIC]
assert_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "expected: '$2'
got:      '$3'${4:+
$4}"
	fi
}

# assert_match NAME EXTENDED-REGEX TEXT
assert_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		ok "$1"
	else
		not_ok "$1" "expected to match /$2/:
$3"
	fi
}

# assert_true NAME COMMAND...: ok when COMMAND succeeds.
assert_true() {
	_name=$1
	shift
	if "$@"; then ok "$_name"; else not_ok "$_name" "failed: $*"; fi
}

# assert_num NAME VALUE OP BOUND: integer or decimal comparison with awk
# (OP: <, <=, >, >=); a VALUE that is not a number fails.
assert_num() {
	if printf '%s\n' "$2" | grep -Eq '^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$' &&
		awk -v v="$2" -v b="$4" -v op="$3" 'BEGIN {
			r = (op == "<") ? v < b : (op == "<=") ? v <= b :
			    (op == ">") ? v > b : (op == ">=") ? v >= b : 0
			exit !r }'; then
		ok "$1"
	else
		not_ok "$1" "expected a number $3 $4, got: '$2'"
	fi
}

# done_testing: the plan; exit status 1 if a test failed.
done_testing() {
	echo "1..$T_N"
	rm -rf "$TMPD"
	[ "$T_FAIL" -eq 0 ]
	exit
}

# st COMMAND...: prints COMMAND's exit status.
st() {
	_s=0
	"$@" || _s=$?
	echo "$_s"
}

# shellcheck disable=SC2034 # M is for the caller
# new_marker: sets M to a fresh marker (1000.<pid><seq>: `sleep $M`
# sleeps about 1000 s).
new_marker() {
	MARK_SEQ=$((MARK_SEQ + 1))
	M=1000.$$9$MARK_SEQ
}

# marked_pids MARKER: the pids of live processes whose command line holds
# MARKER (the bracket keeps grep from finding its own command line).
marked_pids() {
	_pat=$(printf '%s' "$1" | sed 's/\./[.]/')
	grep -l -- "$_pat" /proc/[0-9]*/cmdline 2>/dev/null |
		sed -n 's|^/proc/\([0-9]*\)/cmdline$|\1|p'
}

# alive MARKER: how many live processes carry MARKER.
alive() {
	marked_pids "$1" | wc -l | tr -d ' '
}

# kill_marked MARKER: SIGKILL what carries MARKER (after a failed test,
# so the next one starts clean).
kill_marked() {
	for _p in $(marked_pids "$1"); do kill -9 "$_p" 2>/dev/null; done
	return 0
}

# poll TRIES STEP COMMAND...: runs COMMAND until it succeeds, at most
# TRIES times, STEP seconds apart; false if it never did.
poll() {
	_tries=$1 _step=$2
	shift 2
	while ! "$@"; do
		_tries=$((_tries - 1))
		[ "$_tries" -gt 0 ] || return 1
		sleep "$_step"
	done
}

# at_least MARKER N: at least N processes carry MARKER.
at_least() {
	[ "$(alive "$1")" -ge "$2" ]
}

# wait_alive MARKER N [TENTHS]: wait until at least N processes carry
# MARKER (at most TENTHS tenths of a second, default 300).
wait_alive() {
	poll "${3:-300}" 0.1 at_least "$1" "$2" || true
}

# runx_cgroups: every runx-* cgroup in the hierarchy, one a line.
runx_cgroups() {
	find $CG -name 'runx-*' -type d 2>/dev/null
}

# remove_runx_cgroups: after a failed test, kill and remove what is left
# (depth first) so the next test starts clean.
remove_runx_cgroups() {
	for _d in $(runx_cgroups); do
		[ -e "$_d/cgroup.kill" ] && echo 1 >"$_d/cgroup.kill" 2>/dev/null
	done
	sleep 0.2
	for _d in $(runx_cgroups | sort -r); do rmdir "$_d" 2>/dev/null; done
	return 0
}

# assert_clean NAME MARKER: nothing carrying MARKER is alive and no runx-*
# cgroup is left anywhere (two tests); cleans up after a failure.
assert_clean() {
	_left=$(marked_pids "$2")
	if [ -z "$_left" ]; then
		ok "$1: nothing left alive"
	else
		not_ok "$1: nothing left alive" "still alive: $(for p in $_left; do
			printf '%s ' "$p:$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
		done)"
		kill_marked "$2"
	fi
	_cgs=$(runx_cgroups)
	assert_eq "$1: no runx-* cgroup left" "" "$_cgs"
	[ -z "$_cgs" ] || remove_runx_cgroups
}

# own_cgroup: this shell's cgroup v2 path ("/" for the root cgroup).
own_cgroup() {
	sed -n 's/^0:://p' /proc/self/cgroup
}

# json_num FILE KEY: the number after "KEY": in the JSON report FILE
# (wherever it is nested; the first one), empty if there is none.
json_num() {
	tr -d '\n' <"$1" | grep -o "\"$2\": *-\{0,1\}[0-9][0-9.eE+-]*" |
		head -n 1 | sed 's/.*: *//'
}

# json_str FILE KEY: the string value of "KEY" in FILE (first one).
json_str() {
	tr -d '\n' <"$1" | grep -o "\"$2\": *\"[^\"]*\"" | head -n 1 |
		sed 's/.*: *"//; s/"$//'
}

# controllers DIR: which of cpu, memory, pids DIR's cgroup.subtree_control
# enables, in that order.
controllers() {
	for _c in cpu memory pids; do
		grep -qw $_c "$1/cgroup.subtree_control" && printf '%s\n' $_c
	done | tr '\n' ' ' | sed 's/ $//'
}

# layout_check: the test shell is where the layout says, so every result
# below holds for that layout (two or three tests).
layout_check() {
	case $LAYOUT in
	root)
		assert_eq "layout: the test shell is in the root cgroup" / "$(own_cgroup)"
		assert_eq "layout: the root offers memory pids cpu to its children" \
			"cpu memory pids" "$(controllers $CG)"
		;;
	session)
		assert_eq "layout: the test shell is in the session scope" \
			"$VM_SESSION" "$(own_cgroup)"
		assert_eq "layout: the session's parent offers memory pids cpu" \
			"cpu memory pids" "$(controllers "$CG${VM_SESSION%/*}")"
		_n=$(wc -l <"$CG$VM_SESSION/cgroup.procs")
		assert_num "layout: the session scope holds another process (populated)" \
			"$_n" '>=' 2
		;;
	*) not_ok "layout: unknown layout '$LAYOUT'" ;;
	esac
}

# session_intact: in the session layout, the other process of the scope
# (VM_SESSION_PID, a sleep) is alive and still in the scope (runx must not
# have killed or moved it).
session_intact() {
	[ "$LAYOUT" = session ] || return 0
	assert_eq "the session scope's other process is alive and still there" \
		"0::$VM_SESSION" "$(grep '^0::' "/proc/$VM_SESSION_PID/cgroup" 2>/dev/null)"
}
