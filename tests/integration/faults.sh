#!/bin/bash
# The unhappy path: a process born during the stop gets the first signal,
# not only the SIGKILL after the grace period (tree and cgroup scopes); a
# fork storm during the stop ends on time; runx itself SIGKILLed takes its
# direct child along (PR_SET_PDEATHSIG; not with posix_spawn, documented).
# The bounds below are far beyond what each case takes and far below the
# grace period it must not wait out: "hung" means runx waited for it.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

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
if [ $cgroup_ok = yes ]; then
	runx_bg_cg -C -- "$TMPD/no-such-command" 2>"$TMPD/nocmd.err"
	wait_pid_exit "$RUNX_PID" 20
	assert_eq "cgroup, command not found: 127" 127 "$WAIT_STATUS"
	assert_no_cgroup "cgroup, command not found: no runx cgroup left" "$RUNX_PID"
fi

done_testing
