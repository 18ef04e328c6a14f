#!/bin/bash
# The README's first command, (1), taken from the README itself: run
# under `bash -c` (whose own command line holds the words 'sleep 300'), its
# job part after the build prints "runx exit status: 124" and "no process
# left behind"; its leftover check does find a process that is exactly
# `sleep 300`, and only that.
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
README=$SRCDIR/README
[ -r "$README" ] || skip_all "no README in $SRCDIR"
require_command pgrep "(procps)"
require_command unshare "(util-linux)"

# The README's check looks for `sleep 300` anywhere on the machine: any
# other `sleep 300` (another program's, on a shared machine) would be
# taken for a leftover (a README run in the suite saw one that no test
# had started).  So the job, and the check that must find nothing, run in
# a PID namespace of their own with its own /proc, where the only
# processes are theirs.
IN_OWN_PIDNS=(unshare --pid --fork --mount-proc --kill-child)
"${IN_OWN_PIDNS[@]}" true 2>"$TMPD/unshare.err" ||
	skip_all "cannot make a PID namespace with its own /proc (needs root): $(head -n 1 "$TMPD/unshare.err")"

# 2 the README's command, 3 its run, 3 its check, 4 its attempts examples
plan $((2 + 3 + 3 + 4))

# The command is the indented line after "(1) build and run the main job:".
cmd=$(awk '/^\(1\) build and run the main job:/ { on = 1; next }
	on && /^    [^ ]/ { sub(/^    /, ""); print; exit }' "$README")
build='scripts/install-deps && autoreconf -i && ./configure && make && '
assert_eq "README (1) starts with the build" "$build" "${cmd:0:${#build}}"
job=${cmd:${#build}}
assert_match "README (1) then runs ./src/runx" '^\./src/runx ' "$job"

# Run from a directory whose src/runx is the binary under test.
mkdir -p "$TMPD/top/src"
ln -s "$RUNX" "$TMPD/top/src/runx"
out=$(cd "$TMPD/top" && guarded 60 "${IN_OWN_PIDNS[@]}" bash -c "$job" 2>"$TMPD/stderr")
s=$?
assert_eq "README (1) under bash -c: the shell's status" 0 "$s" "$(cat "$TMPD/stderr")"
assert_eq "README (1) under bash -c: runx exits 124, nothing is left" \
	"runx exit status: 124
no process left behind" "$out" "$(cat "$TMPD/stderr")"
assert_match "README (1): runx -v said the deadline fired" "deadline of 2s reached" \
	"$(cat "$TMPD/stderr")"

# The check itself: the part after the last "; " of the job.
check=${job##*; }
assert_match "README (1) ends with the leftover check" "^pgrep .*no process left behind" "$check"
# A process that is exactly `sleep 300` (a copy of this script's own
# sleep, so that the only such process is ours) is found by its pid ...
sleep 300 &
pid=$!
at_exit "kill -KILL $pid 2>/dev/null"
# is_sleep_300 PID: PID runs `sleep 300` (not yet the forked shell).
# shellcheck disable=SC2317 # called through poll
is_sleep_300() {
	[ "$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)" = "sleep 300 " ]
}
poll 1000 0.02 is_sleep_300 "$pid"
found=$(bash -c "$check")
nl=$'\n'
assert_match "the check finds a leftover 'sleep 300' by its pid" "(^|$nl)$pid sleep 300($nl|\$)" "$found"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
# ... and a command line that only contains the words is not one.
found=$(guarded 60 "${IN_OWN_PIDNS[@]}" bash -c "$check # sleep 300")
assert_eq "the check does not find a shell whose command line holds 'sleep 300'" \
	"no process left behind" "$found"

# --- the README's examples of attempts: their options as written ------------------
# The CI step's runx words up to "--", and the restarting ENTRYPOINT's
# array (its lines joined) but its program and its "--", each run on
# `true`: a
# renamed or re-spelled option in the README fails here (125).
ci=$(awk '/^ *run: exec runx .*--attempts=/ { sub(/^ *run: exec runx /, ""); sub(/ -- .*/, ""); print; exit }' "$README")
assert_match "README: the CI step retries with --attempts" "--attempts=[0-9]" "$ci"
read -r -a words <<<"$ci"
assert_eq "README: the CI step's options run a command that succeeds: 0" 0 \
	"$(st guarded 60 "$RUNX" "${words[@]}" -- true)"
require_python3 "for the README's ENTRYPOINT"
entry=$(awk '/^ *ENTRYPOINT \[.*--attempts=/ { on = 1 } on { sub(/\\$/, ""); printf "%s", $0 } on && /\]/ { exit }' "$README" |
	"$PY" -c 'import json, sys
a = json.loads(sys.stdin.read().strip()[len("ENTRYPOINT"):])
assert a[0].endswith("/runx") and a[-1] == "--", a
print("\n".join(a[1:-1]))')
assert_match "README: the ENTRYPOINT restarts for ever" "^--attempts=inf$" "$(grep -x -e '--attempts=inf' <<<"$entry")"
mapfile -t words <<<"$entry"
assert_eq "README: the ENTRYPOINT's options run a command that succeeds: 0" 0 \
	"$(st guarded 60 "$RUNX" "${words[@]}" -- true)"

done_testing
