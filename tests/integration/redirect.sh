#!/bin/bash
# Redirects -i -o -e -a -m: contents, one open file for -o F -e F, append,
# truncation, file mode 0666 & ~umask, and a redirect that cannot be
# opened: 125, a message naming the file, the command not started.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

D=$TMPD

# 4 -i, 10 -o/-e, 5 -o F -e F, 5 -a, 4 -m, 4 modes, 6 x 3 + 4 bad
# redirects, 6 x 2 commands that cannot run, 18 + 4 FIFOs, 8 FIFOs and
# signals 33 34
plan $((4 + 10 + 5 + 5 + 4 + 4 + 6 * 3 + 4 + 6 * 2 + 18 + 4 + 8))

# --- -i ------------------------------------------------------------------------
printf 'line one\nline two\n' >"$D/in"
assert_eq "-i FILE: stdin from the file" "line one
line two" "$(runx -i "$D/in" -- cat)"
assert_eq "--stdin=FILE" "line one
line two" "$(runx --stdin="$D/in" -- cat)"
assert_eq "-i /dev/null: immediate EOF" "" "$(guarded 30 "$RUNX" "${LAUNCH_ARGS[@]}" -i /dev/null -- cat)"
assert_eq "-i wins over the inherited stdin" "line one" \
	"$(echo from-pipe | runx -i "$D/in" -- head -n1)"

# --- -o, -e ------------------------------------------------------------------------
out=$(runx -o "$D/o1" -- sh -c 'echo hello; echo oops >&2' 2>"$D/e1")
assert_eq "-o FILE: nothing on runx's stdout" "" "$out"
assert_eq "-o FILE: stdout in the file" hello "$(cat "$D/o1")"
assert_eq "-o FILE: stderr untouched" oops "$(cat "$D/e1")"

out=$(runx -e "$D/e2" -- sh -c 'echo hello; echo oops >&2' 2>"$D/e2-runx")
assert_eq "-e FILE: stdout untouched" hello "$out"
assert_eq "-e FILE: stderr in the file" oops "$(cat "$D/e2")"
assert_eq "-e FILE: nothing on runx's stderr" "" "$(cat "$D/e2-runx")"

runx --stdout="$D/o3" --stderr="$D/e3" -- sh -c 'echo out; echo err >&2'
assert_eq "--stdout/--stderr: stdout file" out "$(cat "$D/o3")"
assert_eq "--stdout/--stderr: stderr file" err "$(cat "$D/e3")"

assert_eq "-o: the exit status is the command's" 3 "$(st runx -o "$D/o4" -- sh -c 'echo x; exit 3')"

# Truncation without -a.
printf 'old content that is much longer than the new\n' >"$D/o5"
runx -o "$D/o5" -- echo new
assert_eq "-o truncates" new "$(cat "$D/o5")"

# --- -o F -e F: one open file, nothing clobbered ------------------------------------------
interleave='i=1; while [ $i -le 200 ]; do echo "out $i"; echo "err $i" >&2; i=$((i+1)); done'
runx -o "$D/both" -e "$D/both" -- sh -c "$interleave"
assert_eq "-o F -e F: all 400 lines present" 400 "$(wc -l <"$D/both" | tr -d ' ')"
assert_eq "-o F -e F: every stdout line" 200 "$(grep -c '^out [0-9]*$' "$D/both")"
assert_eq "-o F -e F: every stderr line" 200 "$(grep -c '^err [0-9]*$' "$D/both")"
assert_eq "-o F -e F: in the order written" "out 1
err 1
out 2" "$(head -n3 "$D/both")"

# The same file named two ways.
runx -o "$D/both2" -e "$D/./both2" -- sh -c "$interleave"
assert_eq "-o F -e ./F: all 400 lines present" 400 "$(wc -l <"$D/both2" | tr -d ' ')"

# --- -a ---------------------------------------------------------------------------------
echo first >"$D/app"
runx -a -o "$D/app" -- echo second
assert_eq "-a -o: appends" "first
second" "$(cat "$D/app")"
echo first >"$D/app2"
runx --append -e "$D/app2" -- sh -c 'echo second >&2'
assert_eq "--append -e: appends" "first
second" "$(cat "$D/app2")"
echo first >"$D/app3"
runx -a -o "$D/app3" -e "$D/app3" -- sh -c "$interleave"
assert_eq "-a -o F -e F: appended, nothing clobbered" 401 "$(wc -l <"$D/app3" | tr -d ' ')"
assert_eq "-a -o F -e F: the old content first" first "$(head -n1 "$D/app3")"
runx -a -o "$D/app-new" -- echo created
assert_eq "-a creates a missing file" created "$(cat "$D/app-new")"

# --- -m ---------------------------------------------------------------------------------
runx -m -o "$D/m1" -- sh -c 'echo a; echo b >&2; echo c'
assert_eq "-m -o F: both streams in F, in order" "a
b
c" "$(cat "$D/m1")"
out=$(runx -m -- sh -c 'echo a; echo b >&2' 2>"$D/m2-err")
assert_eq "-m: stderr goes to runx's stdout" "a
b" "$out"
assert_eq "-m: nothing on runx's stderr" "" "$(cat "$D/m2-err")"
runx --merge -o "$D/m3" -- sh -c "$interleave"
assert_eq "--merge -o F: 400 lines" 400 "$(wc -l <"$D/m3" | tr -d ' ')"

# --- created file mode ----------------------------------------------------------------------
(umask 022; runx -o "$D/mode022" -e "$D/mode022e" -- true)
assert_eq "umask 022: -o file created 0644" 644 "$(stat -c %a "$D/mode022")"
assert_eq "umask 022: -e file created 0644" 644 "$(stat -c %a "$D/mode022e")"
(umask 0; runx -o "$D/mode000" -- true)
assert_eq "umask 0: created 0666" 666 "$(stat -c %a "$D/mode000")"
(umask 077; runx -a -o "$D/mode077" -- true)
assert_eq "umask 077 with -a: created 0600" 600 "$(stat -c %a "$D/mode077")"

# --- a redirect that cannot be opened: 125, named, nothing started -----------------------------
# check_bad NAME FILE RUNX-ARGS...
check_bad() {
	local name=$1 file=$2 s=0 err
	shift 2
	rm -f "$D/started"
	runx "$@" -- sh -c "touch '$D/started'" >/dev/null 2>"$D/bad.err" || s=$?
	err=$(cat "$D/bad.err")
	assert_eq "$name: 125" 125 "$s"
	if [[ "$err" == "runx: "*"$file"* ]] && [ "$(wc -l <"$D/bad.err")" -eq 1 ]; then
		ok "$name: one message line naming '$file'"
	else
		not_ok "$name: one message line naming '$file'" "stderr: $err"
	fi
	assert_false "$name: the command was not started" test -e "$D/started"
}
check_bad "-o under a missing directory" "$D/nodir/out" -o "$D/nodir/out"
check_bad "-e under a missing directory" "$D/nodir/err" -e "$D/nodir/err"
check_bad "-o is a directory" "$D" -o "$D"
check_bad "-i missing file" "$D/no-such-input" -i "$D/no-such-input"
check_bad "-a -o under a missing directory" "$D/nodir/app" -a -o "$D/nodir/app"
check_bad "-o fine, -e bad" "$D/nodir/e" -o "$D/okout" -e "$D/nodir/e"
assert_false "-o fine, -e bad: the command's own output is not there" test -s "$D/okout"
err=$(runx -o "$D/nodir/out" -- true 2>&1)
assert_match "the message says why (No such file or directory)" "No such file or directory" "$err"

# -m together with -e is rejected (decision 3).
rm -f "$D/started"
assert_eq "-m with -e: 125" 125 "$(st runx -m -e "$D/x" -- touch "$D/started" 2>/dev/null)"
assert_false "-m with -e: nothing started" test -e "$D/started"

# A command that cannot run leaves -o's file as it was: it is looked up
# first, by PATH or (a name with '/') as it is.
mkdir "$D/cmds"
printf 'not a program\n' >"$D/cmds/noexec"
for cmd in no-such-command-x "$D/no-such-command" ./no-such-command "$D/cmds/noexec" "$D/cmds" "$D/cmds/noexec/x"; do
	echo IMPORTANT >"$D/keep"
	s=0
	(cd "$D" && runx -o "$D/keep" -- "$cmd" 2>/dev/null) || s=$?
	want=126
	case $cmd in *no-such-command*) want=127 ;; esac
	assert_eq "-o FILE, '$cmd' cannot run: $want" "$want" "$s"
	assert_eq "-o FILE, '$cmd' cannot run: FILE untouched" IMPORTANT "$(cat "$D/keep")"
done

# --- a FIFO: its open waits for the other end; a stop signal ends the wait ----
# runx opens redirects before anything starts, with every signal blocked
# (for the command): a FIFO with no reader (-o) or no writer (-i) held it
# in open(2) for good, and neither Ctrl-C nor SIGTERM could end it.  Now
# a stop signal does: runx says so, dies by it (130, 143), nothing
# started.  fifo_stop OPT SIG: runx OPT FIFO (SIGINT at its default
# action, as a terminal's Ctrl-C finds it; with it ignored, below)
# gets SIG once it waits in the open (wchan, 20 s at most); sets ST and
# ERR.
mkfifo "$D/fifo"
fifo_stop() {
	local opt=$1 sig=$2 pid i
	rm -f "$D/fifo.started"
	rm -f "$D/fifo.json"
	env --default-signal=INT "$RUNX" "${LAUNCH_ARGS[@]}" --report="$D/fifo.json" "$opt" "$D/fifo" -- \
		sh -c ": >'$D/fifo.started'" 2>"$D/fifo.err" &
	pid=$!
	for ((i = 0; i < 400; i++)); do
		grep -q partner "/proc/$pid/wchan" 2>/dev/null && break
		sleep 0.05
	done
	kill "-$sig" "$pid"
	wait_pid_exit "$pid" 30
	ST=$WAIT_STATUS ERR=$(cat "$D/fifo.err")
}
fifo_stop -o INT
assert_eq "-o FIFO with no reader, SIGINT: 130" 130 "$ST"
assert_match "-o FIFO with no reader, SIGINT: runx says why" \
	"^runx: received SIGINT while opening '.*/fifo' .*nothing was started$" "$ERR"
assert_false "-o FIFO with no reader, SIGINT: the command did not start" test -e "$D/fifo.started"
fifo_stop -i TERM
assert_eq "-i FIFO with no writer, SIGTERM: 143" 143 "$ST"
assert_false "-i FIFO with no writer, SIGTERM: the command did not start" test -e "$D/fifo.started"
# no command ran: no exit code, and no signal killed one (the runx before
# said "signal": "SIGTERM")
assert_eq "-i FIFO with no writer, SIGTERM: the report has runx_signal, and no command's end" \
	'{"reason":"runx_signaled","runx_signal":"SIGTERM","exit_status":143,"exit_code":null,"signal":null,"attempt_count":0}' \
	"$(jq -c '{reason, runx_signal, exit_status, exit_code, signal, attempt_count}' "$D/fifo.json" 2>&1)"
fifo_stop -e TERM
assert_eq "-e FIFO with no reader, SIGTERM: 143" 143 "$ST"
# SIGINT ignored when runx started (a script's background job has it so):
# a stop signal all the same, as in an attempt and in the wait between
# attempts.  The runx before left it pending through the wait: once the
# FIFO had a reader, it started the command and stopped it at once.  A
# reader that opens for reading and writing never waits, and lets that
# runx go on (nothing waits for good here).
rm -f "$D/fifo.started"
(
	trap '' INT
	exec "$RUNX" "${LAUNCH_ARGS[@]}" -o "$D/fifo" -- sh -c ": >'$D/fifo.started'"
) 2>"$D/fifo.err" &
pid=$!
for ((i = 0; i < 400; i++)); do
	grep -q partner "/proc/$pid/wchan" 2>/dev/null && break
	sleep 0.05
done
kill -INT "$pid"
for ((i = 0; i < 40; i++)); do
	grep -q partner "/proc/$pid/wchan" 2>/dev/null || break
	sleep 0.05
done
exec 7<>"$D/fifo"
wait_pid_exit "$pid" 30
exec 7<&-
assert_eq "-o FIFO, SIGINT ignored when runx started: a stop all the same, 130" 130 "$WAIT_STATUS" "$(cat "$D/fifo.err")"
assert_false "-o FIFO, SIGINT ignored when runx started: the command did not start" test -e "$D/fifo.started"
# Ctrl-Z (SIGTSTP) while a FIFO waits: runx stops itself, as in the wait
# between attempts, and goes on waiting once continued; a reader that
# comes meanwhile does not start the command before the SIGCONT.  The
# runx before did not stop: once the FIFO had a reader, it started the
# command, and only then stopped it and itself.
rm -f "$D/fifo.started"
runx_bg -v -o "$D/fifo" -- sh -c ": >'$D/fifo.started'" 2>"$D/fifo.err"
for ((i = 0; i < 400; i++)); do
	grep -q partner "/proc/$RUNX_PID/wchan" 2>/dev/null && break
	sleep 0.05
done
kill -TSTP "$RUNX_PID"
state=
for ((i = 0; i < 200; i++)); do
	{ read -r line <"/proc/$RUNX_PID/stat"; } 2>/dev/null || break
	line=${line##*) }
	state=${line%% *}
	[ "$state" != T ] || break
	sleep 0.05
done
assert_eq "-o FIFO, SIGTSTP during the wait: runx stops (state T)" T "$state"
exec 7<>"$D/fifo"
# no child of runx for 1 s after the reader came (the runx before started
# the command then, and its job control stopped it a moment later)
child=none
for ((i = 0; i < 20; i++)); do
	child=$(pgrep -P "$RUNX_PID" | head -1)
	[ -z "$child" ] || break
	child=none
	sleep 0.05
done
assert_eq "-o FIFO, SIGTSTP during the wait: a reader meanwhile starts nothing before the SIGCONT" none "$child"
kill -CONT "$RUNX_PID"
wait_pid_exit "$RUNX_PID" 30
exec 7<&-
# the SIGCONT was runx's: taken, not forwarded to the command (-v)
assert_eq "-o FIFO, SIGTSTP during the wait, then SIGCONT: the command ran, 0, no SIGCONT forwarded" "0 yes 0" \
	"$WAIT_STATUS $([ -e "$D/fifo.started" ] && echo yes || echo no) $(grep -c SIGCONT "$D/fifo.err")"
assert_match "-o FIFO, SIGTSTP during the wait: -v says so" \
	"^runx: received SIGTSTP while opening '.*/fifo' \(a FIFO waits for its other end\): stopping runx \(job control\)\$" \
	"$(head -1 "$D/fifo.err")"
# ... and the command still starts with it ignored once the FIFO opens
# (the wait caught it meanwhile, and put SIG_IGN back: a guard of that
# step, which the runx before did not have; bit 2 of SigIgn is SIGINT)
(
	trap '' INT
	exec "$RUNX" "${LAUNCH_ARGS[@]}" -o "$D/fifo" -- sh -c "sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status >'$D/fifo.ign'"
) 2>"$D/fifo.err" &
pid=$!
exec 7<>"$D/fifo"
wait_pid_exit "$pid" 30
exec 7<&-
assert_eq "-o FIFO, SIGINT ignored when runx started: runx exits 0" 0 "$WAIT_STATUS" "$(cat "$D/fifo.err")"
assert_eq "-o FIFO, SIGINT ignored when runx started: the command has it ignored" 2 \
	"$(( 0x$(cat "$D/fifo.ign" 2>/dev/null || echo 0) & 2 ))"
# --total-timeout bounds the wait too ("attempts and waits included"):
# 124, nothing started, the report's reason (97fbc41's runx waited for
# good); a SIGALRM from elsewhere meanwhile (the timer's is SIGALRM too)
# does not end the wait, and reaches the command once it runs
rm -f "$D/fifo.started" "$D/fifo.json"
runx_bg -v --total-timeout=1 --report="$D/fifo.json" -o "$D/fifo" -- \
	sh -c ": >'$D/fifo.started'" 2>"$D/fifo.err"
wait_pid_exit "$RUNX_PID" 30
assert_eq "-o FIFO with no reader, --total-timeout=1: 124" 124 "$WAIT_STATUS" "$(cat "$D/fifo.err")"
assert_false "-o FIFO with no reader, --total-timeout=1: the command did not start" test -e "$D/fifo.started"
assert_eq "-o FIFO with no reader, --total-timeout=1: the report and -v say why" \
	'{"reason":"total_timeout","exit_status":124,"attempt_count":0} 1' \
	"$(jq -c '{reason, exit_status, attempt_count}' "$D/fifo.json" 2>&1) $(grep -c "^runx: total deadline of the run reached while opening '.*/fifo' (a FIFO waits for its other end); nothing was started\$" "$D/fifo.err")"
# the wait is the run's time: wall_time from when runx began to open the
# redirects, at least the 1 s deadline (765c317's runx: 0, start_time
# equal to end_time, for no command started)
assert_eq "-o FIFO with no reader, --total-timeout=1: the wait is in wall_time, start_time before end_time" \
	"true true" "$(jq -r '"\(.wall_time >= 1) \(.start_time < .end_time)"' "$D/fifo.json" 2>&1)"
runx_bg --total-timeout=20 -i "$D/fifo" -- sleep 5 2>/dev/null
for ((i = 0; i < 400; i++)); do
	grep -q partner "/proc/$RUNX_PID/wchan" 2>/dev/null && break
	sleep 0.05
done
kill -ALRM "$RUNX_PID"
sleep 0.3
: >"$D/fifo" # the writer: the open goes on, the command runs
wait_pid_exit "$RUNX_PID" 30
assert_eq "-i FIFO, SIGALRM from elsewhere during the timed wait: the command ran and died by it (142; 124 or 0 if it ended the wait or was lost)" 142 "$WAIT_STATUS"
# Signals 33 and 34, which musl keeps for itself: its sigaction(3)
# unblocked them at the first handler runx installed (the wait's), and one
# then killed the static runx silently, its job left running (a review).
# Sent during the wait, each stays pending for the command, which then
# dies by it (runx too); sent after, it is forwarded the same; nothing is
# left either way (the tree scope: a setsid'd sleep too).
for sig in 33 34; do
	for when in during after; do
		new_marker m
		runx_bg -v --kill-scope=tree -i "$D/fifo" -- \
			sh -c "setsid sleep $m & exec sleep $m" 2>"$D/sig.err"
		for ((i = 0; i < 400; i++)); do
			grep -q partner "/proc/$RUNX_PID/wchan" 2>/dev/null && break
			sleep 0.05
		done
		[ $when = during ] && kill -"$sig" "$RUNX_PID" && sleep 0.3
		# the writer, opened read-write so that it never waits itself
		# (a runx gone would leave it waiting): the command runs
		exec 8<>"$D/fifo"
		exec 8>&-
		[ $when = after ] && wait_marked "$m" 3 && kill -"$sig" "$RUNX_PID"
		wait_pid_exit "$RUNX_PID" 30
		# (forwarded as soon as the command started: -v says so)
		assert_eq "-i FIFO, signal $sig $when the wait: forwarded to the command, which died by it, runx too ($((128 + sig)))" \
			"$((128 + sig)) 1" "$WAIT_STATUS $(grep -c "^runx: forwarding: [0-9A-Z+-]* to " "$D/sig.err")" "$(cat "$D/sig.err")"
		assert_dead "-i FIFO, signal $sig $when the wait: nothing left" "$m"
	done
done
# a reader that comes: the command's output goes through it
(sleep 0.5 && cat "$D/fifo" >"$D/fifo.out") &
reader=$!
assert_eq "-o FIFO, its reader comes later: 0" 0 "$(st runx -o "$D/fifo" -- echo through)"
wait "$reader"
assert_eq "-o FIFO, its reader comes later: the output went through" through "$(cat "$D/fifo.out")"

done_testing
