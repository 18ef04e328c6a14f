#!/bin/bash
# pidfd_open(2) refused, a real fault from the kernel: a seccomp filter
# (deny-pidfd-open.py) makes it fail the way an older container runtime's
# default profile (EPERM) or a kernel before 5.3 (ENOSYS) does.
# - refused for every pid: runx finds out before anything starts (125, one
#   line naming pidfd_open(2)), on every backend;
# - refused for every pid but runx's own (EMFILE), so that the check before
#   the launch passes and the pidfd_open of the running command fails: with
#   posix_spawn, fork and vfork runx stops the whole scope, not only the
#   pid, and says the command ran (125, never "cannot start"); with clone3
#   (its pidfd comes with the child, CLONE_PIDFD) the run goes on and the
#   stop works without pidfds (124).  Nothing is left either way.
# The command is killed at once, perhaps before it forked: "nothing left"
# holds either way, and the child scope (where the sleeps may survive, as
# documented) shows whether they existed.
# Loops over the backends itself: run once.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"
require_python3 "(installs the seccomp filter)"

DENY=$(dirname "$TESTLIB")/deny-pidfd-open.py
s=0
"$PY" "$DENY" EPERM true 2>"$TMPD/deny.err" || s=$?
[ "$s" = 77 ] && skip_all "no seccomp filter here: $(cat "$TMPD/deny.err")"

cgroup_ok=no
[ "$(runx_with vfork -C -- true 2>/dev/null; echo $?)" = 0 ] && cgroup_ok=yes
spawn_cgroup=yes
[ "$(runx_with posix_spawn -C -- true 2>/dev/null; echo $?)" = 125 ] && spawn_cgroup=no
CGMNT=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
scopes=(child group tree pidns cgroup)

# case_tests BACKEND SCOPE: how many tests a case after the launch has:
# the status and its message (clone3: the status only; pidns: 2; else
# 3), whether anything is left, and for cgroup whether its cgroup is.
case_tests() {
	local n=3
	[ "$1" = clone3 ] && n=1
	[ "$1" != clone3 ] && [ "$2" = pidns ] && n=2
	[ "$2" = cgroup ] && n=$((n + 1))
	echo $((n + 1))
}
n_after=0
for b in $ALL_BACKENDS; do
	for sc in "${scopes[@]}"; do
		n_after=$((n_after + $(case_tests "$b" "$sc")))
	done
done
# 1 the filter, 4 per backend and errno refused for every pid, the cases
# after the launch
plan $((1 + 4 * 2 * $(wc -w <<<"$ALL_BACKENDS") + n_after))
assert_eq "the filter itself lets a command run" 0 "$s" "$(cat "$TMPD/deny.err")"

# shell_gone MARKER: no live process but sleeps carries MARKER.
# shellcheck disable=SC2317 # called through poll
shell_gone() {
	! marked_list "$1" | grep -Eqv '^[0-9]+ . sleep '
}

# --- refused for every pid: nothing starts -----------------------------------
for b in $ALL_BACKENDS; do
	for e in EPERM ENOSYS; do
		rm -f "$TMPD/started"
		s=0
		"$PY" "$DENY" "$e" "$RUNX" --launch="$b" -t 5 -- touch "$TMPD/started" 2>"$TMPD/err" || s=$?
		assert_eq "$b, pidfd_open $e: 125" 125 "$s"
		assert_eq "$b, pidfd_open $e: one line on stderr" 1 "$(wc -l <"$TMPD/err")"
		assert_match "$b, pidfd_open $e: it names pidfd_open(2)" "^runx: pidfd_open\\(2\\) fails here: " "$(cat "$TMPD/err")"
		assert_false "$b, pidfd_open $e: nothing started" test -e "$TMPD/started"
	done
done

# --- refused after the launch ---------------------------------------------------
for b in $ALL_BACKENDS; do
	for sc in "${scopes[@]}"; do
		if [ "$sc" = cgroup ] && [ $cgroup_ok = no ]; then
			skips "$(case_tests "$b" "$sc")" "$b, $sc" "no writable cgroup v2 here"
			continue
		fi
		if [ "$sc" = cgroup ] && [ "$b" = posix_spawn ] && [ $spawn_cgroup = no ]; then
			skips "$(case_tests "$b" "$sc")" "$b, $sc" \
				"posix_spawn cannot start a command in a cgroup here (glibc before 2.39): refused before the launch, as cgroup.sh tests"
			continue
		fi
		new_marker m
		"$PY" "$DENY" --except-self EMFILE "$RUNX" --launch="$b" --kill-scope="$sc" -t 0.5 -k 1 -- \
			sh -c "sleep $m & sleep $m & wait" 2>"$TMPD/err" &
		RUNX_PID=$!
		wait_pid_exit "$RUNX_PID" 60
		err=$(cat "$TMPD/err")
		if [ "$b" = clone3 ]; then
			assert_eq "$b, $sc: the run goes on without pidfds (124)" 124 "$WAIT_STATUS"
		elif [ "$sc" = pidns ]; then
			# the namespace's init needs a pidfd for the command: the
			# launch fails inside it, before the command is started
			assert_eq "$b, $sc: 125" 125 "$WAIT_STATUS"
			# EMFILE: glibc's words, then musl's
			assert_match "$b, $sc: says why" "Too many open files|No file descriptors available" "$err"
		else
			assert_eq "$b, $sc: 125" 125 "$WAIT_STATUS"
			assert_match "$b, $sc: says the command ran and its scope was stopped" \
				"^runx: the command ran as pid [0-9]+, but pidfd_open\\(2\\) failed for it: .*; runx stopped its scope$" "$err"
			assert_false "$b, $sc: never 'cannot start'" grep -q "cannot start" "$TMPD/err"
		fi
		if [ "$sc" = child ]; then
			poll 500 0.02 shell_gone "$m"
			assert_eq "$b, $sc: the direct child is gone" "" "$(marked_list "$m" | grep -Ev '^[0-9]+ . sleep ')"
			diag "$b, child scope: $(marked_count "$m") sleep(s) had been forked (they may survive the child scope)"
			kill_marked "$m"
		else
			poll 500 0.02 marked_none "$m"
			assert_dead "$b, $sc: nothing left" "$m"
		fi
		[ "$sc" = cgroup ] && assert_no_cgroup "$b, $sc: no runx cgroup left" "$RUNX_PID"
	done
done

done_testing
