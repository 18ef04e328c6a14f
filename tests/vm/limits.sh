#!/bin/sh
# Resource limits on the job's cgroup (SPEC.md "Resource limits", issue
# 13), on a pure cgroup v2 machine, once per layout (root cgroup,
# populated session scope); scripts/vm-check runs it unless VM_LIMITS=0.
#   - the limits are in the job's memory.max, pids.max, cpu.max when the
#     command starts; in the root layout the job is /runx-*; in the session
#     layout (a scope that holds another process, whose children can never
#     get the controllers: the no-internal-process rule) the job is
#     runx-*/job next to the scope and runx moved itself into
#     runx-*/supervisor;
#   - a shell that grows a string under --memory-max=24M: 137, the report
#     counts oom_kills >= 1, -v says the OOM killer ended it; also for a
#     process that called setsid;
#   - --attempts=2 --retry-on=oom: an attempt the OOM killer ended is
#     retried, a plain failure is not; --retry-on=oom alone gives the job
#     the memory controller (memory.max "max", oom_kills 0);
#   - --user=65534 with --memory-max: placed and limited as root, run as
#     the user, the OOM kill still reported;
#   - --pids-max=8 with a 50-process fork loop and -t 2s: 124, never more
#     than 8 processes (sampled in /proc, and the report's pids_peak);
#   - --cpu-max=0.5 on a busy loop: cpu_time about half the wall time
#     (the same loop without the limit takes far more);
#   - runx alone in a cgroup that is not the root: it moves itself into
#     runx-*/supervisor below it and undoes everything afterwards;
#   - bad values and a limit with another scope: 125, a message naming
#     the value, nothing started;
#   - a failed launch (126, 127) with a limit;
#   - after each: nothing alive, no runx-* cgroup left.
# The report is read with grep/sed (json_num, json_str in lib.sh).
# shellcheck disable=SC2016 # single-quoted sh -c code expands in that shell
# shellcheck source=tests/vm/lib.sh
. /tests/lib.sh

layout_check
OWN=$(own_cgroup)
OWN_PREFIX=${OWN%/}

# --- the limits are set before the command starts ---------------------------------------
cat >"$TMPD/looker.sh" <<'EOF'
cg=$(sed -n 's/^0:://p' /proc/self/cgroup)
echo "$cg" >"$TMPD/look.cg"
sed -n 's/^0:://p' "/proc/$PPID/cgroup" >"$TMPD/look.runx"
cat "/sys/fs/cgroup$cg/$1" >"$TMPD/look.value"
EOF
# look OPTION FILE: runs the looker.sh job with OPTION, which copies FILE of
# its cgroup; prints runx's status.
look() {
	rm -f "$TMPD"/look.*
	st "$RUNX" "$1" -- sh "$TMPD/looker.sh" "$2"
}
assert_eq "--memory-max=24M: exit 0" 0 "$(look --memory-max=24M memory.max)"
assert_eq "--memory-max=24M: the job's memory.max is 25165824" 25165824 \
	"$(cat "$TMPD/look.value")"
jobcg=$(cat "$TMPD/look.cg")
runxcg=$(cat "$TMPD/look.runx")
if [ "$LAYOUT" = session ]; then
	# the scope holds another process: no child of it can have the
	# controllers (no-internal-process rule), so the job goes next to it
	PARENT=${OWN_PREFIX%/*}
	assert_match "session: the job's cgroup is runx-*/job next to the populated scope" \
		"^$PARENT/runx-[^/]+/job\$" "$jobcg"
	assert_eq "session: runx moved itself into runx-*/supervisor, next to the job" \
		"${jobcg%/job}/supervisor" "$runxcg"
else
	assert_match "root: the job's cgroup is a runx-* cgroup of the root" \
		"^/runx-[^/]+\$" "$jobcg"
	assert_eq "root: runx stays in the root cgroup" / "$runxcg"
fi
assert_eq "--memory-max look: no runx-* cgroup left" "" "$(runx_cgroups)"

assert_eq "--pids-max=8: exit 0" 0 "$(look --pids-max=8 pids.max)"
assert_eq "--pids-max=8: the job's pids.max is 8" 8 "$(cat "$TMPD/look.value")"
assert_eq "--cpu-max=0.5: exit 0" 0 "$(look --cpu-max=0.5 cpu.max)"
assert_eq "--cpu-max=0.5: the job's cpu.max is half a CPU (quota/period)" 0.5 \
	"$(awk '{ print $1 / $2 }' "$TMPD/look.value")"
assert_eq "--pids-max, --cpu-max look: no runx-* cgroup left" "" "$(runx_cgroups)"

# --- memory.max: the OOM killer ---------------------------------------------------------------
# (The marker is the shell's $0: in its command line.)
new_marker
s=$(st "$RUNX" -v --memory-max=24M --report="$TMPD/oom.json" -- \
	sh -c 'x=0123456789abcdef; while :; do x="$x$x"; done' "$M" 2>"$TMPD/oom.err")
assert_eq "--memory-max=24M, a growing string: 137" 137 "$s"
assert_num "--memory-max=24M: the report's oom_kills >= 1" \
	"$(json_num "$TMPD/oom.json" oom_kills)" '>=' 1
assert_num "--memory-max=24M: the report's memory_peak <= 24 MiB" \
	"$(json_num "$TMPD/oom.json" memory_peak)" '<=' 25165824
assert_match "--memory-max=24M: -v says the OOM killer ended it" \
	"^runx: .*OOM killer" "$(cat "$TMPD/oom.err")"
assert_clean "--memory-max OOM" "$M"

# --user with --memory-max: runx places and limits the job as root, the
# command runs as uid 65534 (a number: no entry needed), the OOM kill is
# still counted and reported.  The command writes its Uid line first, in
# a directory anyone may write.
# (not below $TMPD, which only root may enter)
U=$(mktemp -d /tmp/vmuser.XXXXXX) && chmod 1777 "$U"
new_marker
s=$(export U && st "$RUNX" -v --user=65534 --memory-max=24M --report="$TMPD/user.json" -- \
	sh -c 'grep "^Uid:" /proc/self/status >"$U/uid"; x=0123456789abcdef; while :; do x="$x$x"; done' \
	"$M" 2>"$TMPD/user.err")
assert_eq "--user=65534 --memory-max=24M: 137" 137 "$s"
assert_match "--user=65534: the command ran as uid 65534 (every uid)" \
	"^Uid:[[:space:]]+65534[[:space:]]+65534[[:space:]]+65534[[:space:]]+65534" "$(cat "$U/uid" 2>/dev/null)"
assert_num "--user=65534: the report's oom_kills >= 1" \
	"$(json_num "$TMPD/user.json" oom_kills)" '>=' 1
assert_match "--user=65534: -v says the OOM killer ended it" \
	"^runx: .*OOM killer" "$(cat "$TMPD/user.err")"
assert_clean "--user --memory-max" "$M"
rm -rf "$U"

# --attempts --retry-on=oom: an attempt the OOM killer ended is retried
# (the job's memory.events counts it), a plain failure is not; each
# attempt appends a line to $C.
C=$TMPD/attempts.count
new_marker
rm -f "$C"
s=$(export C && st "$RUNX" --memory-max=24M --attempts=2 --retry-delay=0 --retry-on=oom -- \
	sh -c 'echo >>"$C"; x=0123456789abcdef; while :; do x="$x$x"; done' "$M")
assert_eq "--retry-on=oom: both attempts OOM-killed: 137" 137 "$s"
assert_eq "--retry-on=oom: an OOM kill is retried (2 attempts)" 2 "$(wc -l <"$C" | tr -d ' ')"
rm -f "$C"
s=$(export C && st "$RUNX" --memory-max=24M --attempts=2 --retry-delay=0 --retry-on=oom -- \
	sh -c 'echo >>"$C"; exit 1' "$M")
assert_eq "--retry-on=oom: a plain failure: 1" 1 "$s"
assert_eq "--retry-on=oom: a plain failure is not retried (1 attempt)" 1 "$(wc -l <"$C" | tr -d ' ')"
assert_clean "--retry-on=oom" "$M"
# --retry-on=oom with no limit, where it can start another attempt: the
# job's cgroup gets the memory controller all the same (only its
# memory.events counts the OOM killer's kills), with no memory.max of
# its own
rm -f "$TMPD"/look.*
assert_eq "--retry-on=oom, no limit: exit 0" 0 \
	"$(st "$RUNX" --attempts=2 --retry-on=oom -- sh "$TMPD/looker.sh" memory.max)"
assert_eq "--retry-on=oom, no limit: the job's memory.max is max" max "$(cat "$TMPD/look.value")"
st "$RUNX" -v --attempts=2 --retry-on=oom -- true >/dev/null 2>"$TMPD/oomonly.err"
assert_match "--retry-on=oom, no limit: -v names it, not limits, for the job's cgroup" \
	"^runx: --retry-on=oom: .*the job's cgroup is '" "$(cat "$TMPD/oomonly.err")"
s=$(st "$RUNX" --attempts=2 --retry-on=oom --report="$TMPD/oomonly.json" -- true)
assert_eq "--retry-on=oom, no limit: exit 0 with --report" 0 "$s"
assert_eq "--retry-on=oom, no limit: the report's oom_kills is 0, not null" 0 \
	"$(json_num "$TMPD/oomonly.json" oom_kills)"
assert_eq "--retry-on=oom, no limit: no runx-* cgroup left" "" "$(runx_cgroups)"

# The limit holds for a process that left the session; the command's
# own status stays what it is.
new_marker
s=$(export MK="$M" && st "$RUNX" --memory-max=24M --report="$TMPD/oom2.json" -- \
	sh -c 'setsid sh -c "x=0123456789abcdef; while :; do x=\$x\$x; done" & wait $!
	sleep "$MK" & exit 3')
assert_eq "--memory-max=24M, setsid grower: the command's status 3" 3 "$s"
assert_num "--memory-max=24M, setsid grower: oom_kills >= 1" \
	"$(json_num "$TMPD/oom2.json" oom_kills)" '>=' 1
assert_clean "--memory-max setsid" "$M"

# --- pids.max: a fork loop --------------------------------------------------------------------
# The inner shell forks up to 50 sleeps and exits when a fork fails (what
# busybox sh does); the outer one starts it again, so the job keeps
# forking until the deadline.
cat >"$TMPD/forkloop.sh" <<'EOF'
while :; do
	sh -c 'i=0; while [ $i -lt 50 ]; do sleep "$MK" & i=$((i + 1)); done; wait' 2>/dev/null
done
EOF
new_marker
MK=$M "$RUNX" --pids-max=8 -t 2s -k 1s --report="$TMPD/pids.json" -- sh "$TMPD/forkloop.sh" &
rpid=$!
max=0
while kill -0 $rpid 2>/dev/null; do
	n=$(alive "$M")
	[ "$n" -gt "$max" ] && max=$n
done
wait $rpid
assert_eq "--pids-max=8, 50-process fork loop, -t 2s: 124" 124 "$?"
assert_num "--pids-max=8: the loop's sleeps were seen running" "$max" '>=' 1
assert_num "--pids-max=8: never more than 8 seen in /proc" "$max" '<=' 8
assert_num "--pids-max=8: the report's pids_peak <= 8" \
	"$(json_num "$TMPD/pids.json" pids_peak)" '<=' 8
assert_clean "--pids-max fork loop" "$M"

# --- cpu.max: a busy loop ---------------------------------------------------------------------
# ratio FILE: cpu_time / wall_time of the report FILE.
ratio() {
	awk -v c="$(json_num "$1" cpu_time)" -v w="$(json_num "$1" wall_time)" \
		'BEGIN { if (w > 0 && c != "") printf "%.3f\n", c / w; else print "none" }'
}
new_marker
s=$(st "$RUNX" -C -t 3s --report="$TMPD/cpu0.json" -- sh -c 'while :; do :; done' "$M")
assert_eq "no limit, a busy loop, -t 3s: 124" 124 "$s"
r0=$(ratio "$TMPD/cpu0.json")
assert_num "no limit: the busy loop's cpu_time is most of the wall time" "$r0" '>' 0.65
s=$(st "$RUNX" --cpu-max=0.5 -t 3s --report="$TMPD/cpu.json" -- sh -c 'while :; do :; done' "$M")
assert_eq "--cpu-max=0.5, a busy loop, -t 3s: 124" 124 "$s"
r=$(ratio "$TMPD/cpu.json")
assert_num "--cpu-max=0.5: cpu_time / wall_time >= 0.35" "$r" '>=' 0.35
assert_num "--cpu-max=0.5: cpu_time / wall_time <= 0.6" "$r" '<=' 0.6
assert_clean "busy loops" "$M"

# --- runx alone in its cgroup (systemd-run --scope -p Delegate=yes) --------------------------
# runx moves itself into runx-*/supervisor below its own cgroup, enables
# the controllers there, and undoes it all: afterwards its cgroup enables
# nothing and can be removed.
if [ "$LAYOUT" = session ]; then ALONE=${OWN_PREFIX%/*}/alone.$$; else ALONE=/alone.$$; fi
mkdir "$CG$ALONE"
rm -f "$TMPD"/look.*
new_marker
s=$(st sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -v --memory-max=24M --report="$3" -- sh "$4" memory.max "$5"' \
	sh "$CG$ALONE" "$RUNX" "$TMPD/alone.json" "$TMPD/looker.sh" "$M" 2>"$TMPD/alone.err")
assert_eq "alone: exit 0" 0 "$s" "$(cat "$TMPD/alone.err")"
assert_eq "alone: the job's memory.max is 25165824" 25165824 "$(cat "$TMPD/look.value")"
jobcg=$(cat "$TMPD/look.cg")
assert_match "alone: the job's cgroup is runx-*/job below runx's own" \
	"^$ALONE/runx-[^/]+/job\$" "$jobcg"
assert_eq "alone: runx moved itself into runx-*/supervisor" \
	"${jobcg%/job}/supervisor" "$(cat "$TMPD/look.runx")"
assert_match "alone: -v says where runx and the job went" \
	"^runx: limits: runx moved itself from '$CG$ALONE' into '.*/supervisor'" "$(cat "$TMPD/alone.err")"
assert_eq "alone: runx's cgroup enables no controller afterwards" "" \
	"$(cat "$CG$ALONE/cgroup.subtree_control")"
assert_eq "alone: no runx-* cgroup left" "" "$(runx_cgroups)"
s=$(st sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -v --memory-max=24M --report="$3" -- sh -c "$4" "$5"' \
	sh "$CG$ALONE" "$RUNX" "$TMPD/alone2.json" 'x=0123456789abcdef; while :; do x="$x$x"; done' "$M" \
	2>"$TMPD/alone2.err")
assert_eq "alone, a growing string under --memory-max=24M: 137" 137 "$s"
assert_num "alone: the report's oom_kills >= 1" "$(json_num "$TMPD/alone2.json" oom_kills)" '>=' 1
assert_match "alone: -v names the OOM kill and the limit" \
	"^runx: the kernel's OOM killer ended [0-9]+ process(es)? of the job \\(memory.max 24 MiB reached\\)" \
	"$(cat "$TMPD/alone2.err")"
assert_clean "alone OOM" "$M"
assert_true "alone: runx's cgroup is empty and can be removed" rmdir "$CG$ALONE"

# --- bad values: 125, the value named, nothing started ----------------------------------------
# bad OPTION=VALUE [VALUE-IN-MESSAGE]
bad() {
	rm -f "$TMPD/started"
	s=$(st "$RUNX" "$1" -- touch "$TMPD/started" 2>"$TMPD/bad.err")
	assert_eq "$1: 125" 125 "$s"
	assert_match "$1: one line 'runx: ...' naming '${2-${1#*=}}'" \
		"^runx: .*'${2-${1#*=}}'" "$(cat "$TMPD/bad.err")"
	assert_eq "$1: one line of message" 1 "$(wc -l <"$TMPD/bad.err" | tr -d ' ')"
	assert_true "$1: nothing started" [ ! -e "$TMPD/started" ]
	assert_eq "$1: no runx-* cgroup left" "" "$(runx_cgroups)"
}
for v in '' -1 lots 99999999999T; do bad "--memory-max=$v"; done
for v in '' -1 lots 0 99999999999999999999; do bad "--pids-max=$v"; done
for v in '' -1 lots 99999999999999999999; do bad "--cpu-max=$v"; done

rm -f "$TMPD/started"
s=$(st "$RUNX" --kill-scope=tree --memory-max=24M -- touch "$TMPD/started" 2>"$TMPD/bad.err")
assert_eq "--memory-max with --kill-scope=tree: 125" 125 "$s"
assert_match "--memory-max with --kill-scope=tree: a runx: message" "^runx: " "$(cat "$TMPD/bad.err")"
assert_true "--memory-max with --kill-scope=tree: nothing started" [ ! -e "$TMPD/started" ]

# --- a failed launch with a limit -------------------------------------------------------------
printf 'echo not executable\n' >"$TMPD/noexec"
chmod 644 "$TMPD/noexec"
assert_eq "--memory-max, command not found: 127" 127 \
	"$(st "$RUNX" --memory-max=24M -- /nonexistent/command 2>/dev/null)"
assert_eq "--memory-max, command not found: no runx-* cgroup left" "" "$(runx_cgroups)"
assert_eq "--pids-max, not executable: 126" 126 \
	"$(st "$RUNX" --pids-max=8 --cpu-max=1 -- "$TMPD/noexec" 2>/dev/null)"
assert_eq "--pids-max, not executable: no runx-* cgroup left" "" "$(runx_cgroups)"
# a file only execve(2) finds is no program: the launch fails after the
# job's cgroup (with its limits) was made
printf 'echo no interpreter line\n' >"$TMPD/noprog"
chmod 755 "$TMPD/noprog"
assert_eq "--memory-max, execve fails (ENOEXEC): 126" 126 \
	"$(st "$RUNX" --memory-max=24M -- "$TMPD/noprog" 2>/dev/null)"
assert_eq "--memory-max, execve fails: no runx-* cgroup left" "" "$(runx_cgroups)"
[ -z "$(runx_cgroups)" ] || remove_runx_cgroups

session_intact
done_testing
