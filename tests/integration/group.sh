#!/bin/bash
# Group scope (the default, -G, --kill-scope=group): the command leads a
# new session and process group; a stop reaches the whole group; leftovers
# are stopped when the command exits on its own; --wait-all; the GNU
# timeout "$(...) hangs" bug.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

# 6 session/group, 7 deadline, 15 leftovers, 6 GNU timeout bug, 10
# --wait-all, 6 more, 6 orphans, 4 with the subreaper refused, 5 orphans
# that end one after another, 3 a newcomer that joins the group, 6 a
# newcomer with a chosen pid, 3 the last pass after the count
plan $((6 + 7 + 15 + 6 + 10 + 6 + 6 + 4 + 5 + 3 + 6 + 3))

# --- the command is a session and group leader -----------------------------
for opt in "" -G --kill-scope=group; do
	line=$(runx $opt -- sh -c 'cat /proc/$$/stat; :')
	rest=${line##*) }
	read -r _state _ppid pgrp sid _ <<<"$rest"
	pid=${line%% *}
	assert_eq "${opt:-default}: the command's session id is its pid" "$pid" "$sid"
	assert_eq "${opt:-default}: the command's process group id is its pid" "$pid" "$pgrp"
done

# --- a deadline reaches the whole group ----------------------------------------
# Two background jobs and a grandchild (with its own child) that ignore TERM.
new_marker m
runx_bg -t 2 -k 0.5 -- sh -c "sleep $m & sleep $m & sh -c \"trap '' TERM; sleep $m; :\" & wait"
if wait_marked "$m" 6; then ok "group: all 5 processes started"; else
	not_ok "group: all 5 processes started" "$(marked_list "$m")"; fi
wait_pid_exit "$RUNX_PID" 40
assert_eq "group: deadline gives 124" 124 "$WAIT_STATUS"
assert_dead "group: background jobs and TERM-ignoring grandchildren are dead" "$m"

# Same with -G and a TERM-ignoring command that leaves its own children.
new_marker m
assert_eq "-G: deadline with everything ignoring TERM: 124" 124 \
	"$(st guarded 30 "$RUNX" "${LAUNCH_ARGS[@]}" -G -t 1 -k 0.5 -- sh -c "trap '' TERM; sleep $m & sleep $m & sleep $m; :")"
assert_dead "-G: all dead" "$m"

# A process outside the command's group (here: one of the test's own) is
# not touched.
new_marker outside
# shellcheck disable=SC2154 # set by new_marker
sleep "$outside" &
outside_pid=$!
new_marker m
assert_eq "group: deadline 124 (outsider check)" 124 "$(st runx -t 0.5 -k 0.5 -- sleep "$m")"
assert_true "group: a process outside the group survives" pid_alive "$outside_pid"
kill -KILL "$outside_pid" 2>/dev/null
wait "$outside_pid" 2>/dev/null

# --- cleanup when the command exits on its own -----------------------------------
new_marker m
assert_eq "leftovers: runx exits with the command's own status" 7 \
	"$(st runx -k 0.5 -- sh -c "sleep $m & sleep $m & exit 7")"
assert_dead "leftovers: background jobs are stopped before runx exits" "$m"

new_marker m
assert_eq "TERM-ignoring leftovers: command's status" 7 \
	"$(st guarded 30 "$RUNX" "${LAUNCH_ARGS[@]}" -k 0.5 -- sh -c "trap '' TERM; sleep $m & sleep $m & exit 7")"
assert_dead "TERM-ignoring leftovers are SIGKILLed before runx exits" "$m"

new_marker m
assert_eq "leftovers of a command killed by SIGUSR1: 138" 138 \
	"$(st runx -k 0.5 -- sh -c "sleep $m & kill -USR1 \$\$")"
assert_dead "leftovers of a killed command are stopped" "$m"

new_marker m
assert_eq "leftovers of a command exiting 0: 0" 0 \
	"$(st runx -k 0.5 -- sh -c "sleep $m & sleep $m & exit 0")"
assert_dead "leftovers of a command exiting 0 are stopped" "$m"

# A leftover that handles TERM gets it (first signal, then exits by itself).
new_marker m
f="$TMPD/leftover-term.$m"
assert_eq "leftover with a TERM handler: command's status" 5 \
	"$(st runx -k 20 -- sh -c "sh -c \"trap 'echo TERM >$f; exit 0' TERM; echo >$f.ready; sleep $m & wait\" & while [ ! -e $f.ready ]; do sleep 0.02; done; exit 5")"
assert_eq "leftover with a TERM handler: it got the first signal" TERM "$(cat "$f" 2>/dev/null)"
assert_dead "leftover with a TERM handler: dead" "$m"

# A stopped leftover gets SIGCONT after the first signal and can act on it.
# The command waits until its background job has stopped itself, then exits.
new_marker m
f="$TMPD/leftover-stopped.$m"
cat >"$TMPD/stopper.$m" <<EOF
trap 'echo TERM >$f; exit 0' TERM
echo \$\$ >$f.pid
kill -STOP \$\$
sleep $m
EOF
assert_eq "stopped leftover: command's status" 5 \
	"$(st guarded 60 "$RUNX" "${LAUNCH_ARGS[@]}" -k 20 -- sh -c "sh $TMPD/stopper.$m & until [ -s $f.pid ] && [ \"\$(cut -d' ' -f3 /proc/\$(cat $f.pid)/stat)\" = T ]; do sleep 0.02; done; exit 5")"
assert_eq "stopped leftover: continued, its TERM handler ran" TERM "$(cat "$f" 2>/dev/null)"
assert_false "stopped leftover: dead" pid_alive "$(cat "$f.pid" 2>/dev/null || echo 0)"
assert_dead "stopped leftover: nothing left" "$m"

# --- the GNU timeout bug: $(...) must not hang on a TERM-ignoring leftover -------
new_marker m
s=0
x=$(guarded 30 "$RUNX" "${LAUNCH_ARGS[@]}" -t 1s -k 1s -- sh -c "trap '' TERM; sleep $m & echo hi") || s=$?
assert_eq "\$(runx ... sh -c 'trap \"\" TERM; sleep & echo hi') returns the command's status (no hang)" 0 "$s"
assert_eq "\$(...) captured the output" hi "$x"
assert_dead "\$(...): the TERM-ignoring sleep is dead" "$m"

new_marker m
s=0
x=$(guarded 30 "$RUNX" "${LAUNCH_ARGS[@]}" -t 1s -k 1s -- sh -c "trap '' TERM; sleep $m & echo hi; sleep $m; :") || s=$?
assert_eq "\$(...) with the deadline firing: 124 (no hang)" 124 "$s"
assert_eq "\$(...) with the deadline firing: output" hi "$x"
assert_dead "\$(...) with the deadline firing: all dead" "$m"

# --- --wait-all --------------------------------------------------------------------
new_marker m
f="$TMPD/waitall.$m"
assert_eq "--wait-all: command's own status" 3 \
	"$(st guarded 30 "$RUNX" "${LAUNCH_ARGS[@]}" --wait-all -- sh -c "(sleep 0.5; echo done >$f) & exit 3")"
assert_eq "--wait-all: the background job finished before runx returned" "done" "$(cat "$f" 2>/dev/null)"

new_marker m
f="$TMPD/waitall2.$m"
assert_eq "--wait-all with a deadline that does not fire: command's status" 4 \
	"$(st guarded 30 "$RUNX" "${LAUNCH_ARGS[@]}" --wait-all -t 30 -- sh -c "(sleep 0.3; sh -c 'sleep 0.3; echo done >$f') & exit 4")"
assert_eq "--wait-all: grandchild finished before runx returned" "done" "$(cat "$f" 2>/dev/null)"

new_marker m
assert_eq "--wait-all: the deadline still bounds it (124)" 124 \
	"$(st guarded 30 "$RUNX" "${LAUNCH_ARGS[@]}" --wait-all -t 1 -k 0.5 -- sh -c "sleep $m & exit 3")"
assert_dead "--wait-all: leftovers killed at the deadline" "$m"

# (on_time: the command must have exited before the deadline)
new_marker m
r=$TMPD/ready.$m
on_time 1 "$r" -- runx --wait-all -p -t @T -k 0.5 -- sh -c "trap '' TERM; sleep $m & : >$r; exit 3"
assert_eq "--wait-all -p: the deadline fires, status is the command's own" 3 "$OT_STATUS"
assert_dead "--wait-all -p: TERM-ignoring leftover killed" "$m"

# SIGTERM to runx while it waits (--wait-all): a stop; the status stays the
# command's own (it exited before).
new_marker m
runx_bg --wait-all -k 0.5 -- sh -c "sleep $m & exit 3"
# wait until the command itself is gone: the sleep runs and no sh is left
# (counting alone would also match the moment before sh forked the sleep)
command_gone() {
	marked_list "$1" | awk '$3 == "sleep" { s = 1 } $3 == "sh" { c = 1 }
		END { exit !(s && !c) }'
}
i=0
until command_gone "$m" || [ $i -ge 1000 ]; do sleep 0.02; i=$((i + 1)); done
kill -TERM "$RUNX_PID"
wait_pid_exit "$RUNX_PID" 40
assert_eq "--wait-all, SIGTERM to runx while waiting: the command's status" 3 "$WAIT_STATUS"
assert_dead "--wait-all, SIGTERM to runx while waiting: dead" "$m"

# A deadline that fires while leftovers are being stopped does not turn
# the command's own status into 124 (decision 10).  (on_time: the command
# must have exited before the deadline, which falls in the grace period.)
new_marker m
r=$TMPD/ready.$m
on_time 1 "$r" -- runx -t @T -k @2T -- sh -c "trap '' TERM; sleep $m & : >$r; exit 3"
assert_eq "deadline during the cleanup of leftovers: still the command's status" 3 "$OT_STATUS"
assert_dead "deadline during cleanup: dead" "$m"

# More leftovers than runx watches at once (150 TERM-ignoring sleeps).
new_marker m
assert_eq "group: 150 TERM-ignoring leftovers: the command's status" 4 \
	"$(st guarded 60 "$RUNX" "${LAUNCH_ARGS[@]}" -k 0.5 -- sh -c "trap '' TERM; i=0; while [ \$i -lt 150 ]; do sleep $m & i=\$((i + 1)); done; exit 4")"
assert_dead "group: 150 leftovers: all dead" "$m"

# A fork storm of TERM-ignoring processes during the stop: 1000 forks at
# full speed, then 20 a second (unbounded, parallel suites filled the
# machine's PID space, 32768 here, and every fork on it failed).
new_marker m
assert_eq "group: fork storm at the deadline: 124" 124 \
	"$(st guarded 60 "$RUNX" "${LAUNCH_ARGS[@]}" -t 0.5 -k 0.5 -- sh -c "trap '' TERM; i=0; while :; do sh -c 'sleep $m & sleep $m' & i=\$((i + 1)); [ \$i -lt 1000 ] || sleep 0.05; done")"
assert_dead "group: fork storm: all dead" "$m"

# --- the group's orphans: re-parented to runx, released as they die ------------------
# runx is a child subreaper in the group scope too (runx(1), KILL SCOPES),
# only so that a member whose parent died is runx's to release, not an
# init's that may reap late: a stop is over when kill(2) of -pgid says
# ESRCH, which a zombie delays.  The stop still reaches only the group.
# ppid_is PID PPID: PID's parent is PPID.
# shellcheck disable=SC2317 # called through poll
ppid_is() {
	[ "$(stat_field "$1" 4 2>/dev/null)" = "$2" ]
}
new_marker m
runx_bg -t 60 -k 0.5 -- sh -c "echo \$\$ >$TMPD/cmd.$m; sh -c 'sleep $m & echo \$! >$TMPD/orphan.$m'; exec sleep $m"
poll 500 0.02 test -s "$TMPD/orphan.$m"
o=$(cat "$TMPD/orphan.$m" 2>/dev/null) c=$(cat "$TMPD/cmd.$m" 2>/dev/null)
start=$(stat_field "${o:-0}" 22 2>/dev/null)
poll 500 0.02 ppid_is "${o:-0}" "$RUNX_PID"
assert_eq "group: an orphaned member is re-parented to runx (a child subreaper)" \
	"$RUNX_PID" "$(stat_field "${o:-0}" 4 2>/dev/null)"
assert_eq "group: the orphan is still a member of the command's process group" \
	"${c:-none}" "$(stat_field "${o:-0}" 5 2>/dev/null)"
[ -n "$o" ] && kill -KILL "$o" 2>/dev/null
poll 500 0.02 pid_gone "${o:-0}" "$start"
assert_true "group: the orphan, once dead, is released (its pid is gone from /proc)" \
	pid_gone "${o:-0}" "$start"
assert_true "group: ... while runx and its command still run" pid_alive "$RUNX_PID"
kill -TERM "$RUNX_PID"
wait_pid_exit "$RUNX_PID" 30
assert_eq "group: runx stopped by SIGTERM: 143" 143 "$WAIT_STATUS"
assert_dead "group: the command is dead" "$m"

# prctl(PR_SET_CHILD_SUBREAPER) refused (a seccomp filter,
# deny-pidfd-open.py --subreaper): the group scope runs as it would
# without it (its orphans go to init), while the tree scope, which
# needs it, refuses to start.
DENY=$(dirname "$TESTLIB")/deny-pidfd-open.py
PY=$(command -v python3 || true)
new_marker m
s=0
[ -z "$PY" ] ||
	err=$("$PY" "$DENY" --subreaper EPERM "$RUNX" "${LAUNCH_ARGS[@]}" -t 1 -k 0.5 -- \
		sh -c "sh -c 'sleep $m & echo \$! >$TMPD/orphan.$m'; sleep $m" 2>&1) || s=$?
if [ -z "$PY" ]; then
	skips 4 "group, the subreaper refused" "python3 is needed for the seccomp filter"
elif [ "$s" = 77 ]; then
	skips 4 "group, the subreaper refused" "no seccomp filter here: $err"
else
	assert_eq "group, the subreaper refused: the deadline still gives 124" 124 "$s" "$err"
	assert_eq "group, the subreaper refused: runx says nothing of it" "" "$err"
	assert_dead "group, the subreaper refused: the orphaned member is dead too" "$m"
	s=0
	err=$("$PY" "$DENY" --subreaper EPERM "$RUNX" "${LAUNCH_ARGS[@]}" --kill-scope=tree -- true 2>&1) || s=$?
	assert_eq "tree, the subreaper refused: 125 and why" \
		"125 runx: cannot become a child subreaper: Operation not permitted" "$s $err"
fi

# --- orphans that end one after another ------------------------------------------
# While a stop waits, runx knows the group is not empty from one member it
# holds a pidfd of, and when that one is gone, from the group itself
# (runx(1), group): it must not take the first one's end for the group's
# (one_after_another_case, lib.sh; the orphans stay in the group).
one_after_another_case group group "${LAUNCH_ARGS[@]}"

# --- a newcomer that joins the group after its birth -------------------------------
# A pass for newcomers reads the pids allocated since the pass before; a
# process born in the stop into another process group of the job's
# session, which joins the command's group later (setpgid(2)), must still
# get the first signal once it is a member: its TERM handler writes "t".
# The command, in its TERM handler, starts it in a group of its own
# (Popen's process_group) and lives 2 s more; the child joins 0.6 s after
# it started.  A child that met only the SIGKILL (at 5 s) wrote no "t".
new_marker m
d=$(mktemp -d "$TMPD/joins.XXXXXX")
cat >"$d/child.py" <<'PYEOF'
import os, signal, sys, time
out, pgid = sys.argv[1], int(sys.argv[2])
def term(sig, frame):
    with open(out, "a") as f:
        f.write("t\n")
    os._exit(0)
signal.signal(signal.SIGTERM, term)
with open(out, "a") as f:
    f.write("outside %d\n" % os.getpgid(0))
time.sleep(0.6)
os.setpgid(0, pgid)
with open(out, "a") as f:
    f.write("joined\n")
time.sleep(30)
PYEOF
s=0
runx "${LAUNCH_ARGS[@]}" -t 1 -k 5 -- "$PY" -c '
import os, signal, subprocess, sys, time
def term(sig, frame):
    subprocess.Popen([sys.executable, sys.argv[1], sys.argv[2],
                      str(os.getpgid(0)), sys.argv[3]], process_group=0)
    time.sleep(2)
    sys.exit(0)
signal.signal(signal.SIGTERM, term)
while True:
    time.sleep(0.1)
' "$d/child.py" "$d/out" "$m" >/dev/null 2>&1 || s=$?
assert_eq "group, a newcomer that joins the group: 124" 124 "$s"
assert_match "group, a newcomer that joins the group: born outside it, joined it, and its TERM handler ran" \
	"^outside [0-9]+"$'\n'"joined"$'\n'"t\$" "$(cat "$d/out" 2>&1)"
assert_dead "group, a newcomer that joins the group: it is gone" "$m"

# --- a newcomer whose pid is chosen below the pid counter ----------------------------
# A root job can choose a child's pid (clone3(2)'s set_tid): the kernel
# does not move the pid counter for it, so a pass that read only the pids
# allocated since the pass before would never see it.  runx counts the
# forks since then (/proc/stat's "processes") against how far the counter
# moved, but forks that fail after their pid was allocated move it with
# no fork counted, and CI found the count fooled on a busy machine.
# settid.py makes such a child 1 s after the TERM, and 3 such failed
# forks right after it.
# fork: the shell's sleep has a pid in the window, and its parent is not
# reached: runx walks all of /proc at once (the parent first).  read: the
# shell forks nothing, and the walk that runx makes at least every second
# finds it (the grace period is 10 s).
settid_cases "group, a newcomer with a chosen pid" 1

# --- the last pass for newcomers comes after the count ---------------------------------
# With -v (or --report), runx counts and names what is left when the grace
# period ends; with thousands of processes that takes a while, and a
# process born meanwhile would meet only the SIGKILL if the last pass for
# newcomers came before the count.  It comes after: its "sending to
# newcomers" line follows the count's.  The command's TERM handler starts
# a sleep every 5 ms.  A newcomer must be born between the count and the
# last pass, which takes well under 1 ms here: on a loaded machine the
# shell may not run at all then (a CI run with a load average of 37 found
# none).  So runx runs under strace, and each of its writes to stderr
# (strace -P: that file only) is held 100 ms after it is written: the
# count's line and at least one line of names (the shell's; about 10 in
# all, the sleeps that the passes have not reached yet) give the shell
# 200 ms at the least, about a second as a rule.
if have_strace 3 "the last pass after the count"; then
	new_marker m
	s=0
	# shellcheck disable=SC2094 # strace -P only names the file runx writes
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -qq -o /dev/null -P "$TMPD/last.err" -e trace=write -e inject=write:delay_exit=100000 \
		"$RUNX" "${LAUNCH_ARGS[@]}" -v -t 0.5 -k 1.05 -- \
		sh -c "trap 'while :; do sleep $m & sleep 0.005; done' TERM; sleep $m & wait" \
		2>"$TMPD/last.err" || s=$?
	assert_eq "the last pass after the count: 124" 124 "$s"
	assert_eq "the last pass after the count: the count, then the newcomers, then SIGKILL" "count newcomers kill" \
		"$(awk '/still alive after the/ { c = NR } /sending to newcomers: SIGTERM/ { n = NR } /sending: SIGKILL/ { k = NR }
			END { print (c && n > c && k > n) ? "count newcomers kill" : "count " c ", newcomers " n ", kill " k }' "$TMPD/last.err")" \
		"$(cat "$TMPD/last.err")"
	assert_dead "the last pass after the count: nothing left" "$m"
fi

done_testing
