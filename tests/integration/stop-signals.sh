#!/bin/bash
# Signals as a shell and a container runtime expect (runx(1), STOPPING and
# EXIT STATUS): HUP and QUIT are only forwarded; --stop-signals chooses the
# signals that start a stop; runx ends by the signal that killed the
# command (a Python parent sees -N, no core file); a bash script on a
# terminal stops at ^C; --foreground with the tree scope still reaches
# every descendant; what hung is named in -v and the report.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"
require_python3 "(the test harness)"

BAD_STOP_SIGNALS=("" "TERM," "BOGUS" "KILL" "STOP" "0" "TERM,,INT" "URG")
# 3 for HUP and for QUIT, 4 --stop-signals, 3 per bad list, 7 python
# parent (+2 for 32 and 33), 2 terminal, 4 --foreground, 9 named, 2 per
# implicit stop signal, 2 per reserved real-time signal (32 33 34), 3
# with a TERM trap and listed, 4 ignored, 3 per signal between attempts
# (PWR, SEGV), 2 per real fault in runx (SEGV FPE ILL ABRT)
IMPLICIT_STOP=(PWR XCPU VTALRM PROF IO STKFLT SYS TRAP ABRT BUS FPE ILL SEGV)
plan $((3 * 2 + 4 + 3 * ${#BAD_STOP_SIGNALS[@]} + 7 + 2 + 2 + 4 + 9 + 2 * 3 + 2 * ${#IMPLICIT_STOP[@]} + 3 + 4 + 3 * 2 + 2 * 4))

# --- HUP and QUIT are forwarded, not a stop -----------------------------------
# The command traps the signal, writes a marker, and then finishes on its
# own after a while: its own status, not a stop (which would end in 137
# after the 0.5 s grace, or 129/131).  (It waits for its trap to have run,
# at most 20 s, then 1 s more.)
for sig in HUP QUIT; do
	new_marker m
	f="$TMPD/got.$sig.$m"
	runx_bg -k 0.5 -- sh -c "trap 'echo $sig >$f' $sig; echo >$TMPD/ready.$m; i=0; while [ ! -e $f ] && [ \$i -lt 400 ]; do sleep 0.05; i=\$((i + 1)); done; sleep 1; exit 7; : $m"
	if wait_file "$TMPD/ready.$m"; then
		kill -"$sig" "$RUNX_PID"
		wait_pid_exit "$RUNX_PID" 20
		assert_eq "$sig to runx: the command finishes with its own status 7" 7 "$WAIT_STATUS"
		assert_eq "$sig to runx: it reached the command's trap" "$sig" "$(cat "$f" 2>/dev/null)"
	else
		kill -KILL "$RUNX_PID"
		not_ok "$sig to runx: the command finishes with its own status 7" "command never ready"
		not_ok "$sig to runx: it reached the command's trap" "command never ready"
	fi
	assert_dead "$sig to runx: nothing left" "$m"
done

# --- --stop-signals -----------------------------------------------------------
new_marker m
runx_bg --stop-signals=HUP,TERM,INT -k 0.5 -- sh -c "trap '' HUP; echo >$TMPD/ready.$m; sleep $m; :"
if wait_file "$TMPD/ready.$m"; then
	kill -HUP "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 20
	assert_eq "--stop-signals=HUP,TERM,INT: HUP is a stop (HUP ignored: SIGKILL after the grace, 137)" \
		137 "$WAIT_STATUS"
else
	kill -KILL "$RUNX_PID"
	not_ok "--stop-signals=HUP,TERM,INT: HUP is a stop" "command never ready"
fi
assert_dead "--stop-signals=HUP,TERM,INT: nothing left" "$m"

# INT is no longer a stop when the list leaves it out: forwarded only.
new_marker m
runx_bg --stop-signals=TERM -k 0.5 -- sh -c "trap 'echo INT >$TMPD/int.$m' INT; echo >$TMPD/ready.$m; sleep 1 & wait; exit 4; : $m"
if wait_file "$TMPD/ready.$m"; then
	kill -INT "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 20
	assert_eq "--stop-signals=TERM: INT only forwarded, the command's status 4" 4 "$WAIT_STATUS"
else
	kill -KILL "$RUNX_PID"
	not_ok "--stop-signals=TERM: INT only forwarded" "command never ready"
fi
assert_dead "--stop-signals=TERM: nothing left" "$m"

for bad in "${BAD_STOP_SIGNALS[@]}"; do
	new_marker m
	s=$(st runx --stop-signals="$bad" -- sh -c "touch $TMPD/ran.$m" 2>"$TMPD/bad.err")
	assert_eq "--stop-signals='$bad': 125" 125 "$s"
	assert_false "--stop-signals='$bad': nothing started" test -e "$TMPD/ran.$m"
	assert_eq "--stop-signals='$bad': one line" 1 "$(wc -l <"$TMPD/bad.err" | tr -d ' ')"
done

# --- death by the same signal -------------------------------------------------
# A Python parent (subprocess) sees returncode -N when runx ends by signal
# N, as it would for the bare command; no core file appears.
cat >"$TMPD/parent.py" <<'EOF'
import os, subprocess, sys
os.chdir(sys.argv[1])
r = subprocess.run(sys.argv[2:])
print(r.returncode)
EOF
mkdir "$TMPD/cwd"
py_status() { "$PY" "$TMPD/parent.py" "$TMPD/cwd" "$RUNX" "${LAUNCH_ARGS[@]}" "$@"; }
assert_eq "python parent: runx ends by SIGINT when the command did (-2)" -2 \
	"$(py_status -- sh -c 'kill -INT $$')"
# runx may dump core (RLIMIT_CORE unlimited), the command may not: a core
# file in the working directory can then only be runx's.
(
	ulimit -c unlimited 2>/dev/null
	py_status -- sh -c 'ulimit -c 0; kill -SEGV $$' >"$TMPD/segv"
)
assert_eq "python parent: runx ends by SIGSEGV when the command did (-11)" -11 "$(cat "$TMPD/segv")"
assert_eq "python parent: no core file of runx's" "" "$(find "$TMPD/cwd" -name 'core*' 2>/dev/null)"
# signals 32 and 33, which glibc keeps for itself (its raise() and
# sigaction() refuse them): runx ends by them too (it exited 160, 161)
for sig in 32 33; do
	assert_eq "python parent: runx ends by signal $sig when the command did (-$sig)" -$sig \
		"$(py_status -- sh -c "kill -$sig \$\$")"
done
assert_eq "python parent: a deadline is still 124" 124 "$(py_status -t 0.3 -- sleep 5)"
assert_eq "python parent: a normal exit is the plain status 3" 3 "$(py_status -- sh -c 'exit 3')"
assert_eq "python parent: exit 130 (not a signal) stays 130" 130 "$(py_status -- sh -c 'exit 130')"
assert_eq "python parent: -p with a deadline: ends by SIGTERM (-15)" -15 "$(py_status -p -t 0.3 -- sleep 5)"

# --- a bash script on a terminal stops at ^C ----------------------------------
# bash -c 'runx -t 60 -- sleep 60; echo CONTINUED' on a pty: ^C (the
# terminal's SIGINT to the foreground process group) must stop the script.
cat >"$TMPD/ptyrun.py" <<'EOF'
import os, pty, select, signal, sys, time
runx, launch, marker = sys.argv[1], sys.argv[2:-1], sys.argv[-1]
script = "%s %s -t 60 -- sleep %s; echo CONTINUED" % (runx, " ".join(launch), marker)
pid, fd = pty.fork()
if pid == 0:
    os.execvp("bash", ["bash", "-c", script])
out = b""
deadline = time.time() + 30
# wait until the sleep runs, then type ^C
while time.time() < deadline:
    found = False
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                if marker.encode() in open("/proc/%s/cmdline" % p, "rb").read() and \
                   open("/proc/%s/comm" % p).read().strip() == "sleep":
                    found = True
            except OSError:
                pass
    if found:
        break
    time.sleep(0.02)
time.sleep(0.1)
os.write(fd, b"\x03")
end = time.time() + 30
while time.time() < end:
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        try:
            data = os.read(fd, 1024)
        except OSError:
            break
        if not data:
            break
        out += data
    wpid, status = os.waitpid(pid, os.WNOHANG)
    if wpid:
        break
else:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    print("hung")
    sys.exit(0)
print("continued" if b"CONTINUED" in out else "stopped")
EOF
new_marker m
assert_eq "bash script on a pty: ^C stops it (no CONTINUED)" stopped \
	"$("$PY" "$TMPD/ptyrun.py" "$RUNX" "${LAUNCH_ARGS[@]}" "$m")"
assert_dead "bash script on a pty: nothing left" "$m"

# --- --foreground with the tree scope -----------------------------------------
# The children of a --foreground command used to outlive the deadline
# (x=$(...) then waits for them); with --kill-scope=tree they are stopped.
new_marker m
x=$(st guarded 20 "$RUNX" "${LAUNCH_ARGS[@]}" --foreground --kill-scope=tree -t 0.5 -k 0.5 -- \
	sh -c "sleep $m & sleep $m")
assert_eq "--foreground --kill-scope=tree -t 0.5: 124 (not the guard's 124 after 20 s: see dead)" 124 "$x"
assert_dead "--foreground --kill-scope=tree: the background sleep is gone" "$m"
# A signal the kernel sends (si_code SI_KERNEL, as the terminal's are) is
# not taken for the terminal's when it is one that stops anyway: SIGIO of
# a FIFO whose O_ASYNC owner is runx (fcntl(2) F_SETOWN; the kernel sends
# it with SEND_SIG_PRIV) starts a stop with SIGTERM (143), where taken
# for the terminal's it would leave the job to the 60 s deadline.
new_marker m
runx_bg --foreground -t 60 -k 1 -- sh -c "sleep $m & sleep $m; :"
if wait_marked "$m" 4; then
	"$PY" -c 'import fcntl, os, sys
pid, fifo = int(sys.argv[1]), sys.argv[2]
os.mkfifo(fifo)
r = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
w = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
fcntl.fcntl(r, fcntl.F_SETOWN, pid)
fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC | os.O_NONBLOCK)
os.write(w, b"x")' "$RUNX_PID" "$TMPD/async.$m"
	wait_pid_exit "$RUNX_PID" 30
	assert_eq "--foreground, the kernel's SIGIO (O_ASYNC): a stop, 143" 143 "$WAIT_STATUS"
else
	kill -KILL "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 10
	not_ok "--foreground, the kernel's SIGIO (O_ASYNC): a stop, 143" "the job never started"
fi
assert_dead "--foreground, the kernel's SIGIO: nothing left" "$m"

# --- what hung is named -----------------------------------------------------------
# The leftover's marker appears only in its own argv (it gets it through
# a variable the command line of runx and sh does not hold literally).
# (on_time: both sleeps must be there before the deadline)
new_marker m
M=$m R=$TMPD/named.ready on_time 0.3 "$TMPD/named.ready" "2>$TMPD/hung.err" -- \
	runx -v --report="$TMPD/hung.json" -t @T -k 0.3 -- \
	sh -c 'trap "" TERM; sleep "$M" & : >"$R"; exec sleep "$M"'
assert_eq "named: 124" 124 "$OT_STATUS"
assert_match "named: -v names the leftover at the deadline (pid, age, argv)" \
	"runx: alive at the deadline: pid [0-9]+, age [0-9.]+s: sleep ${m//./\\.}" "$(cat "$TMPD/hung.err")"
assert_match "named: -v names it after the grace period" \
	"runx: alive after the grace period: pid [0-9]+, age [0-9.]+s: sleep ${m//./\\.}" "$(cat "$TMPD/hung.err")"
assert_eq "named: the report lists both sleeps at the deadline, with their argv" \
	"2 [['sleep', '$m'], ['sleep', '$m']] ok" \
	"$("$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))
d = r["alive_at_deadline"]
ages = all(isinstance(p["age"], float) and p["age"] >= 0 and isinstance(p["pid"], int) for p in d["processes"])
print(d["count"], sorted(p["argv"] for p in d["processes"]), "ok" if ages else "bad")' "$TMPD/hung.json")"
assert_eq "named: the report lists them after the grace period" 2 \
	"$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["alive_after_grace"]["count"])' "$TMPD/hung.json")"
assert_dead "named: nothing left" "$m"

# More than 20: the rest is counted.  (on_time: the 25 sleeps must be
# there before the deadline)
new_marker m
M=$m R=$TMPD/many.ready on_time 0.5 "$TMPD/many.ready" "2>$TMPD/many.err" ">/dev/null" -- \
	runx -v -t @T -k 0.2 -- \
	sh -c 'trap "" TERM; i=0; while [ $i -lt 25 ]; do sleep "$M" & i=$((i+1)); done; : >"$R"; wait'
assert_eq "named: at most 20 named at the deadline" 20 \
	"$(grep -c "^runx: alive at the deadline: pid" "$TMPD/many.err")"
assert_match "named: then a count" "^runx: alive at the deadline: and [0-9]+ more$" \
	"$(grep "at the deadline: and" "$TMPD/many.err")"
assert_dead "named: 25 sleeps: nothing left" "$m"

# --- signals that would end runx by their default action start a stop ------------
# PWR (LXC's shutdown request to a container's init), XCPU (past
# RLIMIT_CPU's soft limit), VTALRM, PROF, IO, STKFLT, SYS and TRAP are
# neither forwarded nor job control; they killed runx and left its job
# running (trial 9: both sleeps alive, re-parented to init).  So did
# ABRT, BUS, FPE, ILL and SEGV sent by kill(2) (a review: kill -ABRT, 134,
# both sleeps left).  Each starts a stop as a deadline does, whatever
# --stop-signals says, with -s's signal (SIGTERM: not the received one,
# whose default action would skip a clean shutdown, or dump core for
# XCPU, SYS, TRAP and the five faults' signals): the command dies by
# SIGTERM, runx ends by it too (143), and nothing is left.
# signal_case NAME WANT SIG RUNX_ARGS... -- COMMAND...: runx in the
# background with a marker m (set by new_marker before), SIG to runx once
# 4 marked processes run (runx itself, whose argv holds the command's,
# the command and its 2 sleeps), WANT its exit status (1 check);
# the marked processes are killed after.  With --exec first instead of
# RUNX_ARGS, the rest is the whole command line (a wrapper that execs
# runx).
signal_case() {
	local name=$1 want=$2 sig=$3
	shift 3
	if [ "$1" = --exec ]; then
		shift
		env --default-signal=INT,QUIT "$@" &
		RUNX_PID=$!
	else
		runx_bg "$@"
	fi
	if wait_marked "$m" 4; then
		kill -"$sig" "$RUNX_PID"
		wait_pid_exit "$RUNX_PID" 30
		assert_eq "$name" "$want" "$WAIT_STATUS"
	else
		kill -KILL "$RUNX_PID"
		wait_pid_exit "$RUNX_PID" 10
		not_ok "$name" "the job never started"
	fi
}
# A fault's signal for which runx has a handler from before main() (a
# sanitizer's: the AddressSanitizer build's SEGV, BUS and FPE) is left to
# it, so that a real fault still gets the sanitizer's report: skipped.
# runx's caught signals, from the command: its parent's SigCgt (proc(5)).
RUNX_SIGCGT=0x$("$RUNX" "${LAUNCH_ARGS[@]}" -- sh -c 'sed -n "s/^SigCgt:[[:space:]]*//p" /proc/$PPID/status')
# has_handler SIG: true if runx has a handler of its own for SIG
has_handler() { (((RUNX_SIGCGT >> ($(kill -l "$1") - 1)) & 1)); }
for sig in "${IMPLICIT_STOP[@]}"; do
	if has_handler "$sig"; then
		skips 2 "SIG$sig to runx" "runx has a handler for it from before main() (a sanitizer's)"
		continue
	fi
	new_marker m
	signal_case "SIG$sig to runx: a stop with SIGTERM; runx ends by it" 143 "$sig" \
		--stop-signals=HUP -t 60 -k 1 -- sh -c "sleep $m & sleep $m; :"
	assert_dead "SIG$sig to runx: nothing left" "$m"
done
# The real-time signals the C library keeps for itself, below its SIGRTMIN
# (glibc 32 and 33, musl 32 to 34), killed runx by their default action
# and left the job running (trial 10); they are forwarded as the others
# are: the command and its sleeps die by it, and so does runx.
for sig in 32 33 34; do
	new_marker m
	signal_case "signal $sig to runx: forwarded, the command dies by it, runx too" $((128 + sig)) "$sig" \
		-t 60 -k 1 -- sh -c "sleep $m & sleep $m; :"
	assert_dead "signal $sig to runx: nothing left" "$m"
done
# LXC's SIGPWR to a job that shuts down cleanly on SIGTERM: its trap
# runs, its status is its own, and the report says what runx received;
# listed in --stop-signals, SIGPWR is forwarded itself (the command dies
# by it, 158)
new_marker m
signal_case "SIGPWR to runx with a TERM trap: its status 0" 0 PWR \
	--report="$TMPD/pwr.json" -t 60 -- sh -c "trap 'echo clean >$TMPD/pwr.$m; exit 0' TERM; sleep $m & sleep $m & wait"
assert_eq "SIGPWR to runx: the job's TERM trap ran, the report: runx_signaled SIGPWR" \
	"clean runx_signaled SIGPWR" \
	"$(cat "$TMPD/pwr.$m" 2>/dev/null) $("$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["reason"], r["runx_signal"])' "$TMPD/pwr.json" 2>&1)"
kill_marked "$m"
new_marker m
signal_case "SIGPWR listed in --stop-signals: forwarded, the command dies by it" $((128 + $(kill -l PWR))) PWR \
	--stop-signals=PWR -t 60 -- sh -c "sleep $m & sleep $m; :"
kill_marked "$m"
# One ignored when runx started (SIG_IGN, inherited by the command too)
# stays ignored: the job runs on to its deadline (124); listed in
# --stop-signals it is caught, as TERM and INT are: forwarded, ignored by
# the command, which the SIGKILL ends after the grace period (137).
new_marker m
signal_case "SIGPWR ignored when runx started: still ignored, the deadline ends it" 124 PWR \
	--exec "$PY" -c 'import os, signal, sys
signal.signal(signal.SIGPWR, signal.SIG_IGN)
os.execvp(sys.argv[1], sys.argv[1:])' "$RUNX" "${LAUNCH_ARGS[@]}" -t 3 -k 0.5 -- sh -c "sleep $m & sleep $m; :"
assert_dead "SIGPWR ignored when runx started: nothing left" "$m"
new_marker m
signal_case "SIGPWR ignored when runx started, listed in --stop-signals: caught, a stop" 137 PWR \
	--exec "$PY" -c 'import os, signal, sys
signal.signal(signal.SIGPWR, signal.SIG_IGN)
os.execvp(sys.argv[1], sys.argv[1:])' "$RUNX" "${LAUNCH_ARGS[@]}" --stop-signals=PWR -t 60 -k 0.5 -- sh -c "sleep $m & sleep $m; :"
assert_dead "SIGPWR ignored when runx started, listed: nothing left" "$m"
# ... between attempts too: the run ends in its wait (30 s), as with a
# stop signal, as if the command had died by it; SEGV (sent by kill) with
# no core dumped (the wait status's core flag, WCOREDUMP, wherever the
# machine's core_pattern puts cores), though runx may dump core here (its
# soft RLIMIT_CORE raised to the hard limit).  A Python parent starts runx,
# sends SIG once attempt 1 ran and prints "STATUS CORE" ("none" if
# attempt 1 never ran).  It runs in $TMPD/cwd (see the cases above).
cat >"$TMPD/between.py" <<'EOF2'
import os, resource, signal, sys, time
sig, ran, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
hard = resource.getrlimit(resource.RLIMIT_CORE)[1]
resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))
pid = os.fork()
if pid == 0:
    os.execv(argv[0], argv)
end = time.monotonic() + 20
while not os.path.exists(ran) and time.monotonic() < end:
    time.sleep(0.05)
started = os.path.exists(ran)
if started:
    time.sleep(0.2)
os.kill(pid, sig if started else signal.SIGKILL)
_, st = os.waitpid(pid, 0)
code = 128 + os.WTERMSIG(st) if os.WIFSIGNALED(st) else os.WEXITSTATUS(st)
print(code if started else "none", os.WCOREDUMP(st), hard != 0)
EOF2
between_case() {
	local sig=$1 out
	if has_handler "$sig"; then
		skips 3 "SIG$sig in the wait before attempt 2" "runx has a handler for it from before main() (a sanitizer's)"
		return
	fi
	new_marker m
	# in $TMPD/cwd: a core_pattern of "core" (a relative name) would
	# leave a failing runx's core there, not where the suite was started
	out=$(cd "$TMPD/cwd" && "$PY" "$TMPD/between.py" "$(kill -l "$sig")" "$TMPD/attempt.$m" "$RUNX" "${LAUNCH_ARGS[@]}" \
		--attempts=3 --retry-delay=30 -- sh -c "echo ran >>$TMPD/attempt.$m; exit 1")
	assert_eq "SIG$sig in the wait before attempt 2: the run ends by it" $((128 + $(kill -l "$sig"))) "${out%% *}"
	assert_eq "SIG$sig in the wait before attempt 2: no attempt 2" 1 "$(grep -c . "$TMPD/attempt.$m" 2>/dev/null)"
	if [ "${out##* }" = True ]; then
		assert_eq "SIG$sig in the wait before attempt 2: no core dumped (WCOREDUMP)" False "$(echo "$out" | cut -d' ' -f2)"
	else
		skip "SIG$sig in the wait before attempt 2: no core dumped (WCOREDUMP)" "the hard RLIMIT_CORE is 0: no core could be dumped"
	fi
}
between_case PWR
between_case SEGV

# --- a real fault of runx's own still ends it -------------------------------------
# The five faults' signals are blocked in runx (read from its signalfd),
# but the kernel forces a real fault through the mask
# (force_sig_info_to_task()), and abort(3) unblocks SIGABRT: a shim
# preloaded into runx faults in its signalfd(2) call, as CRASH says.  runx
# must die by the fault's signal (a Python parent sees -N); in the
# AddressSanitizer build, whose handlers for SEGV and FPE runx leaves
# alone, the sanitizer reports the fault (exit 1, or SIGABRT with
# abort_on_error=1).  Its command, started
# before, dies with it (PR_SET_PDEATHSIG).
FAULTS=(segv:SEGV fpe:FPE ill:ILL abort:ABRT)
if ! command -v cc >/dev/null; then
	skips $((2 * ${#FAULTS[@]})) "a real fault in runx" "no C compiler (cc) to build the shim"
elif ! ldd "$RUNX" >/dev/null 2>&1; then
	skips $((2 * ${#FAULTS[@]})) "a real fault in runx" "runx is linked statically: LD_PRELOAD cannot reach it"
else
	cat >"$TMPD/crash.c" <<'EOF2'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
int signalfd(int fd, const sigset_t *mask, int flags)
{
	static volatile int zero;
	const char *c = getenv("CRASH");
	int (*real)(int, const sigset_t *, int) =
	    (int (*)(int, const sigset_t *, int))dlsym(RTLD_NEXT, "signalfd");

	if (c != NULL && strcmp(c, "segv") == 0)
		*(volatile int *)(long)zero = 1;
	if (c != NULL && strcmp(c, "fpe") == 0)
		zero = 100 / zero;
	if (c != NULL && strcmp(c, "ill") == 0)
		__builtin_trap();
	if (c != NULL && strcmp(c, "abort") == 0)
		abort();
	return real(fd, mask, flags);
}
EOF2
	cc -shared -fPIC -o "$TMPD/crash.so" "$TMPD/crash.c" -ldl
	for f in "${FAULTS[@]}"; do
		crash=${f%%:*} sig=${f##*:}
		new_marker m
		got=$(CRASH=$crash LD_PRELOAD=$TMPD/crash.so \
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0" \
			"$PY" -c 'import subprocess, sys
r = subprocess.run(sys.argv[1:], stderr=subprocess.PIPE)
print(r.returncode, "sanitizer" if b"ERROR: AddressSanitizer: " in r.stderr else "plain")' \
			"$RUNX" "${LAUNCH_ARGS[@]}" -t 60 -- sleep "$m")
		if has_handler "$sig"; then
			# exit 1, or SIGABRT where ASAN_OPTIONS has
			# abort_on_error=1 (as .ci/run's)
			assert_match "a real $sig in runx: the sanitizer's handler reports it (exit 1 or SIGABRT)" \
				'^(1|-6) sanitizer$' "$got"
		else
			assert_eq "a real $sig in runx: it dies by SIG$sig" "-$(kill -l "$sig") plain" "$got"
		fi
		assert_dead "a real $sig in runx: its command died with it" "$m"
	done
fi

done_testing
