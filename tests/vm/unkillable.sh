#!/bin/sh
# The hard bound after SIGKILL, in the guest: processes that cannot die
# (frozen by a cgroup v1 freezer of the guest's own, where SIGKILL stays
# pending until they are thawed: state D) do not keep runx forever.  For
# the group, tree and cgroup scopes, all at once so that the 10 s bound is
# waited out once: the deadline fires, the grace period ends, SIGKILL is
# sent, and 10 s later runx gives up: exit status 124 exactly, one line on
# stderr saying how many processes are left and why, the report's "error"
# says the same; once thawed the processes die of the pending SIGKILL.
# (On the development hosts the v1 hierarchies belong to the host, so this
# test lives here, where the freezer is the guest's.)
# shellcheck source=tests/vm/lib.sh
. /tests/lib.sh

FRZ_ROOT=/tmp/freezer-v1
mkdir -p "$FRZ_ROOT"
if ! mount -t cgroup -o freezer freezer "$FRZ_ROOT" 2>/dev/null &&
	! grep -q " $FRZ_ROOT cgroup " /proc/mounts; then
	not_ok "a cgroup v1 freezer can be mounted in the guest"
	done_testing
fi
FRZ=$FRZ_ROOT/unkillable.$$
mkdir "$FRZ"

scopes="group tree cgroup"
for sc in $scopes; do
	new_marker
	eval "mark_$sc=\$M"
	# -t 4s: time to freeze the sleeps (the guest is slow) before the deadline
	"$RUNX" --kill-scope="$sc" --report="$TMPD/$sc.json" -t 4s -k 200ms -- \
		sh -c "sleep $M & sleep $M" 2>"$TMPD/$sc.err" &
	eval "pid_$sc=\$!"
done

# the sleeps of every job (not runx or sh, whose command lines hold the
# marker too): their comm is "sleep"
sleeps_of() {
	for _p in $(marked_pids "$1"); do
		[ "$(cat "/proc/$_p/comm" 2>/dev/null)" = sleep ] && echo "$_p"
	done
}

# two_sleeps MARKER: at least two "sleep" processes carry MARKER.
# shellcheck disable=SC2317 # called through poll
two_sleeps() {
	[ "$(sleeps_of "$1" | wc -l)" -ge 2 ]
}

# frozen: the freezer group says FROZEN.
# shellcheck disable=SC2317 # called through poll
frozen() {
	[ "$(cat "$FRZ/freezer.state")" = FROZEN ]
}

# none_alive MARKER: no live process carries MARKER.
# shellcheck disable=SC2317 # called through poll
none_alive() {
	[ "$(alive "$1")" -eq 0 ]
}
m=""
for sc in $scopes; do
	eval "m=\$mark_$sc"
	poll 300 0.1 two_sleeps "$m" || true
	for p in $(sleeps_of "$m"); do
		echo "$p" >"$FRZ/cgroup.procs"
	done
done
echo FROZEN >"$FRZ/freezer.state"
# watchdog: thaw after 120 s whatever happens, so a wrong freeze cannot
# hang the guest
(sleep 120; echo THAWED >"$FRZ/freezer.state") &
watchdog=$!
poll 100 0.05 frozen || true
assert_eq "the freezer group is frozen" FROZEN "$(cat "$FRZ/freezer.state")"

for sc in $scopes; do
	eval "p=\$pid_$sc m=\$mark_$sc"
	s=0
	wait "$p" || s=$?
	assert_eq "$sc: exit status 124 (the deadline fired; runx gave up after the bound)" 124 "$s"
	assert_match "$sc: stderr says how many are left and why" \
		"^runx: 2 processes in .* still alive 10 s after SIGKILL \(uninterruptible sleep\); giving up on them$" \
		"$(grep 'after SIGKILL' "$TMPD/$sc.err")"
	assert_match "$sc: the report's error says the same" \
		'"error": "2 processes still alive 10 s after SIGKILL \(uninterruptible sleep\)"' \
		"$(cat "$TMPD/$sc.json")"
	states=""
	for q in $(sleeps_of "$m"); do
		states="$states$(sed 's/.*) \(.\).*/\1/' "/proc/$q/stat")"
	done
	assert_eq "$sc: the frozen processes are still there (state D)" DD "$states"
done

echo THAWED >"$FRZ/freezer.state"
kill "$watchdog" 2>/dev/null
for sc in $scopes; do
	eval "m=\$mark_$sc"
	poll 100 0.1 none_alive "$m" || true
	assert_eq "$sc: thawed, they die of the pending SIGKILL" 0 "$(alive "$m")"
done
# the cgroup scope's job cgroup could not be removed while its processes
# lived: runx said so; remove it now that they are gone
remove_runx_cgroups
rmdir "$FRZ" 2>/dev/null
umount "$FRZ_ROOT" 2>/dev/null

done_testing
