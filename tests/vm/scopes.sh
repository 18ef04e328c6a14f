#!/bin/sh
# Kill scopes on a pure cgroup v2 machine (run by /tests/init.sh once per
# layout: runx in the root cgroup, runx in a populated session scope).
# Every check looks at real state: the command's /proc/self/cgroup, the
# job cgroup's cgroup.procs, /proc/*/cmdline for the markers, and
# find /sys/fs/cgroup -name 'runx-*' for leftovers.
#   cgroup: the command starts in a runx-* child of runx's own cgroup (each
#           backend that can), a deadline stops setsid escapes and TERM
#           ignorers, leftovers are stopped after a normal exit;
#   auto:   picks the cgroup scope here;
#   tree, group: deadline and leftovers;
#   exit statuses 0, 7, 124, 126, 127, 137, and 128+N by signal;
#   runx as PID 1 of a new PID namespace (unshare -p -f --mount-proc);
#   1000 processes left behind: all dead, no runx-* cgroup left.
# shellcheck disable=SC2016 # single-quoted sh -c code expands in that shell
# shellcheck source=tests/vm/lib.sh
. /tests/lib.sh

layout_check
OWN=$(own_cgroup)
OWN_PREFIX=${OWN%/}

# --- cgroup: the command starts in a fresh child cgroup ----------------------------
for b in clone3 fork vfork; do
	"$RUNX" --launch=$b -C --report="$TMPD/first.json" -- \
		cat /proc/self/cgroup >"$TMPD/first"
	assert_eq "cgroup, $b: exit 0" 0 "$?"
	cg=$(sed -n 's/^0:://p' "$TMPD/first")
	assert_match "cgroup, $b: the command's first look at /proc/self/cgroup is a runx-* child of runx's cgroup" \
		"^$OWN_PREFIX/runx-[^/]+\$" "$cg"
	assert_eq "cgroup, $b: the report's scope is cgroup" cgroup \
		"$(json_str "$TMPD/first.json" scope)"
	assert_eq "cgroup, $b: no runx-* cgroup left" "" "$(runx_cgroups)"
done

# The job's cgroup holds the whole job, runx itself is not in it (the
# job counts and copies cgroup.procs with builtins only: no fork of its
# own shows up in it).
cat >"$TMPD/procs.sh" <<'EOF'
f=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)/cgroup.procs
sleep "$MK" &
echo $! >"$TMPD/procs.expected"
sleep "$MK" &
echo $! >>"$TMPD/procs.expected"
echo $$ >>"$TMPD/procs.expected"
n=0
while [ $n -ne 3 ]; do
	n=0
	while read -r p; do n=$((n + 1)); done <"$f"
done
while read -r p; do echo "$p"; done <"$f" >"$TMPD/procs"
EOF
new_marker
MK=$M "$RUNX" -C -t 60s -- sh "$TMPD/procs.sh" & # -t: its count loop has no other bound
rpid=$!
wait $rpid
assert_eq "cgroup: the command exits 0" 0 "$?"
assert_eq "cgroup: the job's cgroup.procs held the shell and its two sleeps" \
	"$(sort "$TMPD/procs.expected" | tr '\n' ' ')" "$(sort "$TMPD/procs" | tr '\n' ' ')"
assert_true "cgroup: runx itself was not in the job's cgroup" \
	sh -c "! grep -qx $rpid $TMPD/procs"
assert_clean "cgroup leftovers (2 sleeps)" "$M"

# Deadline: TERM ignorers, a setsid escape, a double fork.
new_marker
s=$(st "$RUNX" -C -t 1s -k 1s -- sh -c "trap '' TERM; setsid sleep $M &
	(trap '' TERM; sleep $M) & (sleep $M &) ; sleep $M")
assert_eq "cgroup: deadline gives 124" 124 "$s"
assert_clean "cgroup deadline" "$M"

# Leftovers after a normal exit, the command's own status.
new_marker
s=$(st "$RUNX" -C -k 1s -- sh -c "setsid sh -c 'trap \"\" TERM; sleep $M' &
	sleep $M & (sleep $M &); exit 7")
assert_eq "cgroup: leftovers: the command's status 7" 7 "$s"
assert_clean "cgroup leftovers" "$M"

# A sub-cgroup the job made itself is removed with the job's.
new_marker
s=$(st "$RUNX" -C -t 1s -k 1s -- sh -c "d=$CG\$(sed -n 's/^0:://p' /proc/self/cgroup)/sub
	mkdir \$d && sh -c 'echo \$\$ >'\$d'/cgroup.procs; exec sleep $M' & sleep $M")
assert_eq "cgroup: a job with its own sub-cgroup: 124" 124 "$s"
assert_clean "cgroup with a sub-cgroup" "$M"

# runx itself gets SIGTERM: a stop, then 143.
new_marker
"$RUNX" -C -k 1s -- sh -c "sleep $M & sleep $M" &
rpid=$!
wait_alive "$M" 2
kill -TERM $rpid
wait $rpid
assert_eq "cgroup: runx SIGTERMed: 143" 143 "$?"
assert_clean "cgroup, runx SIGTERMed" "$M"

# --- auto picks cgroup ---------------------------------------------------------------------
"$RUNX" --kill-scope=auto --report="$TMPD/auto.json" -- cat /proc/self/cgroup >"$TMPD/auto"
assert_eq "auto: exit 0" 0 "$?"
assert_match "auto: the command runs in a runx-* cgroup" \
	"^0::$OWN_PREFIX/runx-[^/]+\$" "$(cat "$TMPD/auto")"
assert_eq "auto: the report's scope is cgroup" cgroup "$(json_str "$TMPD/auto.json" scope)"
new_marker
s=$(st "$RUNX" --kill-scope=auto -t 1s -k 1s -- sh -c "setsid sh -c 'trap \"\" TERM; sleep $M' & sleep $M")
assert_eq "auto: deadline gives 124" 124 "$s"
assert_clean "auto deadline" "$M"

# --- tree -----------------------------------------------------------------------------------
new_marker
s=$(st "$RUNX" --kill-scope=tree -t 1s -k 1s -- sh -c "setsid sh -c 'trap \"\" TERM; sleep $M' &
	(sleep $M &); sleep $M")
assert_eq "tree: deadline gives 124" 124 "$s"
assert_clean "tree deadline" "$M"
new_marker
s=$(st "$RUNX" --kill-scope=tree -k 1s -- sh -c "setsid sleep $M & (sleep $M &); exit 7")
assert_eq "tree: leftovers: status 7" 7 "$s"
assert_clean "tree leftovers" "$M"

# --- group ----------------------------------------------------------------------------------
new_marker
s=$(st "$RUNX" -t 1s -k 1s -- sh -c "trap '' TERM; sleep $M & sleep $M")
assert_eq "group: deadline gives 124" 124 "$s"
assert_clean "group deadline" "$M"
new_marker
s=$(st "$RUNX" -G -k 1s -- sh -c "sleep $M & (sleep $M &); exit 7")
assert_eq "group: leftovers: status 7" 7 "$s"
assert_clean "group leftovers" "$M"

# --- exit statuses (cgroup and group scope) --------------------------------------------------
printf 'echo not executable\n' >"$TMPD/noexec"
chmod 644 "$TMPD/noexec"
for scope in cgroup group; do
	assert_eq "$scope: true gives 0" 0 "$(st "$RUNX" --kill-scope=$scope -- true)"
	assert_eq "$scope: exit 7 gives 7" 7 "$(st "$RUNX" --kill-scope=$scope -- sh -c 'exit 7')"
	assert_eq "$scope: a file that cannot be executed gives 126" 126 \
		"$(st "$RUNX" --kill-scope=$scope -- "$TMPD/noexec" 2>/dev/null)"
	assert_eq "$scope: a command not found gives 127" 127 \
		"$(st "$RUNX" --kill-scope=$scope -- /nonexistent/command 2>/dev/null)"
	assert_eq "$scope: killed by SIGKILL gives 137" 137 \
		"$(st "$RUNX" --kill-scope=$scope -- sh -c 'kill -KILL $$')"
	assert_eq "$scope: killed by SIGUSR1 gives 138" 138 \
		"$(st "$RUNX" --kill-scope=$scope -- sh -c 'kill -USR1 $$')"
	assert_eq "$scope: deadline gives 124" 124 \
		"$(st "$RUNX" --kill-scope=$scope -t 0.5s -- sleep 30)"
	assert_eq "$scope: no runx-* cgroup left after the statuses" "" "$(runx_cgroups)"
done

# --- runx as PID 1 of a PID namespace --------------------------------------------------------
if unshare -p -f --mount-proc true 2>/dev/null; then
	for scope in tree cgroup; do
		new_marker
		s=$(st unshare -p -f --mount-proc "$RUNX" --kill-scope=$scope -t 1s -k 1s -- \
			sh -c "trap '' TERM; setsid sleep $M & (sleep $M &); sleep $M")
		assert_eq "PID 1, $scope: deadline gives 124" 124 "$s"
		assert_clean "PID 1, $scope deadline" "$M"
		new_marker
		s=$(st unshare -p -f --mount-proc "$RUNX" --kill-scope=$scope -k 1s -- \
			sh -c "(sleep 0.1 &); (sh -c 'sleep 0.2 &' &); sleep $M & exit 7")
		assert_eq "PID 1, $scope: leftovers: status 7" 7 "$s"
		assert_clean "PID 1, $scope leftovers" "$M"
	done
	# Orphans re-parented to runx (PID 1) are reaped: no zombie child of 1.
	s=$(st unshare -p -f --mount-proc "$RUNX" --kill-scope=tree -- sh -c '
		j=0; while [ $j -lt 20 ]; do (sleep 0.05 &); j=$((j + 1)); done
		sleep 1
		awk '\''$0 ~ /\) Z / { split($0, a, ") "); split(a[2], f, " "); if (f[2] == 1) n++ }
			END { print n + 0 }'\'' /proc/[0-9]*/stat >'"$TMPD"'/zombies; exit 5')
	assert_eq "PID 1: the command's status 5" 5 "$s"
	assert_eq "PID 1: 20 orphans re-parented to runx were reaped (no zombie child of PID 1)" \
		0 "$(cat "$TMPD/zombies")"
else
	not_ok "PID 1: busybox unshare -p -f --mount-proc works in the guest"
fi

# --- 1000 processes left behind ---------------------------------------------------------------
# The marker is in the environment (MK), so only the sleeps carry it in
# their command line; the job waits until all 1000 run, then exits 0.
cat >"$TMPD/1000.sh" <<'EOF'
i=0
while [ $i -lt 1000 ]; do
	sleep "$MK" &
	i=$((i + 1))
done
. /tests/lib.sh
wait_alive "$MK" 1000 600
alive "$MK" >"$TMPD/n1000"
exit 0
EOF
for scope in cgroup tree; do
	new_marker
	s=$(export MK="$M" && st "$RUNX" --kill-scope=$scope -k 2s -- sh "$TMPD/1000.sh")
	assert_eq "1000 leftovers, $scope: status 0" 0 "$s"
	assert_eq "1000 leftovers, $scope: 1000 were alive when the command exited" 1000 \
		"$(cat "$TMPD/n1000")"
	assert_clean "1000 leftovers, $scope" "$M"
done

session_intact
done_testing
