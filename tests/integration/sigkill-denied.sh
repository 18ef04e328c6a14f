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
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"
require_python3 "(installs the seccomp filter)"

DENY=$(dirname "$TESTLIB")/deny-pidfd-open.py
s=0
"$PY" "$DENY" --sigkill EPERM true 2>"$TMPD/deny.err" || s=$?
[ "$s" = 77 ] && skip_all "no seccomp filter here: $(cat "$TMPD/deny.err")"
probe_scopes

# 2 the filter, 3 per scope that signals, 2 for the cgroup scope
plan $((2 + 3 * 2 + 2))

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

done_testing
