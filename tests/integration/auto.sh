#!/bin/bash
# --kill-scope=auto: cgroup where it works (as root here: -v says
# "auto scope: using cgroup ..."; the command is in a runx-* cgroup), else
# tree: with a backend that cannot start a command in a cgroup
# (posix_spawn before glibc 2.39) and as an unprivileged user, where -v
# says why and a setsid escape is still stopped (deadline and cleanup).
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

require_python3 "to read the report"
require_writable_cgroup2 "auto cannot pick cgroup"
require_command setpriv "to run runx unprivileged"
setup_nobody

# --- own helpers ---------------------------------------------------------------

# report_get FILE KEY...: top-level fields of a JSON report, space-separated
report_get() {
	"$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(" ".join(str(r[k]) for k in sys.argv[2:]))' "$@" 2>&1
}

spawn_has_cgroup=no
glibc_at_least 2.39 && spawn_has_cgroup=yes

# With RUNX_LAUNCH=posix_spawn on an older glibc, auto must pick tree.
AUTO_WANT=cgroup
if [ "${RUNX_LAUNCH:-}" = posix_spawn ] && [ $spawn_has_cgroup = no ]; then
	AUTO_WANT=tree
fi

SETSID_ESCAPE='setsid sh -c "trap \"\" TERM; touch \"\$1\"; exec sleep \"\$2\"" x "$1" "$2" &
i=0; while [ ! -e "$1" ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done'

# As root: 7, 3 per backend but posix_spawn, posix_spawn (4 where it
# cannot use the cgroup scope, else 2), 3 --foreground, 5 + 4 setsid
# escape; 16 unprivileged
ps_tests=2
[ $spawn_has_cgroup = no ] && ps_tests=4
plan $((7 + 3 * 3 + ps_tests + 3 + 5 + 4 + 16))

# --- as root: cgroup --------------------------------------------------------------------
out=$TMPD/root.out
s=0
"$RUNX" --kill-scope=auto -v --report="$TMPD/root.json" -- sh -c 'sed -n "s/^0:://p" /proc/self/cgroup' \
	>"$out" 2>"$TMPD/root.err" &
RUNX_PID=$!
wait_pid_exit "$RUNX_PID" 20
cg=$(cat "$out")
assert_eq "auto as root: exit 0" 0 "$WAIT_STATUS"
assert_match "auto as root: -v says 'auto scope: using cgroup PATH'" \
	"runx: auto scope: using cgroup $CGOWN/runx-$RUNX_PID-[0-9a-f]+" "$(cat "$TMPD/root.err")"
assert_match "auto as root: the command ran in that runx-* cgroup" \
	"^${CGOWN_REL%/}/runx-$RUNX_PID-[0-9a-f]+\$" "$cg"
assert_eq "auto as root: -v names the cgroup the command was in" \
	"runx: auto scope: using cgroup $CGMNT$cg" "$(grep 'auto scope' "$TMPD/root.err")"
assert_match "auto as root: started ... (cgroup scope, vfork launch) by default, as every scope" \
	"started 'sh' as pid [0-9]+ \\(cgroup scope, vfork launch\\)" "$(cat "$TMPD/root.err")"
assert_eq "auto as root: the report says scope cgroup" "cgroup cgroup $CGMNT$cg" \
	"$(report_get "$TMPD/root.json" scope scope_target)"
assert_no_cgroup "auto as root: no cgroup left" "$RUNX_PID"

for b in clone3 fork vfork; do
	s=0
	"$RUNX" --launch="$b" --kill-scope=auto -v -- sh -c 'sed -n "s/^0:://p" /proc/self/cgroup' \
		>"$out" 2>"$TMPD/b.err" || s=$?
	assert_eq "auto --launch=$b: exit 0" 0 "$s"
	assert_match "auto --launch=$b: the command ran in a runx-* cgroup" \
		"^${CGOWN_REL%/}/runx-[0-9]+-[0-9a-f]+\$" "$(cat "$out")"
	assert_match "auto --launch=$b: -v says cgroup" "runx: auto scope: using cgroup $CGOWN/runx-" "$(cat "$TMPD/b.err")"
done

s=0
"$RUNX" --launch=posix_spawn --kill-scope=auto -v --report="$TMPD/ps.json" -- sh -c 'sed -n "s/^0:://p" /proc/self/cgroup' \
	>"$out" 2>"$TMPD/ps.err" || s=$?
assert_eq "auto --launch=posix_spawn: exit 0" 0 "$s"
if [ $spawn_has_cgroup = no ]; then
	assert_match "auto --launch=posix_spawn on glibc $GLIBC_VERSION: -v says tree, and why" \
		"runx: auto scope: using tree, since --launch=posix_spawn cannot use the cgroup scope \\(.*glibc 2\\.39.*\\)" \
		"$(cat "$TMPD/ps.err")"
	assert_eq "auto --launch=posix_spawn: the command stays in runx's cgroup" "$CGOWN_REL" "$(cat "$out")"
	assert_eq "auto --launch=posix_spawn: the report says scope tree" tree "$(report_get "$TMPD/ps.json" scope)"
else
	assert_match "auto --launch=posix_spawn on glibc $GLIBC_VERSION: cgroup" "auto scope: using cgroup" "$(cat "$TMPD/ps.err")"
fi

# --foreground with auto (the SPEC refuses only group and pidns there):
# the command stays in runx's process group, in the scope auto picks
s=0
runx --foreground --kill-scope=auto -v -- sh -c 'echo "$(cut -d" " -f5 /proc/$$/stat) $(cut -d" " -f5 /proc/$PPID/stat)"; sed -n "s/^0:://p" /proc/self/cgroup' \
	>"$out" 2>"$TMPD/fg.err" || s=$?
assert_eq "auto --foreground: exit 0" 0 "$s"
assert_match "auto --foreground: the command is in runx's process group" '^([0-9]+) \1$' "$(sed -n 1p "$out")"
assert_match "auto --foreground (${RUNX_LAUNCH:-default} launch): scope $AUTO_WANT" "runx: auto scope: using $AUTO_WANT" "$(cat "$TMPD/fg.err")"

# the setsid escape, as root (RUNX_LAUNCH honoured; on_time: the escape
# must be in place before the deadline)
new_marker m
on_time 1 "$TMPD/ready.$m" "$m" "2>$TMPD/esc.err" -- runx --kill-scope=auto -v -t @T -k 0.5 --report="$TMPD/esc.json" -- sh -c "$SETSID_ESCAPE"'
exec sleep "$2"' sh "$TMPD/ready.$m" "$m"
RUNX_PID=$OT_PID
assert_eq "auto as root, setsid escape, deadline: 124" 124 "$OT_STATUS"
assert_true "auto as root, setsid escape: it was in place" test -e "$TMPD/ready.$m"
assert_dead "auto as root, setsid escape, deadline: dead" "$m"
assert_eq "auto as root (${RUNX_LAUNCH:-default} launch): scope $AUTO_WANT" "$AUTO_WANT" \
	"$(report_get "$TMPD/esc.json" scope)"
assert_no_cgroup "auto as root, deadline: no cgroup left" "$RUNX_PID"

new_marker m
runx --kill-scope=auto -k 0.5 -- sh -c "$SETSID_ESCAPE"'
exit 6' sh "$TMPD/ready.$m" "$m" &
RUNX_PID=$!
wait_pid_exit "$RUNX_PID" 30
assert_eq "auto as root, setsid escape, cleanup: the command's 6" 6 "$WAIT_STATUS"
assert_true "auto as root, setsid escape (cleanup): it was in place" test -e "$TMPD/ready.$m"
assert_dead "auto as root, setsid escape, cleanup: dead" "$m"
assert_no_cgroup "auto as root, cleanup: no cgroup left" "$RUNX_PID"

# --- unprivileged: tree -----------------------------------------------------------------
if ! as_nobody true 2>/dev/null; then
	skips 16 "unprivileged auto" "needs root (setpriv cannot switch to uid 65534)"
	done_testing
fi
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups -- "$NRUNX" "${LAUNCH_ARGS[@]}")

s=0
as_nobody "$NRUNX" "${LAUNCH_ARGS[@]}" --kill-scope=auto -v --report="$NOBODY_DIR/plain.json" -- \
	sh -c 'sed -n "s/^0:://p" /proc/self/cgroup' >"$NOBODY_DIR/plain.out" 2>"$NOBODY_DIR/plain.err" || s=$?
assert_eq "auto unprivileged: exit 0" 0 "$s"
assert_match "auto unprivileged: -v says tree and why" \
	"runx: auto scope: using tree, since .*(cgroup|Permission denied)" "$(cat "$NOBODY_DIR/plain.err")"
assert_match "auto unprivileged: the reason names the cgroup problem" \
	"auto scope: using tree, since the cgroup scope is not available \\(.*Permission denied.*\\)|auto scope: using tree, since --launch=posix_spawn" \
	"$(cat "$NOBODY_DIR/plain.err")"
assert_match "auto unprivileged: started ... (tree scope" "started 'sh' as pid [0-9]+ \\(tree scope" \
	"$(cat "$NOBODY_DIR/plain.err")"
assert_eq "auto unprivileged: the command stays in runx's cgroup" "$CGOWN_REL" "$(cat "$NOBODY_DIR/plain.out")"
assert_eq "auto unprivileged: the report says scope tree" tree "$(report_get "$NOBODY_DIR/plain.json" scope)"

# a setsid escape (TERM ignored) is still stopped: deadline
new_marker m
on_time 1 "$NOBODY_DIR/ready.$m" "$m" "2>/dev/null" -- "${NOBODY[@]}" --kill-scope=auto -t @T -k 0.5 -- sh -c "$SETSID_ESCAPE"'
exec sleep "$2"' sh "$NOBODY_DIR/ready.$m" "$m"
RUNX_PID=$OT_PID
assert_eq "auto unprivileged, setsid escape, deadline: 124" 124 "$OT_STATUS"
assert_true "auto unprivileged, setsid escape: it was in place" test -e "$NOBODY_DIR/ready.$m"
assert_dead "auto unprivileged, setsid escape, deadline: dead" "$m"
assert_no_cgroup "auto unprivileged: no cgroup left" "$RUNX_PID"

# ... and on cleanup after the command exits
new_marker m
as_nobody "$NRUNX" "${LAUNCH_ARGS[@]}" --kill-scope=auto -k 0.5 -- sh -c "$SETSID_ESCAPE"'
exit 6' sh "$NOBODY_DIR/ready.$m" "$m" 2>/dev/null &
RUNX_PID=$!
wait_pid_exit "$RUNX_PID" 30
assert_eq "auto unprivileged, setsid escape, cleanup: the command's 6" 6 "$WAIT_STATUS"
assert_true "auto unprivileged, setsid escape (cleanup): it was in place" test -e "$NOBODY_DIR/ready.$m"
assert_dead "auto unprivileged, setsid escape, cleanup: dead" "$m"

# ... and a double fork, deadline
new_marker m
on_time 1 "$NOBODY_DIR/ready.$m" "$m" "2>/dev/null" -- "${NOBODY[@]}" --kill-scope=auto -t @T -k 0.5 -- sh -c '
(sh -c "trap \"\" TERM; touch \"\$1\"; exec sleep \"\$2\"" x "$1" "$2" &)
i=0; while [ ! -e "$1" ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done
exec sleep "$2"' sh "$NOBODY_DIR/ready.$m" "$m"
assert_eq "auto unprivileged, double fork, deadline: 124" 124 "$OT_STATUS"
assert_true "auto unprivileged, double fork: it was in place" test -e "$NOBODY_DIR/ready.$m"
assert_dead "auto unprivileged, double fork, deadline: dead" "$m"

done_testing
