#!/bin/bash
# -v/--verbose: one 'runx: ' line per decision on stderr; silent without
# -v; a closed or broken stderr never changes the exit status.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

# 2 silent, 8 -v deadline, 4 leftovers, 3 SIGINT, 1 own stderr, 4 exit
# statuses found before the launch, 3 stderr read-only, 9 stderr
# closed, 7 stderr broken, 18 stderr a full pipe nobody reads (not in a
# rerun with another backend: the waits on stderr do not depend on it,
# and take 5 s each)
n_full=18
! backend_rerun || n_full=0
plan $((2 + 8 + 4 + 3 + 1 + 4 + 3 + 9 + 7 + n_full))

# all_prefixed FILE: every line starts with "runx: " (and there is one).
all_prefixed() {
	[ -s "$1" ] && ! grep -qv '^runx: ' "$1"
}

# --- silent without -v ------------------------------------------------------
new_marker m
runx -t 0.5 -k 0.5 -- sh -c "trap '' TERM; sleep $m; :" 2>"$TMPD/quiet"
assert_eq "without -v: nothing on stderr (deadline and SIGKILL)" "" "$(cat "$TMPD/quiet")"
assert_dead "without -v: dead" "$m"

# --- a deadline needing SIGKILL ---------------------------------------------------
# (on_time: the three processes must be there before the deadline)
new_marker m
r=$TMPD/ready.$m
on_time 0.5 "$r" "2>$TMPD/v1" -- runx -v -t @T -k 0.5 -- sh -c "trap '' TERM; sleep $m & : >$r; sleep $m; :"
assert_eq "-v deadline: 124" 124 "$OT_STATUS"
assert_dead "-v deadline: dead" "$m"
if all_prefixed "$TMPD/v1"; then ok "-v: every line is prefixed 'runx: '"; else
	not_ok "-v: every line is prefixed 'runx: '" "$(cat "$TMPD/v1")"; fi
v=$(cat "$TMPD/v1")
assert_match "-v: says the deadline fired" "runx: [^
]*deadline" "$v"
assert_match "-v: says SIGTERM went to the process group" "runx: [^
]*SIGTERM[^
]*process group" "$v"
assert_match "-v: says how many were alive after the grace period" "runx: [^
]*[0-9]+ process(es)? still alive" "$v"
assert_match "-v: says exactly 3 processes (sh and two sleeps) were still alive" "runx: ([^
]*[^0-9])?3 processes still alive" "$v"
assert_match "-v: says SIGKILL was sent" "runx: [^
]*SIGKILL" "$v"

# --- cleanup of leftovers --------------------------------------------------------
new_marker m
s=$(st runx --verbose -k 0.5 -- sh -c "sleep $m & exit 3" 2>"$TMPD/v2")
assert_eq "--verbose leftovers: command's status" 3 "$s"
assert_dead "--verbose leftovers: dead" "$m"
if all_prefixed "$TMPD/v2"; then ok "--verbose leftovers: all lines prefixed"; else
	not_ok "--verbose leftovers: all lines prefixed" "$(cat "$TMPD/v2")"; fi
assert_match "--verbose: says leftovers are stopped" "runx: [^
]*leftover" "$(cat "$TMPD/v2")"

# --- a signal to runx -------------------------------------------------------------
new_marker m
runx_bg -v -k 5 -- sh -c "echo >$TMPD/ready.$m; exec sleep $m" 2>"$TMPD/v3"
if wait_file "$TMPD/ready.$m" && wait_marked "$m" 2; then
	kill -INT "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 40
	assert_eq "-v, SIGINT to runx: 130" 130 "$WAIT_STATUS"
	assert_match "-v: says it received SIGINT" "runx: [^
]*SIGINT" "$(cat "$TMPD/v3")"
else
	kill -KILL "$RUNX_PID"
	not_ok "-v, SIGINT to runx: 130" "never ready"
	not_ok "-v: says it received SIGINT" "never ready"
fi
assert_dead "-v, SIGINT: dead" "$m"

# -v's last line gives the exit status also for a command found missing
# (127) or not runnable (126) before the launch; a refusal (125) stays
# one line.
assert_eq "-v, a command not found: the last line says exiting with status 127" \
	"runx: exiting with status 127" "$(runx -v -- no-such-command-$$ 2>&1 >/dev/null | tail -n 1)"
assert_eq "-v, a directory as the command: the last line says exiting with status 126" \
	"runx: exiting with status 126" "$(runx -v -- "$TMPD" 2>&1 >/dev/null | tail -n 1)"
assert_eq "-v, a bad option: one line (125)" 1 "$(runx -v -t bogus -- true 2>&1 >/dev/null | wc -l)"
# a scope that cannot be had, found in attempt 1's set-up: the tree scope
# under unshare --pid without a /proc of its own (/proc shows the
# namespace outside)
if [ "$(id -u)" = 0 ] && unshare --pid --fork true 2>/dev/null; then
	s=0
	unshare --pid --fork "$RUNX" "${LAUNCH_ARGS[@]}" -v --kill-scope=tree -- true \
		2>"$TMPD/noscope" >/dev/null || s=$?
	assert_eq "-v, a scope that cannot be had: 125 and its one line" \
		"125 1" "$s $(wc -l <"$TMPD/noscope" | tr -d ' ')" "$(cat "$TMPD/noscope")"
else
	skip "-v, a scope that cannot be had: 125 and its one line" "needs root and unshare --pid"
fi

# The command's own stderr is not prefixed: only runx's lines are.
out=$(runx -v -- sh -c 'echo mine >&2' 2>&1 >/dev/null)
assert_match "-v: the command's own stderr line is passed as is" "(^|
)mine(
|\$)" "$out"

# --- stderr closed: the status does not change -----------------------------------------
new_marker m
assert_eq "stderr closed, -v deadline: 124" 124 \
	"$(st runx -v -t 0.5 -k 0.5 -- sh -c "trap '' TERM; sleep $m; :" 2>&-)"
assert_dead "stderr closed: dead" "$m"
assert_eq "stderr closed, -v: command's status 3" 3 "$(st runx -v -- sh -c 'exit 3' 2>&-)"
assert_eq "stderr closed, -v: command's status 0" 0 "$(st runx -v -- true 2>&-)"
new_marker m
assert_eq "stderr closed, -v -p: 143" 143 "$(st runx -v -p -t 0.5 -- sleep "$m" 2>&-)"
assert_dead "stderr closed, -p: dead" "$m"
assert_eq "stderr closed, -v, exec failure: 127" 127 "$(st runx -v -- no-such-command-$$ 2>&-)"
assert_eq "stderr closed, command writes to stderr: its status 4" 4 \
	"$(st runx -v -- sh -c 'echo x >&2; exit 4' 2>&-)"
assert_eq "stderr closed: bad option still 125" 125 "$(st runx -v -t bogus -- true 2>&-)"

# --- stderr a broken pipe ------------------------------------------------------------------
# broken_status RUNX-ARGS...: runx's status with stderr a pipe whose reader
# has exited (and stdout discarded).  exec: the pipeline's status is runx's
# own, not that of a subshell whose "Terminated" notice (runx ends by the
# command's signal) would meet the broken pipe and die of SIGPIPE.
broken_status() {
	(exec "$RUNX" "${LAUNCH_ARGS[@]}" "$@") 2>&1 >/dev/null | (exit 0)
	echo "${PIPESTATUS[0]}"
}
new_marker m
assert_eq "broken stderr, -v deadline needing SIGKILL: 124" 124 \
	"$(broken_status -v -t 0.5 -k 0.5 -- sh -c "trap '' TERM; sleep $m; :")"
assert_dead "broken stderr: dead" "$m"
assert_eq "broken stderr, -v: command's status 3" 3 \
	"$(broken_status -v -- sh -c 'sleep 0.3; exit 3')"
new_marker m
assert_eq "broken stderr, -v -p: 143" 143 "$(broken_status -v -p -t 0.5 -- sleep "$m")"
assert_dead "broken stderr, -p: dead" "$m"
new_marker m
assert_eq "broken stderr, -v leftovers: command's status 5" 5 \
	"$(broken_status -v -k 0.5 -- sh -c "sleep 0.3; sleep $m & exit 5")"
assert_dead "broken stderr, leftovers: dead" "$m"

# --- stderr open for reading only (2<&0) ------------------------------------------------
# runx's lines are lost (EBADF), as the command's are: runx opened
# /proc/self/fd/2 anew for writing, which wrote its "started" line into
# the command's own standard input (the pipe behind fd 0)
s=0
out=$(printf 'data1\ndata2\n' | "$RUNX" "${LAUNCH_ARGS[@]}" -v -t 20 -- sh -c 'sleep 0.3; cat' 2<&0) || s=$?
assert_eq "stderr read-only, -v: the command's input is only its own, status 0" \
	"0|data1 data2" "$s|${out//$'\n'/ }"
# the relay (--idle-timeout) leaves a read-only fd 1 as it is: the command
# cannot write there, as without runx, and its input ends (a relay held a
# write end of it, opened anew: cat never saw its end, and -t stopped it)
s=0
out=$({ printf 'in\n'; sleep 0.5; } | "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=20 -t 20 -- \
	sh -c 'echo OUT 2>/dev/null; cat | wc -c >&2' 2>&1 1<&0) || s=$?
assert_eq "stdout read-only, --idle-timeout: the command's input ends, status 0" 0 "$s" "$out"
assert_eq "stdout read-only, --idle-timeout: it read its 3 bytes, nothing of its own" 3 "$out"

# --- stderr a full pipe nobody reads ------------------------------------------------
# full_stderr SECS HOLD RUNX-ARGS...: runx in the background with stderr
# a pipe into "sleep HOLD", which never reads it, and stdout discarded;
# sets WAIT_STATUS (wait_pid_exit, a guard of SECS: "hung" after) and
# kills HOLD.  runx waits 5 s at most for room on stderr, once in the
# run, then drops what finds none; before, its first line into the full
# pipe waited for good, and SIGTERM could not end it (its signals are
# blocked).
# prefill FD: with PREFILL=1, fills the pipe FD (64 KiB) before runx
# starts, so that its first line ("started") finds no room; through a
# description of its own (/dev/fd), O_NONBLOCK: the write that finds the
# pipe full fails, and dd with it.
prefill() {
	[ "${PREFILL:-0}" = 1 ] || return 0
	dd if=/dev/zero of="/dev/fd/$1" bs=65536 count=2 oflag=nonblock \
		status=none 2>/dev/null || true
}
full_stderr() {
	local secs=$1 hold=$2 fd pid
	shift 2
	exec {fd}> >(exec sleep "$hold")
	prefill "$fd"
	"$RUNX" "${LAUNCH_ARGS[@]}" "$@" 2>&"$fd" >/dev/null &
	pid=$!
	exec {fd}>&-
	wait_pid_exit "$pid" "$secs"
	pkill -KILL -f "^sleep $hold\$" 2>/dev/null || true
}
if backend_rerun; then
	diag "RUNX_LAUNCH=$RUNX_LAUNCH: no stderr that nobody reads; it does not depend on the backend and ran with the default one (verbose.sh)"
	done_testing
fi
# the command fills the pipe (64 KiB; head then waits in write(2) until
# the deadline ends it), so runx's lines of the deadline find no room.
# The waits are 5 s in the whole run: 5 s for each of its 8 lines would
# be 40 s, over the guard of 25 s (the run takes about 6 s).  And no line
# waits while the job runs: the first signal goes out at the deadline
# (1 s), not after the 5 s its lines wait (6 s, as before 0da47d6).
new_marker hold
new_marker m
full_stderr 25 "$hold" -v -t 1 -k 0.5 --report="$TMPD/fullerr.json" -- \
	sh -c "sleep $m & head -c 70000 /dev/zero >&2; wait"
assert_eq "full stderr, -v deadline: 124, not a hang" 124 "$WAIT_STATUS"
assert_dead "full stderr, -v deadline: dead" "$m"
assert_true "full stderr, -v deadline: the first signal at the deadline, not after the lines' wait ($(jq -c '.signals_sent[0]' "$TMPD/fullerr.json" 2>&1))" \
	jq -e '.signals_sent[0].signal == "SIGTERM" and .signals_sent[0].time < 4' "$TMPD/fullerr.json"
# the run's wall_time and end_time are the job's: the 5 s that runx's
# lines then wait are not in them (9970012's runx: 6.5 s)
assert_true "full stderr, -v deadline: wall_time without runx's wait for room ($(jq -c '[.wall_time, .attempts[0].wall_time]' "$TMPD/fullerr.json" 2>&1))" \
	jq -e '.wall_time < 4 and .wall_time - .attempts[0].wall_time < 1' "$TMPD/fullerr.json"
# the pipe full before runx starts: its first line, "started", finds no
# room.  While the job runs no line waits for room (they wait in memory):
# the deadline's first signal at 1 s (the runx before: at 5.0 s, after
# the started line's 5 s), as a SIGTERM to runx is forwarded at once
new_marker hold
new_marker m
PREFILL=1 full_stderr 25 "$hold" -v -t 1 -k 0.5 --report="$TMPD/prefull.json" -- \
	sh -c "sleep $m & wait"
assert_eq "full stderr from the start, -v deadline: 124" 124 "$WAIT_STATUS"
assert_dead "full stderr from the start, -v deadline: dead" "$m"
assert_true "full stderr from the start, -v deadline: the first signal at the deadline, not after the started line's wait ($(jq -c '.signals_sent[0]' "$TMPD/prefull.json" 2>&1))" \
	jq -e '.signals_sent[0].signal == "SIGTERM" and .signals_sent[0].time < 3' "$TMPD/prefull.json"
# no attempt: --total-timeout ends a FIFO's wait for its reader, and
# runx's line about it waits for room on the full stderr.  The run's end
# is before that line: wall_time holds the 1 s wait, not the line's 5 s
# (64ea6d3's runx: 6.0 s)
new_marker hold
mkfifo "$TMPD/noreader"
PREFILL=1 full_stderr 25 "$hold" -v --total-timeout=1 --report="$TMPD/fullfifo.json" \
	-o "$TMPD/noreader" -- true
assert_eq "full stderr, -v, --total-timeout=1 in a FIFO's wait: 124" 124 "$WAIT_STATUS"
assert_true "full stderr, -v, --total-timeout=1 in a FIFO's wait: wall_time is the wait, without runx's wait for room ($(jq -c '.wall_time' "$TMPD/fullfifo.json" 2>&1))" \
	jq -e '.wall_time >= 1 and .wall_time < 4' "$TMPD/fullfifo.json"
new_marker hold
new_marker m
exec {fd}> >(exec sleep "$hold")
PREFILL=1 prefill "$fd"
"$RUNX" -v --report="$TMPD/prefwd.json" -- \
	sh -c "trap 'exit 7' TERM; sleep $m & wait" 2>&"$fd" >/dev/null &
pid=$!
exec {fd}>&-
wait_marked "$m" 2 # sh and its sleep: the trap is set
kill -TERM "$pid"
wait_pid_exit "$pid" 25
pkill -KILL -f "^sleep $hold\$" 2>/dev/null || true
assert_eq "full stderr from the start, -v, SIGTERM to runx: the command's 7" 7 "$WAIT_STATUS"
assert_dead "full stderr from the start, -v, SIGTERM to runx: dead" "$m"
assert_true "full stderr from the start, -v, SIGTERM to runx: forwarded at once, not after the started line's wait ($(jq -c '.signals_sent[0]' "$TMPD/prefwd.json" 2>&1))" \
	jq -e '.signals_sent[0].signal == "SIGTERM" and .signals_sent[0].time < 3' "$TMPD/prefwd.json"
# a reader that comes late (1 s) gets the lines that wait as soon as it
# has taken the 64 KiB that filled the pipe (zeros, no newline), while
# the job runs (the job looks for the started line at 2.5 s), then every
# other line, in order; the deadline still at 4 s
new_marker m
exec {fd}> >(sleep 1; exec cat >"$TMPD/late.txt")
late=$!
PREFILL=1 prefill "$fd"
# shellcheck disable=SC2016 # $1 to $3 for the job's sh
"$RUNX" -v -t 4 -k 0.5 --report="$TMPD/late.json" -- \
	sh -c 'sleep 2.5; grep -qa "runx: started" "$1" && : >"$2"; exec sleep "$3"' \
	sh "$TMPD/late.txt" "$TMPD/late.seen" "$m" 2>&"$fd" >/dev/null &
pid=$!
exec {fd}>&-
wait_pid_exit "$pid" 25
wait "$late" || true
assert_eq "late reader of stderr, -v deadline: 124" 124 "$WAIT_STATUS"
assert_true "late reader of stderr: the started line reached it while the job ran" \
	test -e "$TMPD/late.seen"
tr -d '\0' <"$TMPD/late.txt" | sed 's/pid [0-9]*/pid N/g; s/age [0-9.]*s/age As/; s/group [0-9][0-9]*/group N/' >"$TMPD/late.lines"
cat >"$TMPD/late.expect" <<EOF
runx: started 'sh' as pid N (group scope, vfork launch)
runx: deadline of 4s reached
runx: alive at the deadline: pid N, age As: sleep $m
runx: sending: SIGTERM to process group N (1 process)
runx: sending: SIGCONT to process group N (1 process)
runx: command (pid N) was killed by SIGTERM
runx: exiting with status 124
EOF
assert_true "late reader of stderr: every line, in order ($(tr '\n' '|' <"$TMPD/late.lines"))" \
	cmp -s "$TMPD/late.expect" "$TMPD/late.lines"
assert_true "late reader of stderr: the first signal at the deadline ($(jq -c '.signals_sent[0]' "$TMPD/late.json" 2>&1))" \
	jq -e '.signals_sent[0].signal == "SIGTERM" and .signals_sent[0].time < 6' "$TMPD/late.json"
# a report on stderr larger than the pipe (a 100 KB argument in it), and
# the message that it could not be written after it; then a command
# that fills the pipe (timeout(1) ends its head) before -v and the report
new_marker hold
full_stderr 60 "$hold" --report=- -- true "$(head -c 100000 /dev/zero | tr '\0' a)"
assert_eq "full stderr, --report=- larger than the pipe: 0, not a hang" 0 "$WAIT_STATUS"
new_marker hold
full_stderr 60 "$hold" -v --report=- -- sh -c 'timeout 2 head -c 70000 /dev/zero >&2; exit 3'
assert_eq "full stderr, -v --report=- after the command filled it: 3, not a hang" 3 "$WAIT_STATUS"

done_testing
