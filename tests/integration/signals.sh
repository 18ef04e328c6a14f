#!/bin/bash
# Signals sent to runx: TERM, INT, HUP and QUIT are forwarded and start a
# stop (exit status: the command's own); USR1, USR2, WINCH, ALRM, CONT and
# RTMIN+1 are only forwarded.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

ulimit -c 0 2>/dev/null # SIGQUIT would dump core

fwd="USR1 USR2 WINCH ALRM CONT RTMIN+1"
# 4 x 2 and 4 x 3 terminating signals, 2 group, 2 TERM ignored, 3 second
# TERM, 4 stopped command, 2 per forwarded-only signal and 2, 3 USR2
plan $((4 * 2 + 4 * 3 + 2 + 2 + 3 + 4 + 2 * $(wc -w <<<"$fwd") + 2 + 3))

# wait_ready MARKER: waits for the command to create $TMPD/ready.MARKER.
wait_ready() {
	if wait_file "$TMPD/ready.$1" 30; then
		return 0
	fi
	return 1
}

# --- terminating signals: the command dies of the forwarded signal ------------
for sig in TERM INT HUP QUIT; do
	case $sig in
	TERM) want=143 ;; INT) want=130 ;; HUP) want=129 ;; QUIT) want=131 ;;
	esac
	new_marker m
	runx_bg -k 20 -- sh -c "echo >$TMPD/ready.$m; exec sleep $m"
	if wait_ready "$m" && wait_marked "$m" 2; then
		kill -s "$sig" "$RUNX_PID"
		wait_pid_exit "$RUNX_PID" 40
		assert_eq "SIG$sig to runx: the command dies of it, status $want" "$want" "$WAIT_STATUS"
	else
		kill -KILL "$RUNX_PID"
		not_ok "SIG$sig to runx: the command dies of it, status $want" "command never ready"
	fi
	assert_dead "SIG$sig to runx: dead" "$m"
done

# --- terminating signals: the command sees the forwarded signal -----------------
# (-k 1: the background sleep of a non-interactive sh ignores INT and QUIT,
# so it is left for the SIGKILL after the grace period.)
for sig in TERM INT HUP QUIT; do
	new_marker m
	f="$TMPD/got.$m"
	runx_bg -k 1 -- sh -c "trap 'echo $sig >>$f; exit 7' $sig; echo >$TMPD/ready.$m; sleep $m & wait"
	if wait_ready "$m"; then
		kill -s "$sig" "$RUNX_PID"
		wait_pid_exit "$RUNX_PID" 40
		assert_eq "SIG$sig to runx: the command's handler status" 7 "$WAIT_STATUS"
		assert_eq "SIG$sig to runx: the command got SIG$sig (once, nothing else first)" "$sig" \
			"$(cat "$f" 2>/dev/null)"
	else
		kill -KILL "$RUNX_PID"
		not_ok "SIG$sig to runx: the command's handler status" "command never ready"
		not_ok "SIG$sig to runx: the command got SIG$sig"
	fi
	assert_dead "SIG$sig to runx (handler): dead" "$m"
done

# The whole group gets the forwarded signal: a background job too.
new_marker m
runx_bg -k 20 -- sh -c "sleep $m & sleep $m & echo >$TMPD/ready.$m; wait"
if wait_ready "$m" && wait_marked "$m" 4; then
	kill -TERM "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 40
	assert_eq "SIGTERM to runx, group: status 143" 143 "$WAIT_STATUS"
else
	kill -KILL "$RUNX_PID"
	not_ok "SIGTERM to runx, group: status 143" "command never ready"
fi
assert_dead "SIGTERM to runx, group: all dead" "$m"

# --- a TERM-ignoring command is SIGKILLed after the grace period ------------------
new_marker m
runx_bg -k 0.5 -- sh -c "trap '' TERM; echo >$TMPD/ready.$m; sleep $m; :"
if wait_ready "$m" && wait_marked "$m" 3; then
	kill -TERM "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 40
	assert_eq "SIGTERM to runx, TERM ignored: SIGKILLed after grace (137)" 137 "$WAIT_STATUS"
else
	kill -KILL "$RUNX_PID"
	not_ok "SIGTERM to runx, TERM ignored: SIGKILLed after grace (137)" "command never ready"
fi
assert_dead "SIGTERM to runx, TERM ignored: dead" "$m"

# A second stop signal during the stop ends the grace period at once (a
# second Ctrl-C, a second docker stop): SIGKILL now, not after the 30 s
# grace.  The 15 s bound below is far from both: "hung" means runx waited.
new_marker m
f="$TMPD/count.$m"
runx_bg -k 30 -- sh -c "trap 'echo TERM >>$f' TERM; echo >$TMPD/ready.$m; while :; do sleep 0.05; done; : $m"
if wait_ready "$m"; then
	kill -TERM "$RUNX_PID"
	poll 1000 0.02 test -s "$f"
	assert_eq "second SIGTERM to runx: the first reached the command's handler" 1 "$(wc -l <"$f" 2>/dev/null | tr -d ' ')"
	kill -TERM "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 15
	assert_eq "second SIGTERM to runx: SIGKILL at once, not after the 30 s grace (137)" 137 "$WAIT_STATUS"
else
	kill -KILL "$RUNX_PID"
	not_ok "second SIGTERM to runx: the first reached the command's handler" "command never ready"
	not_ok "second SIGTERM to runx: SIGKILL at once, not after the 30 s grace (137)" "command never ready"
fi
assert_dead "second SIGTERM to runx: dead" "$m"

# A stop started by a signal to runx: a stopped command is continued.
new_marker m
f="$TMPD/got.$m"
runx_bg -k 20 -- sh -c "trap 'echo TERM >$f; exit 6' TERM; echo \$\$ >$TMPD/ready.$m; sleep $m & wait"
# (the file exists before the pid is in it: wait for its content)
if poll 1500 0.02 test -s "$TMPD/ready.$m"; then
	cpid=$(cat "$TMPD/ready.$m")
	kill -STOP "$cpid"
	poll 1000 0.02 pid_in_state "$cpid" T
	assert_eq "SIGTERM to runx, stopped command: it is stopped" T "$(stat_field "$cpid" 3)"
	kill -TERM "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 40
	assert_eq "SIGTERM to runx, stopped command: continued, handler's status" 6 "$WAIT_STATUS"
	assert_eq "SIGTERM to runx, stopped command: handler ran" TERM "$(cat "$f" 2>/dev/null)"
else
	kill -KILL "$RUNX_PID"
	not_ok "SIGTERM to runx, stopped command: it is stopped" "command never ready"
	not_ok "SIGTERM to runx, stopped command: continued, handler's status" "command never ready"
	not_ok "SIGTERM to runx, stopped command: handler ran" "command never ready"
fi
assert_dead "SIGTERM to runx, stopped command: dead" "$m"

# --- signals that are only forwarded ------------------------------------------------
new_marker m
f="$TMPD/fwd.$m"
traps=""
for sig in $fwd; do
	num=$(kill -l "$sig")
	traps="$traps trap 'echo $sig >>$f' $num;"
done
runx_bg -- sh -c "$traps echo >$TMPD/ready.$m; while [ ! -e $TMPD/stop.$m ]; do sleep 0.05; done; exit 0; : $m"
if wait_ready "$m"; then
	for sig in $fwd; do
		kill -s "$sig" "$RUNX_PID"
		poll 1000 0.02 grep -qx "$sig" "$f" 2>/dev/null
		if grep -qx "$sig" "$f" 2>/dev/null; then
			ok "SIG$sig to runx is forwarded to the command"
		else
			not_ok "SIG$sig to runx is forwarded to the command" "got: $(tr '\n' ' ' <"$f" 2>/dev/null)"
		fi
		assert_true "SIG$sig to runx does not stop it" pid_alive "$RUNX_PID"
	done
	touch "$TMPD/stop.$m"
	wait_pid_exit "$RUNX_PID" 40
	assert_eq "forwarded-only signals: runx exits with the command's status 0" 0 "$WAIT_STATUS"
else
	kill -KILL "$RUNX_PID"
	for sig in $fwd; do
		not_ok "SIG$sig to runx is forwarded to the command" "command never ready"
		not_ok "SIG$sig to runx does not stop it" "command never ready"
	done
	not_ok "forwarded-only signals: runx exits with the command's status 0" "command never ready"
fi
assert_dead "forwarded-only signals: nothing left" "$m"

# The forwarded signals reach the whole group (a background job of the
# command records them too).  The job ignores SIGTERM: the command dies of
# USR2 at once and the cleanup's SIGTERM must not kill the job before its
# shell has run the USR2 trap (it does so only after its sleep ends).
new_marker m
f="$TMPD/fwdbg.$m"
runx_bg -k 20s -- sh -c "sh -c \"trap 'echo USR2 >>$f; exit 0' USR2; trap '' TERM; echo >$TMPD/ready.$m; while :; do sleep 0.05; done; : $m\" & wait; exit 8"
if wait_ready "$m"; then
	kill -USR2 "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 40
	# the command itself dies of USR2 (default action): 128+12
	assert_eq "SIGUSR2 to runx reaches the command (killed: 140)" 140 "$WAIT_STATUS"
	assert_eq "SIGUSR2 to runx reaches a background job in the group" USR2 "$(cat "$f" 2>/dev/null)"
else
	kill -KILL "$RUNX_PID"
	not_ok "SIGUSR2 to runx reaches the command (killed: 140)" "command never ready"
	not_ok "SIGUSR2 to runx reaches a background job in the group" "command never ready"
fi
assert_dead "SIGUSR2 forwarding: nothing left" "$m"

done_testing
