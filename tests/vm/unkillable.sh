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
# test lives here, where the freezer is the guest's.)  Then the same with
# --attempts=3: an attempt whose scope is not verified empty ends the run,
# with no second attempt.
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

# Attempts (runx(1), ATTEMPTS): the next attempt starts only after the
# previous scope was verified empty, so an attempt whose scope still holds
# processes 10 s after SIGKILL ends the run, whatever --retry-on says.  Per
# scope, two runs with --attempts=3 --retry-delay=0 and the default
# --retry-on=failure, which would retry both outcomes:
#   dl: the deadline fires (-t 4s) on a job whose two sleeps are frozen:
#       exit status 124;
#   lo: the command exits 3 on its own and leaves one frozen sleep (a
#       leftover): exit status 3.
# Each makes exactly one attempt (the command adds one line to its count
# file when it starts), says with -v why none follows, and reports
# attempt_count 1 with one object in "attempts".  The freezer group is
# frozen first: a task moved into a frozen v1 freezer group is frozen at
# once, so each job's sleeps are frozen as soon as they are found (the dl
# jobs' deadline must not fire before).
echo FROZEN >"$FRZ/freezer.state"
poll 100 0.05 frozen || true
assert_eq "attempts: the empty freezer group is frozen" FROZEN \
	"$(cat "$FRZ/freezer.state")"
GO=$TMPD/go

# n_sleeps MARKER N: at least N "sleep" processes carry MARKER.
# shellcheck disable=SC2317 # called through poll
n_sleeps() {
	[ "$(sleeps_of "$1" | wc -l)" -ge "$2" ]
}

# freeze_sleeps MARKER N: waits for N sleeps of MARKER, moves them into
# the frozen group.
freeze_sleeps() {
	poll 300 0.1 n_sleeps "$1" "$2" || true
	for _q in $(sleeps_of "$1"); do
		echo "$_q" >"$FRZ/cgroup.procs"
	done
}

# start_job KIND SCOPE LIMIT SLEEPS CODE: runx --attempts=3 with -t LIMIT
# in SCOPE, in the background, on `sh -c CODE sh MARKER` (CODE's $1 is a
# new marker, in mark_KIND_SCOPE; runx's pid in pid_KIND_SCOPE); then
# freezes the first SLEEPS sleeps of the marker.
start_job() {
	new_marker
	eval "mark_$1_$2=\$M"
	"$RUNX" --kill-scope="$2" --attempts=3 --retry-delay=0 -v \
		--report="$TMPD/$1-$2.json" -t "$3" -k 200ms -- \
		sh -c "$5" sh "$M" 2>"$TMPD/$1-$2.err" &
	eval "pid_$1_$2=\$!"
	freeze_sleeps "$M" "$4"
}

# The lo jobs first: nothing of theirs is timed until GO exists (-t 90s
# only keeps a broken test from hanging the guest).
for sc in $scopes; do
	start_job lo "$sc" 90s 1 "echo >>$TMPD/lo-$sc.count; sleep \$1 &
		while [ ! -e $GO ]; do sleep 0.1; done; exit 3"
done
for sc in $scopes; do
	start_job dl "$sc" 4s 2 "echo >>$TMPD/dl-$sc.count; sleep \$1 & sleep \$1"
done
(sleep 120; echo THAWED >"$FRZ/freezer.state") &
watchdog=$!
touch "$GO"

# check_attempt KIND SCOPE STATUS LEFT HOW: the run of KIND (dl, lo) in
# SCOPE ended with STATUS after one attempt that left LEFT frozen sleeps;
# HOW is the -v wording of how the attempt ended.
check_attempt() {
	_k=$1 _sc=$2 _want=$3 _left=$4 _how=$5
	_t="$_sc, --attempts=3, $_k"
	_p="" _m=""
	eval "_p=\$pid_${_k}_$_sc _m=\$mark_${_k}_$_sc"
	_s=0
	wait "$_p" || _s=$?
	_err=$TMPD/$_k-$_sc.err _rep=$TMPD/$_k-$_sc.json
	assert_eq "$_t: exit status $_want (the attempt's own)" "$_want" "$_s"
	assert_eq "$_t: the command ran once (one line in its count file)" 1 \
		"$(wc -l <"$TMPD/$_k-$_sc.count" | tr -d ' ')"
	assert_eq "$_t: -v names one start" 1 \
		"$(grep -c "^runx: started 'sh' as pid " "$_err")"
	[ "$_left" = 1 ] && _pl="1 process" _them=it ||
		_pl="$_left processes" _them=them
	assert_match "$_t: stderr says what is left and that runx gave up" \
		"^runx: $_pl in .* still alive 10 s after SIGKILL \(uninterruptible sleep\); giving up on $_them\$" \
		"$(grep 'after SIGKILL' "$_err")"
	assert_eq "$_t: -v says the scope is not verified empty: no further attempt" \
		"runx: attempt 1 of 3 ended $_how; its scope is not verified empty: no further attempt" \
		"$(grep '^runx: attempt ' "$_err")"
	assert_eq "$_t: -v says the status runx exits with" \
		"runx: exiting with status $_want" "$(grep '^runx: exiting ' "$_err")"
	assert_eq "$_t: the report's attempt_count is 1" 1 \
		"$(json_num "$_rep" attempt_count)"
	assert_eq "$_t: the report's attempts holds one object" 1 \
		"$(grep -c '"attempt": ' "$_rep")"
	sed -n '/"attempts": \[/,$p' "$_rep" >"$_rep.attempts"
	assert_eq "$_t: the attempt's error says what is left" \
		"$_pl still alive 10 s after SIGKILL (uninterruptible sleep)" \
		"$(json_str "$_rep.attempts" error)"
	assert_eq "$_t: the attempt's exit_status" "$_want" \
		"$(json_num "$_rep.attempts" exit_status)"
	_st=""
	for _q in $(sleeps_of "$_m"); do
		_st="$_st$(sed 's/.*) \(.\).*/\1/' "/proc/$_q/stat")"
	done
	assert_eq "$_t: the frozen sleeps are still there (state D)" \
		"$(printf "%${_left}s" | tr ' ' D)" "$_st"
}
for sc in $scopes; do
	check_attempt lo "$sc" 3 1 "with exit status 3"
	check_attempt dl "$sc" 124 2 "at its deadline (status 124)"
done

echo THAWED >"$FRZ/freezer.state"
kill "$watchdog" 2>/dev/null
for sc in $scopes; do
	for k in lo dl; do
		eval "m=\$mark_${k}_$sc"
		poll 100 0.1 none_alive "$m" || true
		assert_eq "$sc, --attempts=3, $k: thawed, they die of the pending SIGKILL" \
			0 "$(alive "$m")"
		assert_eq "$sc, --attempts=3, $k: still one line in the count file" 1 \
			"$(wc -l <"$TMPD/$k-$sc.count" | tr -d ' ')"
	done
done
remove_runx_cgroups
rmdir "$FRZ" 2>/dev/null
umount "$FRZ_ROOT" 2>/dev/null

done_testing
