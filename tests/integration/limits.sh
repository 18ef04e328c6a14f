#!/bin/bash
# Resource limits (--memory-max, --pids-max, --cpu-max; SPEC "Resource
# limits"), on this host.  Bad values and a limit with another scope: 125,
# one message naming the value, nothing started.  Each limit needs its
# controller in runx's cgroup v2: where cgroup.controllers of runx's cgroup
# lacks it (hosts whose memory/pids/cpu are on cgroup v1, as the
# development machine's): 125 naming the option, the controller and
# advice that can work here (on cgroup v1: its mount and cgroup_no_v1=;
# systemd-run's Delegate=yes only where systemd is the init), nothing
# started, no runx-* cgroup left; where
# it is offered, the job's cgroup has the limit when the command starts and
# nothing is left after.  The limits at work (OOM kills, fork storms, CPU
# throttling) are tested in the pure cgroup v2 guest: tests/vm/limits.sh.
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

CGMNT=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
CGOWN_REL=$(sed -n 's/^0:://p' /proc/self/cgroup)
CGOWN=$CGMNT${CGOWN_REL%/}

# --- own helpers ---------------------------------------------------------------

# no_runx_cgroup NAME PID: runx PID left no runx-PID-* cgroup anywhere.
no_runx_cgroup() {
	local left=""
	[ -n "$CGMNT" ] &&
		left=$(find "$CGMNT" -type d -name "runx-$2-*" 2>/dev/null)
	if [ -z "$left" ]; then
		ok "$1"
	else
		not_ok "$1" "left behind: $left"
	fi
}

# run_limited ARGS...: runx ARGS -- touch MARKER in the background
# (so its pid is known); sets S (status), ERR (stderr) and RPID.
run_limited() {
	rm -f "$TMPD/started"
	runx_cg "$@" -- touch "$TMPD/started" 2>"$TMPD/err" &
	RPID=$!
	S=0
	wait "$RPID" || S=$?
	ERR=$(cat "$TMPD/err")
}

# bad OPTION=VALUE [SHOWN]: 125, one "runx: " line naming SHOWN (default
# the value), nothing started, no cgroup left.
bad() {
	local shown=${2-${1#*=}}
	run_limited "$1"
	assert_eq "$1: exit status 125" 125 "$S"
	assert_match "$1: a runx: message naming '$shown'" "^runx: .*'$shown'" "$ERR"
	assert_eq "$1: one line of message" 1 "$(printf '%s\n' "$ERR" | wc -l)"
	assert_false "$1: the command did not start" test -e "$TMPD/started"
	no_runx_cgroup "$1: no runx-* cgroup left" "$RPID"
}

# offered CONTROLLER: true if runx's cgroup v2 offers CONTROLLER.
offered() {
	[ -n "$CGMNT" ] && grep -qw "$1" "$CGOWN/cgroup.controllers" 2>/dev/null
}

MEMORY_BAD=('' -1 -0 lots 1.5 24Q 99999999999T 0x10)
PIDS_BAD=('' -1 0 lots 1.5 99999999999999999999)
CPU_BAD=('' -1 0 lots nan 0.0001x 99999999999999999999)
# 5 per bad value, 3 x 3 scopes; per limit 9 where its controller is not
# offered (the refusal), else 3; 4 for all three at once where one is
# missing; 4 missing commands
n_limits=0 missing=""
for c in memory pids cpu; do
	if offered "$c"; then
		n_limits=$((n_limits + 3))
	else
		n_limits=$((n_limits + 9))
		missing="$missing${missing:+, }$c"
	fi
done
n_all=0
[ -z "$missing" ] || n_all=4
plan $((5 * (${#MEMORY_BAD[@]} + ${#PIDS_BAD[@]} + ${#CPU_BAD[@]}) + 3 * 3 + n_limits + n_all + 4))

# --- bad values ----------------------------------------------------------------
for v in "${MEMORY_BAD[@]}"; do bad "--memory-max=$v"; done
for v in "${PIDS_BAD[@]}"; do bad "--pids-max=$v"; done
for v in "${CPU_BAD[@]}"; do bad "--cpu-max=$v"; done

for scope in tree group child; do
	run_limited --kill-scope="$scope" --memory-max=24M
	assert_eq "--memory-max with --kill-scope=$scope: 125" 125 "$S"
	assert_match "--memory-max with --kill-scope=$scope: the message names both" \
		"^runx: --memory-max.*--kill-scope=$scope" "$ERR"
	assert_false "--memory-max with --kill-scope=$scope: the command did not start" \
		test -e "$TMPD/started"
done

# --- each limit: refused where the controller is not offered, else set ---------
# on_v1 CONTROLLER: the host binds it to a cgroup v1 hierarchy
# (/proc/cgroups, cgroups(7)).
on_v1() {
	awk -v c="$1" '$1 == c && $2 != 0 { found = 1 } END { exit !found }' /proc/cgroups
}

# v1_mount CONTROLLER: the mount point of its cgroup v1 hierarchy.
v1_mount() {
	awk -v c="$1" '{
		for (i = 1; $i != "-"; i++) {}
		if ($(i + 1) != "cgroup") next
		n = split($(i + 3), o, ",")
		for (k = 1; k <= n; k++) if (o[k] == c) { print $5; exit }
	}' /proc/self/mountinfo
}

# limit OPTION CONTROLLER FILE EXPECTED: see the header.
limit() {
	local opt=$1 ctl=$2 file=$3 want=$4 value
	if ! offered "$ctl"; then
		diag "runx's cgroup ($CGOWN) does not offer $ctl: the refusal is tested"
		run_limited "$opt"
		assert_eq "$opt, no $ctl controller: exit status 125" 125 "$S"
		if on_v1 "$ctl"; then
			# advice that can work here: no cgroup v2 delegation can
			assert_match "$opt, no $ctl controller: the message says it is on cgroup v1, and where" \
				"^runx: ${opt%%=*}: the $ctl controller is on cgroup v1 on this host \(mounted at '$(v1_mount "$ctl")'\)" "$ERR"
			assert_match "$opt, no $ctl controller: the message says what can work (cgroup_no_v1=$ctl)" \
				"boot with cgroup_no_v1=$ctl " "$ERR"
		else
			assert_match "$opt, no $ctl controller: the message names the option and the controller" \
				"^runx: ${opt%%=*}: the cgroup v2 $ctl controller is not offered to runx's cgroup" "$ERR"
			if [ -d /run/systemd/system ]; then
				assert_match "$opt, no $ctl controller: the message says what to do (systemd is the init)" \
					"systemd-run --user --scope -p Delegate=yes" "$ERR"
			else
				assert_match "$opt, no $ctl controller: the message says what to do" \
					"enable it in the parent cgroups' cgroup.subtree_control" "$ERR"
			fi
		fi
		if [ ! -d /run/systemd/system ]; then
			assert_false "$opt, no $ctl controller: no systemd-run advice without systemd" \
				grep -q systemd-run <<<"$ERR"
		else
			ok "$opt, no $ctl controller: systemd is the init here (its advice may be given)"
		fi
		assert_eq "$opt, no $ctl controller: one line of message" 1 \
			"$(printf '%s\n' "$ERR" | wc -l)"
		assert_false "$opt, no $ctl controller: the command did not start" \
			test -e "$TMPD/started"
		no_runx_cgroup "$opt, no $ctl controller: no runx-* cgroup left" "$RPID"
		# the redirect files are opened first (a bad path is found
		# before anything starts), but truncated only at the point of
		# no return: a refused run leaves them as they were
		printf 'kept\n' >"$TMPD/kept"
		rm -f "$TMPD/made"
		run_limited "$opt" -o "$TMPD/kept" -e "$TMPD/made"
		assert_eq "$opt, no $ctl controller: the -o file is as it was" "125 kept" "$S $(cat "$TMPD/kept")"
		assert_false "$opt, no $ctl controller: no -e file was made" test -e "$TMPD/made"
		return
	fi
	diag "runx's cgroup ($CGOWN) offers $ctl: the limit is tested"
	# shellcheck disable=SC2016 # expanded by the job's shell
	runx "$opt" -- sh -c 'cat "'"$CGMNT"'$(sed -n "s/^0:://p" /proc/self/cgroup)/$1"' \
		sh "$file" >"$TMPD/value" 2>"$TMPD/err" &
	RPID=$!
	S=0
	wait "$RPID" || S=$?
	value=$(cat "$TMPD/value")
	assert_eq "$opt: exit status 0" 0 "$S" "$(cat "$TMPD/err")"
	assert_eq "$opt: the job's $file when it starts" "$want" "$value"
	no_runx_cgroup "$opt: no runx-* cgroup left" "$RPID"
}
limit --memory-max=24M memory memory.max 25165824
limit --pids-max=8 pids pids.max 8
limit --cpu-max=0.5 cpu cpu.max "50000 100000"

# All three at once, with every missing controller named (MISSING, above).
if [ -n "$missing" ]; then
	run_limited --memory-max=1G --pids-max=100 --cpu-max=2
	assert_eq "all three limits, missing $missing: 125" 125 "$S"
	missing_v1=""
	for c in memory pids cpu; do
		case ", $missing, " in *", $c, "*) on_v1 "$c" && missing_v1="$missing_v1${missing_v1:+, }$c" ;; esac
	done
	if [ -n "$missing_v1" ]; then
		assert_match "all three limits: the message names every missing controller on cgroup v1 ($missing_v1)" \
			"the $missing_v1 controllers? (is|are) on cgroup v1 on this host" "$ERR"
	else
		assert_match "all three limits: the message names every missing controller ($missing)" \
			"the cgroup v2 $missing controllers? (is|are) not offered" "$ERR"
	fi
	assert_false "all three limits: the command did not start" test -e "$TMPD/started"
	no_runx_cgroup "all three limits: no runx-* cgroup left" "$RPID"
fi

# A command that does not exist, with a limit: it is looked up first (a
# path as it is, a name in PATH), so 127 whether or not the limit can be
# set here.  Never a cgroup left.
runx --pids-max=8 -- "$TMPD/no-such-command" 2>/dev/null &
RPID=$!
S=0
wait "$RPID" || S=$?
assert_eq "--pids-max, a missing command path: 127" 127 "$S"
no_runx_cgroup "--pids-max, a missing command path: no runx-* cgroup left" "$RPID"
runx --pids-max=8 -- no-such-command-$$ 2>/dev/null &
RPID=$!
S=0
wait "$RPID" || S=$?
assert_eq "--pids-max, a command name not in PATH: 127" 127 "$S"
no_runx_cgroup "--pids-max, a command name not in PATH: no runx-* cgroup left" "$RPID"

done_testing
