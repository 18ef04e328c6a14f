#!/bin/bash
# --idle-timeout relays the command's output through runx: a destination
# that never reads (a terminal nobody reads, a full pipe, a socket) must
# not block runx, so the deadline and the grace period still hold.
# Each run is bounded by a guard far beyond the times it should take (60
# s): a guard's "hung" means runx blocked on the reader.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"
require_python3 "(the test harness)"

# 7 per destination nobody reads, 1 for the terminal's flags, 4 for the
# end, 6 for a stop signal in the drain, 2 for output held over a wake-up,
# 4 for a destination that fails, 2 for what the idle deadline names
plan $((7 * 3 + 1 + 4 + 6 + 2 + 4 + 2))

# The harness: python3 gives runx a stdout and stderr nobody reads, runs
# it with a hang guard and prints runx's status, or "hung" (with TIMED=1
# in the environment, then its wall time in whole seconds).  KIND: pty,
# pipe or socket (one destination for both); two (a pipe each); full
# (stdout to /dev/null, stderr to a pipe already full).
# guard.py: what both harnesses below wait with.
cat >"$TMPD/guard.py" <<'EOF'
import subprocess
def wait_guarded(p):
    """runx's status, or "hung" (then killed) if it ran for 60 s."""
    try:
        return p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        return "hung"
EOF
cat >"$TMPD/stuck.py" <<'EOF'
import fcntl, os, pty, socket, subprocess, sys, time
from guard import wait_guarded
kind, argv = sys.argv[1], sys.argv[2:]
keep = []
if kind == "pty":
    master, slave = pty.openpty()
    keep, out, err = [master], slave, slave
elif kind in ("pipe", "two", "full"):
    r, w = os.pipe()
    keep, out, err = [r], w, w
    if kind == "two":
        r2, err = os.pipe()
        keep.append(r2)
    elif kind == "full":
        fcntl.fcntl(w, fcntl.F_SETFL, os.O_NONBLOCK)
        try:
            while True:
                os.write(w, b"x" * 4096)
        except BlockingIOError:
            pass
        fcntl.fcntl(w, fcntl.F_SETFL, 0)
        out = subprocess.DEVNULL
elif kind == "socket":
    a, b = socket.socketpair()
    b.setblocking(True)
    keep, out, err = [a], b.fileno(), b.fileno()
t = time.monotonic()
p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
if kind != "socket":
    for fd in {out, err} - {subprocess.DEVNULL}:
        os.close(fd)
status = wait_guarded(p)
if os.environ.get("TIMED"):
    print(status, int(time.monotonic() - t))
else:
    print(status)
EOF

# json_field FILE FIELD: a top-level field of a report.
json_field() {
	"$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2" 2>&1
}

for kind in pty pipe socket; do
	new_marker m
	assert_eq "$kind nobody reads: -t 1 -k 2 --idle-timeout=30 with yes: 124" 124 \
		"$("$PY" "$TMPD/stuck.py" "$kind" "$RUNX" "${LAUNCH_ARGS[@]}" -t 1 -k 2 --idle-timeout=30 -- \
			sh -c "yes $m")"
	assert_dead "$kind nobody reads: yes is gone" "$m"

	# the grace period holds too: TERM ignored, SIGKILL after 1 s
	new_marker m
	assert_eq "$kind nobody reads: TERM-ignoring writer, -t 0.5 -k 1: 124" 124 \
		"$("$PY" "$TMPD/stuck.py" "$kind" "$RUNX" "${LAUNCH_ARGS[@]}" -t 0.5 -k 1 --idle-timeout=30 -- \
			sh -c "trap '' TERM; yes $m")"
	assert_dead "$kind nobody reads: the TERM-ignoring writer is gone" "$m"

	# output waiting for a reader is not silence (SPEC, --idle-timeout):
	# a writer that filled the destination and then waits is not idle
	# while runx holds its output; the deadline ends it.  The idle clock
	# runs from the start until head's first write (sh's start, a fork
	# and an exec): on a loaded machine (load average 24 on 2 cores) that
	# once took over 1 s, so the idle deadline is 3 s
	new_marker m
	assert_eq "$kind nobody reads: held output is not idle: -t 6 ends it (124)" 124 \
		"$("$PY" "$TMPD/stuck.py" "$kind" "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=3 -t 6 -k 2 \
			--report="$TMPD/held-$kind.json" -- sh -c "head -c 4000000 /dev/zero; sleep $m")"
	assert_eq "$kind nobody reads: the deadline, not the idle deadline, fired" timeout \
		"$(json_field "$TMPD/held-$kind.json" reason)"
	assert_dead "$kind nobody reads: held output: gone" "$m"
done

# The shared description of a terminal is not made non-blocking: the
# relay writes through a description of its own (the shell's terminal
# keeps its flags).
cat >"$TMPD/flags.py" <<'EOF'
import fcntl, os, pty, subprocess, sys
master, slave = pty.openpty()
before = fcntl.fcntl(slave, fcntl.F_GETFL)
p = subprocess.run(sys.argv[1:], stdout=slave, stderr=slave)
after = fcntl.fcntl(slave, fcntl.F_GETFL)
print(p.returncode, "same" if before == after else "changed %o -> %o" % (before, after))
EOF
assert_eq "terminal: its file status flags are unchanged after the relay" "0 same" \
	"$("$PY" "$TMPD/flags.py" "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=5 -- sh -c 'echo hello')"

# At the end runx waits for its readers at most the grace period (runx(1),
# --idle-timeout) with stdout and stderr together: two readers that both
# stopped cost one grace period, not two (a pipe each, nobody reads).  With -t 0.5 -k 10 the waits alone take 10 s if runx waits
# once and 20 s if it waits per stream (poll(2) timeouts, which load can
# only lengthen): 17 s leaves 6.5 s for starting and stopping on a loaded
# machine.
new_marker m
TIMED=1 "$PY" "$TMPD/stuck.py" two "$RUNX" "${LAUNCH_ARGS[@]}" -t 0.5 -k 10 \
	--idle-timeout=30 -- sh -c "yes $m & yes $m >&2" >"$TMPD/two.out"
read -r status secs <"$TMPD/two.out"
assert_eq "two pipes nobody reads: -t 0.5 -k 10: 124" 124 "$status"
if [ "$secs" -lt 17 ]; then
	ok "two pipes nobody reads: runx waited for them once ($secs s; 20 s if once per stream)"
else
	not_ok "two pipes nobody reads: runx waited for them once" "it took $secs s (10 s expected, 20 s if once per stream)"
fi
assert_dead "two pipes nobody reads: the writers are gone" "$m"

# A pipe that ended while its destination is full holds no output: the
# command's stderr goes to a pipe nobody reads that is already full, and
# the command closes its stderr at once (EOF on the relay's pipe, where
# splice(2) still says EAGAIN, trying the full destination first); then
# it is silent, so the idle deadline ends it, not -t 30.
new_marker m
"$PY" "$TMPD/stuck.py" full "$RUNX" "${LAUNCH_ARGS[@]}" -t 30 --idle-timeout=1 \
	--report="$TMPD/ended.json" -- sh -c "exec 2>&-; sleep $m" >"$TMPD/ended.out"
assert_eq "a full pipe whose writer closed it: the idle deadline fired" "124 idle_timeout" \
	"$(cat "$TMPD/ended.out") $(json_field "$TMPD/ended.json" reason)"

# The harness of the last cases: runx's stdout is a pipe of one page
# (4096 bytes) that python3 reads as MODE says, its stderr (-v) the file
# ERR; the command writes 30000 bytes, which fit in the relay's pipe (64
# KiB at least), so it never waits for the reader itself.  MODE "never": nobody
# reads; once ERR says the command exited, runx (in its drain) gets
# SIGTERM.  MODE "stopcont": once the file READY exists (the command
# wrote all its output, most of it still in the relay's pipe), runx is
# stopped (SIGSTOP) for 2.5 s, longer than its idle deadline; meanwhile
# 4096 bytes are read, so that when runx goes on, its idle timer and the
# destination's room come in one poll(2) round; 3 s later (longer than
# -k 1) the rest is read.  Prints runx's status (or "hung") and the
# number of bytes read.
cat >"$TMPD/drain.py" <<'PY'
import fcntl, os, signal, struct, subprocess, sys, termios, time
from guard import wait_guarded
mode, errfile, ready, argv = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ: one page (pipe(7))
err = open(errfile, "w")
p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=w, stderr=err)
os.close(w)
def wait_for(test, secs=60):
    end = time.monotonic() + secs
    while not test() and time.monotonic() < end:
        time.sleep(0.02)
got = 0
if mode == "never":
    wait_for(lambda: "exited with status" in open(errfile).read())
    time.sleep(0.5)  # in the drain's wait for the reader
    p.send_signal(signal.SIGTERM)
else:
    wait_for(lambda: os.path.exists(ready))
    # the destination full (runx moved its first page) before the stop:
    # else the read below would wait for a runx that is stopped
    def dst_full():
        return struct.unpack("i", fcntl.ioctl(r, termios.FIONREAD, b"\0" * 4))[0] >= 4096
    wait_for(dst_full)
    p.send_signal(signal.SIGSTOP)
    time.sleep(2.5)
    got += len(os.read(r, 4096)) if dst_full() else 0
    p.send_signal(signal.SIGCONT)
    time.sleep(3)
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        got += len(b)
print(wait_guarded(p), got)
PY

# A stop signal ends the final drain at once, even with -k inf: the
# command wrote 30000 bytes and exited 0, nobody reads them; SIGTERM to
# runx then drops the rest (runx(1), --idle-timeout), and the status is
# still the command's.
"$PY" "$TMPD/drain.py" never "$TMPD/never.err" - "$RUNX" "${LAUNCH_ARGS[@]}" -v -k inf \
	--idle-timeout=30 -- dd if=/dev/zero bs=30000 count=1 status=none >"$TMPD/never.out"
read -r status got <"$TMPD/never.out"
assert_eq "a stop signal in the drain (-k inf, nobody reads): it ends; the command's status 0" \
	0 "$status" "$(cat "$TMPD/never.err")"
assert_match "a stop signal in the drain: -v says it came then" \
	"received SIGTERM while delivering the output" "$(cat "$TMPD/never.err")"
assert_match "a stop signal in the drain: -v counts what was dropped" \
	"gave up on the output: [0-9]+ bytes the reader had not taken were dropped" \
	"$(cat "$TMPD/never.err")"
assert_eq "a stop signal in the drain: nothing was read" 0 "$got"
# ... and it ends the run: attempt 1 failed (exit 1) and would be retried,
# but runx was told to stop while it delivered its output.
"$PY" "$TMPD/drain.py" never "$TMPD/again.err" - "$RUNX" "${LAUNCH_ARGS[@]}" -v -k inf \
	--idle-timeout=30 --attempts=3 --retry-delay=0 -- \
	sh -c 'echo x >>"$1"; dd if=/dev/zero bs=30000 count=1 status=none; exit 1' sh "$TMPD/again.count" \
	>"$TMPD/again.out"
assert_eq "a stop signal in attempt 1's drain: runx exits with its status (1)" 1 \
	"$(cut -d' ' -f1 "$TMPD/again.out")" "$(cat "$TMPD/again.err")"
assert_eq "a stop signal in attempt 1's drain: no further attempt" 1 "$(lines "$TMPD/again.count")"

# Output held for a slow reader is not silence, also when the idle timer
# and the reader's room come in the same poll(2) round (the relay's pipe
# still holds what the command wrote): everything is delivered, then
# the silence ends the command.
new_marker m
"$PY" "$TMPD/drain.py" stopcont "$TMPD/sc.err" "$TMPD/sc.ready" "$RUNX" "${LAUNCH_ARGS[@]}" \
	-v -t 30 -k 1 --idle-timeout=1 --report="$TMPD/sc.json" -- \
	sh -c 'head -c 30000 /dev/zero; : >"$1"; exec sleep "$2"' sh "$TMPD/sc.ready" "$m" \
	>"$TMPD/sc.out"
assert_eq "held output over a wake-up: all 30000 bytes delivered, then the idle deadline (124)" \
	"124 30000 idle_timeout" "$(cat "$TMPD/sc.out") $(json_field "$TMPD/sc.json" reason)" \
	"$(cat "$TMPD/sc.err")"
assert_dead "held output over a wake-up: the command is gone" "$m"

# A destination that fails (not EPIPE) loses output: runx says so on
# stderr and in the report's error, and is not killed by it: /dev/full
# (ENOSPC), and a file past RLIMIT_FSIZE (EFBIG; SIGXFSZ, unless runx
# blocks it, kills runx before its cleanup and report).  The command
# writes 30000 bytes in one write(2), which fits in the relay's empty pipe
# (64 KiB at least), so it exits 0 whenever runx closes the pipe (a write
# after that would get SIGPIPE).
s=0
"$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=30 --report="$TMPD/full.json" -- \
	dd if=/dev/zero bs=30000 count=1 status=none >/dev/full 2>"$TMPD/full.err" || s=$?
assert_eq "/dev/full: the command's status (0), and the report's error" \
	"0 cannot write the command's standard output: No space left on device" \
	"$s $(json_field "$TMPD/full.json" error)"
assert_eq "/dev/full: one line on stderr" \
	"runx: cannot write the command's standard output: No space left on device; the rest of it is dropped" \
	"$(cat "$TMPD/full.err")"
s=$( (ulimit -f 10 && "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=30 -m -o "$TMPD/fsize.out" \
	--report="$TMPD/fsize.json" -- dd if=/dev/zero bs=30000 count=1 status=none \
	2>"$TMPD/fsize.err"); echo $?)
assert_eq "past RLIMIT_FSIZE: runx lives to write its report (status 0)" \
	"0 cannot write the command's output: File too large" \
	"$s $(json_field "$TMPD/fsize.json" error)" "$(cat "$TMPD/fsize.err")"
assert_eq "past RLIMIT_FSIZE: the file holds the first 10240 bytes" 10240 \
	"$(stat -c %s "$TMPD/fsize.out")"

# The idle deadline names what was silent, as the deadline does: -v and
# the report's alive_at_deadline.
new_marker m
"$RUNX" "${LAUNCH_ARGS[@]}" -v --idle-timeout=0.5 -k 1 --report="$TMPD/named.json" -- \
	sleep "$m" 2>"$TMPD/named.err"
assert_match "the idle deadline: -v names the silent process" \
	"runx: alive at the idle deadline: pid [0-9]+, age [0-9.]+s: sleep $m" "$(cat "$TMPD/named.err")"
assert_eq "the idle deadline: the report's alive_at_deadline names it" "1 sleep $m" \
	"$("$PY" -c 'import json, sys
a = json.load(open(sys.argv[1]))["alive_at_deadline"]
print(a["count"], " ".join(a["processes"][0]["argv"]))' "$TMPD/named.json" 2>&1)"

done_testing
