#!/bin/bash
# Deadline and grace period: -t, -s (names, numbers, 0), -k/--grace
# (0 = SIGKILL at once), SIGCONT for a stopped command after the first
# signal.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

kill_scopes=(group tree pidns cgroup)
cgroup_ok=no
[ "$(runx_cg -C -- true 2>/dev/null; echo $?)" = 0 ] && cgroup_ok=yes

# 12 for -t; -s: 6 x 3 names, 3 + 5 + 2 more, 4 per kill scope; 14 for
# -k, 2 more per kill scope; 9 for a stopped command
plan $((12 + 6 * 3 + 3 + 5 + 2 + 4 * ${#kill_scopes[@]} + 14 + 2 * ${#kill_scopes[@]} + 9))

# A command that records the first signal it gets, then exits 9; it
# writes READY once its traps are in place (for on_time).
# recorder FILE READY MARKER SIGNAL...
recorder() {
	local f=$1 r=$2 m=$3 sig script=""
	shift 3
	for sig in "$@"; do
		script="$script trap 'echo $sig >>$f; exit 9' $sig;"
	done
	echo "$script : >$r; sleep $m & wait"
}

# --- -t ---------------------------------------------------------------------
new_marker m
assert_eq "-t 0.5: 124" 124 "$(st runx -t 0.5 -- sleep "$m")"
assert_dead "-t 0.5: dead" "$m"
new_marker m
assert_eq "--timeout=500ms: 124" 124 "$(st runx --timeout=500ms -- sleep "$m")"
assert_dead "--timeout=500ms: dead" "$m"
new_marker m
assert_eq "-t 0.01m (GNU form): 124" 124 "$(st runx -t 0.01m -- sleep "$m")"
assert_dead "-t 0.01m: dead" "$m"
assert_eq "-t 0 means no limit" 7 "$(st runx -t 0 -- sh -c 'sleep 1; exit 7')"
assert_eq "-t inf means no limit" 7 "$(st runx -t inf -- sh -c 'sleep 1; exit 7')"
assert_eq "-t 1e30 (too large: clamped, no limit)" 3 "$(st runx -t 1e30 -- sh -c 'exit 3')"
new_marker m
assert_eq "-t 1e-12 (rounded up to 1 ns): 124" 124 "$(st runx -t 1e-12 -- sleep "$m")"
assert_dead "-t 1e-12: dead" "$m"
assert_eq "a deadline that does not fire changes nothing" 5 \
	"$(st runx -t 60 -- sh -c 'sleep 0.2; exit 5')"

# --- -s ---------------------------------------------------------------------
# check_signal NAME-TEXT SIG-ARG EXPECTED-NAME
check_signal() {
	local label=$1 arg=$2 want=$3 f r
	new_marker m
	f="$TMPD/sig.$m"
	r="$TMPD/ready.$m"
	on_time 0.5 "$r" "$f" -- runx -p -t @T -k 1 -s "$arg" -- sh -c "$(recorder "$f" "$r" "$m" TERM INT USR1 HUP)"
	assert_eq "-s $label: the command got $want first" "$want" "$(head -n1 "$f" 2>/dev/null)"
	assert_eq "-s $label: -p gives the handler's status" 9 "$OT_STATUS"
	assert_dead "-s $label: dead" "$m"
}
check_signal TERM TERM TERM
check_signal INT INT INT
check_signal USR1 USR1 USR1
check_signal sigusr1 sigusr1 USR1
check_signal 10 10 USR1
check_signal SIGHUP SIGHUP HUP

new_marker m
f="$TMPD/sig.$m"
r="$TMPD/ready.$m"
on_time 0.5 "$r" "$f" -- runx -t @T -k 1 -s INT -- sh -c "$(recorder "$f" "$r" "$m" INT)"
assert_eq "-s INT without -p: 124" 124 "$OT_STATUS"
assert_eq "-s INT without -p: the handler ran" INT "$(cat "$f" 2>/dev/null)"
assert_dead "-s INT without -p: dead" "$m"

# -s 0: nothing is sent first; only SIGKILL after the grace period.
new_marker m
f="$TMPD/sig.$m"
s=$(st runx -p -t 0.5 -s 0 -k 0.5 -- sh -c "$(recorder "$f" "$TMPD/ready.$m" "$m" TERM INT HUP USR1 CONT)")
assert_eq "-s 0: -p gives 137 (only SIGKILL)" 137 "$s"
assert_false "-s 0: the command got no signal before SIGKILL" test -e "$f"
assert_dead "-s 0: dead" "$m"
new_marker m
assert_eq "-s 0 without -p: 124" 124 "$(st runx -t 0.5 -s 0 -k 0.5 -- sleep "$m")"
assert_dead "-s 0 without -p: dead" "$m"

# -s KILL: killed at once.
new_marker m
assert_eq "-s KILL -p: 137" 137 \
	"$(st runx -p -t 0.5 -s KILL -- sh -c "trap '' TERM; sleep $m; :")"
assert_dead "-s KILL: dead" "$m"

# -s KILL has no grace period to tell of: one SIGKILL, nothing "alive after
# the grace period", killed_after_grace 0 (in every scope that can run here).
for sc in "${kill_scopes[@]}"; do
	if [ "$sc" = cgroup ] && [ "$cgroup_ok" = no ]; then
		skips 4 "-s KILL, cgroup" "the cgroup scope is not usable here"
		continue
	fi
	new_marker m
	s=0
	runx_cg -v --kill-scope="$sc" -s KILL -t 0.3 -k 5 --report="$TMPD/kill.$sc.json" -- \
		sh -c "sleep $m & sleep $m; :" 2>"$TMPD/kill.$sc.err" || s=$?
	assert_eq "-s KILL, $sc: 124" 124 "$s"
	assert_eq "-s KILL, $sc: one SIGKILL, no grace period in the report" '["SIGKILL"]|0|null' \
		"$(jq -c '[.signals_sent[].signal]' "$TMPD/kill.$sc.json")|$(jq -c '.killed_after_grace, .alive_after_grace' "$TMPD/kill.$sc.json" | paste -sd'|')"
	assert_false "-s KILL, $sc: -v says nothing of a grace period" grep -q "grace period" "$TMPD/kill.$sc.err"
	assert_dead "-s KILL, $sc: dead" "$m"
done

# --- -k / --grace -----------------------------------------------------------
# A TERM-ignoring command needs the SIGKILL (on_time: the trap must be
# in place before the deadline; so in the cases below).
new_marker m
r="$TMPD/ready.$m"
on_time 0.5 "$r" -- runx -p -t @T -k 0.5 -- sh -c "trap '' TERM; : >$r; sleep $m; :"
assert_eq "-k 0.5 with TERM ignored: -p 137" 137 "$OT_STATUS"
assert_dead "-k 0.5 with TERM ignored: dead" "$m"
new_marker m
r="$TMPD/ready.$m"
on_time 0.5 "$r" -- runx -p -t @T --grace=0.5 -- sh -c "trap '' TERM; : >$r; sleep $m; :"
assert_eq "--grace=0.5 with TERM ignored: -p 137" 137 "$OT_STATUS"
assert_dead "--grace with TERM ignored: dead" "$m"
new_marker m
assert_eq "--kill-after=500ms with TERM ignored: 124" 124 \
	"$(st runx -t 0.5 --kill-after=500ms -- sh -c "trap '' TERM; sleep $m; :")"
assert_dead "--kill-after with TERM ignored: dead" "$m"

# -k 0: SIGKILL right after the first signal, even for a TERM handler that
# would take its time.
new_marker m
f="$TMPD/slow.$m"
r="$TMPD/ready.$m"
on_time 0.5 "$r" "$f" -- runx -p -t @T -k 0 -- sh -c "trap 'sleep 2; touch $f; exit 3' TERM; : >$r; sleep $m & wait"
assert_eq "-k 0: -p 137 although the command handles TERM" 137 "$OT_STATUS"
assert_dead "-k 0: dead" "$m"
assert_false "-k 0: the TERM handler did not finish" test -e "$f"

# The grace period lets a TERM handler finish its work.
new_marker m
f="$TMPD/graceful.$m"
r="$TMPD/ready.$m"
on_time 0.5 "$r" "$f" -- runx -p -t @T -k 20 -- sh -c "trap 'sleep 0.5; echo done >$f; exit 3' TERM; : >$r; sleep $m & wait"
assert_eq "grace: a slow TERM handler finishes and sets the status (-p)" 3 "$OT_STATUS"
assert_eq "grace: the handler's work is done" "done" "$(cat "$f" 2>/dev/null)"
assert_dead "grace: dead" "$m"

# TERM-ignoring command with -k 0: no hang, 124.
new_marker m
assert_eq "-k 0 with TERM ignored: 124" 124 \
	"$(st guarded 30 "$RUNX" "${LAUNCH_ARGS[@]}" -t 0.5 -k 0 -- sh -c "trap '' TERM; sleep $m; :")"
assert_dead "-k 0 with TERM ignored: dead" "$m"

# --- a stopped command gets SIGCONT after the first signal --------------------
# The command stops itself; at the deadline it gets TERM (pending while
# stopped) and SIGCONT, and its handler runs.
new_marker m
f="$TMPD/cont.$m"
r="$TMPD/ready.$m"
on_time 1.5 "$r" "$f" -- runx -p -t @T -k 20 -- sh -c "trap 'echo TERM >$f; exit 3' TERM; : >$r; kill -STOP \$\$; sleep $m & wait"
assert_eq "stopped command (deadline): handler runs, -p gives its status" 3 "$OT_STATUS"
assert_eq "stopped command (deadline): handler wrote its file" TERM "$(cat "$f" 2>/dev/null)"
assert_dead "stopped command (deadline): dead" "$m"

# Deterministic variant: the test stops the command, checks it is stopped,
# then the deadline comes.
new_marker m
f="$TMPD/cont2.$m"
runx_bg -p -t 3 -k 20 -- sh -c "trap 'echo TERM >$f; exit 4' TERM; echo \$\$ >$TMPD/pid.$m; sleep $m & wait"
# (the file exists before the pid is in it: wait for its content)
if poll 1000 0.02 test -s "$TMPD/pid.$m"; then
	cpid=$(cat "$TMPD/pid.$m")
	kill -STOP "$cpid"
	poll 1000 0.02 pid_in_state "$cpid" T
	assert_eq "stopped command: it is stopped before the deadline" T "$(stat_field "$cpid" 3)"
else
	not_ok "stopped command: it is stopped before the deadline" "the command never started"
fi
wait_pid_exit "$RUNX_PID" 40
assert_eq "stopped command: continued, handler's status" 4 "$WAIT_STATUS"
assert_eq "stopped command: handler wrote its file" TERM "$(cat "$f" 2>/dev/null)"
assert_dead "stopped command: dead" "$m"

# -k 0: the SIGKILL follows the first signal at once, while the processes
# die of it.  What -v and the report call alive after the grace period is
# what was alive then, consistently: the count said, the processes named
# and "and N more" agree; killed_after_grace is the report's count; none
# is counted alive while exiting; the command is never said to have left
# the scope.  (A dying command was once counted as a hidden member, or
# its zombie as an escape.)  10 runs per scope: the race is per run.
# consistent DIR N: nothing, or "run I: why." for each of runs 1..N whose
# words (DIR/k0.I.err and DIR/k0.I.json) disagree.  One python3 for all N
# runs: it takes about 0.5 s to start on a loaded 2-core machine.
consistent() {
	"$PY" - "$1" "$2" <<'PYEOF'
import json, re, sys
out = []
for i in range(1, int(sys.argv[2]) + 1):
    base = f"{sys.argv[1]}/k0.{i}"
    err, r = open(base + ".err").read(), json.load(open(base + ".json"))
    a = r["alive_after_grace"]
    said = re.search(r"(\d+) process(?:es)? still alive after the", err)
    named = len(re.findall(r"alive after the grace period: pid ", err))
    more = re.search(r"alive after the grace period: and (\d+) more", err)
    why = []
    if "had left" in err:
        why.append("said the command had left the scope")
    if r["killed_after_grace"] != (a["count"] if a else 0):
        why.append(f"killed_after_grace {r['killed_after_grace']}, alive_after_grace {a}")
    if a and a["count"] <= 20 and len(a["processes"]) != a["count"]:
        why.append(f"alive_after_grace counts {a['count']}, names {len(a['processes'])}")
    if said and int(said[1]) != named + (int(more[1]) if more else 0):
        why.append(f"-v: {said[1]} still alive, {named} named, {more[1] if more else 0} more")
    if (a["count"] if a else 0) != (int(said[1]) if said else 0):
        why.append(f"-v says {said[1] if said else 0} alive, the report {a['count'] if a else 0}")
    if any(p["argv"] == [] for p in (a["processes"] if a else [])):
        why.append("an exiting process named (no command line)")
    if why:
        out.append(f" run {i}: {'; '.join(why)}.")
print("".join(out), end="")
PYEOF
}
PY=$(command -v python3 || true)
for sc in "${kill_scopes[@]}"; do
	if [ "$sc" = cgroup ] && [ "$cgroup_ok" = no ]; then
		skips 2 "-k 0, $sc" "the cgroup scope is not usable here"
		continue
	fi
	if [ -z "$PY" ]; then
		skips 2 "-k 0, $sc" "python3 is needed to read -v and the report"
		continue
	fi
	new_marker m
	bad=
	for i in 1 2 3 4 5 6 7 8 9 10; do
		s=0
		runx_cg -v --kill-scope="$sc" -t 0.3 -k 0 --report="$TMPD/k0.$i.json" -- \
			sh -c "for i in 1 2 3 4 5; do sleep $m & done; wait" 2>"$TMPD/k0.$i.err" || s=$?
		[ "$s" = 124 ] || bad="$bad run $i: status $s."
	done
	bad="$bad$(consistent "$TMPD" 10 2>&1)"
	assert_eq "-k 0, $sc: -v and the report agree on what was alive, 10 runs" "" "$bad"
	assert_dead "-k 0, $sc: dead" "$m"
done

# A stopped TERM-ignoring command is still killed after the grace period.
new_marker m
assert_eq "stopped, TERM-ignoring command: 124" 124 \
	"$(st guarded 30 "$RUNX" "${LAUNCH_ARGS[@]}" -t 0.5 -k 0.5 -- sh -c "trap '' TERM; sleep $m & kill -STOP \$\$; wait")"
assert_dead "stopped, TERM-ignoring command: dead" "$m"

done_testing
