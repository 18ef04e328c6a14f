#!/bin/bash
# cgroup scope, a job that nests cgroups 1,100 and 2,100 levels deep below
# its own and moves itself into the deepest (root may; 2,100 levels of
# "/a" are deeper than PATH_MAX): SPEC "Stopping", "A job's cgroup tree of
# any depth is frozen, killed and removed without recursion on runx's
# stack".  runx recursed with ~8 KB of stack per level: SIGSEGV (139), the
# job left frozen, its cgroups behind; deeper than PATH_MAX the removal
# waited a second per level.
#  - sleep: the job ignores SIGTERM and nests during the grace period after
#    a 2 s deadline (runx walks the growing tree every 100 ms for
#    newcomers); once it sleeps in the deepest cgroup, a SIGTERM to runx
#    cuts the grace short: SIGKILL, exit 124;
#  - exit: the job exits 0 once in place: exit 0.
# Either way: runx's exact status, the job's process gone (its pid with
# its start time, /proc/PID/task), its runx-* cgroup gone.  What runx
# leaves, the script removes, deepest first.  It runs once, not per
# launch backend: the walks it tests come after the launch, and the kernel
# takes about a minute here to make the 2,100 levels.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

require_python3 "to nest cgroups deeper than PATH_MAX"
require_writable_cgroup2 "for the cgroup scope"
ADVERSARY=$(dirname "$TESTLIB")/cgroup-adversary.py
plan 26

# same_process PID START: PID is still the process that started at START
# (field 22 of /proc/PID/stat), zombie or not: it has not been reaped.
# shellcheck disable=SC2317 # called through assert_*/poll
same_process() {
	[ -d "/proc/$1/task" ] && [ "$(stat_field "$1" 22)" = "$2" ]
}

# ready_or_gone INFO RUNX_PID: the job is in place, or runx is gone.
# shellcheck disable=SC2317 # called through assert_*/poll
ready_or_gone() {
	[ -e "$1.ready" ] || ! kill -0 "$2" 2>/dev/null ||
		[ "$(stat_field "$2" 3)" = Z ]
}

# deep LEVELS MODE: one run (see the header), with its checks.
deep() {
	local levels=$1 mode=$2 label="$1 levels, $2" m info err t0 t1 pid start top
	new_marker m
	info=$TMPD/deep.$levels.$mode
	err=$TMPD/deep.$levels.$mode.err
	# the job ignores SIGTERM from its first instruction: sh's trap,
	# kept across the exec of python
	env --default-signal=INT,QUIT "$RUNX" "${CG_LAUNCH_ARGS[@]}" --kill-scope=cgroup -t "$([ "$mode" = sleep ] && echo 2 || echo 600)" -k 600 -- \
		sh -c 'trap "" TERM; exec "$@"' sh \
		"$PY" "$ADVERSARY" nest "$CGMNT" "$levels" "$mode" "$info" "$m" 2>"$err" &
	RUNX_PID=$!
	local started=$EPOCHREALTIME
	wait_exec "$RUNX_PID"
	poll 3000 0.1 ready_or_gone "$info" "$RUNX_PID"
	read -r pid start top <"$info" 2>/dev/null
	[ -n "${top:-}" ] && at_exit "\"\$PY\" \"\$ADVERSARY\" cleanup '$top'"
	assert_eq "$label: the job nested $levels levels and moved in" \
		"$levels" "$(cat "$info.ready" 2>/dev/null)"
	# the SIGTERM must come after the 2 s deadline, to cut the grace
	# short (before it, it would start the stop itself: a 600 s grace)
	[ "$mode" = sleep ] && "$PY" -c 'import sys, time; time.sleep(max(0, float(sys.argv[1]) + 2.5 - time.time()))' "$started"
	t0=$(date +%s%N)
	[ "$mode" = sleep ] && kill -TERM "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 120
	t1=$(date +%s%N)
	assert_eq "$label: exit status ${3}" "$3" "$WAIT_STATUS" "$(cat "$err")"
	assert_eq "$label: runx said nothing (no failure to remove, no crash)" "" "$(cat "$err")"
	if [ "$mode" = sleep ]; then
		assert_true "$label: runx ended within 30 s of the second SIGTERM ($(((t1 - t0) / 1000000)) ms)" \
			test $(((t1 - t0) / 1000000)) -lt 30000
	fi
	assert_false "$label: the job's process is gone (pid $pid)" same_process "${pid:-0}" "${start:-x}"
	assert_false "$label: its cgroup is gone (${top:-unknown})" test -e "${top:-/nonexistent}"
	assert_no_cgroup "$label: no runx-* cgroup left" "$RUNX_PID"
	[ -n "${top:-}" ] && "$PY" "$ADVERSARY" cleanup "$top"
	kill_marked "$m"
}

for levels in 1100 2100; do
	deep "$levels" sleep 124
	deep "$levels" exit 0
done

done_testing
