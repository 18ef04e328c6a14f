#!/bin/bash
# cgroup scope (-C, --kill-cgroup, --kill-scope=cgroup): the command is in a
# fresh runx-* cgroup v2 from its first instruction (clone3, fork, vfork);
# posix_spawn without posix_spawnattr_setcgroup_np refuses (125, nothing
# started); adversarial trees (setsid escapes, double forks, TERM-ignoring
# descendants, a job-made sub-cgroup, a fork storm during the stop) all die
# on a deadline, on cleanup after the command exits, and when runx gets
# SIGTERM; no survivors in /proc and no cgroup left behind (also after exec
# failures); without a writable cgroup v2 (an unprivileged user): 125, a
# message saying to use a delegated cgroup (systemd-run's Delegate=yes
# only where systemd is the init), and nothing started.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

require_python3 "to read the report"
require_writable_cgroup2 "for the cgroup scope"

# posix_spawn before glibc 2.39 refuses (4 tests), else runs (2), and 2
ps_tests=2
[ -n "$GLIBC_VERSION" ] && ! glibc_at_least 2.39 && ps_tests=4
# 16 a fresh cgroup, 6 options, 1 -v, posix_spawn, 44 adversarial trees
# (2 x 4 per kind and 2 x 1 for sub-cgroup and fork-storm), 7 + 6 all at
# once, 10 exec failures, 8 unprivileged, 10 the command's group at
# once, 3 runx moved between attempts, 9 runx in a killed cgroup, 4 a
# pid reused after newcomer passes, 3 a cgroup the job froze, 3 one it
# froze after the first signal
plan $((16 + 6 + 1 + ps_tests + 2 + 44 + 7 + 6 + 10 + 8 + 10 + 3 + 9 + 4 + 3 + 3))

# remove_stray_subcgroups: the sub-cgroup adversary makes these below its
# own cgroup: if the command ever ran in ours instead, they are here.
# shellcheck disable=SC2317 # called by cleanup (at_exit)
remove_stray_subcgroups() {
	local d i
	for d in sub-cgroup-sub2/deep sub-cgroup-sub2 sub-cgroup-sub; do
		i=0
		while [ -d "$CGOWN/$d" ] && ! rmdir "$CGOWN/$d" 2>/dev/null && [ "$i" -lt 40 ]; do
			sleep 0.05
			i=$((i + 1))
		done
	done
	return 0
}
at_exit remove_stray_subcgroups

# --- own helpers ---------------------------------------------------------------

# CG_LAUNCH_ARGS (lib.sh): the backend for tests that do not loop over
# backends (posix_spawn's refusal before glibc 2.39 is tested below).

# cg_bg ARGS...: runx in the background with the cgroup scope; RUNX_PID.
cg_bg() {
	env --default-signal=INT,QUIT "$RUNX" "${CG_LAUNCH_ARGS[@]}" "$@" &
	RUNX_PID=$!
}

# --- the command starts inside a fresh cgroup ---------------------------------------
for b in clone3 fork vfork; do
	out=$TMPD/first.$b
	s=0
	"$RUNX" --launch="$b" -C --report="$TMPD/first.$b.json" -- cat /proc/self/cgroup >"$out" || s=$?
	assert_eq "$b: -C runs the command (exit 0)" 0 "$s"
	cg=$(sed -n 's/^0:://p' "$out")
	assert_match "$b: the command's first look at /proc/self/cgroup is a runx-* cgroup" \
		"^${CGOWN_REL%/}/runx-[0-9]+-[0-9a-f]+\$" "$cg"
	assert_ne "$b: ... not runx's own" "$CGOWN_REL" "$cg"
	assert_eq "$b: the report names that cgroup as the scope" \
		"cgroup $CGMNT$cg" \
		"$("$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["scope"], r["scope_target"])' "$TMPD/first.$b.json" |
			sed 's/^cgroup cgroup /cgroup /')"
	assert_false "$b: the cgroup is removed afterwards" test -e "$CGMNT$cg"
	eval "cg_$b=\$cg"
done
# shellcheck disable=SC2154 # cg_BACKEND: set by the eval above
assert_true "each run gets a fresh cgroup" test "$cg_clone3" != "$cg_fork" -a "$cg_fork" != "$cg_vfork"

# -C, --kill-cgroup and --kill-scope=cgroup; the cgroup exists while it runs
# and holds the command
for opt in -C --kill-cgroup --kill-scope=cgroup; do
	out=$TMPD/opt.out
	s=0
	"$RUNX" "${CG_LAUNCH_ARGS[@]}" "$opt" -- sh -c '
		cg=$(sed -n "s/^0:://p" /proc/self/cgroup)
		echo "$cg"
		test -d "$1$cg" && echo dir
		grep -qx "$$" "$1$cg/cgroup.procs" && echo member' sh "$CGMNT" >"$out" || s=$?
	assert_eq "$opt: exit 0" 0 "$s"
	assert_match "$opt: in a runx-* cgroup, which exists and lists the command" \
		"^${CGOWN_REL%/}/runx-[0-9]+-[0-9a-f]+ dir member\$" "$(tr '\n' ' ' <"$out" | sed 's/ $//')"
done

# -v names the cgroup scope and the cgroup
s=$("$RUNX" --launch=clone3 -C -v -- true 2>&1)
assert_match "-v: started ... (cgroup scope, clone3 launch)" "started 'true' as pid [0-9]+ \\(cgroup scope, clone3 launch\\)" "$s"

# --- posix_spawn ------------------------------------------------------------------
new_marker m
"$RUNX" --launch=posix_spawn -C -- sh -c 'sed -n "s/^0:://p" /proc/self/cgroup >"$1"; : "$2"' sh "$TMPD/started.$m" "$m" \
	>/dev/null 2>"$TMPD/ps.err" &
RUNX_PID=$!
wait_pid_exit "$RUNX_PID" 20
if [ -n "$GLIBC_VERSION" ] && ! glibc_at_least 2.39; then
	assert_eq "posix_spawn -C on glibc $GLIBC_VERSION: 125" 125 "$WAIT_STATUS"
	assert_match "posix_spawn -C: the message names glibc 2.39" "glibc 2\\.39" "$(cat "$TMPD/ps.err")"
	assert_match "posix_spawn -C: the message names posix_spawn" "posix_spawn" "$(cat "$TMPD/ps.err")"
	assert_false "posix_spawn -C: the command was not started" test -e "$TMPD/started.$m"
else
	assert_eq "posix_spawn -C on glibc $GLIBC_VERSION (has posix_spawnattr_setcgroup_np): 0" 0 "$WAIT_STATUS"
	assert_match "posix_spawn -C: the command ran in a runx-* cgroup" \
		"^${CGOWN_REL%/}/runx-[0-9]+-[0-9a-f]+\$" "$(cat "$TMPD/started.$m" 2>/dev/null)"
fi
assert_dead "posix_spawn -C: nothing left running" "$m"
assert_no_cgroup "posix_spawn -C: no cgroup left behind" "$RUNX_PID"

# --- adversarial trees ---------------------------------------------------------------
# adversary KIND: a shell snippet for the command that starts the KIND of
# escape in the background.  The command's shell has D (a directory for
# ready files), M (the marker) and CGM (the cgroup2 mount); each escape
# touches "$D/<KIND>-rN" once in place; the snippet adds those names to
# $want.
adversary() {
	echo "P=$1-"
	case $1 in
	setsid)
		cat <<'EOF'
setsid sh -c 'touch "${1}r1"; exec sleep "$2"' x "$D/$P" "$M" &
setsid sh -c 'sleep "$2" & touch "${1}r2"; wait' x "$D/$P" "$M" &
setsid -f sh -c 'touch "${1}r3"; exec sleep "$2"' x "$D/$P" "$M"
want="$want ${P}r1 ${P}r2 ${P}r3"
EOF
		;;
	double-fork)
		cat <<'EOF'
(sh -c 'touch "${1}r1"; exec sleep "$2"' x "$D/$P" "$M" &)
(sh -c '(sh -c "touch \"\${1}r2\"; exec sleep \"\$2\"" x "$1" "$2" &)' x "$D/$P" "$M" &)
want="$want ${P}r1 ${P}r2"
EOF
		;;
	term-ignoring)
		cat <<'EOF'
sh -c 'trap "" TERM; touch "${1}r1"; exec sleep "$2"' x "$D/$P" "$M" &
sh -c 'trap "" TERM; sh -c "touch \"\${1}r2\"; exec sleep \"\$2\"" x "$1" "$2" & wait' x "$D/$P" "$M" &
setsid sh -c 'trap "" TERM INT HUP; touch "${1}r3"; exec sleep "$2"' x "$D/$P" "$M" &
want="$want ${P}r1 ${P}r2 ${P}r3"
EOF
		;;
	sub-cgroup)
		cat <<'EOF'
cg=$CGM$(sed -n 's/^0:://p' /proc/self/cgroup)
mkdir "$cg/${P}sub" "$cg/${P}sub2" "$cg/${P}sub2/deep"
sh -c 'echo $$ >"$3/cgroup.procs" && sed -n "s/^0:://p" /proc/self/cgroup >"${1}r1.tmp" && mv "${1}r1.tmp" "${1}r1"; trap "" TERM; exec sleep "$2"' x "$D/$P" "$M" "$cg/${P}sub" &
setsid sh -c 'echo $$ >"$3/cgroup.procs" && touch "${1}r2"; trap "" TERM; sleep "$2" & sleep "$2"' x "$D/$P" "$M" "$cg/${P}sub2/deep" &
want="$want ${P}r1 ${P}r2"
EOF
		;;
	fork-storm)
		cat <<'EOF'
setsid sh -c 'trap "" TERM; n=0; while :; do sleep "$2" & echo >>"${1}storm"; n=$((n + 1)); [ $n -lt 10 ] || [ -e "${1}r1" ] || touch "${1}r1"; sleep 0.01; done' x "$D/$P" "$M" &
want="$want ${P}r1"
EOF
		;;
	esac
}

ALL_KINDS=(setsid double-fork term-ignoring sub-cgroup fork-storm)

# command_for MODE KIND...: the command (sh -c SCRIPT sh DIR MARKER MOUNT):
# empty DIR (a run before may have left files), start the adversaries,
# wait for them (bounded), then MODE: "sleep" (exec sleep, for a deadline
# or SIGTERM) or "exit" (exit 5: cleanup).  (The fork storm is in place
# once it has spawned 10 sleeps.)
command_for() {
	local mode=$1 k
	shift
	echo 'D=$1 M=$2 CGM=$3 want='
	echo 'rm -f "$D"/*'
	for k in "$@"; do
		adversary "$k"
	done
	cat <<'EOF'
i=0
for f in $want; do
	while [ ! -e "$D/$f" ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done
done
touch "$D/ready"
EOF
	if [ "$mode" = exit ]; then
		echo 'sleep 0.2; exit 5'
	else
		echo 'exec sleep "$M"'
	fi
}

# check_tree LABEL DIR MARKER KIND...: the adversaries were in place, and
# everything is dead
check_tree() {
	local label=$1 dir=$2 m=$3 kind n
	shift 3
	assert_true "$label: the escapes were all in place" test -e "$dir/ready"
	for kind in "$@"; do
		case $kind in
		sub-cgroup)
			assert_match "$label: a descendant had moved to a sub-cgroup of the job's" \
				"^${CGOWN_REL%/}/runx-[0-9]+-[0-9a-f]+/sub-cgroup-sub\$" \
				"$(cat "$dir/sub-cgroup-r1" 2>/dev/null)"
			;;
		fork-storm)
			n=$(wc -l <"$dir/fork-storm-storm" 2>/dev/null | tr -d ' ')
			if [ "${n:-0}" -ge 10 ]; then
				ok "$label: the storm was running ($n sleeps spawned)"
			else
				not_ok "$label: the storm was running" "only ${n:-0} sleeps spawned"
			fi
			;;
		esac
	done
	# at once: runx returns only when the scope is empty (zombies count as dead)
	assert_dead "$label: no survivor in /proc" "$m"
}

for kind in "${ALL_KINDS[@]}"; do
	# on a deadline (on_time: the escapes must be in place before it)
	new_marker m
	dir=$TMPD/adv.$m
	mkdir "$dir"
	on_time 1.5 "$dir/ready" "$m" -- runx_cg -C -t @T -k 0.5 -- sh -c "$(command_for sleep "$kind")" sh "$dir" "$m" "$CGMNT"
	assert_eq "$kind, deadline: 124" 124 "$OT_STATUS"
	check_tree "$kind, deadline" "$dir" "$m" "$kind"
	assert_no_cgroup "$kind, deadline: no cgroup left" "$OT_PID"

	# on cleanup after the command exits
	new_marker m
	dir=$TMPD/adv.$m
	mkdir "$dir"
	cg_bg -C -k 0.5 -- sh -c "$(command_for exit "$kind")" sh "$dir" "$m" "$CGMNT"
	wait_pid_exit "$RUNX_PID" 30
	assert_eq "$kind, cleanup: the command's status 5" 5 "$WAIT_STATUS"
	check_tree "$kind, cleanup" "$dir" "$m" "$kind"
	assert_no_cgroup "$kind, cleanup: no cgroup left" "$RUNX_PID"
done

# everything at once, on a deadline, with -v: the final SIGKILL goes to the
# cgroup
new_marker m
dir=$TMPD/adv.$m
mkdir "$dir"
on_time 2 "$dir/ready" "$m" "2>$TMPD/all.err" -- runx_cg -C -v -t @T -k 0.5 -- sh -c "$(command_for sleep "${ALL_KINDS[@]}")" sh "$dir" "$m" "$CGMNT"
assert_eq "all escapes at once, deadline: 124" 124 "$OT_STATUS"
check_tree "all escapes at once, deadline" "$dir" "$m" "${ALL_KINDS[@]}"
assert_no_cgroup "all escapes at once, deadline: no cgroup left" "$OT_PID"
assert_match "all escapes at once: -v shows SIGKILL to the cgroup" \
	"sending: SIGKILL to cgroup $CGOWN/runx-$OT_PID-[0-9a-f]+ \\([0-9]+ process" "$(cat "$TMPD/all.err")"

# everything at once, runx gets SIGTERM
new_marker m
dir=$TMPD/adv.$m
mkdir "$dir"
cg_bg -C -k 0.5 -- sh -c "$(command_for sleep "${ALL_KINDS[@]}")" sh "$dir" "$m" "$CGMNT"
if wait_file "$dir/ready" 60; then
	sleep 0.1
	kill -TERM "$RUNX_PID"
fi
wait_pid_exit "$RUNX_PID" 30
assert_eq "all escapes at once, runx gets SIGTERM: the command's 143" 143 "$WAIT_STATUS"
check_tree "all escapes at once, SIGTERM to runx" "$dir" "$m" "${ALL_KINDS[@]}"
assert_no_cgroup "all escapes at once, SIGTERM to runx: no cgroup left" "$RUNX_PID"

# --- exec failures leave no cgroup ---------------------------------------------------
for b in clone3 fork vfork; do
	"$RUNX" --launch="$b" -C -- "$TMPD/no-such-command" 2>/dev/null &
	RUNX_PID=$!
	wait_pid_exit "$RUNX_PID" 20
	assert_eq "$b -C: command not found: 127" 127 "$WAIT_STATUS"
	assert_no_cgroup "$b -C: 127: no cgroup left" "$RUNX_PID"
done
printf 'exit 0\n' >"$TMPD/no-shebang"
chmod 755 "$TMPD/no-shebang"
"$RUNX" "${CG_LAUNCH_ARGS[@]}" -C -- "$TMPD/no-shebang" 2>/dev/null &
RUNX_PID=$!
wait_pid_exit "$RUNX_PID" 20
assert_eq "-C: exec format error: 126" 126 "$WAIT_STATUS"
assert_no_cgroup "-C: 126: no cgroup left" "$RUNX_PID"
PATH=/usr/bin:/bin "$RUNX" "${CG_LAUNCH_ARGS[@]}" -C -- runx-no-such-command-here 2>/dev/null &
RUNX_PID=$!
wait_pid_exit "$RUNX_PID" 20
assert_eq "-C: not found in PATH: 127" 127 "$WAIT_STATUS"
assert_no_cgroup "-C: not found in PATH: no cgroup left" "$RUNX_PID"

# --- no writable cgroup v2: an unprivileged user -------------------------------------
if ! command -v setpriv >/dev/null || ! as_nobody true 2>/dev/null; then
	skips 8 "unprivileged -C" "needs root (setpriv cannot switch to uid 65534)"
else
	setup_nobody
	new_marker m
	as_nobody "$NRUNX" "${CG_LAUNCH_ARGS[@]}" -C --report="$NOBODY_DIR/report.json" -- \
		sh -c 'touch "$1"; exec sleep "$2"' sh "$NOBODY_DIR/started" "$m" \
		>/dev/null 2>"$NOBODY_DIR/err" &
	RUNX_PID=$!
	wait_pid_exit "$RUNX_PID" 20
	err=$(cat "$NOBODY_DIR/err")
	assert_eq "unprivileged -C: 125" 125 "$WAIT_STATUS"
	assert_match "unprivileged -C: the message says why" "runx: .*cgroup" "$err"
	if [ -d /run/systemd/system ]; then
		assert_match "unprivileged -C: the message suggests systemd-run (systemd is the init)" "systemd-run" "$err"
		assert_match "unprivileged -C: the message mentions Delegate=yes" "Delegate=yes" "$err"
	else
		assert_match "unprivileged -C: the message says to use a delegated cgroup" "a cgroup delegated to you" "$err"
		assert_false "unprivileged -C: no systemd-run advice without systemd" grep -q systemd-run <<<"$err"
	fi
	assert_false "unprivileged -C: the command was not started" test -e "$NOBODY_DIR/started"
	assert_dead "unprivileged -C: nothing running" "$m"
	assert_eq "unprivileged -C: report reason runx_error, the message as error" \
		"runx_error True" \
		"$("$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["reason"], "delegated to you" in (r["error"] or ""))' "$NOBODY_DIR/report.json" 2>&1)"
	assert_no_cgroup "unprivileged -C: no cgroup left" "$RUNX_PID"
fi

# --- the command's process group in one system call ------------------------------
# group_first_case (lib.sh), in the cgroup scope: the first signal of a
# stop to the command's group at once, to the 20 processes outside it one
# by one (kill(2) in the frozen cgroup); all 41 one by one when the command
# traps TERM (or the kernel refuses the flag).
group_first_cases cgroup "${CG_LAUNCH_ARGS[@]}"

# runx moved to another cgroup during the wait between two attempts:
# attempt 2's cgroup is made below the new one.  runx keeps its own
# cgroup's directory from attempt 1 (no second mountinfo read) only
# while /proc/self/cgroup still names that cgroup.
MOVED=$CGOWN/runx-test-moved.$$
mkdir "$MOVED"
at_exit 'rmdir "$MOVED" 2>/dev/null'
mv_out=$TMPD/moved
"$RUNX" "${CG_LAUNCH_ARGS[@]}" -C --attempts=2 --retry-on=3 --retry-delay=5s -- \
	sh -c 'sed -n "s/^0:://p" /proc/self/cgroup >"$1.tmp" &&
		mv "$1.tmp" "$1.$RUNX_ATTEMPT"; [ "$RUNX_ATTEMPT" = 2 ] || exit 3' \
	sh "$mv_out" &
mv_runx=$!
wait_file "$mv_out.1" 60 || diag "attempt 1 wrote no cgroup in 60 s"
echo "$mv_runx" >"$MOVED/cgroup.procs" || diag "cannot move runx (pid $mv_runx) to $MOVED"
s=0
wait "$mv_runx" || s=$?
assert_eq "runx moved between attempts: attempt 2 exits 0" 0 "$s"
moved_rel=${CGOWN_REL%/}/runx-test-moved.$$/runx-$mv_runx-
assert_match "runx moved between attempts: attempt 2's cgroup is below the new one" \
	"^${moved_rel}[^/]*\$" "$(cat "$mv_out.2" 2>/dev/null)"
assert_false "runx moved between attempts: attempt 1's cgroup was below the old one" \
	grep -q "/runx-test-moved\." "$mv_out.1"

# runx started from a cgroup that was once killed with cgroup.kill.  Linux
# 6.18 kills a child of clone3(CLONE_INTO_CGROUP) at birth there (the kill
# counts of runx's cgroup and of the new one differ).  The default
# backend, vfork, whose child joins the cgroup after its birth, runs every
# attempt; --launch=clone3 exits 125 and starts nothing (a kernel without
# that fault runs it).
KILLED=$CGOWN/runx-test-killed.$$
mkdir "$KILLED"
at_exit 'rmdir "$KILLED" 2>/dev/null'
echo 1 >"$KILLED/cgroup.kill"
k_out=$TMPD/killed
# in_killed ARGS...: runx ARGS in the background, started in $KILLED;
# its pid in K_PID
in_killed() {
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$KILLED" "$RUNX" "$@" &
	K_PID=$!
}
in_killed -v -C --attempts=2 --retry-on=3 --retry-delay=0.1s --report="$k_out.json" -- \
	sh -c 'sed -n "s/^0:://p" /proc/self/cgroup >"$1.$RUNX_ATTEMPT"; exit 3' sh "$k_out" 2>"$k_out.err"
s=0
wait "$K_PID" || s=$?
killed_re="^${CGOWN_REL%/}/runx-test-killed\.$$/runx-$K_PID-[0-9a-f]+\$"
assert_eq "from a killed cgroup, no --launch: both attempts ran (exit 3)" 3 "$s"
assert_match "from a killed cgroup: attempt 1 ran in a runx-* cgroup below runx's" "$killed_re" "$(cat "$k_out.1" 2>/dev/null)"
assert_match "from a killed cgroup: attempt 2 ran in a runx-* cgroup below runx's" "$killed_re" "$(cat "$k_out.2" 2>/dev/null)"
k_backend=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["backend"])' "$k_out.json" 2>&1)
assert_eq "from a killed cgroup: the report's backend is vfork, the default, and -v says nothing of clone3" \
	"vfork 0" "$k_backend $(grep -c 'clone3' "$k_out.err")" "$(cat "$k_out.err")"
assert_no_cgroup "from a killed cgroup, no --launch: no cgroup left" "$K_PID"
in_killed --launch=clone3 -C -- sh -c 'touch "$1"' sh "$k_out.started" 2>"$k_out.err2"
s=0
wait "$K_PID" || s=$?
if [ "$s" != 0 ]; then
	assert_eq "from a killed cgroup, --launch=clone3: exit 125" 125 "$s"
	assert_match "from a killed cgroup, --launch=clone3: one line naming the option and the kernel's kill" \
		"^runx: --launch=clone3: the kernel ended the child of clone3\\(2\\) .* before it ran \\(signal 9\\).*; use --launch=vfork or --launch=fork\$" \
		"$(cat "$k_out.err2")"
	assert_false "from a killed cgroup, --launch=clone3: the command was not started" test -e "$k_out.started"
else
	assert_eq "from a killed cgroup, --launch=clone3: exit 0 (no fault on this kernel)" 0 "$s"
	assert_match "from a killed cgroup, --launch=clone3: nothing on stderr" "^\$" "$(cat "$k_out.err2")"
	assert_true "from a killed cgroup, --launch=clone3: the command ran" test -e "$k_out.started"
fi
assert_no_cgroup "from a killed cgroup, --launch=clone3: no cgroup left" "$K_PID"

# --- a pid reused ahead of the pid counter, after newcomer passes -------------------
# A newcomer pass passes over, unread, a pid that the pass before found
# held by a process a signal reached (no fork copy), unless the pid was
# allocated since (runx(1), STOPPING).  pidpick.py's linger job: A (pid
# 20001) takes the first signal and exits 0.6 s later, after a few
# passes; then B is forked with A's pid, the pid counter moving forward
# from 1000 to it.  B is a newcomer: a pass that took the pid for A
# would leave B to the SIGKILL 20 s later.
reuse_ahead_case "a pid reused ahead of the pid counter after newcomer passes" linger 3 \
	"${CG_LAUNCH_ARGS[@]}" -C

# --- a process the job froze in a cgroup of its own ----------------------------------
# A frozen process keeps a signal pending; thawing the job's own cgroup
# leaves a cgroup the job froze below it frozen.  The job makes a/b below
# its cgroup, moves a subshell that traps TERM there, and freezes a (b is
# frozen through it); the stop must thaw it, so the trap runs before the
# SIGKILL, 20 s later: runx ends within 15 s, with 124.  (on_time: the
# freeze must be done before the deadline.)
new_marker m
f=$TMPD/frozen.$m
# shellcheck disable=SC2016 # expanded by the job's shell
on_time 1 "$f.ready" "$f" "$m" -- runx_cg -C -t @T -k 20 -- bash -c '
	c=$(grep "^0::" /proc/self/cgroup | cut -d: -f3)
	c=$1$c
	mkdir -p "$c/a/b"
	(echo "$BASHPID" >"$c/a/b/cgroup.procs"; trap "echo TERM >$2; exit 0" TERM; sleep $3 & wait) &
	sleep 0.2
	echo 1 >"$c/a/cgroup.freeze"
	grep -q "^frozen 1" "$c/a/b/cgroup.events" && : >"$2.ready"
	sleep $3' bash "$CGMNT" "$f" "$m"
assert_eq "a cgroup the job froze: 124 before the 20 s grace" "124 yes" \
	"$OT_STATUS $(awk -v e="$OT_ELAPSED" -v t="$OT_T" 'BEGIN { print (e < t + 15) ? "yes" : "no" }')"
assert_eq "a cgroup the job froze: the frozen process ran its TERM trap" TERM "$(cat "$f" 2>/dev/null)"
assert_dead "a cgroup the job froze: nothing left" "$m"

# The same, frozen after the first signal: the job's TERM handler freezes
# a, then starts a subshell that traps TERM and moves itself into a/b,
# where it freezes at once, before it can act on anything.  It is a
# newcomer: a pass sends it TERM, which stays pending, and thaws a; the
# trap runs before the SIGKILL, 20 s later.  The handler waits for it,
# and writes TERM itself if it died of TERM before its trap was set.
new_marker m
f=$TMPD/frozen-late.$m
# shellcheck disable=SC2016 # expanded by the job's shell
on_time 1 "$f.ready" "$f" "$m" -- runx_cg -C -t @T -k 20 -- bash -c '
	c=$(grep "^0::" /proc/self/cgroup | cut -d: -f3)
	c=$1$c f=$2 m=$3
	late() {
		mkdir -p "$c/a/b"
		echo 1 >"$c/a/cgroup.freeze"
		(trap "echo TERM >$f; exit 0" TERM; echo "$BASHPID" >"$c/a/b/cgroup.procs"; sleep $m & wait) &
		wait $!
		[ $? != 143 ] || echo TERM >"$f" # TERM came before its trap
	}
	trap late TERM
	: >"$f.ready"
	sleep $m & wait' bash "$CGMNT" "$f" "$m"
assert_eq "a cgroup the job froze after the first signal: 124 before the 20 s grace" "124 yes" \
	"$OT_STATUS $(awk -v e="$OT_ELAPSED" -v t="$OT_T" 'BEGIN { print (e < t + 15) ? "yes" : "no" }')"
assert_eq "a cgroup the job froze after the first signal: the frozen process ran its TERM trap" TERM "$(cat "$f" 2>/dev/null)"
assert_dead "a cgroup the job froze after the first signal: nothing left" "$m"

done_testing
