#!/bin/bash
# cgroup scope, a process whose main thread has exited while another thread
# runs (what main() ending in pthread_exit(3) does; the job ignores
# SIGTERM): /proc/PID/stat says Z, cgroup.kill leaves it (Linux 6.18), a
# kill(2) by pid ends it.  SPEC "Stopping", "Whatever the job does, the
# stop ends it": the SIGKILL after cgroup.kill goes to every pid still in a
# cgroup.procs of the job's subtree.  runx waited 10 s, said the process
# was in uninterruptible sleep and could not remove the cgroup.  As the
# command and as a grandchild (its parent, a shell, dies of the SIGTERM):
# 124 within the deadline, the grace and a bound, the process gone by the
# kernel (/proc/PID/task of that pid and start time; its cmdline is empty),
# the cgroup gone, nothing said.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

require_python3 "for a process whose main thread exits first"
require_writable_cgroup2 "for the cgroup scope"
ADVERSARY=$(dirname "$TESTLIB")/cgroup-adversary.py
plan 12

# The deadline and the grace period (s), and how much later than both
# runx may end on a loaded machine: the bound stays below the 10 s after
# which runx gives up on a process.
DEADLINE=3
GRACE=1
BOUND=6

# same_process PID START: PID is still the process that started at START
# (field 22 of /proc/PID/stat), zombie or not: it has not been reaped.
# shellcheck disable=SC2317 # called through assert_*/poll
same_process() {
	[ -d "/proc/$1/task" ] && [ "$(stat_field "$1" 22)" = "$2" ]
}

# not_there PID START: same_process is false.
# shellcheck disable=SC2317 # called through assert_*/poll
not_there() {
	! same_process "$@"
}

# kill_left INFO: SIGKILL the process INFO names if it is still there
# (its cmdline is empty: the markers cannot find it).
kill_left() {
	local pid start
	read -r pid start <"$1" 2>/dev/null || return 0
	same_process "$pid" "$start" && kill -KILL "$pid" 2>/dev/null
	return 0
}

# zombie_leader HOW: one run; HOW is "command" (the process is runx's
# child) or "grandchild" (a shell's background job).
zombie_leader() {
	local how=$1 label="zombie leader as the $1" info err t0 t1 ms pid start cg
	info=$TMPD/zl.$how
	err=$TMPD/zl.$how.err
	at_exit "kill_left '$info'"
	local -a job=("$PY" "$ADVERSARY" zombie-leader "$info")
	[ "$how" = grandchild ] && job=(sh -c '"$@" & wait' sh "${job[@]}")
	t0=$(date +%s%N)
	env --default-signal=INT,QUIT "$RUNX" "${CG_LAUNCH_ARGS[@]}" --kill-scope=cgroup \
		-t "$DEADLINE" -k "$GRACE" -- "${job[@]}" 2>"$err" &
	RUNX_PID=$!
	wait_exec "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 60
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	read -r pid start <"$info" 2>/dev/null
	assert_true "$label: it was in place before the SIGKILL" test -e "$info.ready"
	assert_eq "$label: exit status 124" 124 "$WAIT_STATUS" "$(cat "$err")"
	assert_true "$label: runx ended within $DEADLINE s + $GRACE s + $BOUND s ($ms ms)" \
		test "$ms" -lt $(((DEADLINE + GRACE + BOUND) * 1000))
	assert_eq "$label: runx said nothing" "" "$(cat "$err")"
	# runx reaped its child; a grandchild is the init's to reap
	if [ "$how" = command ]; then
		assert_true "$label: the process is gone (pid ${pid:-?})" not_there "${pid:-0}" "${start:-x}"
	else
		assert_true "$label: the process is gone (pid ${pid:-?})" \
			poll 50 0.1 not_there "${pid:-0}" "${start:-x}"
	fi
	cg=$(runx_cgroups "$RUNX_PID")
	assert_eq "$label: no runx-* cgroup left" "" "$cg"
	kill_left "$info"
	for cg in $cg; do
		"$PY" "$ADVERSARY" cleanup "$cg"
	done
}

zombie_leader command
zombie_leader grandchild

done_testing
