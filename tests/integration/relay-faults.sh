#!/bin/bash
# --idle-timeout relays the command's output through runx: a destination
# that never reads (a terminal nobody reads, a full pipe, a socket) must
# not block runx, so the deadline and the grace period still hold.
# Each run is bounded by a guard far beyond the times it should take (60
# s): a guard's "hung" means runx blocked on the reader.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"
require_python3 "(the test harness)"

# 7 per destination nobody reads, 1 for the terminal's flags, 4 for the end
plan $((7 * 3 + 1 + 4))

# The harness: python3 gives runx a stdout (and stderr) nobody reads, runs
# it with a hang guard and prints runx's status, or "hung".
cat >"$TMPD/stuck.py" <<'EOF'
import os, pty, socket, subprocess, sys
kind, argv = sys.argv[1], sys.argv[2:]
keep = []
if kind == "pty":
    master, slave = pty.openpty()
    keep = [master]
    out = slave
elif kind == "pipe":
    r, w = os.pipe()
    keep = [r]
    out = w
elif kind == "socket":
    a, b = socket.socketpair()
    keep = [a]
    out = b.fileno()
    b.setblocking(True)
p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
if kind != "socket":
    os.close(out)
try:
    print(p.wait(timeout=60))
except subprocess.TimeoutExpired:
    p.kill()
    p.wait()
    print("hung")
EOF

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
	# while runx holds its output; the deadline ends it
	new_marker m
	assert_eq "$kind nobody reads: held output is not idle: -t 3 ends it (124)" 124 \
		"$("$PY" "$TMPD/stuck.py" "$kind" "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=1 -t 3 -k 2 \
			--report="$TMPD/held-$kind.json" -- sh -c "head -c 4000000 /dev/zero; sleep $m")"
	assert_eq "$kind nobody reads: the deadline, not the idle deadline, fired" timeout \
		"$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["reason"])' "$TMPD/held-$kind.json")"
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
# stopped cost one grace period, not two.  The harness gives stdout and
# stderr a pipe each that nobody reads and prints runx's status and its
# wall time.  With -t 0.5 -k 10 the waits alone take 10 s if runx waits
# once and 20 s if it waits per stream (poll(2) timeouts, which load can
# only lengthen): 17 s leaves 6.5 s for starting and stopping on a loaded
# machine.
cat >"$TMPD/two.py" <<'EOF2'
import os, subprocess, sys, time
r1, w1 = os.pipe()
r2, w2 = os.pipe()
t = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=w1, stderr=w2)
os.close(w1)
os.close(w2)
try:
    status = p.wait(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    p.wait()
    status = "hung"
print(status, int(time.monotonic() - t))
EOF2
new_marker m
"$PY" "$TMPD/two.py" "$RUNX" "${LAUNCH_ARGS[@]}" -t 0.5 -k 10 \
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
cat >"$TMPD/full.py" <<'EOF2'
import fcntl, os, subprocess, sys
r, w = os.pipe()
fcntl.fcntl(w, fcntl.F_SETFL, os.O_NONBLOCK)
try:
    while True:
        os.write(w, b"x" * 4096)
except BlockingIOError:
    pass
fcntl.fcntl(w, fcntl.F_SETFL, 0)
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=w)
os.close(w)
try:
    print(p.wait(timeout=60))
except subprocess.TimeoutExpired:
    p.kill()
    p.wait()
    print("hung")
EOF2
new_marker m
"$PY" "$TMPD/full.py" "$RUNX" "${LAUNCH_ARGS[@]}" -t 30 --idle-timeout=1 \
	--report="$TMPD/ended.json" -- sh -c "exec 2>&-; sleep $m" >"$TMPD/ended.out"
assert_eq "a full pipe whose writer closed it: the idle deadline fired" "124 idle_timeout" \
	"$(cat "$TMPD/ended.out") $("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["reason"])' "$TMPD/ended.json")"

done_testing
