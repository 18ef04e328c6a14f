#!/bin/bash
# Tree scope (--kill-scope=tree): runx is a child subreaper, so a
# double-forked setsid escapee is re-parented to it and stopped (deadline,
# cleanup after the command exits, SIGTERM to runx, --wait-all).  The same
# escapee survives the group scope: that is the group scope's documented
# limit (the test checks it survives, then kills it itself).
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

# 2 setup, 6 deadline, 7 cleanup, 3 SIGTERM, 4 --wait-all, 2 outsider, 4
# group scope, 4 many leftovers and a fork storm, 5 a child listed before
# its parent, 4 a pid reused ahead of the pid counter, 4 a descendant
# whose pid hops, 2 a stop that releases, 5 orphans that end one after
# another, 10 the command's process group at once
plan $((2 + 6 + 7 + 3 + 4 + 2 + 4 + 4 + 5 + 4 + 4 + 2 + 5 + 10))

# escapee MARKER [TRAP]: sh code that leaves a setsid'ed, orphaned
# "sleep MARKER" behind (setsid -w returns once the inner shell, which
# only starts the sleep in the background, has exited).
escapee() {
	echo "setsid -w sh -c \"${2:+$2; }sleep $1 >/dev/null 2>&1 &\""
}

# --- the escapee is a real escapee -------------------------------------------------
new_marker m
runx --kill-scope=child -- sh -c "$(escapee "$m")"
pid=$(marked_pids "$m" | head -n1)
if [ -n "$pid" ]; then
	sid=$(stat_field "$pid" 6)
	assert_ne "setup: the escapee is in another session than the test" "$(stat_field $$ 6)" "$sid"
	assert_eq "setup: the escapee's process group is its new session's (setsid worked)" \
		"$(stat_field "$pid" 5)" "$sid"
else
	not_ok "setup: the escapee exists"
	not_ok "setup: the escapee is not in the command's group"
fi
kill_marked "$m"

# --- deadline --------------------------------------------------------------------------
new_marker m
assert_eq "tree, deadline: 124" 124 \
	"$(st runx --kill-scope=tree -t 1 -k 0.5 -- sh -c "$(escapee "$m"); sleep $m; :")"
assert_dead "tree, deadline: the setsid escapee is dead" "$m"

new_marker m
assert_eq "tree, deadline, TERM-ignoring escapee: 124" 124 \
	"$(st guarded 30 "$RUNX" "${LAUNCH_ARGS[@]}" --kill-scope=tree -t 1 -k 0.5 -- sh -c "$(escapee "$m" "trap '' TERM"); sleep $m; :")"
assert_dead "tree, deadline, TERM-ignoring escapee: dead" "$m"

# A deeper escape: an orphaned grandchild of a setsid'ed double fork.
new_marker m
assert_eq "tree, deadline, nested escape: 124" 124 \
	"$(st runx --kill-scope=tree -t 1 -k 0.5 -- sh -c "(setsid sh -c '(sh -c \"sleep $m & sleep $m\" &) ; :' &) ; sleep $m; :")"
assert_dead "tree, deadline, nested escape: dead" "$m"

# --- cleanup after the command exits ---------------------------------------------------
new_marker m
assert_eq "tree, cleanup: the command's own status" 6 \
	"$(st runx --kill-scope=tree -k 0.5 -- sh -c "$(escapee "$m"); exit 6")"
assert_dead "tree, cleanup: the setsid escapee is stopped before runx exits" "$m"

new_marker m
assert_eq "tree, cleanup, TERM-ignoring escapee: status 6" 6 \
	"$(st guarded 30 "$RUNX" "${LAUNCH_ARGS[@]}" --kill-scope=tree -k 0.5 -- sh -c "$(escapee "$m" "trap '' TERM"); exit 6")"
assert_dead "tree, cleanup, TERM-ignoring escapee: dead" "$m"

# The escapee gets the first signal (its TERM handler runs).
new_marker m
f="$TMPD/tree-term.$m"
assert_eq "tree, cleanup, escapee with a TERM handler: status 6" 6 \
	"$(st runx --kill-scope=tree -k 20 -- sh -c "setsid -w sh -c \"sh -c 'trap \\\"echo TERM >$f; exit 0\\\" TERM; echo >$f.ready; sleep $m & wait' >/dev/null 2>&1 &\"; while [ ! -e $f.ready ]; do sleep 0.02; done; exit 6")"
assert_eq "tree, cleanup: the escapee's TERM handler ran" TERM "$(cat "$f" 2>/dev/null)"
assert_dead "tree, cleanup, TERM handler: dead" "$m"

# --- SIGTERM to runx reaches the escapee ---------------------------------------------------
new_marker m
f="$TMPD/tree-sig.$m"
runx_bg --kill-scope=tree -k 20 -- sh -c "setsid -w sh -c \"sh -c 'trap \\\"echo TERM >$f; exit 0\\\" TERM; echo >$f.ready; sleep $m & wait' >/dev/null 2>&1 &\"; sleep $m; :"
if wait_file "$f.ready"; then
	kill -TERM "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 40
	assert_eq "tree, SIGTERM to runx: 143" 143 "$WAIT_STATUS"
	assert_eq "tree, SIGTERM to runx: forwarded to the escapee" TERM "$(cat "$f" 2>/dev/null)"
else
	kill -KILL "$RUNX_PID"
	not_ok "tree, SIGTERM to runx: 143" "never ready"
	not_ok "tree, SIGTERM to runx: forwarded to the escapee" "never ready"
fi
assert_dead "tree, SIGTERM to runx: dead" "$m"

# --- --wait-all -------------------------------------------------------------------------------
f="$TMPD/tree-waitall"
assert_eq "tree --wait-all: the command's own status" 3 \
	"$(st guarded 30 "$RUNX" "${LAUNCH_ARGS[@]}" --kill-scope=tree --wait-all -- sh -c "setsid -w sh -c '(sleep 0.5; echo done >$f) >/dev/null 2>&1 &'; exit 3")"
assert_eq "tree --wait-all: runx waited for the escapee" "done" "$(cat "$f" 2>/dev/null)"

new_marker m
assert_eq "tree --wait-all: the deadline bounds it (124)" 124 \
	"$(st guarded 30 "$RUNX" "${LAUNCH_ARGS[@]}" --kill-scope=tree --wait-all -t 1 -k 0.5 -- sh -c "$(escapee "$m"); exit 3")"
assert_dead "tree --wait-all: the escapee is dead" "$m"

# --- a process outside the tree is not touched --------------------------------------------------
new_marker outside
# shellcheck disable=SC2154 # set by new_marker
sleep "$outside" &
outside_pid=$!
new_marker m
assert_eq "tree: deadline 124 (outsider check)" 124 "$(st runx --kill-scope=tree -t 0.5 -- sleep "$m")"
assert_true "tree: a process outside runx's tree survives" pid_alive "$outside_pid"
kill -KILL "$outside_pid" 2>/dev/null
wait "$outside_pid" 2>/dev/null

# --- the group scope's known limit: a setsid escapee gets away --------------------------------------
new_marker m
assert_eq "group, cleanup: the command's own status" 6 \
	"$(st runx -k 0.5 -- sh -c "$(escapee "$m"); exit 6")"
assert_eq "group scope (known limit): the setsid escapee survives cleanup" 1 "$(marked_count "$m")"
kill_marked "$m"

# (on_time: the escapee must be out before the deadline; one left by a
# run that was too late is killed before the next)
new_marker m
r=$TMPD/ready.$m
on_time 1 "$r" "$m" -- runx -t @T -k 0.5 -- sh -c "$(escapee "$m"); : >$r; sleep $m; :"
assert_eq "group, deadline: 124" 124 "$OT_STATUS"
# the command's own "sleep $m" is dead; the escapee is not
assert_eq "group scope (known limit): the setsid escapee survives the deadline" 1 "$(marked_count "$m")"
kill_marked "$m"

# More leftovers than runx watches at once (150 TERM-ignoring sleeps).
new_marker m
assert_eq "tree: 150 TERM-ignoring leftovers: the command's status" 4 \
	"$(st guarded 60 "$RUNX" "${LAUNCH_ARGS[@]}" --kill-scope=tree -k 0.5 -- sh -c "trap '' TERM; i=0; while [ \$i -lt 150 ]; do sleep $m & i=\$((i + 1)); done; exit 4")"
assert_dead "tree: 150 leftovers: all dead" "$m"

# A fork storm of TERM-ignoring processes during the stop.
new_marker m
assert_eq "tree: fork storm at the deadline: 124" 124 \
	"$(st guarded 60 "$RUNX" "${LAUNCH_ARGS[@]}" --kill-scope=tree -t 0.5 -k 0.5 -- sh -c "trap '' TERM; i=0; while :; do sh -c 'sleep $m & sleep $m' & i=\$((i + 1)); [ \$i -lt 1000 ] || sleep 0.05; done")"
assert_dead "tree: fork storm: all dead" "$m"

# --- a child listed before its parent -----------------------------------------------
# runx signals a descendant while it walks /proc, as soon as the walk
# knows its parent is in the tree; a child whose pid is smaller than its
# parent's comes first in /proc, and is signalled once the walk has found
# the parent.  pidpick.py's lowpid job, in a PID namespace of its own: P
# forks C with a pid below its own, and outlives its TERM until C has
# ended: with -k 20, a C that no first signal reached holds the run until
# the SIGKILL 20 s later.
require_python3 "for the child listed before its parent"
if unshare --pid --fork --mount-proc true 2>/dev/null; then
	new_marker m
	d=$TMPD/lowpid
	mkdir "$d"
	# (runx not as PID 1, which reaches the namespace with kill(2) of -1)
	on_time 0.5 "$d/ready" "$d/f" "$d/pids" "$m" "2>$d/err" -- unshare --pid --fork --kill-child --mount-proc \
		sh -c '"$@"; exit $?' sh "$RUNX" "${LAUNCH_ARGS[@]}" -v --kill-scope=tree -t @T -k 20 -- "$PY" "$(dirname "$TESTLIB")/pidpick.py" lowpid "$d" "$m"
	read -r c p <"$d/pids" || true
	assert_eq "tree, a child listed before its parent: setup: its pid is smaller" yes \
		"$(awk -v c="${c:-0}" -v p="${p:-0}" 'BEGIN { print (c > 0 && c < p) ? "yes" : "no" }')" "child ${c:-?}, parent ${p:-?}"
	assert_eq "tree, a child listed before its parent: it got the first signal, no 20 s grace (124 within 7.5 s of the deadline)" \
		"124 yes" "$OT_STATUS $(awk -v e="$OT_ELAPSED" -v t="$OT_T" 'BEGIN { print (e <= t + 7.5) ? "yes" : "no" }')" \
		"$OT_ELAPSED s, deadline $OT_T s"
	assert_eq "tree, a child listed before its parent: -v names it alive at the deadline" 1 \
		"$(grep -c "^runx: alive at the deadline: pid ${c:-none}, " "$d/err")"
	assert_eq "tree, a child listed before its parent: both TERM traps ran" "C P" \
		"$(sort "$d/f" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
	poll 500 0.02 marked_none "$m"
	assert_dead "tree, a child listed before its parent: nothing left" "$m"
else
	skips 5 "tree, a child listed before its parent" "needs root (unshare --pid --mount-proc)"
fi

# --- a pid reused ahead of the pid counter --------------------------------------------
# A pass of the tree reads again, of the pids it reached, only those
# allocated since the pass before (runx(1), tree).  pidpick.py's ahead
# job: A (pid 20001) ends on the first signal; during the grace period B
# is forked with A's pid, the pid counter moving forward from 1000 to
# it.  B is a newcomer: a pass that took A's pid for A would leave B
# to the SIGKILL 20 s later.
reuse_ahead_case "tree, a pid reused ahead of the pid counter" ahead 0.5 \
	"${LAUNCH_ARGS[@]}" --kill-scope=tree

# --- a descendant whose pid hops, counted ------------------------------------------
# The command leaves one descendant that forks and exits in a loop (its
# pid hops, every few ms here), among 850 other processes: /proc then
# fits in one getdents(2), and the census that counts the leftovers (-v)
# reads the hopper's pid after it has exited, a zombie, while its child,
# born after that getdents, is never listed.  runx must not take the tree
# for empty while it has a child (runx(1), tree): the leftovers are
# stopped, and nothing hops once runx has exited (a file the hopper
# appends to stops growing; /proc cannot be trusted to show a pid that
# hops).  The hopper ends itself after 20 s, should runx leave it.
new_marker m
new_marker f
"$PY" -c 'import signal, os
for i in range(850):
    if os.fork() == 0:
        while True:
            signal.pause()
signal.pause()' "$f" &
assert_true "tree, a descendant whose pid hops, counted (-v): setup: 850 other processes run" \
	wait_marked "$f" 851 60
d=$TMPD/hop
mkdir "$d"
assert_eq "tree, a descendant whose pid hops, counted (-v): the command's status, 0" 0 \
	"$(st guarded 60 "$RUNX" "${LAUNCH_ARGS[@]}" -v --kill-scope=tree -k 1 -- "$PY" -c 'import os, sys, time
end = time.monotonic() + 20
with open(sys.argv[1], "ab", buffering=0) as beat:
    while time.monotonic() < end:
        if os.fork() > 0:
            os._exit(0)
        beat.write(b".")' "$d/beat" "$m" 2>"$d/err")"
a=$(stat -c %s "$d/beat")
sleep 0.5
b=$(stat -c %s "$d/beat")
assert_eq "tree, a descendant whose pid hops, counted (-v): it hops no more once runx has exited" "$a" "$b"
assert_eq "tree, a descendant whose pid hops, counted (-v): -v says the leftovers were stopped" 1 \
	"$(grep -c '^runx: stopping [0-9]* leftover process' "$d/err")"
kill_marked "$f"
while [ "$(stat -c %s "$d/beat")" != "$b" ]; do
	b=$(stat -c %s "$d/beat")
	kill_marked "$m"
	sleep 0.2
done

# --- a stop that releases what it ends: the command's status stays exact ----------
# Without --report the kernel releases each process a stop of the tree
# ends (runx(1), tree), the command among them if it ends then: runx
# reads its status from its pidfd (Linux 6.15; older kernels reap it, as
# before).  SIGTERM to runx: it exits with the command's own status, 7.
new_marker m
d=$TMPD/release
mkdir "$d"
runx_bg --kill-scope=tree -k 5 -- sh -c "trap 'exit 7' TERM; i=0; while [ \$i -lt 50 ]; do setsid sleep $m & i=\$((i + 1)); done; : >$d/ready; wait"
term_when_ready "tree, a stop that releases 51 processes, exit status the command's own" 7 "$d/ready" "$m" 50

# --- orphans that end one after another ------------------------------------------
# While a stop waits, runx knows it still has a child from one child it
# holds a pidfd of, and when that one is gone, from another (runx(1),
# tree): it must not take the first one's end for the tree's
# (one_after_another_case, lib.sh; the orphans in sessions of their own).
one_after_another_case tree setsid "${LAUNCH_ARGS[@]}"

# --- the command's process group in one system call ------------------------------
# group_first_case (lib.sh): the first signal of a stop to the command's
# group at once, to the 20 processes outside it one by one; all 41 one by
# one when the command traps TERM (or the kernel refuses the flag).
group_first_cases tree "${LAUNCH_ARGS[@]}"

done_testing
