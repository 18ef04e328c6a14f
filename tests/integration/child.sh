#!/bin/bash
# Child scope (--kill-scope=child): only the direct child is signalled.
# --foreground: the command stays in runx's process group, implies the
# tree scope (--kill-scope=child may be given instead).
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

# 11 child scope, 13 --foreground, 6 combinations
plan $((11 + 13 + 6))

# --- --kill-scope=child ------------------------------------------------------
new_marker m
new_marker g
# (on_time: the grandchild must be there before the deadline)
r=$TMPD/ready.$m
# shellcheck disable=SC2154 # m, g: set by new_marker
on_time 1 "$r" "$g" -- runx --kill-scope=child -t @T -k 1 -- sh -c "echo \$\$ >$TMPD/pid.$m; sleep $g & : >$r; exec sleep $m"
assert_eq "child scope: deadline gives 124" 124 "$OT_STATUS"
cpid=$(cat "$TMPD/pid.$m" 2>/dev/null)
assert_false "child scope: the direct child is dead" pid_alive "${cpid:-0}"
assert_dead "child scope: the direct child is dead (by marker)" "$m"
assert_eq "child scope: the grandchild in the same group survives" 1 "$(marked_count "$g")"
kill_marked "$m" "$g"

# The command's leftovers are not touched when it exits on its own.
new_marker g
assert_eq "child scope: command's own status" 4 \
	"$(st runx --kill-scope=child -- sh -c "sleep $g >/dev/null 2>&1 & exit 4")"
assert_eq "child scope: a leftover is not stopped" 1 "$(marked_count "$g")"
kill_marked "$g"

# -p with the child scope.
new_marker m
assert_eq "child scope -p: 143" 143 "$(st runx --kill-scope=child -p -t 0.5 -- sleep "$m")"
assert_dead "child scope -p: dead" "$m"

# TERM-ignoring child: SIGKILL after the grace period.
new_marker m
r=$TMPD/ready.$m
on_time 0.5 "$r" -- runx --kill-scope=child -p -t @T -k 0.5 -- sh -c "trap '' TERM; : >$r; exec sleep $m"
assert_eq "child scope, TERM ignored: -p 137" 137 "$OT_STATUS"
assert_dead "child scope, TERM ignored: dead" "$m"

# The child still gets a session of its own (decision 3).
line=$(runx --kill-scope=child -- sh -c 'cat /proc/$$/stat; :')
rest=${line##*) }
read -r _state _ppid _pgrp sid _ <<<"$rest"
pid=${line%% *}
assert_eq "child scope: the command leads a new session" "$pid" "$sid"

# --- --foreground --------------------------------------------------------------
# The command prints its own stat line and runx's (its parent's).
out=$(runx --foreground -- sh -c 'cat /proc/$$/stat /proc/$PPID/stat; :')
cline=$(sed -n 1p <<<"$out")
rline=$(sed -n 2p <<<"$out")
read -r _st _pp cpgrp csid _ <<<"${cline##*) }"
read -r _st _pp rpgrp rsid _ <<<"${rline##*) }"
cpid=${cline%% *}
assert_eq "--foreground: the command is in runx's process group" "$rpgrp" "$cpgrp"
assert_eq "--foreground: the command is in runx's session" "$rsid" "$csid"
assert_ne "--foreground: the command does not lead a process group" "$cpid" "$cpgrp"
assert_eq "--foreground: runx is in the test shell's process group" \
	"$(stat_field $$ 5)" "$rpgrp"

# --foreground implies the tree scope: a background grandchild that
# ignores SIGTERM is stopped too, so $(...) returns at the deadline plus
# the grace period instead of waiting for it (SPEC, --foreground).
new_marker m
new_marker g
r=$TMPD/ready.$m
on_time 1 "$r" "$g" -- runx --foreground -t @T -k 1 -- sh -c "(trap '' TERM; exec sleep $g) & : >$r; exec sleep $m"
assert_eq "--foreground: deadline gives 124" 124 "$OT_STATUS"
assert_dead "--foreground: the direct child is dead" "$m"
assert_dead "--foreground: the grandchild is dead too (tree scope)" "$g"
x=$( { time -p runx --foreground -t 1 -k 1 -- sh -c "(trap '' TERM; sleep 30) & sleep 30" >/dev/null; } 2>&1 | awk '/^real/ { print ($2 < 15) ? "returned" : "late " $2 }')
assert_eq "--foreground in \$(...): returns at the deadline and grace, not 30 s later" returned "$x"

# --foreground --kill-scope=child keeps the child scope: the grandchild
# survives the deadline (documented).
new_marker m
new_marker g
r=$TMPD/ready.$m
on_time 1 "$r" "$g" -- runx --foreground --kill-scope=child -t @T -k 1 -- sh -c "sleep $g & : >$r; exec sleep $m"
assert_eq "--foreground --kill-scope=child: deadline gives 124" 124 "$OT_STATUS"
assert_dead "--foreground --kill-scope=child: the direct child is dead" "$m"
assert_eq "--foreground --kill-scope=child: the grandchild survives" 1 "$(marked_count "$g")"
kill_marked "$m" "$g"

new_marker m
assert_eq "--foreground -p: 143" 143 "$(st runx --foreground -p -t 0.5 -- sleep "$m")"
assert_dead "--foreground -p: dead" "$m"

# --- combinations rejected (decision 3) -----------------------------------------
rm -f "$TMPD/started"
assert_eq "--foreground --kill-scope=group: 125" 125 \
	"$(st runx --foreground --kill-scope=group -- touch "$TMPD/started" 2>/dev/null)"
assert_eq "--wait-all --kill-scope=child: 125" 125 \
	"$(st runx --wait-all --kill-scope=child -- touch "$TMPD/started" 2>/dev/null)"
assert_eq "--foreground --kill-scope=pidns: 125" 125 \
	"$(st runx --foreground --kill-scope=pidns -- touch "$TMPD/started" 2>/dev/null)"
assert_false "rejected combinations: nothing started" test -e "$TMPD/started"
assert_eq "--wait-all --foreground (tree scope) is fine" 0 \
	"$(st runx --wait-all --foreground -- true)"
assert_eq "--foreground --kill-scope=child is fine" 0 \
	"$(st runx --foreground --kill-scope=child -- true)"

done_testing
