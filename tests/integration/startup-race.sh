#!/bin/bash
# Start-up race: SIGTERM reaches runx at a random moment of its start-up
# (immediately, or after 0 to a few ms), for every backend; once runx has
# exited, no process of the command may be left.
# RUNX_RACE_ITERATIONS (default 100) sets the iterations per backend.
. "$TESTLIB"

iterations=${RUNX_RACE_ITERATIONS:-100}

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

for b in $ALL_BACKENDS; do
	left_fail=0 status_fail=0 first_left="" first_status=""
	for ((n = 1; n <= iterations; n++)); do
		new_marker m
		runx_bg_with "$b" -- sh -c "sleep $m & sleep $m"
		echo "$RUNX_PID $EPOCHSECONDS" >"$TMPD/current"
		tiny_delay
		kill -TERM "$RUNX_PID" 2>/dev/null
		s=0
		wait "$RUNX_PID" || s=$?
		: >"$TMPD/current"
		left=$(marked_list "$m")
		if [ -n "$left" ]; then
			left_fail=$((left_fail + 1))
			[ -n "$first_left" ] || first_left="iteration $n: $left"
			kill_marked "$m"
		fi
		if [ "$s" != 143 ]; then
			status_fail=$((status_fail + 1))
			[ -n "$first_status" ] || first_status="iteration $n: status $s"
		fi
	done
	if [ "$left_fail" = 0 ]; then
		ok "$b: SIGTERM during start-up leaves nothing ($iterations runs)"
	else
		not_ok "$b: SIGTERM during start-up leaves nothing ($iterations runs)" \
			"$left_fail runs left processes; first: $first_left"
	fi
	if [ "$status_fail" = 0 ]; then
		ok "$b: SIGTERM during start-up always gives 143 ($iterations runs)"
	else
		not_ok "$b: SIGTERM during start-up always gives 143 ($iterations runs)" \
			"$status_fail runs gave another status; first: $first_status"
	fi
done

# The same race for a command that ignores TERM: nothing may be left
# either (SIGKILL after a short grace period).
for b in $ALL_BACKENDS; do
	left_fail=0 first_left=""
	for ((n = 1; n <= iterations / 4; n++)); do
		new_marker m
		runx_bg_with "$b" -k 0.05 -- sh -c "trap '' TERM; sleep $m & sleep $m"
		echo "$RUNX_PID $EPOCHSECONDS" >"$TMPD/current"
		tiny_delay
		kill -TERM "$RUNX_PID" 2>/dev/null
		wait "$RUNX_PID" || true
		: >"$TMPD/current"
		left=$(marked_list "$m")
		if [ -n "$left" ]; then
			left_fail=$((left_fail + 1))
			[ -n "$first_left" ] || first_left="iteration $n: $left"
			kill_marked "$m"
		fi
	done
	if [ "$left_fail" = 0 ]; then
		ok "$b: SIGTERM during start-up, TERM ignored: nothing left ($((iterations / 4)) runs)"
	else
		not_ok "$b: SIGTERM during start-up, TERM ignored: nothing left ($((iterations / 4)) runs)" \
			"$left_fail runs left processes; first: $first_left"
	fi
done

kill "$watchdog" 2>/dev/null
if [ -s "$TMPD/watchdog.log" ]; then
	not_ok "no runx hung after SIGTERM" "$(cat "$TMPD/watchdog.log")"
else
	ok "no runx hung after SIGTERM"
fi
done_testing
