#!/bin/bash
# --idle-timeout relays the command's output through runx: a destination
# that never reads (a terminal nobody reads, a full pipe, a socket) must
# not block runx, so the deadline and the grace period still hold.
# Each run is bounded by a guard far beyond the times it should take (60
# s): a guard's "hung" means runx blocked on the reader.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"
require_python3 "(the test harness)"

# 6 per destination nobody reads, 1 terminal flags
plan $((7 * 3 + 1))

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
	assert_eq "$kind nobody reads: -t 1 --idle-timeout=30 with yes: 124" 124 \
		"$("$PY" "$TMPD/stuck.py" "$kind" "$RUNX" "${LAUNCH_ARGS[@]}" -t 1 --idle-timeout=30 -- \
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
		"$("$PY" "$TMPD/stuck.py" "$kind" "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=1 -t 3 \
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

done_testing
