#!/bin/bash
# The unhappy path: a process born during the stop gets the first signal,
# not only the SIGKILL after the grace period (tree and cgroup scopes); a
# fork storm during the stop ends on time; runx itself SIGKILLed takes its
# direct child along (PR_SET_PDEATHSIG; not with posix_spawn, documented).
# The bounds below are far beyond what each case takes and far below the
# grace period it must not wait out: "hung" means runx waited for it.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"
require_python3 "(reads the report)"

cgroup_ok=no
[ "$(runx_cg -C -- true 2>/dev/null; echo $?)" = 0 ] && cgroup_ok=yes
CGMNT=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
scopes=(tree)
if [ $cgroup_ok = yes ]; then
	scopes+=(cgroup)
else
	diag "no writable cgroup v2 here: the cgroup cases are not run"
fi

# runx_bg_cg ARGS...: runx in the background (RUNX_PID), with a backend
# that can do the cgroup scope (lib.sh's CG_LAUNCH_ARGS).
runx_bg_cg() {
	env --default-signal=INT,QUIT "$RUNX" "${CG_LAUNCH_ARGS[@]}" "$@" &
	RUNX_PID=$!
	wait_exec "$RUNX_PID"
}

# --- a process born during the stop -------------------------------------------
# The command exits at once; the sleep appears a moment later (a double
# fork through setsid).  With the default 5 s grace, a newcomer that met
# only the SIGKILL would keep runx 5 s: the bound is 3 s.
for sc in "${scopes[@]}"; do
	new_marker m
	runx_bg_cg --kill-scope="$sc" -- sh -c "(setsid sh -c 'sleep $m' &); exit 0"
	wait_pid_exit "$RUNX_PID" 3
	assert_eq "$sc: setsid double fork after the exit: the command's status 0, within the grace period" 0 "$WAIT_STATUS"
	assert_dead "$sc: setsid double fork: nothing left" "$m"
done

# --- a fork storm during the stop ------------------------------------------------
# New setsid'd sleeps every 5 ms; the deadline at 0.5 s, a 5 s grace: each
# newcomer must get the first signal (SIGTERM kills a sleep) well before,
# so runx ends within 4 s (the loop itself is bounded: 2000 rounds).
for sc in "${scopes[@]}"; do
	new_marker m
	runx_bg_cg --kill-scope="$sc" -t 0.5s -k 5s -- \
		sh -c "i=0; while [ \$i -lt 2000 ]; do (setsid sh -c 'sleep $m' &); sleep 0.005; i=\$((i+1)); done"
	wait_pid_exit "$RUNX_PID" 4
	assert_eq "$sc: fork storm ends before the 5 s grace would (124 within 4 s)" 124 "$WAIT_STATUS"
	assert_dead "$sc: fork storm (timed): nothing left" "$m"
done

# --- forks during the grace period, by a TERM handler ------------------------------
# The command handles TERM and forks a child every 30 ms for 1.5 s, past
# the deadline (0.5 s) into the grace period (20 s, which the stop does not
# need once every child ran its trap); each child traps TERM (writing "t" to a
# file of its own) after writing "b" and its birth time (/proc/uptime) to
# it.  A child whose file has no "t" met only the SIGKILL, unless it was
# born in the last 500 ms before the SIGKILL (the last newcomer pass sends
# it the first signal just before the SIGKILL, too late for its trap to
# run, and a loaded machine may delay a trap a while: a signal's effect,
# not its delivery, is what the file shows).
cat >"$TMPD/forks.py" <<'PYEOF'
import glob, json, sys
d, t0, report = sys.argv[1], float(sys.argv[2]), json.load(open(sys.argv[3]))
kill = [e["time"] for e in report["signals_sent"] if e["signal"] == "SIGKILL"]
kill_at = t0 + kill[0] if kill else float("inf")
born = missed = 0
for f in glob.glob(d + "/*"):
    lines = open(f).read().split("\n")
    b = [float(l.split()[1]) for l in lines if l.startswith("b ")]
    if not b:
        continue
    born += 1
    if "t" not in lines and b[0] < kill_at - 0.5:
        missed += 1
print(born, missed)
PYEOF
for sc in group "${scopes[@]}" pidns; do
	new_marker m
	d=$TMPD/forks.$sc.$m
	mkdir "$d"
	t0=$(cut -d' ' -f1 /proc/uptime)
	# shellcheck disable=SC2016 # $$ and $i are the job's
	st runx_cg --kill-scope="$sc" --report="$d.json" -t 0.5 -k 20 -- sh -c '
		trap true TERM
		i=0
		while [ $i -lt 50 ]; do
			sh -c "trap \"echo t >>$1/\$\$; exit 0\" TERM; echo b \$(cut -d\" \" -f1 /proc/uptime) >>$1/\$\$; sleep $2 & wait" &
			sleep 0.03
			i=$((i + 1))
		done' sh "$d" "$m" >/dev/null
	read -r born missed < <("$PY" "$TMPD/forks.py" "$d" "$t0" "$d.json")
	diag "$sc: $born children wrote 'b', $missed met only the SIGKILL"
	assert_true "$sc: children were forked during the grace period" [ "${born:-0}" -ge 30 ]
	# Under a loaded machine's scheduling delays a child may get the
	# signal before its first instruction, while it runs the job's TERM
	# handler (the next case): without the second signal after its exec,
	# one to three of the 50 were missed in CI.
	assert_eq "$sc: the children forked during the stop got the first signal ($missed missed)" 0 "${missed:-99}"
	assert_dead "$sc: forks during the grace: nothing left" "$m"
done

# --- a signal taken by a handler inherited across fork(2) ---------------------------
# Until its execve(2) a child runs its parent's handlers: a TERM that
# reaches it then is taken by the parent's handler (here Python's, which
# does nothing), and the program it execs next never sees it.  The child
# stays such a copy for 0.5 s, then execs a shell that traps TERM ("t")
# and else runs sleeps for ever (each newcomer sleep dies of its TERM).
# 'grace': forked 0.3 s into the grace period (a newcomer); 'deadline':
# forked 0.3 s before the deadline, so the stop's first signal meets the
# copy.  Either way the shell must get TERM once it runs (the runx(1)
# rule: a process a catchable signal reached between fork and exec gets
# it again after the exec) rather than wait out the 20 s grace period.
cat >"$TMPD/copy.py" <<'PYEOF'
import os, signal, sys, time
d, m, when = sys.argv[1], sys.argv[2], float(sys.argv[3])
signal.signal(signal.SIGTERM, lambda *a: None)
time.sleep(when)
pid = os.fork()
if pid == 0:
    end = time.monotonic() + 0.5
    while time.monotonic() < end:
        time.sleep(0.05)
    trap = 'trap "echo t >>%s/f; exit 0" TERM; echo b >>%s/f; while :; do sleep %s; done'
    os.execvp("sh", ["sh", "-c", trap % (d, d, m)])
os.waitpid(pid, 0)
PYEOF
for sc in group "${scopes[@]}" pidns; do
	for when in grace deadline; do
		new_marker m
		d=$TMPD/copy.$sc.$when
		mkdir "$d"
		at=0.8
		[ $when = deadline ] && at=0.2
		runx_bg_cg --kill-scope="$sc" -t 0.5 -k 20 -- "$PY" "$TMPD/copy.py" "$d" "$m" "$at"
		wait_pid_exit "$RUNX_PID" 8
		assert_eq "$sc, $when: the exec'd copy got TERM, no 20 s grace (124 within 8 s)" 124 "$WAIT_STATUS"
		assert_eq "$sc, $when: its TERM trap ran" "b t" "$(tr '\n' ' ' <"$d/f" | sed 's/ $//')"
		assert_dead "$sc, $when: nothing left" "$m"
	done
done

# --- a pid reused during the stop -----------------------------------------------------
# In a PID namespace of its own (unshare --pid --mount-proc), where writing
# /proc/sys/kernel/ns_last_pid picks the next pid (pid_namespaces(7)): the
# job's first child A takes the first signal and exits, then a second
# child B is forked with A's pid.  No signal reached B: it must get the
# first signal (a set keyed by pid alone would skip it, leaving it to the
# SIGKILL after the 20 s grace period).
cat >"$TMPD/reuse.py" <<'PYEOF'
import os, signal, sys
d, m = sys.argv[1], sys.argv[2]
signal.signal(signal.SIGTERM, lambda *a: None)
trap = 'trap "echo %s >>%s/f; exit 0" TERM; while :; do sleep %s; done'
a = os.fork()
if a == 0:
    os.execvp("sh", ["sh", "-c", trap % ("A", d, m)])
os.waitpid(a, 0)  # A ends on the stop's first signal
with open("/proc/sys/kernel/ns_last_pid", "w") as f:
    f.write(str(a - 1))
b = os.fork()
if b == 0:
    os.execvp("sh", ["sh", "-c", trap % ("B", d, m)])
with open(d + "/pids", "w") as f:
    f.write("%d %d\n" % (a, b))
os.waitpid(b, 0)
PYEOF
if command -v unshare >/dev/null && unshare --pid --fork --mount-proc true 2>/dev/null; then
	for sc in "${scopes[@]}"; do
		new_marker m
		d=$TMPD/reuse.$sc
		mkdir "$d"
		unshare --pid --fork --kill-child --mount-proc "$RUNX" "${CG_LAUNCH_ARGS[@]}" --kill-scope="$sc" \
			-t 0.5 -k 20 -- "$PY" "$TMPD/reuse.py" "$d" "$m" &
		RUNX_PID=$!
		wait_pid_exit "$RUNX_PID" 8
		read -r a b <"$d/pids" || true
		assert_eq "$sc, pid reuse: B was forked with A's pid" "${a:-none}" "${b:-}"
		assert_eq "$sc, pid reuse: B got the first signal, no 20 s grace (124 within 8 s)" 124 "$WAIT_STATUS"
		assert_eq "$sc, pid reuse: both TERM traps ran" "A B" "$(tr '\n' ' ' <"$d/f" | sed 's/ $//')"
		poll 100 0.02 marked_none "$m"
		assert_dead "$sc, pid reuse: nothing left" "$m"
	done
else
	diag "no unshare --pid --mount-proc here: the pid reuse cases are not run"
	not_ok "a PID namespace for the pid reuse cases (unshare --pid --mount-proc)"
fi

# --- runx itself SIGKILLed ---------------------------------------------------------
new_marker m
runx_bg -t 100 -- sleep "$m"
wait_marked "$m" 2 10 # runx (its argv holds the marker) and the sleep
kill -KILL "$RUNX_PID"
wait "$RUNX_PID" 2>/dev/null
if [ "${RUNX_LAUNCH:-}" = posix_spawn ]; then
	# posix_spawn cannot set PR_SET_PDEATHSIG (runx(1), LAUNCH BACKENDS)
	sleep 0.2
	assert_eq "posix_spawn, runx SIGKILLed: the command survives, as documented" 1 "$(marked_count "$m")"
	kill_marked "$m"
else
	poll 50 0.02 marked_none "$m"
	assert_dead "runx SIGKILLed: its direct child is gone too (PR_SET_PDEATHSIG)" "$m"
fi

# --- a launch that fails leaves no cgroup ------------------------------------------
# (a file only execve(2) finds is no program: the launch fails after the
# job's cgroup was made; a missing command is refused before it)
if [ $cgroup_ok = yes ]; then
	printf 'echo no interpreter line\n' >"$TMPD/noprog"
	chmod 755 "$TMPD/noprog"
	runx_bg_cg -C -- "$TMPD/noprog" 2>"$TMPD/noprog.err"
	wait_pid_exit "$RUNX_PID" 20
	assert_eq "cgroup, execve fails (ENOEXEC): 126" 126 "$WAIT_STATUS"
	assert_no_cgroup "cgroup, execve fails: no runx cgroup left" "$RUNX_PID"
	runx_bg_cg -C -- "$TMPD/no-such-command" 2>"$TMPD/nocmd.err"
	wait_pid_exit "$RUNX_PID" 20
	assert_eq "cgroup, command not found: 127" 127 "$WAIT_STATUS"
	assert_no_cgroup "cgroup, command not found: no runx cgroup left" "$RUNX_PID"
fi

done_testing
