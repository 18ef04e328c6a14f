#!/bin/bash
# Start-up race: SIGTERM reaches runx at a random moment of its start-up
# (immediately, or after 0 to a few ms), for every backend; once runx has
# exited, no process of the command may be left.
# RUNX_RACE_ITERATIONS (default 100) sets the iterations per backend.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

iterations=${RUNX_RACE_ITERATIONS:-100}
nb=$(wc -w <<<"$ALL_BACKENDS")
# 2 per backend, 1 per backend with TERM ignored, 1 for the watchdog
plan $((2 * nb + nb + 1))

# Hang guard: a runx that lost the SIGTERM would never exit (the command
# sleeps 1000 s).  The watchdog SIGKILLs a runx that has run for 30 s; the
# iteration then fails (status 137, and its marked processes are listed).
: >"$TMPD/current"
(
	while kill -0 "$MAIN_PID" 2>/dev/null; do
		sleep 2
		read -r pid started <"$TMPD/current" 2>/dev/null || continue
		if [ -n "${pid:-}" ] && [ $((EPOCHSECONDS - started)) -gt 30 ]; then
			kill -KILL "$pid" 2>/dev/null
			echo "watchdog: runx (pid $pid) hung for 30 s after SIGTERM"
		fi
	done
) >"$TMPD/watchdog.log" 2>&1 &
watchdog=$!

tiny_delay() {
	local i n
	case $((RANDOM % 4)) in
	0) ;; # none: TERM right after runx was exec'd
	1)    # a busy loop of well under a millisecond
		n=$((RANDOM % 300))
		for ((i = 0; i < n; i++)); do :; done
		;;
	2) sleep 0.00$((RANDOM % 10)) ;;
	3) sleep 0.0$((RANDOM % 5)) ;;
	esac
}

# race_run BACKEND N RUNX-ARGS...: run N of runx with BACKEND, its command
# marked with $m, gets SIGTERM after tiny_delay; RACE_STATUS is runx's exit
# status.  A run that left processes counts in left_fail (first_left: the
# first of them), and they are killed.
race_run() {
	local b=$1 n=$2 left
	shift 2
	runx_bg_with "$b" "$@"
	echo "$RUNX_PID $EPOCHSECONDS" >"$TMPD/current"
	tiny_delay
	kill -TERM "$RUNX_PID" 2>/dev/null
	RACE_STATUS=0
	wait "$RUNX_PID" || RACE_STATUS=$?
	: >"$TMPD/current"
	left=$(marked_list "$m")
	if [ -n "$left" ]; then
		left_fail=$((left_fail + 1))
		[ -n "$first_left" ] || first_left="iteration $n: $left"
		kill_marked "$m"
	fi
}

# assert_runs NAME FAILED DIAGNOSTIC: ok when FAILED (runs) is 0.
assert_runs() {
	if [ "$2" = 0 ]; then
		ok "$1"
	else
		not_ok "$1" "$3"
	fi
}

for b in $ALL_BACKENDS; do
	left_fail=0 status_fail=0 first_left="" first_status=""
	for ((n = 1; n <= iterations; n++)); do
		new_marker m
		race_run "$b" "$n" -- sh -c "sleep $m & sleep $m"
		if [ "$RACE_STATUS" != 143 ]; then
			status_fail=$((status_fail + 1))
			[ -n "$first_status" ] || first_status="iteration $n: status $RACE_STATUS"
		fi
	done
	assert_runs "$b: SIGTERM during start-up leaves nothing ($iterations runs)" "$left_fail" \
		"$left_fail runs left processes; first: $first_left"
	assert_runs "$b: SIGTERM during start-up always gives 143 ($iterations runs)" "$status_fail" \
		"$status_fail runs gave another status; first: $first_status"
done

# The same race for a command that ignores TERM: nothing may be left
# either (SIGKILL after a short grace period).
for b in $ALL_BACKENDS; do
	left_fail=0 first_left=""
	for ((n = 1; n <= iterations / 4; n++)); do
		new_marker m
		race_run "$b" "$n" -k 0.05 -- sh -c "trap '' TERM; sleep $m & sleep $m"
	done
	assert_runs "$b: SIGTERM during start-up, TERM ignored: nothing left ($((iterations / 4)) runs)" \
		"$left_fail" "$left_fail runs left processes; first: $first_left"
done

kill "$watchdog" 2>/dev/null
if [ -s "$TMPD/watchdog.log" ]; then
	not_ok "no runx hung after SIGTERM" "$(cat "$TMPD/watchdog.log")"
else
	ok "no runx hung after SIGTERM"
fi
done_testing
