#!/bin/bash
# The hard bound after SIGKILL: processes that cannot die (uninterruptible
# sleep: here frozen by the cgroup v1 freezer, where SIGKILL stays pending
# until they are thawed) do not keep runx forever.  For the group, tree and
# cgroup scopes, at once: the deadline fires, the grace period ends, SIGKILL
# is sent, and 10 s later runx gives up: exit status 124 exactly, one line
# on stderr saying how many processes are left and why, the report's
# "error" says the same; once thawed the processes die of the SIGKILL that
# was pending (checked in /proc).
. "$TESTLIB"

FREEZER=$(awk '$3 == "cgroup" && $4 ~ /(^|,)freezer(,|$)/ { print $2; exit }' /proc/self/mounts)
[ -n "$FREEZER" ] || skip_all "no cgroup v1 freezer is mounted (needed to make a process unkillable)"
require_python3 "to read the report"
FRZ=$FREEZER/runx-test-unkillable.$$
mkdir "$FRZ" 2>/dev/null || skip_all "cannot create a cgroup v1 freezer group in $FREEZER (not root?)"
CGMNT=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
declare -A mark pid
# after cleanup's SIGKILL to every marked process: thaw, so they can die
thaw_and_clean() {
	echo THAWED >"$FRZ/freezer.state" 2>/dev/null
	local i d
	for ((i = 0; i < 100; i++)); do
		rmdir "$FRZ" 2>/dev/null && break
		sleep 0.05
	done
	# the cgroup scope's job cgroup, which runx could not remove
	if [ -n "${pid[cgroup]:-}" ] && [ -n "$CGMNT" ]; then
		for d in $(find "$CGMNT" -maxdepth 8 -depth -type d \
			-name "runx-${pid[cgroup]}-*" 2>/dev/null); do
			rmdir "$d" 2>/dev/null
		done
	fi
	return 0
}
at_exit thaw_and_clean

scopes="group tree cgroup"
for sc in $scopes; do
	new_marker "mark[$sc]"
	runx_bg --kill-scope="$sc" --report="$TMPD/$sc.json" -t 3s -k 200ms \
		-- sh -c "sleep ${mark[$sc]} & sleep ${mark[$sc]}" 2>"$TMPD/$sc.err"
	pid[$sc]=$RUNX_PID
done
for sc in $scopes; do
	wait_marked "${mark[$sc]}" 2
done
# freeze the two sleeps of each job (not runx or sh, whose command lines
# hold the marker too) before the deadline (3 s after the start)
for sc in $scopes; do
	for p in $(marked_list "${mark[$sc]}" | awk '$3 == "sleep" { print $1 }'); do
		echo "$p" >"$FRZ/cgroup.procs"
	done
done
echo FROZEN >"$FRZ/freezer.state"
# watchdog: thaw after 90 s whatever happens, so that a wrong freeze can
# never hang the suite (its sleep carries a marker: cleanup kills it)
new_marker wd
(timeout 90 sleep "$wd"; echo THAWED >"$FRZ/freezer.state") 2>/dev/null &
for ((i = 0; i < 100; i++)); do
	[ "$(cat "$FRZ/freezer.state")" = FROZEN ] && break
	sleep 0.02
done
assert_eq "the freezer group is frozen" FROZEN "$(cat "$FRZ/freezer.state")"

for sc in $scopes; do
	# a hang guard of 60 s: without the bound runx would wait forever
	wait_pid_exit "${pid[$sc]}" 60
	assert_ne "$sc: runx exits although its processes cannot die" hung "$WAIT_STATUS"
	assert_eq "$sc: exit status 124 (the deadline fired)" 124 "$WAIT_STATUS"
	assert_match "$sc: stderr says how many are left and why" \
		"^runx: 2 processes in [^
]* still alive 10 s after SIGKILL \(uninterruptible sleep\); giving up on them\$" \
		"$(grep 'after SIGKILL' "$TMPD/$sc.err")"
	assert_eq "$sc: the report's error says the same" \
		"2 processes still alive 10 s after SIGKILL (uninterruptible sleep) timeout 124" \
		"$("$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["error"], r["reason"], r["exit_status"])' "$TMPD/$sc.json" 2>&1)"
	assert_eq "$sc: the frozen processes are still there (state D)" "D D" \
		"$(marked_list "${mark[$sc]}" | awk '$3 == "sleep" { print $2 }' | xargs)"
done

echo THAWED >"$FRZ/freezer.state"
for sc in $scopes; do
	wait_gone "${mark[$sc]}" 2>/dev/null
	assert_dead "$sc: thawed, they die of the pending SIGKILL" "${mark[$sc]}"
done

done_testing
