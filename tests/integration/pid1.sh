#!/bin/bash
# runx as PID 1 (unshare --pid --fork --mount-proc): exit statuses, every
# orphan re-parented to it is reaped (no zombies), nothing left; stops
# still go through the first signal (a TERM handler in an orphan runs,
# which a namespace teardown by SIGKILL would not allow); the tree scope
# needs /proc of its own namespace.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

if ! unshare --pid --fork --mount-proc true 2>/dev/null; then
	skip_all "needs root (unshare --pid --fork --mount-proc is not permitted here)"
fi

require_command jq "to read the report"
probe_scopes

# 4 reaping, 5 deadline, 6 leftovers and statuses, 3 tree, 4 without a
# /proc of its own, 6 its counts, 2 x 6 the pidns and cgroup scopes there,
# 3 SIGTSTP
plan $((4 + 5 + 6 + 3 + 4 + 6 + 2 * 6 + 3))

# PID1: the words that run runx as PID 1 (see pid1), for on_time.
PID1=(unshare --pid --fork --mount-proc "$RUNX" "${LAUNCH_ARGS[@]}")

# pid1 RUNX-ARGS...: runx as PID 1 of a new pid namespace with its own /proc.
# shellcheck disable=SC2317 # called through st
pid1() {
	guarded 60 unshare --pid --fork --mount-proc "$RUNX" "${LAUNCH_ARGS[@]}" "$@"
}

# --- orphans are reaped --------------------------------------------------------------
# check_reaped LABEL STATUS-TEST ZOMBIE-TEST STATUS ORPHANS: the command
# runs the sh code ORPHANS, which makes orphans (re-parented to runx, PID
# 1) that exit by themselves, then waits until no zombie child of PID 1 is
# left and none of the orphans' sleeps runs any more (at most 30 s), writes
# how many zombies there still are to $TMPD/LABEL and exits STATUS; STATUS-TEST checks runx's status is STATUS, ZOMBIE-TEST
# that no zombie was left.
check_reaped() {
	local z="$TMPD/$1" s
	s=$(st pid1 -- sh -c "
	$5
	sleep 0.6
	i=0
	while :; do
		n=\$(awk '\$0 ~ /\\) Z [0-9]/ { split(\$0, a, \") \"); split(a[2], f, \" \"); if (f[2] == 1) c++ } END { print c + 0 }' /proc/[0-9]*/stat 2>/dev/null)
		l=\$(awk '\$2 == \"(sleep)\" && \$3 != \"Z\" { c++ } END { print c + 0 }' /proc/[0-9]*/stat 2>/dev/null)
		[ \"\$n\" = 0 ] && [ \"\$l\" = 0 ] && break
		i=\$((i + 1))
		[ \$i -ge 600 ] && break
		sleep 0.05
	done
	echo \"\$n\" >$z
	exit $4")
	assert_eq "$2" "$4" "$s"
	assert_eq "$3" 0 "$(cat "$z" 2>/dev/null)"
}

check_reaped zombies "PID 1: the command's own status" \
	"PID 1: orphans re-parented to runx are reaped (no zombies left)" 5 \
	"(sleep 0.1 &)
	(sh -c 'sleep 0.2 &' &)
	setsid sh -c 'sleep 0.1 &'
	sh -c '(sleep 0.1; exit 3) & exit 0'"

# The same, with many orphans.
check_reaped zombies2 "PID 1, 30 orphans: status 0" "PID 1, 30 orphans: no zombies left" 0 \
	"j=0
	while [ \$j -lt 30 ]; do (sleep 0.05 &); j=\$((j + 1)); done"

# --- deadline as PID 1 --------------------------------------------------------------
# (on_time: the traps must be in place before the deadline)
new_marker m
f="$TMPD/pid1-term.$m"
r="$TMPD/ready.$m"
on_time 1 "$r" "$f" -- "${PID1[@]}" -t @T -k 1 -- sh -c "
	sh -c \"trap 'echo TERM >$f; exit 0' TERM; : >$r; sleep $m & wait\" &
	trap '' TERM
	sleep $m &
	(sleep $m &)
	sleep $m; :"
assert_eq "PID 1: deadline gives 124" 124 "$OT_STATUS"
assert_eq "PID 1: the group got the first signal (a handler ran)" TERM "$(cat "$f" 2>/dev/null)"
assert_dead "PID 1: nothing left" "$m"

new_marker m
r="$TMPD/ready.$m"
on_time 1 "$r" -- "${PID1[@]}" -p -t @T -k 0.5 -- sh -c "trap '' TERM; sleep $m & : >$r; sleep $m; :"
assert_eq "PID 1: -p with SIGKILL needed: 137" 137 "$OT_STATUS"
assert_dead "PID 1 -p: nothing left" "$m"

# --- cleanup of leftovers as PID 1 ------------------------------------------------------
new_marker m
f="$TMPD/pid1-left.$m"
assert_eq "PID 1: leftovers, the command's status" 7 \
	"$(st pid1 -k 5 -- sh -c "sh -c \"trap 'echo TERM >$f; exit 0' TERM; echo >$f.ready; sleep $m & wait\" & while [ ! -e $f.ready ]; do sleep 0.02; done; exit 7")"
assert_eq "PID 1: the leftover got the first signal" TERM "$(cat "$f" 2>/dev/null)"
assert_dead "PID 1 leftovers: nothing left" "$m"

new_marker m
assert_eq "PID 1: killed by its own signal: 138" 138 \
	"$(st pid1 -- sh -c "sleep $m & kill -USR1 \$\$")"
assert_dead "PID 1 signal: nothing left" "$m"

assert_eq "PID 1: 127 for a missing command" 127 "$(st pid1 -- no-such-command-$$ 2>/dev/null)"

# --- tree scope as PID 1 ---------------------------------------------------------------------
new_marker m
f="$TMPD/pid1-tree.$m"
r="$TMPD/ready.$m"
on_time 1 "$r" "$f" -- "${PID1[@]}" --kill-scope=tree -t @T -k 5 -- sh -c "setsid -w sh -c \"trap 'echo TERM >$f; exit 0' TERM; : >$r; sleep $m & wait\" & sleep $m; :"
assert_eq "PID 1, tree scope: a setsid escapee is stopped (124)" 124 "$OT_STATUS"
assert_eq "PID 1, tree scope: the escapee got the first signal" TERM "$(cat "$f" 2>/dev/null)"
assert_dead "PID 1, tree scope: nothing left" "$m"

# Without a /proc of its own (no --mount-proc): the tree scope refuses,
# the group scope still works.
rm -f "$TMPD/started"
assert_eq "PID 1 without --mount-proc: tree scope gives 125" 125 \
	"$(st guarded 60 unshare --pid --fork "$RUNX" "${LAUNCH_ARGS[@]}" --kill-scope=tree -- touch "$TMPD/started" 2>/dev/null)"
assert_false "PID 1 without --mount-proc, tree: nothing started" test -e "$TMPD/started"
new_marker m
assert_eq "PID 1 without --mount-proc: group scope deadline 124" 124 \
	"$(st guarded 60 unshare --pid --fork "$RUNX" "${LAUNCH_ARGS[@]}" -t 0.5 -k 0.5 -- sh -c "trap '' TERM; sleep $m & sleep $m; :")"
assert_dead "PID 1 without --mount-proc, group: nothing left" "$m"

# What -v and --report count there (runx(1), BUGS): the group scope tells
# only that the group has a member, so each count is 1, never 0, while 3
# TERM-ignoring members live on past the deadline and the grace period.
new_marker m
d=$TMPD/unnamed
mkdir "$d"
on_time 1 "$d/ready" "$d/r.json" "2>$d/err" "$m" -- unshare --pid --fork "$RUNX" "${LAUNCH_ARGS[@]}" -v --report="$d/r.json" -t @T -k 1 -- \
	sh -c "trap '' TERM; sleep $m & sleep $m & sleep $m & : >$d/ready; wait"
assert_eq "PID 1 without --mount-proc, counts: deadline 124" 124 "$OT_STATUS"
assert_eq "PID 1 without --mount-proc, counts: the report's alive at the deadline and killed after the grace period" \
	"1 1" "$(jq -r '"\(.alive_at_deadline.count) \(.killed_after_grace)"' "$d/r.json" 2>&1)"
assert_eq "PID 1 without --mount-proc, counts: -v says 1 alive after the grace period" 1 \
	"$(grep -c '^runx: 1 process still alive after the 1s grace period$' "$d/err")" "$(cat "$d/err")"
assert_eq "PID 1 without --mount-proc, counts: -v never says what is left is exiting" 0 \
	"$(grep -c 'is exiting' "$d/err")"
assert_eq "PID 1 without --mount-proc, counts: -v names none, and says why" 2 \
	"$(grep -cE '^runx: alive (at the deadline|after the grace period): 1 process that /proc does not show$' "$d/err")" "$(cat "$d/err")"
assert_dead "PID 1 without --mount-proc, counts: nothing left" "$m"

# The pidns and cgroup scopes there: /proc/PID is another process (the
# init's pid 2 is the machine's kthreadd), so -v and --report name none.
# The cgroup scope counts what cgroup.procs lists (3); the pidns scope
# cannot see into its namespace: 1, as the group scope.  5 per scope.
for sc in pidns cgroup; do
	why=$(scope_missing "$sc")
	if [ -n "$why" ]; then
		skips 6 "PID 1 without --mount-proc, $sc" "$why"
		continue
	fi
	scope_launch_args "$sc"
	n=1
	[ "$sc" = cgroup ] && n=3
	new_marker m
	d=$TMPD/unnamed.$sc
	mkdir "$d"
	on_time 1 "$d/ready" "$d/r.json" "2>$d/err" "$m" -- unshare --pid --fork "$RUNX" "${SCOPE_LAUNCH_ARGS[@]}" \
		--kill-scope="$sc" -v --report="$d/r.json" -t @T -k 1 -- \
		sh -c "trap '' TERM; sleep $m & sleep $m & : >$d/ready; wait"
	assert_eq "PID 1 without --mount-proc, $sc: deadline 124" 124 "$OT_STATUS"
	assert_eq "PID 1 without --mount-proc, $sc: the report's counts, and no process named" \
		"$n $n $n 0 0" \
		"$(jq -r '"\(.alive_at_deadline.count) \(.alive_after_grace.count) \(.killed_after_grace) \(.alive_at_deadline.processes | length) \(.alive_after_grace.processes | length)"' "$d/r.json" 2>&1)"
	assert_eq "PID 1 without --mount-proc, $sc: -v names no process" 0 \
		"$(grep -c '^runx: alive .*: pid [0-9]' "$d/err")" "$(cat "$d/err")"
	[ "$n" = 1 ] && p="1 process" || p="$n processes"
	assert_eq "PID 1 without --mount-proc, $sc: -v says how many /proc does not show" 2 \
		"$(grep -cE "^runx: alive (at the deadline|after the grace period): $p that /proc does not show\$" "$d/err")" "$(cat "$d/err")"
	assert_dead "PID 1 without --mount-proc, $sc: nothing left" "$m"
	# the leftovers of a command that exits: counted as the census
	# counts them, with no listing to count from (8e911d6 said 1)
	new_marker m
	s=$(st guarded 60 unshare --pid --fork "$RUNX" "${SCOPE_LAUNCH_ARGS[@]}" --kill-scope="$sc" \
		--report="$d/left.json" -k 1 -- sh -c "sleep $m & sleep $m & sleep $m & exit 0")
	assert_eq "PID 1 without --mount-proc, $sc: 3 leftovers, counted as the census counts them" \
		"0 $n" "$s $(jq -r .leftovers_stopped "$d/left.json" 2>&1)"
done

# --- SIGTSTP: the scope stops, runx (PID 1) cannot -----------------------------------
# and -v says so; SIGCONT continues the job, which then ends normally
new_marker m
d=$TMPD/tstp
mkdir -p "$d"
unshare --pid --fork --mount-proc "$RUNX" "${LAUNCH_ARGS[@]}" -v -t 60 -- \
	sh -c ': >"$1/ready"; while [ ! -e "$1/go" ]; do sleep 0.05; done; : "$2"' sh "$d" "$m" \
	2>"$d/err" &
up=$!
poll 400 0.05 test -e "$d/ready" || true
rp=$(pgrep -P "$up" -x runx) || rp=
jp=''
[ -n "$rp" ] && jp=$(pgrep -P "$rp" | head -n 1)
[ -n "$rp" ] && kill -TSTP "$rp"
poll 100 0.05 pid_in_state "${jp:-0}" T || true
assert_eq "PID 1, SIGTSTP: the job stops (T), runx does not" "T|not T" \
	"$(stat_field "${jp:-0}" 3)|$(pid_in_state "${rp:-0}" T && echo T || echo not T)" "$(cat "$d/err")"
assert_eq "PID 1, SIGTSTP: -v says runx cannot stop" 1 \
	"$(grep -c '^runx: received SIGTSTP: stopping the scope (job control; runx is PID 1 and cannot stop)$' "$d/err")" \
	"$(cat "$d/err")"
[ -n "$rp" ] && kill -CONT "$rp"
: >"$d/go"
# bounded: a runx left stopped would hold the namespace, and this script
wait_pid_exit "$up" 40
[ "$WAIT_STATUS" = hung ] && [ -n "$rp" ] && kill -KILL "$rp" 2>/dev/null
assert_eq "PID 1, SIGTSTP then SIGCONT: the job ends normally (0)" 0 "$WAIT_STATUS" "$(cat "$d/err")"
kill_marked "$m"

done_testing
