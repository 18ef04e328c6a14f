#!/bin/bash
# What a new user meets first: the messages of a directory given as the
# command, an ambiguous option prefix, an unknown option (a pointer to
# --help, on the same line), and --forward-to=child (a reload that spares a helper).
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"
require_python3 "(the report's signals)"

# 2 directory, 4 ambiguous, 4 unknown option, 2 x 5 + 1 + 3 --forward-to,
# 2 bad value
plan 26

# --- a directory as the command: "Is a directory", 126 ------------------------
mkdir -p "$TMPD/adir"
s=0
runx -- "$TMPD/adir" 2>"$TMPD/dir.err" || s=$?
assert_eq "a directory as the command: 126" 126 "$s"
assert_eq "a directory as the command: says 'Is a directory'" \
	"runx: failed to run command '$TMPD/adir': Is a directory" "$(cat "$TMPD/dir.err")"

# --- an ambiguous prefix names the candidates -----------------------------------
rm -f "$TMPD/started"
s=0
runx --kill=5s -- touch "$TMPD/started" 2>"$TMPD/amb.err" || s=$?
assert_eq "--kill=5s: 125" 125 "$s"
assert_eq "--kill=5s: names every option it could be, then the pointer to --help, on one line" \
	"runx: option '--kill=5s' is ambiguous; possibilities: --kill-after, --kill-scope, --kill-group, --kill-cgroup; try 'runx --help'" \
	"$(paste -sd'|' "$TMPD/amb.err")"
assert_false "--kill=5s: nothing started" test -e "$TMPD/started"
s=0
runx --kill-a=1 -- true 2>/dev/null || s=$?
assert_eq "--kill-a=1: an unambiguous prefix is --kill-after" 0 "$s"

# --- an unknown option: the pointer to --help on the same line --------------------
s=0
runx --frobnicate -- true 2>"$TMPD/unk.err" || s=$?
assert_eq "--frobnicate: 125" 125 "$s"
assert_eq "--frobnicate: one line, the pointer to --help at its end" \
	"runx: unknown option '--frobnicate'; try 'runx --help'" \
	"$(paste -sd'|' "$TMPD/unk.err")"
# a bad value keeps to one line
s=0
runx -t soon -- true 2>"$TMPD/val.err" || s=$?
assert_eq "-t soon: 125" 125 "$s"
assert_eq "-t soon: one line" 1 "$(wc -l <"$TMPD/val.err" | tr -d ' ')"

# --- --forward-to=child ----------------------------------------------------------
# A HUP reaches the command, whose trap records it; a helper with the
# default HUP action survives with --forward-to=child and dies with
# --forward-to=scope (the default).  A stop still reaches the whole scope.
# The HUP goes once the helper runs sleep (wait_exec): until its
# execve(2), a fork of the shell runs the shell's HUP trap, and survives (a
# loaded CI machine once sent the HUP in that window).
for to in child scope; do
	new_marker h
	rm -f "$TMPD/hup.$to"
	# shellcheck disable=SC2154 # h: set by new_marker
	runx_bg --forward-to="$to" --report="$TMPD/fwd.$to.json" -t 60 -- \
		sh -c "trap 'echo hup >$TMPD/hup.$to' HUP; sleep $h & echo \$! >$TMPD/helper.$to; while :; do sleep 0.1; done"
	poll 200 0.05 test -s "$TMPD/helper.$to" || true
	helper=$(cat "$TMPD/helper.$to")
	wait_exec "$helper" "$(command -v sleep)"
	kill -HUP "$RUNX_PID"
	poll 200 0.05 test -s "$TMPD/hup.$to" || true
	assert_eq "--forward-to=$to: the command's HUP trap ran" hup "$(cat "$TMPD/hup.$to" 2>/dev/null)"
	if [ "$to" = child ]; then
		sleep 0.5 # a HUP sent to the helper would have ended it by now
		assert_true "--forward-to=child: the helper with the default HUP action survives" \
			pid_alive "$helper"
	else
		poll 200 0.05 eval '! pid_alive "$helper"' || true
		assert_false "--forward-to=scope: the helper got HUP too" pid_alive "$helper"
	fi
	kill -TERM "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 40
	assert_eq "--forward-to=$to: a stop signal still stops everything (143)" 143 "$WAIT_STATUS"
	assert_dead "--forward-to=$to: nothing left" "$h"
	# the report lists the forwarded HUP, sent to the command alone or to
	# the scope, then the stop's SIGTERM to the scope
	assert_eq "--forward-to=$to: the report's signals_sent: HUP to $([ "$to" = child ] && echo "the command (1 process)" || echo "the scope"), then the stop's TERM" \
		"SIGHUP to $to; SIGTERM to scope; 0 omitted" \
		"$("$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))
def to(s):
    if s["scope"] == "command (pid %d)" % r["pid"] and s["processes"] == 1:
        return "child"
    return "scope" if s["scope"] == r["scope_target"] else repr(s)
ss = r["signals_sent"]
print("%s to %s; %s to %s; %d omitted" % (ss[0]["signal"], to(ss[0]), ss[1]["signal"], to(ss[1]), r["signals_omitted"]))
' "$TMPD/fwd.$to.json" 2>&1)"
done
# With pidns the command is the init's child: the HUP forwarded to it is
# listed with its pid, the report's pid (not the init's)
name="--forward-to=child, pidns: the report lists the HUP as sent to the command, by its pid"
probe_scopes
why=$(scope_missing pidns)
if [ -n "$why" ]; then
	skips 1 "$name" "$why"
else
	rm -f "$TMPD/ready.ns" "$TMPD/hup.ns"
	runx_bg --kill-scope=pidns --forward-to=child --report="$TMPD/fwd.ns.json" -t 60 -- \
		sh -c "trap 'echo hup >$TMPD/hup.ns' HUP; : >$TMPD/ready.ns; while :; do sleep 0.1; done"
	poll 200 0.05 test -e "$TMPD/ready.ns" || true
	kill -HUP "$RUNX_PID"
	poll 200 0.05 test -s "$TMPD/hup.ns" || true
	kill -TERM "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 40
	assert_eq "$name" "hup SIGHUP command" \
		"$(cat "$TMPD/hup.ns" 2>/dev/null) $("$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))
s = r["signals_sent"][0]
print(s["signal"], "command" if s["scope"] == "command (pid %d)" % r["pid"] else repr(s["scope"]) + " pid %d" % r["pid"])
' "$TMPD/fwd.ns.json" 2>&1)"
fi
# ... and once the command has exited, a HUP forwarded to it reaches no
# leftover (the init's child by then): the leftover, which ignores the
# stop's TERM, traps HUP (its sleeps are short: sh runs a trap between
# them); the HUP goes during the grace period
name="--forward-to=child, pidns: after the command exited, a leftover gets no HUP"
if [ -n "$why" ]; then
	skips 3 "$name" "$why"
else
	new_marker h
	rm -f "$TMPD/left.ready" "$TMPD/left.hup"
	runx_bg -v --kill-scope=pidns --forward-to=child -k 30 -- sh -c '
		sh -c "trap \"\" TERM; trap \"echo hup >$1/left.hup\" HUP; : >$1/left.ready
			while :; do sleep 0.1; done" "$2" &
		while [ ! -e "$1/left.ready" ]; do sleep 0.05; done' sh "$TMPD" "$h" 2>"$TMPD/left.err"
	poll 400 0.05 grep -q "stopping [0-9]* leftover" "$TMPD/left.err" || true
	kill -HUP "$RUNX_PID"
	poll 100 0.05 grep -q "forwarding: SIGHUP" "$TMPD/left.err" || true
	sleep 0.5 # a HUP that reached the leftover would have run its trap by now
	assert_eq "$name: runx says the HUP reached no process" 1 \
		"$(grep -c 'forwarding: SIGHUP to the command (0 processes)' "$TMPD/left.err")" \
		"$(cat "$TMPD/left.err")"
	assert_false "$name: the leftover's HUP trap did not run" test -e "$TMPD/left.hup"
	kill -TERM "$RUNX_PID" # a second stop signal: SIGKILL now
	wait_pid_exit "$RUNX_PID" 40
	assert_dead "$name: nothing left" "$h"
fi
s=0
runx --forward-to=everyone -- true 2>"$TMPD/fwd.err" || s=$?
assert_eq "--forward-to=everyone: 125" 125 "$s"
assert_eq "--forward-to=everyone: names the value" \
	"runx: invalid value 'everyone' for --forward-to (scope or child)" "$(cat "$TMPD/fwd.err")"

done_testing
