#!/bin/bash
# The hard bound after SIGKILL: processes that cannot die (uninterruptible
# sleep: here frozen by the cgroup v1 freezer, where SIGKILL stays pending
# until they are thawed) do not keep runx forever.  For the group, tree and
# cgroup scopes, each with the default backend and with fork, vfork and
# clone3 (RUNX_LAUNCH does not apply here), all twelve at once so that the
# 10 s bound is waited out once: the deadline fires, the grace period ends,
# SIGKILL is sent, and 10 s later runx gives up: exit status 124 exactly,
# one line on stderr saying how many processes are left and why, the
# report's "error" says the same; once thawed the processes die of the
# SIGKILL that was pending (checked in /proc).
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

FREEZER=$(awk '$3 == "cgroup" && $4 ~ /(^|,)freezer(,|$)/ { print $2; exit }' /proc/self/mounts)
[ -n "$FREEZER" ] || skip_all "no cgroup v1 freezer is mounted (needed to make a process unkillable)"
require_python3 "to read the report"
FRZ=$FREEZER/runx-test-unkillable.$$
mkdir "$FRZ" 2>/dev/null || skip_all "cannot create a cgroup v1 freezer group in $FREEZER (not root?)"
CGMNT=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
declare -A mark pid
# after cleanup's SIGKILL to every marked process: thaw, so they can die
# shellcheck disable=SC2317 # called by cleanup (at_exit)
thaw_and_clean() {
	echo THAWED >"$FRZ/freezer.state" 2>/dev/null
	local i j
	for ((i = 0; i < 100; i++)); do
		rmdir "$FRZ" 2>/dev/null && break
		sleep 0.05
	done
	# the cgroup scope's job cgroups, which runx could not remove
	[ -n "$CGMNT" ] || return 0
	for j in "${!pid[@]}"; do
		[ "${j#*/}" = cgroup ] || continue
		find "$CGMNT" -maxdepth 8 -depth -type d \
			-name "runx-${pid[$j]}-*" -exec rmdir {} \; 2>/dev/null
	done
	return 0
}
at_exit thaw_and_clean

# "default": no --launch (posix_spawn, or clone3 for the cgroup scope)
backends="default fork vfork clone3"
scopes="group tree cgroup"
jobs=()
for b in $backends; do
	for sc in $scopes; do
		jobs+=("$b/$sc")
	done
done
for j in "${jobs[@]}"; do
	b=${j%/*} sc=${j#*/} f=${j//\//-}
	new_marker "mark[$j]"
	# -t 6s: time to freeze the 24 sleeps below before the deadline
	args=(--kill-scope="$sc" --report="$TMPD/$f.json" -t 6s -k 200ms
		-- sh -c "sleep ${mark[$j]} & sleep ${mark[$j]}")
	if [ "$b" = default ]; then
		env --default-signal=INT,QUIT "$RUNX" "${args[@]}" 2>"$TMPD/$f.err" &
		RUNX_PID=$!
		wait_exec "$RUNX_PID"
	else
		runx_bg_with "$b" "${args[@]}" 2>"$TMPD/$f.err"
	fi
	pid[$j]=$RUNX_PID
done
# two_sleeps MARKER: both sleeps of that job run (wait_marked would count
# runx and sh, whose command lines hold the marker too)
# shellcheck disable=SC2317 # called through poll
two_sleeps() {
	[ "$(marked_list "$1" | awk '$3 == "sleep"' | wc -l)" -ge 2 ]
}
for j in "${jobs[@]}"; do
	poll 400 0.05 two_sleeps "${mark[$j]}"
done
# freeze the two sleeps of each job (not runx or sh, whose command lines
# hold the marker too) before the deadline (6 s after the start), all
# found in one scan of /proc
for p in $(marked_list "${mark[@]}" | awk '$3 == "sleep" { print $1 }'); do
	echo "$p" >"$FRZ/cgroup.procs"
done
echo FROZEN >"$FRZ/freezer.state"
# watchdog: thaw after 90 s whatever happens, so that a wrong freeze can
# never hang the suite (its sleep carries a marker: cleanup kills it)
new_marker wd
# shellcheck disable=SC2154 # set by new_marker
(timeout 90 sleep "$wd"; echo THAWED >"$FRZ/freezer.state") 2>/dev/null &
for ((i = 0; i < 100; i++)); do
	[ "$(cat "$FRZ/freezer.state")" = FROZEN ] && break
	sleep 0.02
done
assert_eq "the freezer group is frozen" FROZEN "$(cat "$FRZ/freezer.state")"

for j in "${jobs[@]}"; do
	f=${j//\//-}
	# a hang guard of 60 s: without the bound runx would wait forever
	wait_pid_exit "${pid[$j]}" 60
	assert_ne "$j: runx exits although its processes cannot die" hung "$WAIT_STATUS"
	assert_eq "$j: exit status 124 (the deadline fired)" 124 "$WAIT_STATUS"
	assert_match "$j: stderr says how many are left and why" \
		"^runx: 2 processes in [^
]* still alive 10 s after SIGKILL \(uninterruptible sleep\); giving up on them\$" \
		"$(grep 'after SIGKILL' "$TMPD/$f.err")"
	assert_eq "$j: the report's error says the same" \
		"2 processes still alive 10 s after SIGKILL (uninterruptible sleep) timeout 124" \
		"$("$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["error"], r["reason"], r["exit_status"])' "$TMPD/$f.json" 2>&1)"
	assert_eq "$j: the frozen processes are still there (state D)" "D D" \
		"$(marked_list "${mark[$j]}" | awk '$3 == "sleep" { print $2 }' | xargs)"
done

echo THAWED >"$FRZ/freezer.state"
for j in "${jobs[@]}"; do
	wait_gone "${mark[$j]}" 2>/dev/null
	assert_dead "$j: thawed, they die of the pending SIGKILL" "${mark[$j]}"
done

done_testing
