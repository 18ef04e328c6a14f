#!/bin/bash
# A SIGKILL that cannot be sent, a real fault from the kernel: a seccomp
# filter (deny-pidfd-open.py --sigkill) makes kill(2), tgkill(2) and
# pidfd_send_signal(2) fail with EPERM for signal 9, for runx and its job.
# The command exits 0 and leaves a sleep that ignores SIGTERM: runx stops
# it (SIGTERM, 0.2 s, SIGKILL refused), and 10 s later gives up.  What is
# left is neither in uninterruptible sleep nor exiting: the SIGKILL did not
# reach it, so runx must not report the command's success.  In the group
# and tree scopes: exit status 125, not 0; stderr says "(not reached by
# it)"; and the sleep is alive once runx returned (the fault was real; the
# test then ends it).  The cgroup scope kills through cgroup.kill, a
# write that the filter does not refuse: status 0, nothing left.
# A command held by a tracer that never waits (exit-stop.py --hold):
# SIGKILL ends it, but only the tracer may reap it; 10 s later runx says
# the command has ended and cannot be reaped, not that it is alive.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"
require_python3 "(installs the seccomp filter)"

DENY=$(dirname "$TESTLIB")/deny-pidfd-open.py
s=0
"$PY" "$DENY" --sigkill EPERM true 2>"$TMPD/deny.err" || s=$?
[ "$s" = 77 ] && skip_all "no seccomp filter here: $(cat "$TMPD/deny.err")"
probe_scopes

# 2 the filter, 3 per scope that signals, 2 for the cgroup scope, 3 a
# command its tracer holds
plan $((2 + 3 * 2 + 2 + 3))

# the filter refuses SIGKILL and lets SIGTERM through
new_marker m
sleep "$m" &
spid=$!
s=0
"$PY" "$DENY" --sigkill EPERM kill -KILL "$spid" 2>/dev/null || s=$?
assert_true "the filter refuses kill -KILL (status $s)" pid_alive "$spid"
s=0
"$PY" "$DENY" --sigkill EPERM kill -TERM "$spid" || s=$?
wait "$spid" 2>/dev/null
assert_eq "the filter lets kill -TERM through" "0 gone" \
	"$s $(pid_alive "$spid" && echo alive || echo gone)"

for sc in group tree; do
	new_marker m
	s=0
	"$PY" "$DENY" --sigkill EPERM "$RUNX" "${LAUNCH_ARGS[@]}" --kill-scope="$sc" -k 0.2 -- \
		sh -c "trap '' TERM; sleep $m & exit 0" 2>"$TMPD/$sc.err" || s=$?
	assert_eq "$sc scope, SIGKILL refused: 125, not the command's 0" 125 "$s" "$(cat "$TMPD/$sc.err")"
	assert_match "$sc scope, SIGKILL refused: runx says it did not reach what is left" \
		"runx: 1 process in [^;]* still alive 10 s after SIGKILL \\(not reached by it\\); giving up on it" \
		"$(cat "$TMPD/$sc.err")"
	assert_eq "$sc scope, SIGKILL refused: the sleep is alive (the fault was real)" 1 \
		"$(marked_count "$m")"
	kill_marked "$m"
done

new_marker m
if [ -n "$(scope_missing cgroup)" ]; then
	skips 2 "cgroup scope, SIGKILL refused" "$(scope_missing cgroup)"
else
	s=0
	"$PY" "$DENY" --sigkill EPERM "$RUNX" "${CG_LAUNCH_ARGS[@]}" -C -k 0.2 -- \
		sh -c "trap '' TERM; sleep $m & exit 0" 2>"$TMPD/cg.err" || s=$?
	assert_eq "cgroup scope, SIGKILL refused: cgroup.kill is a write, not a signal: 0" 0 "$s" \
		"$(cat "$TMPD/cg.err")"
	assert_dead "cgroup scope, SIGKILL refused: nothing left" "$m"
fi

# --- a command its tracer holds --------------------------------------------------
new_marker m
d=$TMPD/held
mkdir -p "$d"
runx_bg --kill-scope=tree -k 0.2 --report="$d/r.json" -- sleep "$m" 2>"$d/err"
sleep_pid=$(pid_of "$m" sleep) || sleep_pid=
"$PY" "$(dirname "$TESTLIB")/exit-stop.py" --hold "$sleep_pid" "$d" 2>"$d/tracer" &
tracer=$!
if wait_file "$d/seized" 10; then
	kill -TERM "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 60
	touch "$d/release"
	wait "$tracer"
	assert_match "a command its tracer holds: runx says it has ended and cannot be reaped (status $WAIT_STATUS)" \
		"runx: the command \\(pid $sleep_pid\\) in [^;]* has ended, but 10 s after SIGKILL runx still cannot reap it: a tracer holds it; giving up on it" \
		"$(cat "$d/err")"
	assert_eq "a command its tracer holds: so does the report" \
		"the command has ended, but 10 s after SIGKILL runx still cannot reap it: a tracer holds it" \
		"$(jq -r .error "$d/r.json" 2>&1)"
else
	# runx runs on (no deadline): its pid is its own; the tracer's is let go
	touch "$d/release"
	kill -KILL "$RUNX_PID"
	kill_marked "$m"
	wait "$RUNX_PID" "$tracer"
	skips 2 "a command its tracer holds" "ptrace(2) refused: $(head -c 200 "$d/tracer")"
fi
wait_gone "$m" 10
assert_dead "a command its tracer holds: nothing left once the tracer let go" "$m"

done_testing
