#!/bin/bash
# Attempts (--attempts and the options of runx(1), ATTEMPTS): how many
# attempts run and with what status, each --retry-on kind,
# --success-exit, -t and --idle-timeout per attempt, the waits between
# attempts (backoff, maximum, jitter), what -v says of each ending, a
# command that cannot run (found before attempt 1), --total-timeout
# during an attempt and during a wait, a stop signal during either, as
# PID 1 (orphans reaped and signals during a wait), standard input
# rewound (or shared) and output appended across attempts, RUNX_ATTEMPT,
# the report's attempts, bad values; and the promise itself: for each
# scope, nothing attempt 1 left behind (TERM ignored, setsid'd, holding a
# lock) is alive when attempt 2 starts, and attempt 1's cgroup is gone.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

require_command flock "(util-linux) to hold a lock across attempts"
require_python3 "to read the JSON report"
# shellcheck disable=SC2054 # the commas are in the values
BAD_VALUES=(--attempts=0 --attempts=two --attempts= --retry-on=sometimes
	--retry-on=1,,2 --retry-on=300 --retry-on=4-2 --retry-on=SIGBOGUS
	--retry-delay=-1 --retry-delay=1x --backoff=0.5 --backoff=abc --backoff=
	--retry-delay-max=soon --retry-delay-max=-1 --jitter=2 --jitter=-0.1
	--jitter=abc --total-timeout=-1 --success-exit=failure --success-exit=999
	--success-exit=SIGBOGUS --success-exit=4-2 --retry-on=SIGSTOP
	--success-exit=cont --retry-on=0 $'--retry-on=1\e[31m')
# The plan, the same on every host (a case that cannot run here is as
# many skips as it has checks).  The launch's cases come first and run in
# every run: how many attempts ran and RUNX_ATTEMPT (11), the redirects
# across attempts (6: each attempt's stdin, stdout and stderr are set up
# by its launch), "the promise" (3 rounds of 2 checks for each of the 4
# scopes, and 1 more for tree: each attempt's scope is made at its
# launch) and the cgroup of attempt 1 (4).  A rerun with another backend
# (lib.sh's backend_rerun) ends there.  Then 142 checks in the sections
# up to the bad values (and 2 x 3 of the total deadline while leftovers
# are stopped), 4 per bad value, a stop signal while an attempt
# is being stopped (2 x 3) and Ctrl-C with --foreground (5, and 4 with
# one attempt), a command that exits 125 itself (2 in each of 5 scopes)
# and a launch that can make no process (2 in each of 2 scopes).
n_launch=$((11 + 6 + 4 * 3 * 2 + 1 + 4))
if backend_rerun; then
	plan "$n_launch"
	diag "RUNX_LAUNCH=$RUNX_LAUNCH: the launch's cases only; the others do not depend on the backend and ran with the default one (attempts.sh)"
else
	plan $((n_launch + 143 + 2 * 3 + 4 * ${#BAD_VALUES[@]} + 2 * 3 + 5 + 4 + 2 * 5 + 2 * 2))
fi

# elapsed_ms COMMAND...: runs COMMAND; prints "STATUS MS".
elapsed_ms() {
	local t0 t1 s=0
	t0=$(date +%s%N)
	"$@" || s=$?
	t1=$(date +%s%N)
	echo "$s $(((t1 - t0) / 1000000))"
}

C=$TMPD/count

# --- how many attempts, and the status ----------------------------------------
rm -f "$C"
assert_eq "3 failing attempts: the last one's status" 3 \
	"$(st runx --attempts=3 --retry-delay=0 -- sh -c "echo \$RUNX_ATTEMPT >>$C; exit 3")"
assert_eq "3 failing attempts: 3 ran" 3 "$(lines "$C")"
assert_eq "RUNX_ATTEMPT is 1, 2, 3" "1 2 3" "$(tr '\n' ' ' <"$C" | sed 's/ $//')"

rm -f "$C"
assert_eq "a success at attempt 2 ends the run with 0" 0 \
	"$(st runx --attempts=5 --retry-delay=0 -- sh -c "echo >>$C; [ \$RUNX_ATTEMPT -ge 2 ]")"
assert_eq "a success at attempt 2: 2 ran" 2 "$(lines "$C")"

rm -f "$C"
assert_eq "--attempts=inf: until a success (attempt 4)" 0 \
	"$(st runx --attempts=inf --retry-delay=0 -- sh -c "echo >>$C; [ \$RUNX_ATTEMPT -ge 4 ]")"
assert_eq "--attempts=inf: 4 ran" 4 "$(lines "$C")"

rm -f "$C"
assert_eq "the default is one attempt" 1 "$(st runx -- sh -c "echo >>$C; exit 1")"
assert_eq "the default is one attempt: 1 ran" 1 "$(lines "$C")"

assert_eq "RUNX_ATTEMPT replaces an inherited one, once" "RUNX_ATTEMPT=1" \
	"$(RUNX_ATTEMPT=inherited runx -- env | grep '^RUNX_ATTEMPT=')"

assert_eq "the exit status is the last attempt's (13, not 11 or 12)" 13 \
	"$(st runx --attempts=3 --retry-delay=0 -- sh -c 'exit $((10 + RUNX_ATTEMPT))')"

# --- redirects across attempts ------------------------------------------------------------
printf 'line one\nline two\n' >"$TMPD/in"
rm -f "$TMPD/got"
runx --attempts=3 --retry-delay=0 -i "$TMPD/in" -- sh -c "cat >>$TMPD/got; exit 1"
assert_eq "-i FILE: each attempt reads it whole" "$(cat "$TMPD/in" "$TMPD/in" "$TMPD/in")" "$(cat "$TMPD/got")"
rm -f "$TMPD/got"
runx --attempts=2 --retry-delay=0 -- sh -c "cat >>$TMPD/got; exit 1" <"$TMPD/in"
assert_eq "a regular file as stdin: rewound for each attempt" "$(cat "$TMPD/in" "$TMPD/in")" "$(cat "$TMPD/got")"
# at a non-zero offset: rewound to that offset, not to 0 (bash's read
# leaves the offset just past the line it read from a regular file)
printf 'skipped\nline two\nline three\n' >"$TMPD/in3"
rm -f "$TMPD/got"
(
	read -r _skipped
	runx --attempts=2 --retry-delay=0 -- sh -c "cat >>$TMPD/got; exit 1"
) <"$TMPD/in3"
assert_eq "a regular file as stdin at offset 8: each attempt reads from offset 8" \
	"line two|line three|line two|line three" "$(paste -sd '|' "$TMPD/got")"
# a pipe is shared as it is: attempt 2 reads on where attempt 1 stopped
# (sh's read takes a pipe's bytes one at a time)
got=$(printf 'a\nb\n' | runx --attempts=2 --retry-delay=0 -- sh -c 'read -r l; echo "$RUNX_ATTEMPT:$l"; exit 1')
assert_eq "a pipe as stdin: shared (attempt 1 reads a, attempt 2 b)" "1:a|2:b" "$(paste -sd '|' <<<"$got")"
echo stale-content-that-is-longer >"$TMPD/out"
runx --attempts=3 --retry-delay=0 -o "$TMPD/out" -- sh -c 'echo "attempt $RUNX_ATTEMPT"; exit 1'
assert_eq "-o: truncated once, the attempts append in order" \
	"attempt 1 attempt 2 attempt 3" "$(tr '\n' ' ' <"$TMPD/out" | sed 's/ $//')"
echo stale-content-that-is-longer >"$TMPD/err"
runx --attempts=3 --retry-delay=0 -e "$TMPD/err" -- sh -c 'echo "attempt $RUNX_ATTEMPT" >&2; exit 1'
assert_eq "-e: truncated once, the attempts append in order" \
	"attempt 1|attempt 2|attempt 3" "$(paste -sd '|' "$TMPD/err")"

# --- the promise: nothing of attempt 1 alive when attempt 2 starts -----------------------------------------
# job.sh LOCK MARKER SETSID: attempt 1 takes an exclusive flock(2) on LOCK,
# leaves TERM-ignoring "sleep MARKER" holders of it (one setsid'd if
# SETSID is 1), waits until they ignore TERM, and fails; attempt 2 exits
# 0 if LOCK is free (flock -n), 9 if it is still held.
cat >"$TMPD/job.sh" <<'JOB'
lock=$1 m=$2 setsid=$3 dir=${1%/*}
if [ "$RUNX_ATTEMPT" != 1 ]; then
	flock -n "$lock" true && exit 0
	exit 9
fi
exec 9>"$lock"
flock -x 9
sh -c "trap '' TERM; : >$dir/ready.1; exec sleep $m" &
if [ "$setsid" = 1 ]; then
	setsid sh -c "trap '' TERM; : >$dir/ready.2; exec sleep $m" &
else
	: >"$dir/ready.2"
fi
while [ ! -e "$dir/ready.1" ] || [ ! -e "$dir/ready.2" ]; do sleep 0.05; done
exit 1
JOB

scope_works() {
	case $1 in
	cgroup) runx_cg --kill-scope=cgroup -- true 2>/dev/null ;;
	*) runx --kill-scope="$1" -- true 2>/dev/null ;;
	esac
}

for scope in group tree cgroup pidns; do
	if ! scope_works "$scope"; then
		# 3 rounds of 2 checks, and tree's check of the child scope
		n=6
		[ "$scope" = tree ] && n=7
		skips "$n" "$scope: attempt 2 finds the lock free" "the $scope scope cannot be set up here"
		continue
	fi
	setsid=1
	[ "$scope" = group ] && setsid=0
	R=("$RUNX" "${LAUNCH_ARGS[@]}")
	[ "$scope" = cgroup ] && R=("$RUNX" "${CG_LAUNCH_ARGS[@]}")
	for round in 1 2 3; do
		new_marker m
		d=$TMPD/lock.$scope.$round
		mkdir -p "$d"
		s=$(st guarded 60 "${R[@]}" --kill-scope="$scope" --attempts=2 --retry-delay=0 -k 0.3 -- \
			sh "$TMPD/job.sh" "$d/lock" "$m" "$setsid")
		assert_eq "$scope, round $round: attempt 2 finds the lock free (exit 0, not 9)" 0 "$s"
		assert_dead "$scope, round $round: no holder is alive after the run" "$m"
	done
	# without attempts, the same holders really do outlive the command
	# in the child scope: the lock test can fail
	if [ "$scope" = tree ]; then
		new_marker m
		d=$TMPD/lock.child
		mkdir -p "$d"
		runx --kill-scope=child -- sh "$TMPD/job.sh" "$d/lock" "$m" 1
		assert_false "setup: with the child scope the lock is still held after attempt 1" \
			flock -n "$d/lock" true
		kill_marked "$m"
	fi
done

# --- the cgroup of attempt 1 is removed before attempt 2 starts ----------------------------------------
# Attempt 1 notes its cgroup (the 0:: line of /proc/self/cgroup) and that
# its directory is there under the cgroup2 mount, then fails; attempt 2
# notes its own and exits 9 if attempt 1's directory is still there.
cat >"$TMPD/cgjob.sh" <<'JOB'
mnt=$1 d=$2
cg=$(sed -n 's/^0:://p' /proc/self/cgroup)
echo "$cg" >"$d/cg.$RUNX_ATTEMPT"
if [ "$RUNX_ATTEMPT" = 1 ]; then
	[ -d "$mnt$cg" ] && : >"$d/seen.1"
	exit 1
fi
[ -e "$mnt$(cat "$d/cg.1")" ] && exit 9
exit 0
JOB
CG_CHECKS=4
# own_cgroups CG1 CG2: two cgroups of runx's (runx-PID-...), not the same
# shellcheck disable=SC2317 # called through assert_true
own_cgroups() {
	[ "${1#*/runx-}" != "$1" ] && [ "${2#*/runx-}" != "$2" ] && [ "$1" != "$2" ]
}
# none_left PATH...: none of the paths exists
# shellcheck disable=SC2317 # called through assert_true
none_left() {
	local p
	for p in "$@"; do
		[ ! -e "$p" ] || return 1
	done
}
CG2MNT=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
if [ -z "$CG2MNT" ] || ! scope_works cgroup; then
	skips "$CG_CHECKS" "cgroup: attempt 1's cgroup is removed before attempt 2" \
		"the cgroup scope cannot be set up here"
else
	d=$TMPD/cgroups
	mkdir -p "$d"
	s=$(st guarded 60 "$RUNX" "${CG_LAUNCH_ARGS[@]}" --kill-scope=cgroup --attempts=2 --retry-delay=0 -- \
		sh "$TMPD/cgjob.sh" "$CG2MNT" "$d")
	cg1=$(cat "$d/cg.1" 2>/dev/null) cg2=$(cat "$d/cg.2" 2>/dev/null)
	assert_eq "cgroup: attempt 2 finds attempt 1's cgroup removed (0, not 9)" 0 "$s" \
		"attempt 1: '$cg1', attempt 2: '$cg2' (under $CG2MNT)"
	assert_true "cgroup: attempt 1 saw its own cgroup's directory, the path attempt 2 looked at" \
		test -e "$d/seen.1"
	assert_true "cgroup: each attempt ran in a cgroup of its own, made by runx" \
		own_cgroups "$cg1" "$cg2"
	assert_true "cgroup: neither is left after the run" \
		none_left "$CG2MNT$cg1" "$CG2MNT$cg2"
fi

# --- the stop's cases, the options' and the waits': with the default backend only
# (how each attempt's command is started does not change how its stop,
# its status, the wait before the next attempt or the report's figures
# come out: that is the same code for every backend, once the command
# runs)
backend_rerun && done_testing

# --- --retry-on -----------------------------------------------------------------
# try RETRY-ON CODE...: 3 attempts with --retry-on, the command's code
# from sh; prints "STATUS ATTEMPTS".
try() {
	local on=$1 s
	shift
	rm -f "$C"
	s=$(st runx --attempts=3 --retry-delay=0 "--retry-on=$on" "$@")
	echo "$s $(lines "$C")"
}
assert_eq "retry-on=3: exit 3 is retried" "3 3" "$(try 3 sh -c "echo >>$C; exit 3")"
assert_eq "retry-on=3: exit 4 is not" "4 1" "$(try 3 sh -c "echo >>$C; exit 4")"
assert_eq "retry-on=2-4: exit 4 is retried" "4 3" "$(try 2-4 sh -c "echo >>$C; exit 4")"
assert_eq "retry-on=2-4: exit 5 is not" "5 1" "$(try 2-4 sh -c "echo >>$C; exit 5")"
assert_eq "retry-on=0-1,7: exit 7 is retried" "7 3" "$(try 0-1,7 sh -c "echo >>$C; exit 7")"
assert_eq "retry-on=SIGUSR2: a death by USR2 is retried" "140 3" \
	"$(try SIGUSR2 sh -c "echo >>$C; kill -USR2 \$\$")"
assert_eq "retry-on=SIGUSR2: a death by USR1 is not" "138 1" \
	"$(try SIGUSR2 sh -c "echo >>$C; kill -USR1 \$\$")"
assert_eq "retry-on=signal: a death by a signal runx did not send is retried" "138 3" \
	"$(try signal sh -c "echo >>$C; kill -USR1 \$\$")"
new_marker m
# (the deadlines below leave a loaded machine's sh 1.5 s to write its line)
assert_eq "retry-on=signal: runx's own stop at the deadline is not" "124 1" \
	"$(try signal -t 1.5 -- sh -c "echo >>$C; exec sleep $m")"
assert_eq "retry-on=signal: an exit is not" "1 1" "$(try signal sh -c "echo >>$C; exit 1")"
# A signal runx only forwards (SIGHUP is not a stop signal) that kills the
# command was sent by runx: --retry-on=signal does not retry it, the
# default (failure) does; the report's reason is runx_signaled, with
# runx_signal SIGHUP (not "signaled": a signal runx did not send).
# fwd_hup RETRY-ON: prints "STATUS ATTEMPTS REASON:RUNX_SIGNAL" of attempt 1.
fwd_hup() {
	local m
	new_marker m
	rm -f "$C" "$TMPD/hup.json"
	runx_bg --report="$TMPD/hup.json" --attempts=2 --retry-delay=0 \
		"--retry-on=$1" -- sh -c "echo >>$C; [ \$RUNX_ATTEMPT = 2 ] && exit 0; exec sleep $m"
	poll 400 0.05 [ -s "$C" ]
	kill -HUP "$RUNX_PID"
	wait_pid_exit "$RUNX_PID"
	echo "$WAIT_STATUS $(lines "$C") $("$PY" -c 'import json, sys; a = json.load(open(sys.argv[1]))["attempts"][0]; print("%s:%s" % (a["reason"], a["runx_signal"]))' "$TMPD/hup.json" 2>&1)"
}
assert_eq "retry-on=signal: a death by a signal runx forwarded (HUP) is not retried" \
	"129 1 runx_signaled:SIGHUP" "$(fwd_hup signal)"
assert_eq "retry-on=failure: a death by a signal runx forwarded (HUP) is retried" \
	"0 2 runx_signaled:SIGHUP" "$(fwd_hup failure)"
new_marker m
# attempt 2 writes its number: attempt 1 may be stopped before its sh
# gets anywhere
rm -f "$C"
assert_eq "retry-on=timeout: a deadline is retried, attempt 2 succeeds" "0 2" \
	"$(st runx --attempts=3 --retry-delay=0 --retry-on=timeout -t 0.5 -- \
		sh -c "[ \$RUNX_ATTEMPT = 1 ] && exec sleep $m; echo \$RUNX_ATTEMPT >>$C; exit 0") $(cat "$C")"
assert_eq "retry-on=timeout: an exit 1 is not" "1 1" "$(try timeout sh -c "echo >>$C; exit 1")"
new_marker m
assert_eq "retry-on=failure (default): a deadline is retried" "124 3" \
	"$(try failure -t 1.5 -- sh -c "echo >>$C; exec sleep $m")"
assert_dead "the deadlines' commands are dead" "$m"
assert_eq "retry-on=failure: a death by a signal is retried" "138 3" \
	"$(try failure sh -c "echo >>$C; kill -USR1 \$\$")"
for code in 125 126 127; do
	assert_eq "exit $code is not retried by failure" "$code 1" \
		"$(try failure sh -c "echo >>$C; exit $code")"
	assert_eq "exit $code is retried when listed by number" "$code 3" \
		"$(try "failure,$code" sh -c "echo >>$C; exit $code")"
done

# oom: the job's cgroup counts an OOM kill (memory.events); needs the
# memory controller delegated to runx's cgroup (scripts/vm-check has it).
# MEMORY: yes; no (the refusal names the memory controller); or empty
# (the cgroup scope itself cannot be set up here, whatever the reason).
MEMORY=
if runx_cg --memory-max=64M -- true 2>"$TMPD/memprobe.err"; then
	MEMORY=yes
elif grep -q 'memory controller' "$TMPD/memprobe.err"; then
	MEMORY=no
fi
if [ "$MEMORY" = yes ]; then
	rm -f "$C"
	assert_eq "retry-on=oom: an OOM kill in the job is retried" "137 2" \
		"$(s=$(st runx_cg --memory-max=32M --attempts=2 --retry-delay=0 --retry-on=oom -- \
			sh -c "echo >>$C; $PY -c 'x = bytearray(512 << 20)'; exit \$?"); echo "$s $(lines "$C")")"
	rm -f "$C"
	assert_eq "retry-on=oom: a plain failure is not" "1 1" \
		"$(s=$(st runx_cg --memory-max=32M --attempts=2 --retry-delay=0 --retry-on=oom -- \
			sh -c "echo >>$C; exit 1"); echo "$s $(lines "$C")")"
else
	skips 2 "retry-on=oom" "no cgroup v2 memory controller for runx here"
fi
# Only the job's cgroup counts the OOM killer's kills: oom, where it can
# start another attempt (more than one, failure not listed too), implies
# the cgroup scope as a limit does, and needs the memory controller.
# With another explicit scope: 125, one line naming both, nothing
# started; with one attempt it can start none, and asks for nothing.
rm -f "$C"
err=$(runx --attempts=2 --retry-on=oom -G -- sh -c "echo >>$C" 2>&1)
s=$?
assert_eq "retry-on=oom with -G: 125, one line, nothing started" "125 1 0" \
	"$s $(printf '%s\n' "$err" | wc -l | tr -d ' ') $(lines "$C")" "$err"
assert_match "retry-on=oom with -G: the message names both" \
	"^runx: --retry-on=oom reads the job's cgroup \\(memory\\.events\\); it cannot be combined with --kill-scope=group$" "$err"
assert_eq "retry-on=oom with -G and one attempt: oom can start none, the run goes on (0, ran once)" "0 1" \
	"$(s=$(st runx --retry-on=oom -G -- sh -c "echo >>$C"); echo "$s $(lines "$C")")"
# With no limit: where runx's cgroup is offered the memory controller, the
# job's cgroup gets it (the report's oom_kills is a number, not null);
# where it is not, 125 naming --retry-on=oom and the controller, nothing
# started (it could never tell an OOM kill).
rm -f "$C"
"$RUNX" "${CG_LAUNCH_ARGS[@]}" --attempts=2 --retry-on=oom --report="$TMPD/oomonly.json" -- \
	sh -c "echo >>$C" 2>"$TMPD/oomonly.err" &
pid=$!
wait "$pid"
s=$?
err=$(cat "$TMPD/oomonly.err")
case $MEMORY in
yes)
	assert_eq "retry-on=oom, no limit: 0, the command ran once" "0 1" "$s $(lines "$C")" "$err"
	assert_eq "retry-on=oom, no limit: the report's oom_kills is 0 (the job has memory.events)" 0 \
		"$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["oom_kills"])' "$TMPD/oomonly.json" 2>&1)"
	;;
no)
	assert_eq "retry-on=oom, no memory controller: 125, one line, nothing started" "125 1 0" \
		"$s $(printf '%s\n' "$err" | wc -l | tr -d ' ') $(lines "$C")" "$err"
	assert_match "retry-on=oom, no memory controller: the message names the option and the controller" \
		"^runx: --retry-on=oom: the (cgroup v2 )?memory controller" "$err"
	;;
*) skips 2 "retry-on=oom, no limit" "the cgroup scope cannot be set up here: $(head -n 1 "$TMPD/memprobe.err")" ;;
esac
if [ -n "$CG2MNT" ]; then
	CGMNT=$CG2MNT assert_no_cgroup "retry-on=oom, no limit: no cgroup left" "$pid"
else
	skips 1 "retry-on=oom, no limit: no cgroup left" "no cgroup2 file system is mounted"
fi

# --- --success-exit ---------------------------------------------------------------
rm -f "$C"
assert_eq "success-exit=3: exit 3 is a success (0, no retry)" "0 1" \
	"$(s=$(st runx --attempts=3 --retry-delay=0 --success-exit=3 -- sh -c "echo >>$C; exit 3"); echo "$s $(lines "$C")")"
rm -f "$C"
assert_eq "success-exit=2-4,SIGUSR1: a death by USR1 is a success" "0 1" \
	"$(s=$(st runx --attempts=3 --retry-delay=0 --success-exit=2-4,SIGUSR1 -- sh -c "echo >>$C; kill -USR1 \$\$"); echo "$s $(lines "$C")")"
rm -f "$C"
assert_eq "success-exit=3: exit 5 is retried" "5 3" \
	"$(s=$(st runx --attempts=3 --retry-delay=0 --success-exit=3 -- sh -c "echo >>$C; exit 5"); echo "$s $(lines "$C")")"
# the report: the run's exit_status is 0, the attempt's is its own (143)
rm -f "$TMPD/se.json"
s=$(st runx --report="$TMPD/se.json" --attempts=2 --success-exit=SIGTERM -- sh -c 'kill -TERM $$')
assert_eq "success-exit=SIGTERM: runx 0, the report 0, its attempt 143 by SIGTERM" "0 0 143:SIGTERM" \
	"$s $("$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); a = r["attempts"][0]; print(r["exit_status"], "%s:%s" % (a["exit_status"], a["signal"]))' "$TMPD/se.json" 2>&1)"
# --success-exit names how the command ended on its own: runx's own stop
# at a deadline (the command dies by SIGTERM, runx's status is 124) is
# neither of the listed ones
new_marker m
assert_eq "success-exit=SIGTERM,124: runx's stop at the deadline is no success (124)" 124 \
	"$(st runx --success-exit=SIGTERM,124 -t 0.3 -- sleep "$m")"
rm -f "$C"
# (-t 1.5: a loaded machine's sh has time to write its line)
assert_eq "success-exit=SIGTERM,124: attempt 1's deadline is retried, 2 ran, 124" "124 2" \
	"$(s=$(st runx --success-exit=SIGTERM,124 --attempts=2 --retry-delay=0 -t 1.5 -- \
		sh -c "echo >>$C; exec sleep $m"); echo "$s $(lines "$C")")"
assert_dead "success-exit=SIGTERM,124: the stopped commands are dead" "$m"

# --- -t and --idle-timeout apply to each attempt --------------------------------
# Two attempts of 1.6 s each under -t 3: a deadline of the run would fire
# in attempt 2 (3.2 s in all); each attempt's own does not (1.4 s to spare
# for a loaded machine's sh).  Attempt 1 fails, attempt 2 succeeds.
assert_eq "-t applies to each attempt: two attempts of 1.6 s under -t 3 (0, not 124)" 0 \
	"$(st runx --attempts=2 --retry-delay=0 -t 3 -- sh -c 'sleep 1.6; [ $RUNX_ATTEMPT = 2 ]')"
# Attempt 1 is silent until its idle deadline; attempt 2 (after the
# default 1 s wait) gets one of its own and exits 0 at once.
new_marker m
s=$(st runx -v --idle-timeout=1.5 --retry-on=timeout --attempts=2 -- \
	sh -c "[ \$RUNX_ATTEMPT = 2 ] || exec sleep $m" 2>"$TMPD/v")
assert_eq "--idle-timeout applies to each attempt: attempt 2 has its own (0, not 124)" 0 "$s"
assert_match "--idle-timeout per attempt: -v says attempt 1 ended at its idle deadline" \
	"runx: attempt 1 of 2 ended at its idle deadline \\(status 124\\); attempt 2 in 1\\.0s" "$(cat "$TMPD/v")"
assert_dead "--idle-timeout per attempt: attempt 1's command is dead" "$m"

# --- the waits ------------------------------------------------------------------------
read -r s ms < <(elapsed_ms runx --attempts=3 --retry-delay=0.5 --backoff=2 -- false)
assert_eq "delays 0.5s, backoff 2: status 1" 1 "$s"
assert_true "delays 0.5s + 1s: at least 1.5 s ($ms ms)" [ "$ms" -ge 1500 ]
assert_true "delays 0.5s + 1s: less than 8 s ($ms ms)" [ "$ms" -lt 8000 ]

read -r s ms < <(elapsed_ms runx --attempts=3 --retry-delay=0.4 --backoff=10 --retry-delay-max=0.5 -- false)
assert_true "retry-delay-max=0.5: 0.4s + 0.5s, at least 0.9 s ($ms ms)" [ "$ms" -ge 900 ]
assert_true "retry-delay-max=0.5: not 0.4s + 4s ($ms ms)" [ "$ms" -lt 4300 ]

read -r s ms < <(elapsed_ms runx --attempts=3 --retry-delay=0.5 --backoff=2 --jitter=0.5 -- false)
assert_true "jitter=0.5: at least half of 1.5 s ($ms ms)" [ "$ms" -ge 750 ]
assert_true "jitter=0.5: less than 8 s ($ms ms)" [ "$ms" -lt 8000 ]

# the spread: the wait -v announces, 5 runs of a 100 s delay with
# --jitter=1, each ended by SIGTERM once -v has announced it (however slow
# the machine is); each in (0, 100], not all equal
waits=""
for _ in 1 2 3 4 5; do
	runx_bg -v --attempts=2 --retry-delay=100 --jitter=1 -- false 2>"$TMPD/jv"
	poll 1200 0.05 grep -q 'attempt 2 in' "$TMPD/jv"
	kill -TERM "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 60
	# (a wait under 0.1 s, one chance in a thousand, is told in ms)
	w=$(sed -n 's/.*attempt 2 in \([0-9.]*\)s$/\1/p; s/.*attempt 2 in \([0-9.]*\)ms$/0.001*\1/p' "$TMPD/jv")
	waits+="${w:-none} "
done
assert_true "jitter=1: every wait within 0..100 s ($waits)" \
	awk -v w="$waits" 'BEGIN { n = split(w, a, " "); for (i = 1; i <= n; i++) { if (a[i] ~ /^0\.001\*[0-9.]+$/) a[i] = 0.001 * substr(a[i], 7); else if (a[i] !~ /^[0-9.]+$/) exit 1; if (a[i] + 0 > 100) exit 1 } }'
assert_true "jitter=1: the waits differ ($waits)" \
	[ "$(tr ' ' '\n' <<<"$waits" | sed '/^$/d' | sort -u | wc -l)" -ge 2 ]

out=$(runx -v --attempts=2 --retry-delay=0.25 -- false 2>&1 >/dev/null)
assert_match "-v: how attempt 1 ended and when attempt 2 starts (0.25 s rounded half up)" \
	"runx: attempt 1 of 2 ended with exit status 1; attempt 2 in 0\\.3s" "$out"
# rounded in whole numbers: 150 ms is 0.2s (a double's 0.15 is below
# 0.15, and printf made it "0.1s": trial 6), 99.99 ms 0.1s
out=$(runx -v --attempts=3 --retry-delay=150ms --backoff=1 -- false 2>&1 >/dev/null; runx -v --attempts=2 --retry-delay=99.99ms -- false 2>&1 >/dev/null)
assert_eq "-v: the wait rounded half up (150 ms: 0.2s; 99.99 ms: 0.1s)" "2 1" \
	"$(grep -c 'attempt [23] in 0\.2s$' <<<"$out") $(grep -c 'attempt 2 in 0\.1s$' <<<"$out")" "$out"
assert_match "-v: how the run ended" "runx: attempt 2 of 2 ended with exit status 1; no attempt left" "$out"
runx_bg -v --attempts=2 --retry-delay=inf --retry-delay-max=inf -- false 2>"$TMPD/inf"
poll 1200 0.05 grep -q 'attempt 2 in' "$TMPD/inf"
kill -TERM "$RUNX_PID"
wait_pid_exit "$RUNX_PID" 60
assert_eq "-v: a wait with no end is told as 'in inf'" 1 \
	"$(grep -c 'attempt 1 of 2 ended with exit status 1; attempt 2 in inf$' "$TMPD/inf")" "$(cat "$TMPD/inf")"
out=$(runx -v --attempts=3 --retry-delay=10ms -- false 2>&1 >/dev/null)
assert_eq "-v: a wait under 0.1 s is told in ms (10ms, then 20ms)" \
	"1 1" "$(grep -c 'attempt 1 of 3 ended with exit status 1; attempt 2 in 10\.0ms$' <<<"$out") $(grep -c 'attempt 2 of 3 ended with exit status 1; attempt 3 in 20\.0ms$' <<<"$out")" "$out"
out=$(runx -v --attempts=3 --retry-on=2 -- false 2>&1 >/dev/null)
assert_match "-v: an outcome --retry-on does not name ends the run" \
	"runx: attempt 1 of 3 ended with exit status 1; not retried \\(--retry-on=2\\)" "$out"
out=$(runx -v --attempts=inf --retry-delay=0 -- sh -c '[ $RUNX_ATTEMPT = 2 ]' 2>&1)
assert_match "-v: --attempts=inf says 'of inf'" "attempt 1 of inf ended with exit status 1; attempt 2 in 0\\.0s" "$out"
out=$(runx -v --attempts=2 --retry-on=143 -- sh -c 'kill -TERM $$' 2>&1 >/dev/null)
assert_match "-v: a death by a signal is named, not called exit status 143 (which --retry-on=143 does not match)" \
	"runx: attempt 1 of 2 ended by SIGTERM \\(status 143\\); not retried \\(--retry-on=143\\)" "$out"
out=$(runx -v --attempts=2 --retry-on=124 -t 0.2 -- sleep 30 2>&1 >/dev/null)
assert_match "-v: a deadline is named, not called exit status 124" \
	"runx: attempt 1 of 2 ended at its deadline \\(status 124\\); not retried" "$out"
out=$(runx -v --attempts=3 --retry-delay=0 -- sh -c '[ $RUNX_ATTEMPT = 2 ]' 2>&1 >/dev/null)
assert_match "-v: a success ends the run" \
	"runx: attempt 2 of 3 ended with exit status 0; a success: runx exits 0" "$out"
out=$(runx -v --attempts=3 --success-exit=3 -- sh -c 'exit 3' 2>&1 >/dev/null)
assert_match "-v: a --success-exit status is a success too" \
	"runx: attempt 1 of 3 ended with exit status 3; a success: runx exits 0" "$out"
# A launch that fails in the child, before execve (a real fault:
# setgroups(2) in a user namespace that denies it, unshare -r), is
# attempt 1 all the same: 125, attempt_count 1, its error, not retried
# without 125 in --retry-on; the command never ran.  In the pidns scope
# the init's child fails so.  A PID namespace runx cannot make (a /proc
# with a part masked by a mount, which a user namespace may not mount
# again: the kernel's mnt_too_revealing()) is no attempt: attempt_count 0.
if ! unshare -U -r true 2>/dev/null; then
	skips 7 "attempts: a launch that fails in the child" "unshare -U -r (a user namespace) is not permitted here"
else
	for sc in group pidns; do
		rm -f "$C"
		s=$(st unshare -U -r "$RUNX" -v -u 0 --kill-scope=$sc --attempts=3 --report="$TMPD/setgroups.json" -- \
			sh -c "echo >>$C" 2>"$TMPD/setgroups.err")
		assert_eq "$sc: a launch that fails in the child (setgroups): 125, the command never ran" "125 0" \
			"$s $(lines "$C")" "$(cat "$TMPD/setgroups.err")"
		assert_eq "$sc: a launch that fails in the child: attempt 1, runx_error 125, its error says setgroups" \
			"1 1 runx_error 125 True" \
			"$("$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); a = r["attempts"][0]; print(r["attempt_count"], len(r["attempts"]), a["reason"], a["exit_status"], "setgroups failed in the child" in a["error"])' "$TMPD/setgroups.json" 2>&1)"
		assert_eq "$sc: a launch that fails in the child: -v says attempt 1 ended, not retried" 1 \
			"$(grep -c '^runx: attempt 1 of 3 ended with exit status 125; not retried (125 only when --retry-on lists it)$' "$TMPD/setgroups.err")" \
			"$(cat "$TMPD/setgroups.err")"
	done
	rm -f "$C" "$TMPD/nopidns.json"
	s=$(st unshare -m sh -c 'mount --make-rprivate / && mount --bind /dev/null /proc/timer_list &&
		exec unshare -U -r "$0" --kill-scope=pidns --attempts=3 --report="$1" -- sh -c "echo >>$2"' \
		"$RUNX" "$TMPD/nopidns.json" "$C" 2>"$TMPD/nopidns.err")
	assert_eq "a PID namespace runx cannot make (masked /proc): 125, attempt_count 0, none listed, nothing ran" \
		"125 0 0 0 True" \
		"$s $("$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["attempt_count"], len(r["attempts"]), "cannot mount a new /proc" in r["error"])' "$TMPD/nopidns.json" 2>&1 | sed "s/^/$(lines "$C") /")" \
		"$(cat "$TMPD/nopidns.err")"
fi
# A command that exits 125 itself is attempt 1 like any other (trial 8:
# it was taken for runx's own failure before a launch, attempt_count 0
# and no -v line of its end), in every scope; and so is a launch that
# fails for want of a process (a real fault: RLIMIT_NPROC of 1 for an
# unprivileged user, whose vfork(2) fails with EAGAIN).
for sc in group tree cgroup pidns child; do
	if ! scope_works "$sc"; then
		skips 2 "$sc: a command that exits 125 itself" "the $sc scope cannot be set up here"
		continue
	fi
	R=("$RUNX" "${LAUNCH_ARGS[@]}")
	[ "$sc" = cgroup ] && R=("$RUNX" "${CG_LAUNCH_ARGS[@]}")
	rm -f "$C"
	s=$(st "${R[@]}" -v --kill-scope=$sc --attempts=2 --retry-delay=0 --report="$TMPD/own125.json" -- \
		sh -c "echo >>$C; exit 125" 2>"$TMPD/own125.err")
	assert_eq "$sc: a command that exits 125 itself: 125, ran once; -v says attempt 1 ended and runx exits 125" \
		"125 1 1 1" \
		"$s $(lines "$C") $(grep -c '^runx: attempt 1 of 2 ended with exit status 125; not retried (125 only when --retry-on lists it)$' "$TMPD/own125.err") $(grep -c '^runx: exiting with status 125$' "$TMPD/own125.err")" \
		"$(cat "$TMPD/own125.err")"
	assert_eq "$sc: a command that exits 125 itself: report: attempt_count 1, one attempt, exited with exit code 125" \
		"1 1 exited 125 exited 125" \
		"$("$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); a = r["attempts"][0]; print(r["attempt_count"], len(r["attempts"]), r["reason"], r["exit_code"], a["reason"], a["exit_code"])' "$TMPD/own125.json" 2>&1)"
done
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skips 4 "a launch with no process to be made" "needs root and setpriv (util-linux) to run runx as another user with RLIMIT_NPROC 1"
else
	setup_nobody # a directory that user can write the report in, and a runx it can run
	d=$NOBODY_DIR
	# the pidns scope's init is the process that cannot be made there
	# (in a user namespace of its own, as that user has no CAP_SYS_ADMIN)
	for sc in group pidns; do
		# LeakSanitizer's check at exit needs a thread, which
		# RLIMIT_NPROC 1 denies (a fatal error, 134): off here
		s=$(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" st as_nobody bash -c 'ulimit -u 1 && exec "$@"' bash \
			"$NRUNX" "${LAUNCH_ARGS[@]}" -v --kill-scope=$sc --attempts=2 --report="$d/$sc.json" -- true 2>"$TMPD/nproc.err")
		assert_eq "$sc: no process can be made (RLIMIT_NPROC): 125; -v says attempt 1 ended, not retried" "125 1" \
			"$s $(grep -c '^runx: attempt 1 of 2 ended with exit status 125; not retried (125 only when --retry-on lists it)$' "$TMPD/nproc.err")" \
			"$(cat "$TMPD/nproc.err")"
		assert_eq "$sc: no process can be made: report: attempt 1, runx_error, its error says why" "1 1 runx_error True" \
			"$("$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); a = r["attempts"][0]; print(r["attempt_count"], len(r["attempts"]), a["reason"], "Resource temporarily unavailable" in a["error"])' "$d/$sc.json" 2>&1)"
	done
fi
# A scope that cannot be set up for the first attempt: without 125 in
# --retry-on the run ends at once with no attempt made (attempt_count 0);
# with it (SPEC: "not retried unless listed by number: 125"), each
# attempt tries again.  Here: --memory-max where the memory controller is
# not offered (this host's is on cgroup v1).
if [ "$MEMORY" = yes ]; then
	skips 6 "attempts: a scope that cannot be set up" "the memory controller is offered here"
else
	rm -f "$C"
	s=$(st runx_cg --memory-max=64M --attempts=3 --report="$TMPD/noscope.json" -- \
		sh -c "echo >>$C")
	assert_eq "a scope that cannot be set up for attempt 1: 125" 125 "$s"
	assert_eq "a scope that cannot be set up, 125 not listed: attempt_count 0, no attempt listed" "0 0" \
		"$("$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["attempt_count"], len(r["attempts"]))' "$TMPD/noscope.json" 2>&1)"
	assert_false "a scope that cannot be set up: the command never ran" test -e "$C"
	s=$(st runx_cg -v --memory-max=64M --attempts=3 --retry-on=125 --retry-delay=0 \
		--report="$TMPD/noscope.json" -- sh -c "echo >>$C" 2>"$TMPD/noscope.err")
	assert_eq "a scope that cannot be set up, --retry-on=125: 125 after 3 attempts" 125 "$s"
	assert_eq "a scope that cannot be set up, --retry-on=125: attempt_count 3, each runx_error 125" \
		"3 3 runx_error:125,runx_error:125,runx_error:125" \
		"$("$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["attempt_count"], len(r["attempts"]), ",".join("%s:%s" % (a["reason"], a["exit_status"]) for a in r["attempts"]))' "$TMPD/noscope.json" 2>&1)"
	assert_eq "a scope that cannot be set up, --retry-on=125: -v says attempt 2 and 3 follow, the command never ran" \
		"1 1 no" \
		"$(grep -c 'attempt 1 of 3 ended with exit status 125; attempt 2 in 0\.0s' "$TMPD/noscope.err") $(grep -c 'attempt 3 of 3 ended with exit status 125; no attempt left' "$TMPD/noscope.err") $([ -e "$C" ] && echo ran || echo no)" \
		"$(cat "$TMPD/noscope.err")"
fi
# A command that cannot run, found before attempt 1: a command not found
# in PATH at all (127), a path that does not exist (127), one that is not
# executable (126).  Without its status in --retry-on the run ends at once
# with no attempt made (attempt_count 0); listed by number, it is retried
# like any outcome (the SPEC's "not retried unless listed by number").
printf '#!/bin/sh\nexit 0\n' >"$TMPD/noexec"
chmod 644 "$TMPD/noexec"
for found in "127 /nonexistent/runx-test a path that does not exist" \
	"127 runx-test-not-in-path a name not in PATH" \
	"126 $TMPD/noexec a file without execute permission"; do
	read -r want cmd what <<<"$found"
	rm -f "$TMPD/pre.json"
	s=$(st runx -v --attempts=3 --retry-delay=0 --report="$TMPD/pre.json" -- \
		"$cmd" 2>"$TMPD/pre.err")
	assert_eq "$what: $want" "$want" "$s" "$(cat "$TMPD/pre.err")"
	assert_eq "$what: report: attempt_count 0, reason exec_failed, exit_status $want, no attempt listed" \
		"0 exec_failed $want 0" \
		"$("$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["attempt_count"], r["reason"], r["exit_status"], len(r["attempts"]))' "$TMPD/pre.json" 2>&1)"
	assert_eq "$what: not retried: -v says the failure, then exiting with status $want, no attempt started" \
		"2 1 1 0" \
		"$(wc -l <"$TMPD/pre.err" | tr -d ' ') $(grep -c "failed to run command" "$TMPD/pre.err") $(grep -cx "runx: exiting with status $want" "$TMPD/pre.err") $(grep -c -e "started '" -e "attempt" "$TMPD/pre.err")" \
		"$(cat "$TMPD/pre.err")"
	rm -f "$TMPD/pre.json"
	s=$(st runx -v --attempts=3 --retry-on="$want" --retry-delay=0 --report="$TMPD/pre.json" -- \
		"$cmd" 2>"$TMPD/pre.err")
	assert_eq "$what: $want after 3 attempts with --retry-on=$want" "$want" "$s" "$(cat "$TMPD/pre.err")"
	# each attempt has its own start (not 1970), the run's is attempt 1's
	assert_eq "$what, --retry-on=$want: report: attempt_count 3, each exec_failed $want, each with its start" \
		"3 exec_failed $want exec_failed:$want,exec_failed:$want,exec_failed:$want True" \
		"$("$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))
a = r["attempts"]
starts = [x["start_time"] for x in a]
print(r["attempt_count"], r["reason"], r["exit_status"], ",".join("%s:%s" % (x["reason"], x["exit_status"]) for x in a),
      r["start_time"] == starts[0] and starts == sorted(starts) and not starts[0].startswith("1970") and r["wall_time"] >= 0)
' "$TMPD/pre.json" 2>&1)"
	assert_eq "$what, --retry-on=$want: -v: 3 failures, attempts 2 and 3 announced, none left" \
		"3 1 1 1" \
		"$(grep -c "failed to run command" "$TMPD/pre.err") $(grep -c "attempt 1 of 3 ended with exit status $want; attempt 2 in 0\.0s" "$TMPD/pre.err") $(grep -c "attempt 2 of 3 ended with exit status $want; attempt 3 in 0\.0s" "$TMPD/pre.err") $(grep -c "attempt 3 of 3 ended with exit status $want; no attempt left" "$TMPD/pre.err")" \
		"$(cat "$TMPD/pre.err")"
done
# --retry-on=127: a command installed while the run waits is found by a
# later attempt, also by a relative path with --chdir (made absolute from
# runx's directory, as for attempt 1; posix_spawn cannot apply --chdir,
# so it runs from runx's directory).  The installer waits for runx's
# second failure before it installs, so at least two attempts fail.
mkdir -p "$TMPD/inst"
rm -f "$TMPD/inst/later" "$TMPD/inst.err"
chdir_to=/ inst_dir=/
if [ "${RUNX_LAUNCH:-}" = posix_spawn ]; then
	chdir_to='' inst_dir=$(cd "$TMPD/inst" && pwd -P)
fi
(
	cd "$TMPD/inst" || exit 1
	"$RUNX" "${LAUNCH_ARGS[@]}" -v --attempts=inf --retry-on=127 --retry-delay=50ms --backoff=1 \
		--total-timeout=60 ${chdir_to:+"--chdir=$chdir_to"} -- ./later >"$TMPD/inst.out" 2>"$TMPD/inst.err"
	echo $? >"$TMPD/inst.st"
) &
inst=$!
for _ in $(seq 600); do
	[ "$(grep -c 'failed to run command' "$TMPD/inst.err" 2>/dev/null)" -ge 2 ] && break
	sleep 0.05
done
printf '#!/bin/sh\necho "ran in $(pwd) as attempt $RUNX_ATTEMPT"\n' >"$TMPD/inst/later.tmp"
chmod 755 "$TMPD/inst/later.tmp"
mv "$TMPD/inst/later.tmp" "$TMPD/inst/later"
wait "$inst"
n_failed=$(grep -c 'failed to run command' "$TMPD/inst.err")
assert_eq "--retry-on=127: a command installed between attempts runs: exit 0" 0 "$(cat "$TMPD/inst.st")" "$(cat "$TMPD/inst.err")"
assert_true "--retry-on=127: at least 2 attempts failed before it ($n_failed)" [ "$n_failed" -ge 2 ]
assert_eq "--retry-on=127: it ran once, from $inst_dir, as the attempt after the failures" \
	"ran in $inst_dir as attempt $((n_failed + 1))" "$(cat "$TMPD/inst.out")"

# --- --total-timeout ---------------------------------------------------------------------
new_marker m
rm -f "$C"
read -r s ms < <(elapsed_ms guarded 30 "$RUNX" "${LAUNCH_ARGS[@]}" -v --attempts=3 --retry-delay=0 \
	--total-timeout=1 -k 0.5 --report="$TMPD/tt.json" -- sh -c "echo >>$C; trap '' TERM; sleep $m; :" 2>"$TMPD/v")
assert_eq "total-timeout during an attempt: 124" 124 "$s"
assert_true "total-timeout during an attempt: ends within 8 s ($ms ms)" [ "$ms" -lt 8000 ]
assert_true "total-timeout during an attempt: not before 1 s ($ms ms)" [ "$ms" -ge 1000 ]
assert_eq "total-timeout during an attempt: no further attempt" 1 "$(lines "$C")"
assert_dead "total-timeout during an attempt: the TERM-ignoring command is dead" "$m"
assert_match "total-timeout during an attempt: -v says the run's total deadline stopped it" \
	"runx: attempt 1 of 3 ended at the run's total deadline \\(status 124\\); no further attempt" "$(cat "$TMPD/v")"
# the stop was a whole one: the first signal (with SIGCONT, and again for
# newcomers), then SIGKILL after the grace period
assert_eq "total-timeout during an attempt: report: reason total_timeout, 124, signals SIGTERM then SIGKILL" \
	"total_timeout 124 1 total_timeout SIGTERM ... SIGKILL" \
	"$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [x["signal"] for x in d["signals_sent"]]
between = "..." if set(names[1:-1]) <= {"SIGTERM", "SIGCONT"} else names[1:-1]
print(d["reason"], d["exit_status"], d["attempt_count"], d["attempts"][0]["reason"],
      names[0] if names else None, between, names[-1] if names else None)
' "$TMPD/tt.json" 2>&1)"
new_marker m
assert_eq "total-timeout ends the run with 124 even with -p" 124 \
	"$(st runx -p --attempts=2 --total-timeout=0.5 -- sh -c "sleep $m")"
rm -f "$C"
read -r s ms < <(elapsed_ms runx -v --attempts=3 --retry-delay=10 --total-timeout=1 -- sh -c "echo >>$C; exit 1" 2>"$TMPD/v")
assert_eq "total-timeout during a wait: 124" 124 "$s"
assert_true "total-timeout during a wait: at once, not after the 10 s wait ($ms ms)" [ "$ms" -lt 6000 ]
assert_true "total-timeout during a wait: not before 1 s ($ms ms)" [ "$ms" -ge 1000 ]
assert_eq "total-timeout during a wait: no further attempt" 1 "$(lines "$C")"
assert_match "total-timeout during a wait: -v says it was reached during the wait" \
	"runx: total deadline of the run reached during the wait before attempt 2" "$(cat "$TMPD/v")"
# the total deadline passes while attempt 1 is being stopped at its own
# deadline (its grace period): no further attempt, and -v says so rather
# than announce attempt 2
new_marker m
rm -f "$C"
s=$(st runx -v -t 0.3 -k 2 --total-timeout=1 --attempts=3 --retry-on=timeout -- \
	sh -c "echo >>$C; trap '' TERM; sleep $m" 2>"$TMPD/v")
assert_eq "total-timeout in attempt 1's grace period: 124, no further attempt" "124 1" "$s $(lines "$C")"
assert_match "total-timeout in attempt 1's grace period: -v says no further attempt, announces none" \
	"^runx: attempt 1 of 3 ended at its deadline \\(status 124\\); the run's total deadline has passed: no further attempt\$" \
	"$(grep "attempt 1 of 3" "$TMPD/v")"
assert_eq "total-timeout in attempt 1's grace period: -v says the run's deadline came during the stop" 1 \
	"$(grep -c "^runx: total deadline of the run reached during the stop: no further attempt\$" "$TMPD/v")" "$(cat "$TMPD/v")"
# ... or while the leftovers of a command that exited 7 are stopped: 124
# too (the run's deadline passed), whether or not the outcome would have
# been retried, and with one attempt as with two
for attempts in 1 2; do
	new_marker m
	s=$(st runx -v --total-timeout=1 -k 3 --attempts=$attempts --report="$TMPD/tl.json" -- \
		sh -c "(trap '' TERM; sleep $m) & sleep 0.3; exit 7" 2>"$TMPD/v")
	assert_eq "total-timeout while leftovers are stopped, --attempts=$attempts: 124; the report's reason, and attempt 1's own" \
		"124 total_timeout 1 exited 7" \
		"$s $("$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); a = r["attempts"][0]; print(r["reason"], r["attempt_count"], a["reason"], a["exit_code"])' "$TMPD/tl.json" 2>&1)" "$(cat "$TMPD/v")"
	assert_match "total-timeout while leftovers are stopped, --attempts=$attempts: -v says the run's deadline came during the stop" \
		"runx: total deadline of the run reached during the stop: no further attempt" "$(cat "$TMPD/v")"
	assert_dead "total-timeout while leftovers are stopped, --attempts=$attempts: the leftover is dead" "$m"
done

# --- stop signals ---------------------------------------------------------------------------
new_marker m
rm -f "$C"
runx_bg -v --attempts=3 --retry-delay=0 -- sh -c "echo >>$C; exec sleep $m" 2>"$TMPD/v"
# the marker is in runx's own command line too: wait for the attempt's line
poll 600 0.05 test -s "$C" || true
kill -TERM "$RUNX_PID"
wait_pid_exit "$RUNX_PID"
assert_eq "TERM to runx during an attempt: 143" 143 "$WAIT_STATUS"
assert_eq "TERM to runx during an attempt: no further attempt" 1 "$(lines "$C")"
assert_dead "TERM to runx during an attempt: the command is dead" "$m"
assert_match "TERM to runx during an attempt: -v says runx was told to stop" \
	"runx: attempt 1 of 3 ended [^;]*; runx was told to stop" "$(cat "$TMPD/v")"
# ... but a command that dies of the forwarded stop signal, with that
# signal in --success-exit, is a success (docker stop and
# --success-exit=SIGTERM, as systemd's SuccessExitStatus=SIGTERM): 0, no
# further attempt
new_marker m
rm -f "$C"
runx_bg -v --attempts=3 --retry-delay=0 --success-exit=SIGTERM -- sh -c "echo >>$C; exec sleep $m" 2>"$TMPD/v"
poll 600 0.05 test -s "$C" || true
kill -TERM "$RUNX_PID"
wait_pid_exit "$RUNX_PID"
assert_eq "TERM to runx, --success-exit=SIGTERM: 0 after 1 attempt, the command dead" "0 1 dead" \
	"$WAIT_STATUS $(lines "$C") $(marked_list "$m" | grep -q . && echo alive || echo dead)" "$(cat "$TMPD/v")"
assert_match "TERM to runx, --success-exit=SIGTERM: -v says it is a success" \
	"runx: attempt 1 of 3 ended by SIGTERM \\(status 143\\); a success: runx exits 0" "$(cat "$TMPD/v")"
# ... but not runx's own SIGKILL at the end of that stop's grace period,
# even with SIGKILL in --success-exit: runx dies by it (137)
new_marker m
rm -f "$C"
runx_bg -k 0.5 --success-exit=SIGKILL -- sh -c "trap '' TERM; echo >>$C; exec sleep $m"
poll 600 0.05 test -s "$C" || true
kill -TERM "$RUNX_PID"
wait_pid_exit "$RUNX_PID"
assert_eq "TERM to runx, --success-exit=SIGKILL: runx's SIGKILL after the grace is no success (137)" 137 "$WAIT_STATUS"

rm -f "$C" "$TMPD/v"
runx_bg -v --attempts=3 --retry-delay=30 -- sh -c "echo >>$C; exit 1" 2>"$TMPD/v"
poll 400 0.05 grep -qs "attempt 2 in" "$TMPD/v"
t0=$(date +%s%N)
kill -TERM "$RUNX_PID"
wait_pid_exit "$RUNX_PID"
t1=$(date +%s%N)
assert_eq "TERM to runx during a wait: 143, as if the command died by it" 143 "$WAIT_STATUS"
assert_true "TERM to runx during a wait: at once ($(((t1 - t0) / 1000000)) ms)" [ $(((t1 - t0) / 1000000)) -lt 10000 ]
assert_eq "TERM to runx during a wait: no further attempt" 1 "$(lines "$C")"

# A Python parent (subprocess, as in stop-signals.sh) sees runx die by the
# stop signal that came during a wait (returncode -N), as if the command
# had been killed by it; the report says runx was signaled.
cat >"$TMPD/waitstop.py" <<'EOF'
# waitstop.py SIGNUM ERRFILE COMMAND...: runs COMMAND (a runx -v) with its
# stderr in ERRFILE; once -v says attempt 2 is due, sends it SIGNUM;
# prints its returncode ("hung" if it did not end within 60 s), after
# "no-wait" if -v never said so.
import signal, subprocess, sys, time
sig, err = int(sys.argv[1]), sys.argv[2]
def child():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
with open(err, "wb") as e:
    p = subprocess.Popen(sys.argv[3:], stderr=e, preexec_fn=child)
seen = False
end = time.monotonic() + 60
while not seen and time.monotonic() < end:
    with open(err, "rb") as f:
        seen = b"attempt 2 in" in f.read()
    if not seen:
        time.sleep(0.02)
p.send_signal(sig)
try:
    rc = p.wait(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    p.wait()
    rc = "hung"
print(rc if seen else "no-wait %s" % rc)
EOF
for sig in INT TERM; do
	rm -f "$C" "$TMPD/stopwait.json"
	got=$("$PY" "$TMPD/waitstop.py" "$(kill -l "$sig")" "$TMPD/v" "$RUNX" "${LAUNCH_ARGS[@]}" -v \
		--attempts=3 --retry-delay=30 --report="$TMPD/stopwait.json" -- sh -c "echo >>$C; exit 1" 2>&1)
	assert_eq "SIG$sig to runx during a wait: a Python parent sees it die by SIG$sig, no further attempt" \
		"-$(kill -l "$sig") 1" "$got $(lines "$C")"
done
# (the report of the SIGTERM run)
# (exit_code and signal: the last command's, which exited 1; the runx
# before said "signal": "SIGTERM", a death no command had)
assert_eq "SIGTERM during a wait: report: reason runx_signaled, runx_signal SIGTERM, 143, attempt_count 1, the last command's exit code" \
	"runx_signaled SIGTERM 143 1 1 exited 1 None" \
	"$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["reason"], d["runx_signal"], d["exit_status"], d["attempt_count"],
      len(d["attempts"]), d["attempts"][0]["reason"], d["exit_code"],
      d["signal"])
' "$TMPD/stopwait.json" 2>&1)"

rm -f "$C" "$TMPD/v"
runx_bg -v --attempts=2 --retry-delay=1.5 -- sh -c "echo >>$C; exit 1" 2>"$TMPD/v"
poll 400 0.05 grep -qs "attempt 2 in" "$TMPD/v"
kill -HUP "$RUNX_PID"
wait_pid_exit "$RUNX_PID"
assert_eq "HUP to runx during a wait: the run goes on (status 1)" 1 "$WAIT_STATUS"
assert_eq "HUP to runx during a wait: attempt 2 ran" 2 "$(lines "$C")"
assert_match "HUP to runx during a wait: -v says it went nowhere" \
	"received SIGHUP during the wait before attempt 2; no command to forward it to" "$(cat "$TMPD/v")"

# --- as PID 1: orphans are reaped during the wait ------------------------------------------
# Attempt 1 (child scope: nothing stops it) leaves an orphan that exits
# 0.3 s into the 1.5 s wait; re-parented to runx, PID 1, it must not be a
# zombie when attempt 2 looks (exit 9 if one is).
cat >"$TMPD/zombie.sh" <<'JOB'
if [ "$RUNX_ATTEMPT" = 1 ]; then
	setsid sh -c 'sleep 0.3' &
	exit 1
fi
for f in /proc/[0-9]*/stat; do
	read -r line <"$f" 2>/dev/null || continue
	case ${line##*) } in Z*) echo "zombie: $line" >&2; exit 9 ;; esac
done
exit 0
JOB
if unshare --pid --fork --mount-proc true 2>/dev/null; then
	assert_eq "as PID 1: an orphan that exited during the wait was reaped" 0 \
		"$(st guarded 60 unshare --pid --fork --mount-proc "$RUNX" "${LAUNCH_ARGS[@]}" \
			--kill-scope=child --attempts=2 --retry-delay=1.5 -- sh "$TMPD/zombie.sh")"
else
	skip "as PID 1: orphans reaped during the wait" "unshare --pid --fork --mount-proc is not permitted here"
fi

# The issue's entrypoint settings (--attempts=inf --retry-on=failure
# --retry-delay-max=1m; a wait of 1m instead of 1s, so that a loaded
# machine does all of this inside it): attempt 1 leaves an orphan and
# fails.  The orphan writes its pid in the namespace, waits for the
# test's go and lives 0.5 s more; the test finds its pid on the host, says
# go, and watches that pid: it must be gone (reaped by runx, not left a
# zombie) before attempt 2 starts (attempt 2 writes attempt.2).  Then HUP
# during the same wait goes nowhere (-v says so), and TERM ends the run:
# as PID 1 runx exits 143 (runx(1), EXIT STATUS).
cat >"$TMPD/pid1.sh" <<'JOB'
d=$1
if [ "$RUNX_ATTEMPT" = 1 ]; then
	setsid sh -c 'echo $$ >"$1/orphan.tmp" && mv "$1/orphan.tmp" "$1/orphan.pid"
		i=0
		while [ ! -e "$1/go" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
		sleep 0.2
		exec sleep 0.3' sh "$d" "$2" &
	exit 1
fi
: >"$d/attempt.$RUNX_ATTEMPT"
exit 0
JOB

# pid1_runx UNSHARE-PID: sets P1_RUNX to unshare's child once it runs runx.
# shellcheck disable=SC2317 # called through poll
pid1_runx() {
	local c
	c=$(cat "/proc/$1/task/$1/children" 2>/dev/null) || return 1
	c=${c%% *}
	[ -n "$c" ] && [[ /proc/$c/exe -ef $RUNX ]] || return 1
	P1_RUNX=$c
}

# host_pid_of PID NSPID: sets HOST_PID to the host pid of the process
# NSPID in the PID namespace of PID (NSpid in /proc/*/status: its pid in
# each namespace).  No process started per process looked at: a loaded
# machine has hundreds, and the look must end within the wait.
host_pid_of() {
	local p key rest
	HOST_PID=""
	for p in /proc/[0-9]*; do
		[[ $p/ns/pid -ef /proc/$1/ns/pid ]] || continue
		while read -r key rest; do
			[ "$key" = NSpid: ] || continue
			if [ "${rest##*[[:space:]]}" = "$2" ]; then
				HOST_PID=${p#/proc/}
				return 0
			fi
			break
		done 2>/dev/null <"$p/status"
	done
	return 1
}

# gone_or_late PID STARTTIME DIR: PID is gone, or attempt 2 started.
# shellcheck disable=SC2317 # called through poll
gone_or_late() {
	pid_gone "$1" "$2" || [ -e "$3/attempt.2" ]
}

PID1_CHECKS=5
if unshare --pid --fork --mount-proc true 2>/dev/null; then
	new_marker m
	d=$TMPD/pid1
	mkdir -p "$d"
	env --default-signal=INT,QUIT unshare --pid --fork --mount-proc "$RUNX" "${LAUNCH_ARGS[@]}" -v \
		--kill-scope=child --attempts=inf --retry-on=failure --retry-delay=1m --retry-delay-max=1m -- \
		sh "$TMPD/pid1.sh" "$d" "$m" 2>"$d/v" &
	up=$!
	P1_RUNX=""
	poll 1200 0.05 pid1_runx "$up" || true
	poll 1200 0.05 grep -qs "attempt 2 in" "$d/v" || true
	poll 1200 0.05 test -s "$d/orphan.pid" || true
	hp=""
	[ -z "$P1_RUNX" ] || [ ! -s "$d/orphan.pid" ] ||
		{ host_pid_of "$P1_RUNX" "$(cat "$d/orphan.pid")" && hp=$HOST_PID; }
	start="" parent=""
	[ -z "$hp" ] || start=$(stat_field "$hp" 22) parent=$(stat_field "$hp" 4)
	why="runx as PID 1 (host pid ${P1_RUNX:-none}), orphan (host pid ${hp:-not found}, in the namespace $(cat "$d/orphan.pid" 2>/dev/null)); -v:
$(cat "$d/v")"
	if [ -n "$start" ] && pid_alive "$hp"; then
		assert_eq "as PID 1, --attempts=inf: attempt 1's orphan was re-parented to runx" \
			"$P1_RUNX" "$parent" "$why"
		: >"$d/go"
		poll 1200 0.05 gone_or_late "$hp" "$start" "$d" || true
		gone=no two=no
		pid_gone "$hp" "$start" && gone=yes
		[ -e "$d/attempt.2" ] && two=yes
		# (attempt 2 is looked for after the orphan: if the orphan went
		# first, it was gone before attempt 2 started)
		assert_eq "as PID 1, --attempts=inf: the orphan, exited during the wait, is reaped (gone from the host's /proc, not a zombie) before attempt 2 starts" \
			"gone, no attempt 2" "$([ $gone = yes ] && echo gone || echo "not gone (state $(stat_field "$hp" 3 2>/dev/null))"), $([ $two = yes ] && echo attempt 2 started || echo no attempt 2)" "$why"
	else
		not_ok "as PID 1, --attempts=inf: attempt 1's orphan was re-parented to runx" \
			"the orphan was not found alive during the wait: $why"
		not_ok "as PID 1, --attempts=inf: the orphan, exited during the wait, is reaped before attempt 2 starts" "see above"
	fi
	if [ -n "$P1_RUNX" ]; then
		kill -HUP "$P1_RUNX"
		poll 400 0.05 grep -qs "received SIGHUP" "$d/v" || true
		kill -TERM "$P1_RUNX"
	fi
	wait_pid_exit "$up" 60
	assert_match "as PID 1: HUP during the wait goes nowhere, -v says so" \
		"runx: received SIGHUP during the wait before attempt 2; no command to forward it to" "$(cat "$d/v")"
	assert_eq "as PID 1: TERM during the wait ends the run, runx exits 143 (PID 1 cannot die by it)" 143 "$WAIT_STATUS"
	assert_eq "as PID 1: TERM during the wait: no attempt 2, and -v says the run ended there" \
		"no attempt 2 1" \
		"$([ -e "$d/attempt.2" ] && echo attempt 2 ran || echo no attempt 2) $(grep -c 'received SIGTERM during the wait before attempt 2; ending the run' "$d/v")"
else
	skips "$PID1_CHECKS" "as PID 1, --attempts=inf: orphans, HUP and TERM during the wait" \
		"unshare --pid --fork --mount-proc is not permitted here"
fi

# --- the report ----------------------------------------------------------------------------------
new_marker m
runx --attempts=3 --retry-delay=0 -t 0.5 --report="$TMPD/r.json" -- \
	sh -c "case \$RUNX_ATTEMPT in 1) exit 4;; 2) exec sleep $m;; esac; exit 0"
got=$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
a = d["attempts"]
print(d["attempt_count"], len(a), [x["attempt"] for x in a],
      [x["reason"] for x in a], [x["exit_status"] for x in a],
      [x["exit_code"] for x in a], len(set(x["pid"] for x in a)),
      [len(x["signals_sent"]) > 0 for x in a],
      a[1]["alive_at_deadline"]["count"], d["exit_status"], d["reason"],
      d["pid"] == a[2]["pid"], d["wall_time"] >= a[2]["wall_time"] + a[1]["wall_time"])
' "$TMPD/r.json" 2>&1)
assert_eq "report: attempt_count, one object per attempt, the run and its last attempt" \
	"3 3 [1, 2, 3] ['exited', 'timeout', 'exited'] [4, 124, 0] [4, None, 0] 3 [False, True, False] 1 0 exited True True" "$got"
runx --report="$TMPD/r1.json" -- true
assert_eq "report of a one-attempt run: attempt_count 1" "1 1 0" \
	"$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["attempt_count"], len(d["attempts"]), d["attempts"][0]["exit_status"])' "$TMPD/r1.json")"
runx --attempts=2 --retry-delay=10 --total-timeout=0.5 --report="$TMPD/r2.json" -- false
assert_eq "report: a total timeout during a wait" "total_timeout 124 1" \
	"$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["reason"], d["exit_status"], d["attempts"][0]["exit_status"])' "$TMPD/r2.json")"
# the keys of each attempt object: the list of runx(1), REPORTING
# (attempts); the run's start_time is its first attempt's
assert_eq "report: each attempt object has exactly the man page's keys; start_time is attempt 1's" \
	"same 3 True" \
	"$("$PY" -c '
import json, sys
want = set("""attempt pid scope_target start_time end_time wall_time reason
exit_status exit_code signal runx_signal signals_sent signals_omitted leftovers_stopped
killed_after_grace alive_at_deadline alive_after_grace error memory_peak
cpu_time pids_peak oom_kills""".split())
d = json.load(open(sys.argv[1]))
bad = [sorted(set(x) ^ want) for x in d["attempts"] if set(x) != want]
print(bad or "same", len(d["attempts"]), d["start_time"] == d["attempts"][0]["start_time"])
' "$TMPD/r.json" 2>&1)"
# one attempt, stopped at its deadline (signals sent, processes named):
# what attempts[0] shares with the top level is the same, but for the
# run's end, measured once the attempt was released (end_time and
# wall_time: not earlier than the attempt's)
new_marker m
runx -t 0.3 -k 0.3 --report="$TMPD/r1d.json" -- sh -c "trap '' TERM; sleep $m; :"
assert_eq "report of a one-attempt run: attempts[0] is the top level's (end_time, wall_time not earlier)" \
	"[] True True 124" \
	"$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
a = d["attempts"][0]
print([k for k in a if k in d and k not in ("end_time", "wall_time") and a[k] != d[k]],
      d["end_time"] >= a["end_time"], d["wall_time"] >= a["wall_time"], a["exit_status"])
' "$TMPD/r1d.json" 2>&1)"
# only the last 100 attempts are listed, all are counted
runx --attempts=105 --retry-delay=0 --report="$TMPD/r105.json" -- false
assert_eq "report of 105 attempts: attempt_count 105, the last 100 listed (6 to 105)" \
	"105 100 6 105 1" \
	"$("$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
a = d["attempts"]
print(d["attempt_count"], len(a), a[0]["attempt"], a[-1]["attempt"], d["exit_status"])
' "$TMPD/r105.json" 2>&1)"

# --- bad values --------------------------------------------------------------------------------------
for bad in "${BAD_VALUES[@]}"; do
	rm -f "$TMPD/started"
	err=$(runx "$bad" -- touch "$TMPD/started" 2>&1)
	s=$?
	shown=$(printf '%q' "$bad")
	assert_eq "$shown: 125" 125 "$s"
	assert_eq "$shown: one line" 1 "$(printf '%s\n' "$err" | wc -l | tr -d ' ')"
	value=${bad#*=}
	case $value in
	*$'\e'*) assert_match "$shown: the value named, escaped" "'1\\\\x1b\\[31m'" "$err" ;;
	'' | *,,*) assert_match "$shown: says what is wrong" "''" "$err" ;;
	*) assert_match "$shown: names the value" "'[^']*${value//[\[\]]/.}[^']*'" "$err" ;;
	esac
	assert_false "$shown: nothing started" test -e "$TMPD/started"
done

# A stop signal that comes while an attempt is being stopped (its
# leftovers, after the command exited 1; its grace period, after its
# deadline) ends the run as well: the attempt ends as its stop does, and
# no further attempt starts (runx(1), ATTEMPTS).  Each case waits for -v
# to say the stop began, so the signal cannot come before it.
for told in leftovers deadline; do
	new_marker m
	err=$TMPD/told.$told.err
	count=$TMPD/told.$told.count
	if [ "$told" = leftovers ]; then
		"$RUNX" "${LAUNCH_ARGS[@]}" -v --attempts=3 --retry-delay=0 -k 5 -- \
			sh -c 'echo x >>"$1"; (trap "" TERM; exec sleep "$2") & sleep 0.2; exit 1' \
			sh "$count" "$m" 2>"$err" &
		want=1 began="stopping 1 leftover process"
		what="while attempt 1's leftovers are stopped"
	else
		"$RUNX" "${LAUNCH_ARGS[@]}" -v --attempts=3 --retry-on=timeout --retry-delay=0 \
			-t 2 -k 5 -- sh -c 'trap "" TERM; echo x >>"$1"; exec sleep "$2"' \
			sh "$count" "$m" 2>"$err" &
		want=124 began="deadline of .* reached"
		what="in attempt 1's grace period after its deadline"
	fi
	told_pid=$!
	poll 1200 0.05 grep -qs "$began" "$err" || diag "$told: -v never said the stop began: $(cat "$err")"
	kill -TERM "$told_pid"
	s=0
	wait "$told_pid" || s=$?
	assert_eq "SIGTERM $what: runx exits $want" "$want" "$s"
	assert_eq "SIGTERM $what: no further attempt" 1 "$(lines "$count")"
	assert_dead "SIGTERM $what: nothing left" "$m"
done

# Ctrl-C with --foreground: the terminal's SIGINT reaches the command and
# runx (one process group, the pty's foreground one); runx does not
# forward it, but it ends the run as any stop signal does: attempt 1 ends
# by SIGINT and no attempt follows; runx dies by SIGINT, as the command
# did.  runx runs on a pty as its session leader; the driver types ^C
# once attempt 1's sleep runs, and SIGTERMs a runx still there 10 s later.
cat >"$TMPD/ctrlc.py" <<'PYEOF'
import os, select, signal, sys, time
count, argv = sys.argv[1], sys.argv[2:]
pid, fd = os.forkpty()
if pid == 0:
    os.execv(argv[0], argv)
out, status = bytearray(), None
def pump(secs, until=lambda: False):
    """Reads the pty for up to SECS, until runx has exited or UNTIL()."""
    global status
    end = time.monotonic() + secs
    while status is None and not until() and time.monotonic() < end:
        if select.select([fd], [], [], 0.05)[0]:
            try:
                out.extend(os.read(fd, 4096))
            except OSError:
                pass
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
def started():
    try:
        return open(count).read().count("x") >= 1
    except OSError:
        return False
pump(20, started)
pump(0.3)  # sh exec's the sleep
os.write(fd, b"\x03")
pump(10)
if status is None:
    os.kill(pid, signal.SIGTERM)
    _, status = os.waitpid(pid, 0)
    print("hung")
elif os.WIFSIGNALED(status):
    print("signal %d" % os.WTERMSIG(status))
else:
    print("exit %d" % os.WEXITSTATUS(status))
# what runx wrote just before it exited, which pump() may not have read
# yet: the pty keeps it until read (then EIO, the slave side closed)
while select.select([fd], [], [], 0.2)[0]:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out.extend(chunk)
sys.stderr.write(out.decode(errors="replace"))
PYEOF
new_marker m
count=$TMPD/ctrlc.count
err=$TMPD/ctrlc.err
s=0
got=$("$PY" "$TMPD/ctrlc.py" "$count" "$RUNX" "${LAUNCH_ARGS[@]}" --foreground -v --attempts=3 \
	--retry-delay=0.2 -- sh -c 'echo x >>"$1"; exec sleep "$2"' sh "$count" "$m" 2>"$err") || s=$?
assert_eq "--foreground, Ctrl-C during attempt 1: runx dies by SIGINT" "0 signal 2" "$s $got" "$(cat "$err")"
assert_eq "--foreground, Ctrl-C during attempt 1: no further attempt" 1 "$(lines "$count")"
assert_true "--foreground, Ctrl-C: -v says the run ends with this attempt" \
	grep -q "received SIGINT from the terminal; the command got it too; the run ends with this attempt" "$err"
assert_dead "--foreground, Ctrl-C: nothing left" "$m"
# ... with a single attempt, -v names the signal but not a run of
# attempts that was never asked for
new_marker m
rm -f "$count"
got=$("$PY" "$TMPD/ctrlc.py" "$count" "$RUNX" "${LAUNCH_ARGS[@]}" --foreground -v \
	-- sh -c 'echo x >>"$1"; exec sleep "$2"' sh "$count" "$m" 2>"$err") || true
assert_eq "--foreground, one attempt, Ctrl-C: runx dies by SIGINT" "signal 2" "$got" "$(cat "$err")"
assert_true "--foreground, one attempt, Ctrl-C: -v says the command got it" \
	grep -q "received SIGINT from the terminal; the command got it too" "$err"
assert_false "--foreground, one attempt, Ctrl-C: -v says nothing of attempts" \
	grep -q "the run ends with this attempt" "$err"
assert_dead "--foreground, one attempt, Ctrl-C: nothing left" "$m"
# ... and a --success-exit that lists the command's death by SIGINT is
# still a success: the run ends, with 0
new_marker m
rm -f "$count"
got=$("$PY" "$TMPD/ctrlc.py" "$count" "$RUNX" "${LAUNCH_ARGS[@]}" --foreground --attempts=3 \
	--success-exit=SIGINT -- sh -c 'echo x >>"$1"; exec sleep "$2"' sh "$count" "$m" 2>"$err") || true
assert_eq "--foreground, Ctrl-C, --success-exit=SIGINT: exit 0 after 1 attempt" "exit 0 1" \
	"$got $(lines "$count")" "$(cat "$err")"
# --foreground, Ctrl-C during the grace period of a stop (here the
# deadline's; SPEC: "a stop signal received while a stop is already under
# way ends the grace period at once"): SIGKILL now, not after the 60 s
# grace.  The job ignores INT and TERM; its TERM trap marks the stop's
# start, and the driver types ^C after it.
new_marker m
rm -f "$count"
got=$("$PY" "$TMPD/ctrlc.py" "$count" "$RUNX" "${LAUNCH_ARGS[@]}" --foreground -v -t 1 -k 60 -- \
	sh -c 'trap "" INT; (trap "" TERM; exec sleep "$2") & trap "echo x >>\"\$1\"" TERM; while :; do wait; done' \
	sh "$count" "$m" 2>"$err") || true
assert_eq "--foreground, Ctrl-C in the grace period: SIGKILL at once, 124" "exit 124" "$got" "$(cat "$err")"
assert_true "--foreground, Ctrl-C in the grace period: -v says it ended the grace period" \
	grep -q "SIGINT during the stop: ending the grace period" "$err"
assert_dead "--foreground, Ctrl-C in the grace period: the INT- and TERM-ignoring job is dead" "$m"

done_testing
