#!/bin/bash
# --idle-timeout: the output is relayed through runx; the idle deadline
# fires after DURATION without output on stdout or stderr (124, reason
# idle_timeout), is reset by every output, works together with -t; the
# relay is byte-exact (100 MB, 10 MB with a backend other than the default,
# of mixed stdout/stderr through pipes, files,
# -o/-e, -m, -o F -e F, -a; a slow reader); a grandchild of another session
# that holds the output pipe does not keep runx waiting once the scope is
# done; SIGPIPE and stdin behave as without runx.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

require_python3 "(data generator, report)"
for t in sha256sum timeout setsid; do
	require_command "$t"
done

# 22 the idle deadline, 8 with -t, 3 closed streams, 3 stdin and SIGPIPE,
# 13 + 14 byte-exact relays, 4 order of >F 2>&1, 2 slow readers, 2 a
# reader that leaves, 9 grandchildren
plan $((22 + 8 + 3 + 3 + 13 + 14 + 4 + 2 + 2 + 9))

# --- own helpers ---------------------------------------------------------------

# report_field FILE KEY: a top-level field of a JSON report, as JSON.
report_field() {
	"$PY" -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))[sys.argv[2]]))' "$1" "$2" 2>/dev/null
}

sha() { sha256sum | cut -d' ' -f1; }

# hang guard that cannot be confused with runx's own 124: SIGKILL -> 137
hang_guard() {
	timeout -s KILL "$@"
}

# The generator: writes TOTAL bytes, pseudo-random but the same for the same
# SEED, about 60% to stdout and 40% to stderr, with os.write of very
# different sizes.  "bin": any byte values, chunks of 1 B..300 KB.  "lines":
# whole lines only (each write ends in a newline), stdout lines start with
# "O", stderr lines with "E", so a merged stream can be split again.
cat >"$TMPD/gen.py" <<'EOF'
import base64, os, random, sys
mode, total, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)

def write_all(fd, view):
    while view:
        view = view[os.write(fd, view):]

left = total
if mode == "bin":
    pool = memoryview(rng.randbytes(1 << 22))
    while left > 0:
        n = rng.choice((1, 7, 512, 4095, 4096, 4097, 65536, 65537, 200000,
                        rng.randrange(1, 300000)))
        n = min(n, left)
        off = rng.randrange(0, len(pool) - n)
        write_all(1 if rng.random() < 0.6 else 2, pool[off:off + n])
        left -= n
else:
    def pool(tag):
        text = base64.b64encode(rng.randbytes(3 << 20)).replace(b"/", b"\xff\t")
        lines, pos = [], 0
        for _ in range(20000):
            n = rng.randrange(0, 200)
            lines.append(tag + text[pos:pos + n] + b"\n")
            pos += n
        offs = [0]
        for l in lines:
            offs.append(offs[-1] + len(l))
        return memoryview(b"".join(lines)), offs
    pools = {1: pool(b"O"), 2: pool(b"E")}
    while left > 0:
        fd = 1 if rng.random() < 0.6 else 2
        blob, offs = pools[fd]
        i = rng.randrange(0, 19990)
        j = min(i + rng.randrange(1, 1000), 20000)
        write_all(fd, blob[offs[i]:offs[j]])
        left -= offs[j] - offs[i]
EOF
GEN=("$PY" "$TMPD/gen.py")
# The byte-exact relays move 100 MB with the default backend; the same
# relay code runs after every backend's launch, so the runs with another
# backend (RUNX_LAUNCH set: make check's NAME_BACKEND.launch) move 10 MB,
# in the same chunk sizes (each 100 MB relay is CPU-bound: under a loaded
# make -j4 check one such run took 4 minutes).
BIG=100000000
[ -n "${RUNX_LAUNCH:-}" ] && BIG=10000000

# --- the idle deadline fires ----------------------------------------------------
# (on_time: the output must be out before the idle deadline)
new_marker m
rep=$TMPD/fires.json
on_time 0.5 "$TMPD/fires.ready" ">$TMPD/fires.out" "2>$TMPD/fires.err" -- \
	runx -v --report="$rep" --idle-timeout=@T -k 2 -- \
	sh -c 'echo one; echo two >&2; : >"$2"; exec sleep "$1"' sh "$m" "$TMPD/fires.ready"
assert_eq "idle: fires after silence: 124" 124 "$OT_STATUS"
assert_eq "idle: stdout before the silence went through" one "$(cat "$TMPD/fires.out")"
assert_eq "idle: stderr before the silence went through" two "$(grep -v '^runx: ' "$TMPD/fires.err")"
assert_eq "idle: report reason" '"idle_timeout"' "$(report_field "$rep" reason)"
assert_eq "idle: report idle_timeout" "$(awk -v t="$OT_T" 'BEGIN { printf "%.1f", t }')" \
	"$(report_field "$rep" idle_timeout)"
assert_eq "idle: report signal (the command died of SIGTERM)" '"SIGTERM"' "$(report_field "$rep" signal)"
assert_match "idle: -v says why" "runx: idle deadline reached: no output for $(duration_text "$OT_T")" \
	"$(cat "$TMPD/fires.err")"
assert_dead "idle: the command is dead" "$m"

new_marker m
assert_eq "idle: no output at all: 124" 124 "$(st runx --idle-timeout=0.3 -- sleep "$m")"
assert_dead "idle: no output at all: dead" "$m"

new_marker m
assert_eq "idle -p: the command's own status (143)" 143 \
	"$(st runx -p --idle-timeout=0.3 -- sleep "$m")"
assert_dead "idle -p: dead" "$m"

# TERM ignored: SIGKILL after the grace period, still 124
new_marker m
assert_eq "idle: TERM ignored, SIGKILL after grace: 124" 124 \
	"$(st hang_guard 120 "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=0.3 -k 0.3 -- sh -c "trap '' TERM; sleep $m; :")"
assert_dead "idle: TERM ignored: dead" "$m"

# --- every output resets it ------------------------------------------------------------
# (an output every 0.2 s: a gap of 2 s, ten times that, holds on a loaded
# machine; the output goes on twice as long as the idle deadline)
s=0
runx --idle-timeout=2s -- sh -c 'i=0; while [ $i -lt 20 ]; do echo $i; sleep 0.2; i=$((i+1)); done' \
	>"$TMPD/reset.out" || s=$?
assert_eq "idle: output every 0.2 s for 4 s with --idle-timeout 2s: exit 0" 0 "$s"
assert_eq "idle: all 20 lines" "$(seq 0 19 | tr '\n' ' ' | sed 's/ $//')" "$(tr '\n' ' ' <"$TMPD/reset.out" | sed 's/ $//')"

s=0
runx --idle-timeout=2s -- sh -c 'i=0; while [ $i -lt 20 ]; do echo $i >&2; sleep 0.2; i=$((i+1)); done' \
	2>"$TMPD/reset.err" || s=$?
assert_eq "idle: stderr output resets it too: exit 0" 0 "$s"
assert_eq "idle: all 20 stderr lines" 20 "$(wc -l <"$TMPD/reset.err" | tr -d ' ')"

# output, then silence: fires only after the silence
new_marker m
rep=$TMPD/late.json
s=0
runx --report="$rep" --idle-timeout=2 -- sh -c 'for i in 1 2 3 4 5 6; do echo $i; sleep 0.3; done; exec sleep "$1"' sh "$m" \
	>"$TMPD/late.out" || s=$?
assert_eq "idle: output for 1.8 s, then silence: 124" 124 "$s"
assert_eq "idle: all 6 lines arrived" 6 "$(wc -l <"$TMPD/late.out" | tr -d ' ')"
assert_true "idle: the deadline counted from the last output (wall_time >= 3.5: last output at 1.5 s + 2 s)" \
	"$PY" -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["wall_time"] >= 3.5 else 1)' "$rep"
assert_dead "idle: output then silence: dead" "$m"

# --- together with -t -----------------------------------------------------------------
new_marker m
rep=$TMPD/both-t.json
s=0
runx --report="$rep" -t 1 --idle-timeout=10 -- sh -c 'while :; do echo x; sleep 0.1; done; : "$1"' sh "$m" \
	>/dev/null || s=$?
assert_eq "-t 1 --idle-timeout 10 with steady output: 124" 124 "$s"
assert_eq "-t 1 --idle-timeout 10: reason timeout" '"timeout"' "$(report_field "$rep" reason)"
assert_dead "-t 1 --idle-timeout 10: dead" "$m"

new_marker m
rep=$TMPD/both-idle.json
assert_eq "-t 10 --idle-timeout 0.5, silent: 124" 124 \
	"$(st runx --report="$rep" -t 10 --idle-timeout=0.5 -- sleep "$m")"
assert_eq "-t 10 --idle-timeout 0.5: reason idle_timeout" '"idle_timeout"' "$(report_field "$rep" reason)"
assert_eq "-t 10 --idle-timeout 0.5: report timeout" 10.0 "$(report_field "$rep" timeout)"
assert_dead "-t 10 --idle-timeout 0.5: dead" "$m"

assert_eq "-t and --idle-timeout, the command ends first: its status" 5 \
	"$(st runx -t 10 --idle-timeout=60 -- sh -c 'echo hi >/dev/null; sleep 0.2; exit 5')"

# A standard stream that was closed when runx started stays closed in the
# command (decision 9), relay or not.  The probe writes "open" or "closed"
# for fd $1 on the other of fds 1/2.
FDPROBE='import os, sys
fd = int(sys.argv[1])
try:
    os.fstat(fd)
    r = "open"
except OSError:
    r = "closed"
os.write(3 - fd, r.encode())'
assert_eq "(without --idle-timeout, for comparison: a closed stdout stays closed)" closed \
	"$(runx -- "$PY" -c "$FDPROBE" 1 2>&1 >&-)"
assert_eq "idle: a closed stdout is still closed in the command" closed \
	"$(runx --idle-timeout=60 -- "$PY" -c "$FDPROBE" 1 2>&1 >&-)"
assert_eq "idle: a closed stderr is still closed in the command" closed \
	"$(runx --idle-timeout=60 -- "$PY" -c "$FDPROBE" 2 2>&-)"

# --- stdin, SIGPIPE ------------------------------------------------------------------------
assert_eq "idle: stdin is untouched" "abc" "$(printf abc | runx --idle-timeout=60 -- cat)"

new_marker m
s=$(hang_guard 120 "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=60 -- yes "$m" | head -n 1 >/dev/null; echo "${PIPESTATUS[0]}")
assert_eq "idle: a closed reader gives SIGPIPE, as without runx (141)" 141 "$s"
assert_dead "idle: SIGPIPE: dead" "$m"

# --- byte-exact relay ---------------------------------------------------------------------
# reference: the same command without runx
"${GEN[@]}" bin "$BIG" 7 >"$TMPD/ref.out" 2>"$TMPD/ref.err" ||
	bail_out "the data generator failed: $(cat "$TMPD/ref.err")"
ref_out=$(sha <"$TMPD/ref.out")
ref_err=$(sha <"$TMPD/ref.err")
ref_out_size=$(wc -c <"$TMPD/ref.out" | tr -d ' ')
ref_err_size=$(wc -c <"$TMPD/ref.err" | tr -d ' ')
rm -f "$TMPD/ref.out" "$TMPD/ref.err"
diag "reference: stdout $ref_out_size bytes, stderr $ref_err_size bytes"

# both streams to pipes (splice pipe to pipe)
rm -f "$TMPD/st"
{ { hang_guard 300 "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=60 -- "${GEN[@]}" bin "$BIG" 7
	echo $? >"$TMPD/st"; } 2>&1 1>&3 3>&- | sha >"$TMPD/pipe.err.sha"; } 3>&1 | sha >"$TMPD/pipe.out.sha"
assert_eq "relay to pipes: exit 0" 0 "$(cat "$TMPD/st")"
assert_eq "relay to pipes: stdout byte-exact (sha256)" "$ref_out" "$(cat "$TMPD/pipe.out.sha")"
assert_eq "relay to pipes: stderr byte-exact (sha256)" "$ref_err" "$(cat "$TMPD/pipe.err.sha")"

# both streams to files opened by the shell
s=0
hang_guard 300 "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=60 -- "${GEN[@]}" bin "$BIG" 7 \
	>"$TMPD/f.out" 2>"$TMPD/f.err" || s=$?
assert_eq "relay to files: exit 0" 0 "$s"
assert_eq "relay to files: stdout byte-exact" "$ref_out" "$(sha <"$TMPD/f.out")"
assert_eq "relay to files: stderr byte-exact" "$ref_err" "$(sha <"$TMPD/f.err")"
rm -f "$TMPD/f.out" "$TMPD/f.err"

# -o / -e
s=0
hang_guard 300 "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=60 -o "$TMPD/o.out" -e "$TMPD/o.err" -- \
	"${GEN[@]}" bin "$BIG" 7 >"$TMPD/o.stdout" 2>"$TMPD/o.stderr" || s=$?
assert_eq "relay -o/-e: exit 0" 0 "$s"
assert_eq "relay -o/-e: stdout file byte-exact" "$ref_out" "$(sha <"$TMPD/o.out")"
assert_eq "relay -o/-e: stderr file byte-exact" "$ref_err" "$(sha <"$TMPD/o.err")"
assert_eq "relay -o/-e: nothing on runx's own stdout/stderr" "0 0" \
	"$(wc -c <"$TMPD/o.stdout" | tr -d ' ') $(wc -c <"$TMPD/o.stderr" | tr -d ' ')"
rm -f "$TMPD/o.out" "$TMPD/o.err"

# -a appends (splice may not work with O_APPEND: the fallback path)
printf 'first line\n' >"$TMPD/a.out"
s=0
hang_guard 300 "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=60 -a -o "$TMPD/a.out" -- \
	"${GEN[@]}" bin 20000000 8 2>"$TMPD/a.err" || s=$?
"${GEN[@]}" bin 20000000 8 >"$TMPD/aref.out" 2>"$TMPD/aref.err" ||
	bail_out "the data generator failed: $(cat "$TMPD/aref.err")"
assert_eq "relay -a: exit 0" 0 "$s"
assert_eq "relay -a: the old content is kept, the output appended byte-exact" \
	"$( { printf 'first line\n'; cat "$TMPD/aref.out"; } | sha)" "$(sha <"$TMPD/a.out")"
assert_eq "relay -a: stderr byte-exact" "$(sha <"$TMPD/aref.err")" "$(sha <"$TMPD/a.err")"
rm -f "$TMPD/a.out" "$TMPD/a.err" "$TMPD/aref.out" "$TMPD/aref.err"

# merged streams: per-stream content (lines tagged O / E) and total size
"${GEN[@]}" lines "$BIG" 9 >"$TMPD/lref.out" 2>"$TMPD/lref.err" ||
	bail_out "the data generator failed: $(cat "$TMPD/lref.err")"
lref_out=$(sha <"$TMPD/lref.out")
lref_err=$(sha <"$TMPD/lref.err")
lref_size=$(($(wc -c <"$TMPD/lref.out") + $(wc -c <"$TMPD/lref.err")))
rm -f "$TMPD/lref.out" "$TMPD/lref.err"

# check_merged LABEL FILE
check_merged() {
	assert_eq "$1: total size" "$lref_size" "$(wc -c <"$2" | tr -d ' ')"
	assert_eq "$1: the stdout lines, in order, byte-exact" "$lref_out" "$(LC_ALL=C grep -a '^O' "$2" | sha)"
	assert_eq "$1: the stderr lines, in order, byte-exact" "$lref_err" "$(LC_ALL=C grep -a '^E' "$2" | sha)"
	rm -f "$2"
}

s=0
hang_guard 300 "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=60 -m -o "$TMPD/m.out" -- \
	"${GEN[@]}" lines "$BIG" 9 2>"$TMPD/m.stderr" || s=$?
assert_eq "relay -m -o: exit 0" 0 "$s"
assert_eq "relay -m -o: nothing on runx's stderr" 0 "$(wc -c <"$TMPD/m.stderr" | tr -d ' ')"
check_merged "relay -m -o" "$TMPD/m.out"

s=0
hang_guard 300 "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=60 -m -- \
	"${GEN[@]}" lines "$BIG" 9 >"$TMPD/m2.out" 2>"$TMPD/m2.stderr" || s=$?
assert_eq "relay -m (no -o): exit 0" 0 "$s"
assert_eq "relay -m (no -o): nothing on runx's stderr" 0 "$(wc -c <"$TMPD/m2.stderr" | tr -d ' ')"
check_merged "relay -m (no -o)" "$TMPD/m2.out"

s=0
hang_guard 300 "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=60 -o "$TMPD/same.out" -e "$TMPD/same.out" -- \
	"${GEN[@]}" lines "$BIG" 9 || s=$?
assert_eq "relay -o F -e F: exit 0" 0 "$s"
check_merged "relay -o F -e F" "$TMPD/same.out"

# ">F 2>&1" and "2>&1 | cat": runx's fds 1 and 2 are one place, so the
# two streams share one pipe and keep their order, as -m's do (the runx
# before relayed them through two: all of stdout, then all of stderr).
# 300 lines, each its own write(2), stdout and stderr in turn.
alternate='i=0; while [ $i -lt 300 ]; do echo "o$i"; echo "e$i" >&2; i=$((i + 1)); done'
want=$(i=0; while [ $i -lt 300 ]; do echo "o$i"; echo "e$i"; i=$((i + 1)); done | sha)
s=0
hang_guard 120 "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=60 -- sh -c "$alternate" >"$TMPD/alt.out" 2>&1 || s=$?
assert_eq "relay >F 2>&1: exit 0" 0 "$s"
assert_eq "relay >F 2>&1: the lines in the order written" "$want" "$(sha <"$TMPD/alt.out")"
hang_guard 120 "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=60 -- sh -c "$alternate" 2>&1 | cat >"$TMPD/alt.out"
s=${PIPESTATUS[0]}
assert_eq "relay 2>&1 | cat: exit 0" 0 "$s"
assert_eq "relay 2>&1 | cat: the lines in the order written" "$want" "$(sha <"$TMPD/alt.out")"
rm -f "$TMPD/alt.out"

# A slow reader: the command writes 100000 bytes and exits while the reader
# of runx's stdout is still asleep; every byte must still arrive.
for n in 100000 1000000; do
	got=$(hang_guard 120 "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=60 -- head -c "$n" /dev/zero | { sleep 1; wc -c; })
	assert_eq "relay to a slow reader: all $n bytes arrive" "$n" "${got// /}"
done

# A reader that leaves without reading: the idle deadline counts silence
# from the moment runx dropped the output it held for it, not from the
# command's last write before (the command was blocked on that write, not
# silent).  The reader leaves 2.5 s in, between two of the idle timer's
# 1 s checks: runx fired at the next check, 0.5 s after the drop, before
# (trial 11).  A lower bound only: a loaded machine makes the gap longer.
new_marker m
hang_guard 120 "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=1 -k 1 --report="$TMPD/drop.json" -- \
	sh -c 'head -c 3000000 /dev/zero; exec sleep "$1"' sh "$m" |
	{
		sleep 2.5
		date +%s.%N >"$TMPD/drop.left"
	}
gap=$("$PY" -c '
import datetime, json, sys
r = json.load(open(sys.argv[1]))
t0 = datetime.datetime.strptime(r["start_time"].replace("Z", "+0000"),
                                "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()
left = float(open(sys.argv[2]).read())
print("%s %.3f" % (r["reason"], t0 + r["signals_sent"][0]["time"] - left))
' "$TMPD/drop.json" "$TMPD/drop.left" 2>&1)
assert_true "a reader that left without reading: idle_timeout at least 1 s after it left (reason, gap in s: $gap)" \
	awk -v g="$gap" 'BEGIN { split(g, a, " "); exit !(a[1] == "idle_timeout" && a[2] >= 0.95) }'
assert_dead "a reader that left without reading: nothing left" "$m"

# --- a grandchild of another session holds the output pipe ---------------------------------
# It ignores TERM and is outside the group scope; runx must not wait for the
# pipe's EOF once the scope is done.  Its output goes to a file, never to a
# pipe this script reads (which would wait for the grandchild too).  The
# command says "started" once the grandchild leads a session of its own
# (field 6 of /proc/PID/stat, proc(5)): before that it is still in the
# command's group, and a command that exits at once would have it killed
# with the group.
grandchild='setsid sh -c "trap \"\" TERM; exec sleep $1" &
until [ "$(cut -d" " -f6 /proc/$!/stat 2>/dev/null)" = "$!" ]; do
	[ -e /proc/$! ] || break
	sleep 0.01
done
echo started'

new_marker g
s=0
# shellcheck disable=SC2154 # set by new_marker
hang_guard 120 "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=60 -k 1 -- sh -c "$grandchild; exit 3" sh "$g" \
	>"$TMPD/gc1.out" 2>&1 || s=$?
assert_eq "grandchild holds the pipe, command exits 3: runx returns 3 (137 = hung)" 3 "$s"
assert_eq "grandchild: the output before the exit arrived" started "$(cat "$TMPD/gc1.out")"
assert_true "grandchild: it outlived runx, in a session of its own" wait_marked "$g" 1 30
kill_marked "$g"

new_marker g
new_marker m
s=0
hang_guard 120 "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=0.5 -k 1 -- sh -c "$grandchild; exec sleep \$2" sh "$g" "$m" \
	>"$TMPD/gc2.out" 2>&1 || s=$?
assert_eq "grandchild holds the pipe, idle deadline: 124 (137 = hung)" 124 "$s"
assert_dead "grandchild, idle deadline: the command is dead" "$m"
kill_marked "$g"

new_marker g
new_marker m
s=0
hang_guard 120 "$RUNX" "${LAUNCH_ARGS[@]}" --idle-timeout=10 -t 0.5 -k 1 -- sh -c "$grandchild; exec sleep \$2" sh "$g" "$m" \
	>"$TMPD/gc3.out" 2>&1 || s=$?
assert_eq "grandchild holds the pipe, -t deadline: 124 (137 = hung)" 124 "$s"
assert_dead "grandchild, -t deadline: the command is dead" "$m"
kill_marked "$g"

# tree scope: the grandchild is in the scope; SIGKILL after the grace period
new_marker g
s=0
# shellcheck disable=SC2154 # set by new_marker
hang_guard 120 "$RUNX" "${LAUNCH_ARGS[@]}" --kill-scope=tree --idle-timeout=60 -k 1 -- sh -c "$grandchild; sleep 0.3; exit 3" sh "$g" \
	>"$TMPD/gc4.out" 2>&1 || s=$?
assert_eq "tree scope, TERM-ignoring grandchild holds the pipe: 3 (137 = hung)" 3 "$s"
assert_dead "tree scope: the grandchild was killed after the grace period" "$g"

done_testing
