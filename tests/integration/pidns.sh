#!/bin/bash
# PID namespace scope (--kill-scope=pidns): the job runs under runx's own
# init in a new PID namespace (and a user namespace when not root), so
# nothing escapes it: not a setsid'd TERM-ignoring descendant at the
# deadline, not leftovers after a normal exit, not even runx's own
# SIGKILL.  Run as root and, through setpriv, as uid/gid 65534.
# shellcheck disable=SC1090 # the library is named by the environment
. "$TESTLIB"

require_root "(runs runx as root and, through setpriv, as uid 65534)"
require_command setpriv "to run runx as an unprivileged user"
require_python3 "to read the JSON report and to install a seccomp filter"
setup_nobody

# 23 per user (root, nobody), 3 id maps, 6 signals, 2 --wait-all, 7
# stdio, 4 -v and report, 7 alive at the deadline, 2 per backend when
# RUNX_LAUNCH is not set, 6 the first signal's look at every process, 1
# the init never named, 2 threads born in a stop, 6 a newcomer with
# chosen pids, 6 a nested namespace, 2 + 2 where namespaces cannot be
# made (2 with seccomp, on x86-64 only), 2 no wait on an init that
# exited, 3 an init stopped from outside
n_backend=0
[ -n "${RUNX_LAUNCH:-}" ] || n_backend=$((2 * $(wc -w <<<"$ALL_BACKENDS")))
n_seccomp=0
[ "$(uname -m)" != x86_64 ] || n_seccomp=2
plan $((23 * 2 + 3 + 6 + 2 + 7 + 4 + 7 + n_backend + 6 + 1 + 2 + 6 + 6 + 2 + n_seccomp + 2 + 2 + 3))

# nrunx ARGS...: runx as uid/gid 65534 (backend from RUNX_LAUNCH as runx).
nrunx() {
	as_nobody "$NRUNX" "${LAUNCH_ARGS[@]}" "$@"
}

# escapee MARKER [TRAP]: sh code leaving a setsid'd orphan "sleep MARKER".
escapee() {
	echo "setsid -w sh -c \"${2:+$2; }sleep $1 >/dev/null 2>&1 &\""
}

# kill_and_time RUNX-PID PID...: SIGKILLs RUNX-PID, then waits (poll(2)
# on pidfds, woken by each exit) until every PID has exited; prints the
# milliseconds from the kill to the last exit, or "never" after 10 s.
cat >"$TMPD/gone.py" <<'PYEOF'
import os, select, signal, sys, time
runx, pids = int(sys.argv[1]), [int(p) for p in sys.argv[2:]]
fds = [os.pidfd_open(p) for p in pids]
poll = select.poll()
for fd in fds:
    poll.register(fd, select.POLLIN)
t0 = time.monotonic()
os.kill(runx, signal.SIGKILL)
left = set(fds)
while left:
    events = poll.poll(max(0.0, (t0 + 10 - time.monotonic()) * 1000))
    if not events:
        print("never")
        sys.exit(1)
    for fd, _ in events:
        left.discard(fd)
        poll.unregister(fd)
print(round((time.monotonic() - t0) * 1000))
PYEOF
kill_and_time() {
	"$PY" "$TMPD/gone.py" "$@"
}

# sleeps_of MARKER: pids of the live "sleep MARKER" processes.
sleeps_of() {
	marked_list "$1" | awk '$3 == "sleep" {print $1}'
}

# three_sleeps MARKER: exactly three "sleep MARKER" processes are alive.
three_sleeps() {
	[ "$(sleeps_of "$1" | wc -l)" -eq 3 ]
}

# scope_tests WHO: the tests that run once as root and once as uid 65534
# (WHO: root or nobody); R is the runx command line for that user.
scope_tests() {
	local who=$1 m f out rpid pids
	local -a R fields
	if [ "$who" = nobody ]; then
		R=(setpriv --reuid=65534 --regid=65534 --clear-groups -- "$NRUNX" "${LAUNCH_ARGS[@]}")
	else
		R=("$RUNX" "${LAUNCH_ARGS[@]}")
	fi

	# --- what the command sees ---------------------------------------------
	# shellcheck disable=SC2016 # expanded by the command's shell
	out=$("${R[@]}" --kill-scope=pidns -- sh -c 'echo $$; for p in /proc/[0-9]*; do printf "%s " "${p#/proc/}"; done')
	assert_eq "$who: the command is pid 2, never PID 1" 2 "${out%%$'\n'*}"
	assert_eq "$who: the command's /proc lists only the job (init 1, itself 2)" "1 2 " "${out#*$'\n'}"
	out=$("${R[@]}" --kill-scope=pidns -- cat /proc/1/cmdline | tr '\0' ' ')
	assert_match "$who: PID 1 of the namespace is runx's init" "^[^ ]*runx " "$out"
	out=$("${R[@]}" --kill-scope=pidns -- sh -c 'cat /proc/$$/stat; :')
	out=${out##*) }
	read -r -a fields <<<"$out"
	assert_eq "$who: the command leads its own session and group, with no terminal (as with group)" \
		"2 2 0" "${fields[2]} ${fields[3]} ${fields[4]}"
	assert_eq "$who: the command's uid and gid are the caller's" "$("${R[@]}" --kill-scope=child -- id -u):$("${R[@]}" --kill-scope=child -- id -g)" \
		"$("${R[@]}" --kill-scope=pidns -- id -u):$("${R[@]}" --kill-scope=pidns -- id -g)"

	# --- exit statuses --------------------------------------------------------
	assert_eq "$who: status 0" 0 "$(st "${R[@]}" --kill-scope=pidns -- true)"
	assert_eq "$who: status 7" 7 "$(st "${R[@]}" --kill-scope=pidns -- sh -c 'exit 7')"
	assert_eq "$who: 127 for a command not found in PATH" 127 "$(st "${R[@]}" --kill-scope=pidns -- runx-no-such-command 2>/dev/null)"
	assert_eq "$who: 127 when execve inside the namespace finds nothing" 127 "$(st "${R[@]}" --kill-scope=pidns -- /nonexistent/cmd 2>/dev/null)"
	assert_eq "$who: 126 for a file that cannot be executed" 126 "$(st "${R[@]}" --kill-scope=pidns -- "$NOBODY_DIR/noexec" 2>/dev/null)"
	assert_eq "$who: 128+10 for a command killed by SIGUSR1" 138 "$(st "${R[@]}" --kill-scope=pidns -- sh -c 'kill -USR1 $$')"
	assert_eq "$who: 128+9 for a command killed by SIGKILL inside" 137 "$(st "${R[@]}" --kill-scope=pidns -- sh -c 'kill -KILL $$')"

	# --- deadline: setsid'd, TERM-ignoring descendants ---------------------------
	new_marker m
	assert_eq "$who, deadline, setsid'd TERM-ignoring descendants: 124" 124 \
		"$(st guarded 30 "${R[@]}" --kill-scope=pidns -t 1 -k 0.3 -- sh -c "$(escapee "$m" "trap '' TERM"); $(escapee "$m" "trap '' TERM HUP"); sleep $m; :")"
	assert_dead "$who, deadline: nothing with the marker is left on the host" "$m"

	# --- leftovers after a normal exit -----------------------------------------------
	new_marker m
	f=$NOBODY_DIR/left.$m
	assert_eq "$who, leftovers: the command's own status" 6 \
		"$(st guarded 30 "${R[@]}" --kill-scope=pidns -k 20 -- sh -c "setsid -w sh -c \"sh -c 'trap \\\"echo TERM >$f; exit 0\\\" TERM; echo >$f.ready; sleep $m & wait' >/dev/null 2>&1 &\"; while [ ! -e $f.ready ]; do sleep 0.02; done; exit 6")"
	assert_eq "$who, leftovers: the leftover's TERM trap saw the first signal" TERM "$(cat "$f" 2>/dev/null)"
	assert_dead "$who, leftovers: gone" "$m"

	new_marker m
	assert_eq "$who, TERM-ignoring leftover: the command's own status" 3 \
		"$(st guarded 30 "${R[@]}" --kill-scope=pidns -k 0.3 -- sh -c "$(escapee "$m" "trap '' TERM"); exit 3")"
	assert_dead "$who, TERM-ignoring leftover: SIGKILLed after the grace period" "$m"

	# --- runx itself SIGKILLed --------------------------------------------------------
	new_marker m
	env --default-signal=INT,QUIT "${R[@]}" --kill-scope=pidns -- sh -c "sleep $m & sleep $m & setsid sh -c \"trap '' TERM HUP; sleep $m\" & wait" &
	rpid=$!
	if poll 400 0.05 three_sleeps "$m"; then
		pids=$(sleeps_of "$m")
		ok "$who, runx SIGKILLed: setup: three descendants"
		# shellcheck disable=SC2086
		gone_ms=$(kill_and_time "$rpid" $pids)
		if [[ $gone_ms =~ ^[0-9]+$ ]] && [ "$gone_ms" -le 2000 ]; then
			ok "$who, runx SIGKILLed: all three descendants gone within 2 s (${gone_ms} ms)"
		else
			not_ok "$who, runx SIGKILLed: all three descendants gone within 2 s" "took: $gone_ms ms"
		fi
		wait_pid_exit "$rpid" 10
		assert_eq "$who, runx SIGKILLed: runx died by SIGKILL" 137 "$WAIT_STATUS"
		# the kernel's SIGKILL of the namespace is asynchronous: the
		# command's shell may still be on its way out (state R)
		wait_gone "$m" 20
		assert_dead "$who, runx SIGKILLed: nothing with the marker left" "$m"
	else
		kill -KILL "$rpid" 2>/dev/null
		not_ok "$who, runx SIGKILLed: setup: three descendants" "they never showed up"
		not_ok "$who, runx SIGKILLed: all three descendants gone within 2 s" "no setup"
		not_ok "$who, runx SIGKILLed: runx died by SIGKILL" "no setup"
		not_ok "$who, runx SIGKILLed: nothing with the marker left" "no setup"
		kill_marked "$m"
	fi
}

printf '#!/bin/sh\n' >"$NOBODY_DIR/noexec"
chmod 644 "$NOBODY_DIR/noexec"

scope_tests root
scope_tests nobody

# --- as nobody: the user namespace maps the caller's own ids ----------------
out=$(nrunx --kill-scope=pidns -- cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups | tr -s ' \n' ' ')
assert_eq "nobody: uid_map and gid_map map 65534 to itself (not root); setgroups denied" \
	" 65534 65534 1 65534 65534 1 deny " " ${out# }"
f=$NOBODY_DIR/owned
nrunx --kill-scope=pidns -- touch "$f"
assert_eq "nobody: a file the job creates belongs to the caller" "65534:65534" "$(stat -c %u:%g "$f" 2>/dev/null)"
out=$(runx --kill-scope=pidns -- cat /proc/self/uid_map | tr -s ' \n' ' ')
assert_eq "root: no user namespace (the initial uid map)" " 0 0 4294967295 " " ${out# }"

# --- signals to runx ------------------------------------------------------------------
new_marker m
f=$TMPD/hup.$m
# The command itself survives the HUP (a handler), so runx must run on.
runx_bg --kill-scope=pidns -k 20 -- sh -c "trap : HUP; setsid sh -c 'trap \"echo HUP >>$f\" HUP; trap \"echo TERM >>$f; exit 0\" TERM; echo >$f.ready; while :; do sleep $m; done' & while :; do sleep 0.1; done"
if wait_file "$f.ready"; then
	kill -HUP "$RUNX_PID"
	poll 1000 0.02 grep -qs HUP "$f"
	assert_true "SIGHUP to runx: forwarded, not a stop (runx runs on)" pid_alive "$RUNX_PID"
	# the HUP ended the descendant's sleep; its trap ran, and it forks the
	# next one: the TERM waits until that has exec'd sleep.  A fork copy
	# of the shell would take the TERM with the shell's handler and exec
	# sleep without it, and the pidns scope looks for such copies only
	# where the command itself catches the signal (runx(1), copies of
	# another process are not found): the sleep would hold the shell in
	# its wait, its trap unrun, until the SIGKILL 20 s later
	poll 1000 0.02 pgrep -f "^sleep $m\$" >/dev/null
	kill -TERM "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 40
	assert_eq "SIGTERM to runx: 143" 143 "$WAIT_STATUS"
	assert_eq "the setsid'd descendant saw HUP, then TERM" "HUP TERM" "$(tr '\n' ' ' <"$f" | sed 's/ $//')"
else
	kill -KILL "$RUNX_PID"
	not_ok "SIGHUP to runx: forwarded, not a stop (runx runs on)" "never ready"
	not_ok "SIGTERM to runx: 143" "never ready"
	not_ok "the setsid'd descendant saw HUP, then TERM" "never ready"
fi
assert_dead "signals to runx: nothing left" "$m"

# SIGTERM to runx with -k 0: the SIGKILL of the init follows the forwarded
# SIGTERM at once, and the init dies before it can reap the command and
# say how it ended; the command's pidfd, which the init sent runx, still
# tells: SIGTERM, not the init's SIGKILL (which 50 of 60 runs said before).
# 20 runs, each once the command runs.
kver=$(uname -r | awk -F'[.-]' '{ print $1 * 1000 + $2 }')
if [ "$kver" -lt 6015 ]; then
	skips 2 "-k 0, SIGTERM to runx" "kernel $(uname -r): no PIDFD_INFO_EXIT before Linux 6.15"
else
	bad_st='' bad_rep=''
	for i in $(seq 20); do
		new_marker m
		rm -f "$TMPD/k0.json" "$TMPD/k0.ready"
		runx_bg --kill-scope=pidns -k 0 --report="$TMPD/k0.json" -- \
			sh -c ': >"$1"; exec sleep "$2"' sh "$TMPD/k0.ready" "$m"
		# (not wait_marked: runx's own command line holds the marker,
		# and a SIGTERM before runx blocks it kills runx, no report)
		wait_file "$TMPD/k0.ready" 60 || bad_st+=" run $i: never ready"
		kill -TERM "$RUNX_PID"
		wait_pid_exit "$RUNX_PID" 40
		[ "$WAIT_STATUS" = 143 ] || bad_st+=" run $i: $WAIT_STATUS"
		sig=$(jq -r '.signal // "none"' "$TMPD/k0.json" 2>&1)
		[ "$sig" = SIGTERM ] || bad_rep+=" run $i: $sig"
		kill_marked "$m"
	done
	assert_eq "-k 0, SIGTERM to runx, 20 runs: 143 each time" "" "$bad_st"
	assert_eq "-k 0, SIGTERM to runx, 20 runs: the report says the command died of SIGTERM" "" "$bad_rep"
fi

# --- --wait-all ----------------------------------------------------------------------------
f=$TMPD/waitall
assert_eq "--wait-all: the command's own status" 3 \
	"$(st guarded 30 "$RUNX" "${LAUNCH_ARGS[@]}" --kill-scope=pidns --wait-all -- sh -c "setsid -w sh -c '(sleep 0.5; echo done >$f) >/dev/null 2>&1 &'; exit 3")"
assert_eq "--wait-all: runx waited for the setsid'd descendant" "done" "$(cat "$f" 2>/dev/null)"

# --- file descriptors and stdin as in the group scope -----------------------------------------
fdlist='cd /proc/self/fd && echo *'
assert_eq "fds: the command gets exactly what runx inherited, as with group" \
	"$(runx --kill-scope=group -- sh -c "$fdlist" 3</dev/null 7>/dev/null)" \
	"$(runx --kill-scope=pidns -- sh -c "$fdlist" 3</dev/null 7>/dev/null)"
assert_eq "fds: --close-fds leaves 0, 1 and 2, as with group" \
	"$(runx --close-fds --kill-scope=group -- sh -c "$fdlist" 3</dev/null 7>/dev/null)" \
	"$(runx --close-fds --kill-scope=pidns -- sh -c "$fdlist" 3</dev/null 7>/dev/null)"
assert_eq "stdin: a pipe reaches the command" hello "$(echo hello | runx --kill-scope=pidns -- cat)"
echo from-file >"$TMPD/in"
assert_eq "stdin: -i FILE reaches the command" from-file "$(runx --kill-scope=pidns -i "$TMPD/in" -- cat)"
runx --kill-scope=pidns -o "$TMPD/out" -e "$TMPD/err" -- sh -c 'echo out; echo err >&2'
assert_eq "-o and -e" "out err" "$(cat "$TMPD/out") $(cat "$TMPD/err")"
# (on_time: the output must be out before the idle deadline)
on_time 0.3 "$TMPD/idle.ready" -- runx --kill-scope=pidns --idle-timeout=@T -k 0.2 -o "$TMPD/idle" -- \
	sh -c 'echo x; : >"$1"; sleep 1000' sh "$TMPD/idle.ready"
assert_eq "--idle-timeout (output through runx) with pidns: 124" 124 "$OT_STATUS"
assert_eq "--idle-timeout with pidns: the output went through" x "$(cat "$TMPD/idle")"

# --- -v and --report name the scope, its init and the command's pid ----------------------------
new_marker m
runx_bg -v --kill-scope=pidns --report="$TMPD/r.json" -- sleep "$m" 2>"$TMPD/v"
rpid=$RUNX_PID
poll 1000 0.02 grep -qs "started 'sleep'" "$TMPD/v"
out=$(cat "$TMPD/v")
assert_match "-v: the command's pid here and in the namespace, and the init's" \
	"started 'sleep' as pid [0-9]+ \\(2 in the pid namespace of init [0-9]+;" "$out"
cmd=$(sed -n "s/.*started 'sleep' as pid \([0-9]*\) .*/\1/p" <<<"$out")
init=$(sed -n "s/.*pid namespace of init \([0-9]*\);.*/\1/p" <<<"$out")
# the pid named is the command's: the init's child, pid 2 inside, the sleep
assert_eq "-v: that pid is the init's child, pid 2 in the namespace, the command" \
	"$init|2|sleep $m" \
	"$(awk '/^PPid:/ { p = $2 } /^NSpid:/ { n = $NF } END { printf "%s|%s", p, n }' "/proc/${cmd:-0}/status" 2>/dev/null)|$(tr '\0' ' ' <"/proc/${cmd:-0}/cmdline" 2>/dev/null | sed 's/ $//')"
kill -TERM "$rpid"
wait "$rpid"
assert_eq "--report: scope, scope_target name the init, pid the command" \
	"pidns|pid namespace of init $init|$cmd" \
	"$($PY -c 'import json,sys; r=json.load(open(sys.argv[1])); print("%s|%s|%s" % (r["scope"], r["scope_target"], r["pid"]))' "$TMPD/r.json")"
# A command that exits at once: the init reaps it as soon as it can, often
# before runx asks for its pid (on one CPU, 35 runs in 40 said "pid 0" and
# reported the init's pid): the pid named is still the command's, 30 runs
# in a row (the init reads it before it can reap the command)
pin=()
if command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null; then
	pin=(taskset -c 0)
fi
bad=''
for i in $(seq 30); do
	rm -f "$TMPD/q.json"
	"${pin[@]}" "$RUNX" "${LAUNCH_ARGS[@]}" -v --kill-scope=pidns --report="$TMPD/q.json" \
		-- sh -c 'exit 3' 2>"$TMPD/q.v" || true
	out=$(cat "$TMPD/q.v")
	cmd=$(sed -n "s/.*started 'sh' as pid \([0-9]*\) .*/\1/p" <<<"$out")
	init=$(sed -n "s/.*pid namespace of init \([0-9]*\);.*/\1/p" <<<"$out")
	rep=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$TMPD/q.json" 2>&1)
	if [ -z "$cmd" ] || [ "$cmd" = 0 ] || [ "$cmd" = "$init" ] || [ "$rep" != "$cmd" ] ||
		[ "$(grep -c "command (pid $cmd) exited with status 3" "$TMPD/q.v")" != 1 ]; then
		bad="run $i: report pid $rep; $out"
		break
	fi
done
if [ -z "$bad" ]; then
	ok "a command that exits at once: -v and --report name its pid, not 0 nor the init's (30 runs${pin:+, on one CPU})"
else
	not_ok "a command that exits at once: -v and --report name its pid, not 0 nor the init's" "$bad"
fi

# --- the processes alive at the deadline are named ------------------------------------------------
# (on_time: both sleeps must run before the deadline)
new_marker m
on_time 0.3 "$TMPD/alive.ready" "2>$TMPD/alive.err" -- runx -v --kill-scope=pidns -t @T -k 0.3 --report="$TMPD/alive.json" -- \
	sh -c "trap '' TERM; sleep $m & sleep $m & : >$TMPD/alive.ready; wait"
assert_eq "alive at the deadline: all three named, with their argv" "3|3|sh,sleep,sleep|$m,$m" \
	"$($PY -c '
import json, sys
a = json.load(open(sys.argv[1]))["alive_at_deadline"]
ps = a["processes"]
print("%d|%d|%s|%s" % (a["count"], len(ps), ",".join(sorted(p["argv"][0] for p in ps)),
      ",".join(p["argv"][1] for p in ps if p["argv"][0] == "sleep")))' "$TMPD/alive.json")"
assert_eq "-v: an 'alive at the deadline' line per process, none for the init" 2 \
	"$(grep -c "alive at the deadline: pid [0-9]*, age [0-9.]*s: sleep $m\$" "$TMPD/alive.err")"
# how many processes each signal reached is counted in the namespace (sh
# and its two sleeps, all ignoring TERM), not taken as "some": 3 each
assert_eq "--report: SIGTERM, SIGCONT and SIGKILL each reached the 3 processes" \
	"SIGTERM:3,SIGCONT:3,SIGKILL:3" \
	"$($PY -c '
import json, sys
print(",".join("%s:%s" % (s["signal"], s["processes"])
               for s in json.load(open(sys.argv[1]))["signals_sent"]))' "$TMPD/alive.json")"
assert_eq "-v: the first signal's line counts the 3 processes" 1 \
	"$(grep -c "sending: SIGTERM to pid namespace of init [0-9]* (3 processes)\$" "$TMPD/alive.err")"
assert_dead "alive at the deadline: nothing left" "$m"

# Processes whose main thread exited while another runs (pthread_exit(3)
# from main: /proc/PID/stat says Z) are alive, and counted so: 3 again.
ADVERSARY=$(dirname "$TESTLIB")/cgroup-adversary.py
d=$(mktemp -d "$TMPD/zl.XXXXXX")
on_time 0.3 "$d/ready" "$d/z1" "$d/z1.ready" "$d/z2" "$d/z2.ready" "2>$d/err" -- \
	runx --kill-scope=pidns -t @T -k 0.3 --report="$d/r.json" -- \
	sh -c 'trap "" TERM; for i in 1 2; do "$1" "$2" zombie-leader "$3/z$i" & done
		while [ ! -e "$3/z1.ready" ] || [ ! -e "$3/z2.ready" ]; do sleep 0.01; done; : >"$3/ready"; wait' \
	sh "$PY" "$ADVERSARY" "$d"
assert_eq "--report, two processes whose main thread exited: alive at the deadline and after the grace, and each signal reached, count 3" \
	"3,3,SIGTERM:3,SIGCONT:3,SIGKILL:3" \
	"$($PY -c '
import json, sys
r = json.load(open(sys.argv[1]))
print("%d,%d,%s" % (r["alive_at_deadline"]["count"], r["alive_after_grace"]["count"],
      ",".join("%s:%s" % (s["signal"], s["processes"]) for s in r["signals_sent"])))' "$d/r.json" 2>&1)"
read -r z1 z1start <"$d/z1" || true
read -r z2 z2start <"$d/z2" || true
both_gone() { pid_gone "$1" "$2" && pid_gone "$3" "$4"; }
assert_true "two processes whose main thread exited: both gone" \
	both_gone "${z1:-0}" "${z1start:-0}" "${z2:-0}" "${z2start:-0}"

# --- every backend, once (the per-backend runs of make check cover the rest) ---------------------
if [ -z "${RUNX_LAUNCH:-}" ]; then
	for b in $ALL_BACKENDS; do
		assert_eq "--launch=$b: works inside the namespace (status 7, pid 2)" "2 7" \
			"$(runx_with "$b" --kill-scope=pidns -- sh -c 'echo $$') $(st runx_with "$b" --kill-scope=pidns -- sh -c 'exit 7')"
		assert_eq "--launch=$b as nobody: status 7" 7 "$(st as_nobody "$NRUNX" --launch="$b" --kill-scope=pidns -- sh -c 'exit 7')"
	done
fi

# --- the first signal with no look at every process first --------------------------
# Where the command neither catches nor ignores the stop's first signal,
# runx has the init send it without reading every process first (the
# look for fork copies, runx(1), pidns): at most 3 /proc/PID/stat reads
# before its SIGTERM to the init.  Where the command traps TERM, it reads
# each process first: at least the job's 21.  runx runs under strace (the
# marker is in the environment, not in an argv that wait_marked reads);
# open(2) counts as well as openat(2): a static musl runx opens with it.
# census_case NAME TRAP STATUS: 3 tests.
census_case() {
	local name=$1 trap=$2 want=$3 m d reads
	new_marker m
	d=$(mktemp -d "$TMPD/census.XXXXXX")
	runx_traced_bg "$d/trace" open,openat,pidfd_send_signal "$m" \
		"${LAUNCH_ARGS[@]}" --kill-scope=pidns -k 5 -- sh -c '[ "$1" = yes ] && trap "exit 7" TERM
		i=0; while [ $i -lt 20 ]; do sleep "$M" & i=$((i + 1)); done; : >"$2"; wait' sh "$trap" "$d/ready"
	term_when_ready "$name: runx exits with the command's status" "$want" "$d/ready" "$m" 20 child
	reads=$(awk '/^pidfd_send_signal\([0-9]+, SIGTERM,/ { exit }
		/^open(at)?\(.*"\/proc\/[0-9]+\/stat"/ { n++ } END { print n + 0 }' "$d/trace")
	if [ "$trap" = yes ]; then
		assert_true "$name: each process read before the first signal ($reads reads)" test "$reads" -ge 21
	else
		assert_true "$name: no look at every process before the first signal ($reads reads)" test "$reads" -le 3
	fi
}
if have_strace 6 "pidns, the first signal with no look at every process first"; then
	census_case "pidns, a command that does not catch TERM" no 143
	census_case "pidns, a command that traps TERM" yes 7
fi

# --- no wait on an init that has exited ------------------------------------------
# After the first signal, runx waits until the init has forwarded it
# (back asleep in read(2), the signal no longer pending). A job that the
# signal ends makes the init exit at once, and it stays a zombie until
# runx reaps it: runx polled it for the whole 100 ms bound, so the
# report's first signal and runx's exit came 100 ms late (6 runs in 40
# through sh -c, and nearly every run under strace, which slows runx's
# polls). Under strace, runx reads the exited init's /proc/PID/stat once
# at most per run, not once per poll (200 or more before). 3 runs.
if have_strace 2 "pidns, no wait on an init that has exited"; then
	polls="" statuses=""
	for i in 1 2 3; do
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -qq -o "$TMPD/zinit.trace" -s 64 -e trace=read \
			"$RUNX" "${LAUNCH_ARGS[@]}" --kill-scope=pidns -t 0.3 \
			--report="$TMPD/zinit.json" -- sh -c 'sleep 1000' && st=0 || st=$?
		statuses="$statuses $st"
		init=$(jq -r '.scope_target' "$TMPD/zinit.json" 2>&1 |
			sed -n 's/^pid namespace of init \([0-9]*\)$/\1/p')
		if [ -n "$init" ]; then
			polls="$polls $(grep -cE "^read\([0-9]+, \"$init \(.*\) Z " "$TMPD/zinit.trace" || true)"
		else
			polls="$polls no-init-in-report"
		fi
	done
	assert_eq "an init that exited: runx exits 124 (3 runs)" " 124 124 124" "$statuses"
	assert_true "an init that exited: its stat read once at most after it exited (reads:$polls)" \
		awk -v p="$polls" 'BEGIN { n = split(p, a, " "); for (i = 1; i <= n; i++) if (a[i] !~ /^[01]$/) exit 1; exit n == 3 ? 0 : 1 }'
fi

# --- an init that does not forward: the wait is bounded and said -----------------
# After the first signal runx waits for the init to forward it, at most
# 100 ms; an init stopped from outside (SIGSTOP from an ancestor
# namespace reaches it) never does, until the SIGCONT that runx sends
# after that wait.  -v says the wait ran out (the count after it may then
# find the job alive: report.sh's pidns -k 0 case once did, in a loaded
# run), and the stop goes on: the SIGCONT lets the init forward SIGTERM.
new_marker m
rm -f "$TMPD/stopped.ready"
runx_bg -v --kill-scope=pidns -k 30 -- \
	sh -c ': >"$1"; exec sleep "$2"' sh "$TMPD/stopped.ready" "$m" 2>"$TMPD/stopped.err"
wait_file "$TMPD/stopped.ready" 60
init=$(sed -n 's/.* of init \([0-9]*\)[;)].*/\1/p' "$TMPD/stopped.err" | head -1)
if [ -n "$init" ] && kill -STOP "$init"; then
	kill -TERM "$RUNX_PID"
	wait_pid_exit "$RUNX_PID" 40
	assert_eq "an init stopped from outside: runx still ends the job by SIGTERM (143)" 143 "$WAIT_STATUS"
	assert_match "an init stopped from outside: -v says the 100 ms wait ran out" \
		"init did not forward SIGTERM within 100 ms: going on" "$(cat "$TMPD/stopped.err")"
else
	kill -KILL "$RUNX_PID"
	wait "$RUNX_PID"
	not_ok "an init stopped from outside: runx still ends the job by SIGTERM (143)" "no init pid in -v: $(cat "$TMPD/stopped.err")"
	not_ok "an init stopped from outside: -v says the 100 ms wait ran out" "not run"
fi
assert_dead "an init stopped from outside: nothing left" "$m"

# --- the init is never named, even when no process of the job can be ----------
# A job whose pid hops (each process forks, exits, and its child calls
# setsid(), TERM ignored) is often between two pids when runx names what
# is left: the census then counts one it cannot name, never runx's init
# (which -v and the report named in 4 of 8 runs before).  5 runs.
cat >"$TMPD/hop.pl" <<'PLEOF'
use POSIX qw(setsid _exit);
$SIG{TERM} = 'IGNORE';
my $end = time + $ARGV[0];
while (time < $end) { my $p = fork(); _exit(0) if $p; setsid(); }
PLEOF
named=0 runs=""
for i in 1 2 3 4 5; do
	runx -v --kill-scope=pidns -t 0.5 -k 0.5 --report="$TMPD/hop.json" -- \
		perl "$TMPD/hop.pl" 3 2>"$TMPD/hop.err" >/dev/null || true
	init=$(sed -n 's/.* of init \([0-9]*\);.*/\1/p' "$TMPD/hop.err" | head -1)
	if [ -z "$init" ] || grep -q "alive .*: pid $init," "$TMPD/hop.err" ||
		[ "$(jq "[.alive_at_deadline.processes[]?, .alive_after_grace.processes[]? | select(.pid == $init)] | length" "$TMPD/hop.json" 2>&1)" != 0 ]; then
		named=$((named + 1))
		runs="$runs $(paste -sd'|' "$TMPD/hop.err")"
	fi
done
assert_eq "a job whose pid hops: runx's init is never named alive (5 runs)" 0 "$named" "$runs"

# --- a thread born during the stop is no newcomer ------------------------------
# The command catches TERM once the deadline passes, and starts 4 threads
# in its handler, then exits 1.5 s later.  The newcomer passes of the
# grace period read only the ids allocated since the pass before, where
# the threads' ids are too (/proc/TID/stat can be read, though /proc does
# not list a thread): none must be taken for a newcomer and get the first
# signal again (kill(2) of a thread's id signals its process).  2 tests.
m=""
new_marker m
d=$(mktemp -d "$TMPD/threads.XXXXXX")
st=$(st runx "${LAUNCH_ARGS[@]}" --kill-scope=pidns -t 1 -k 20 -- "$PY" -c '
import os, signal, sys, threading, time
out, marker = sys.argv[1], sys.argv[2]
termed = []
def on_term(sig, frame):
    with open(out, "a") as f:
        f.write("TERM\n")
    if not termed:
        termed.append(time.monotonic())
        for _ in range(4):
            threading.Thread(target=time.sleep, args=(3,), daemon=True).start()
signal.signal(signal.SIGTERM, on_term)
while not termed or time.monotonic() - termed[0] < 1.5:
    time.sleep(0.05)
' "$d/terms" "$m")
assert_eq "pidns, threads born in the TERM handler: 124 (the command ended in the grace period)" 124 "$st"
assert_eq "pidns, threads born in the TERM handler: the command got TERM once" "TERM" "$(cat "$d/terms" 2>&1)"

# --- a newcomer whose pids are chosen below the pid counters -------------------
# As in group.sh: a root job chooses a child's pid in its namespace and in
# runx's (clone3(2)'s set_tid), which moves neither counter, and forks
# that fail after their pids were allocated fool runx's count of forks
# against its counter.  fork: the child's sleep is in the window with its
# parent not reached; read: the child forks nothing (the walk each second).
settid_cases "pidns, a newcomer with chosen pids" 2 --kill-scope=pidns

# --- a PID namespace the job makes is the job's too ------------------------------
# The init's kill(2) of -1 reaches the processes of a namespace the job
# nests in its own; a newcomer there must get the first signal, and -v
# must count and name them.  Newcomer: the command's TERM handler starts
# unshare --pid --fork with a shell whose child traps TERM; its trap must
# run, and runx end long before the 20 s grace.
new_marker m
f=$TMPD/nested.$m
cat >"$f.inner" <<EOF
trap 'echo TERM >$f; exit 0' TERM
sleep $m & wait
EOF
# the nested namespace's init: TERM before its child's trap is set kills
# the child (143), and counts; the init itself has no handler, so the
# kernel drops TERM for it (pid_namespaces(7))
cat >"$f.init" <<EOF
sh $f.inner
[ \$? != 143 ] || echo TERM >$f
EOF
s=0
t0=$EPOCHREALTIME
runx --kill-scope=pidns -t 1 -k 20 -- sh -c \
	"trap 'unshare --pid --fork sh $f.init & sleep 8; exit 0' TERM; sleep $m & wait" 2>"$f.err" || s=$?
took=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { print (b - a < 15) ? "yes" : "no " b - a " s" }')
assert_eq "pidns, a newcomer in a nested namespace: 124 before the 20 s grace" "124 yes" "$s $took" "$(cat "$f.err")"
assert_eq "pidns, a newcomer in a nested namespace: its TERM trap ran" TERM "$(cat "$f" 2>&1)" "$(cat "$f.err")"
assert_dead "pidns, a newcomer in a nested namespace: nothing left" "$m"
# Names: unshare, the nested shell (its init) and its two sleeps, all
# ignoring TERM (2 s for them to start, on a loaded machine too).
new_marker m
runx -v --kill-scope=pidns -t 2 -k 0.5 -- unshare --pid --fork sh -c "trap '' TERM; sleep $m & sleep $m" \
	2>"$TMPD/nested.err" || true
assert_eq "pidns, a nested namespace: -v names the 4 processes alive at the deadline" 4 \
	"$(grep -c 'alive at the deadline: pid' "$TMPD/nested.err")" "$(cat "$TMPD/nested.err")"
assert_match "pidns, a nested namespace: -v counts 4 alive after the grace period" \
	"4 processes still alive after" "$(cat "$TMPD/nested.err")"
assert_dead "pidns, a nested namespace: nothing left" "$m"

# --- where namespaces cannot be made: 125, saying which, nothing started --------------------------
f=$TMPD/started
out=$(unshare -Ur sh -c "echo 0 >/proc/sys/user/max_pid_namespaces && exec \"\$0\" --kill-scope=pidns -- touch $f" "$RUNX" 2>&1; echo "status $?")
assert_match "max_pid_namespaces 0: 125 naming the setting and the way out" \
	"^runx: --kill-scope=pidns: .*max_pid_namespaces is 0.*use --kill-scope=tree or --kill-scope=cgroup"$'\n'"status 125$" "$out"
out=$(unshare -Ur sh -c "echo 0 >/proc/sys/user/max_user_namespaces && exec setpriv --bounding-set=-sys_admin -- \"\$0\" --kill-scope=pidns -- touch $f" "$RUNX" 2>&1; echo "status $?")
assert_match "user namespaces disabled (max_user_namespaces 0), no CAP_SYS_ADMIN: 125" \
	"^runx: --kill-scope=pidns: user namespaces are disabled.*max_user_namespaces is 0.*"$'\n'"status 125$" "$out"

# seccomp_run ERRNO COMMAND...: runs COMMAND with clone3(2) failing with
# ERRNO (a seccomp filter, as container runtimes install; x86-64 only).
seccomp_run() {
	$PY - "$@" <<'EOF'
import ctypes, os, struct, sys
err = int(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
f = [(0x20, 0, 0, 0),                     # ld [nr]
     (0x15, 0, 1, 435),                   # jeq clone3
     (0x06, 0, 0, 0x00050000 | err),      # ret ERRNO(err)
     (0x06, 0, 0, 0x7fff0000)]            # ret ALLOW
prog = b"".join(struct.pack("HBBI", *i) for i in f)
buf = ctypes.create_string_buffer(prog)
fprog = struct.pack("HxxxxxxQ", len(f), ctypes.addressof(buf))
fbuf = ctypes.create_string_buffer(fprog)
if libc.prctl(38, 1, 0, 0, 0) or libc.prctl(22, 2, ctypes.addressof(fbuf), 0, 0):
    sys.exit("seccomp: %s" % os.strerror(ctypes.get_errno()))
os.execv(sys.argv[2], sys.argv[2:])
EOF
}
if [ "$(uname -m)" = x86_64 ]; then
	out=$(seccomp_run 1 "$RUNX" --kill-scope=pidns -- touch "$f" 2>&1; echo "status $?")
	assert_match "seccomp: clone3 refused (EPERM): 125 with the reason and the way out" \
		"^runx: --kill-scope=pidns: cannot make the namespaces \\(Operation not permitted\\): no privilege.*; use --kill-scope=tree or --kill-scope=cgroup"$'\n'"status 125$" "$out"
	assert_eq "seccomp: clone3 hidden (ENOSYS): clone(2) makes the namespaces instead" "2 0" \
		"$(seccomp_run 38 "$RUNX" --kill-scope=pidns -- sh -c 'echo $$') $?"
fi
assert_false "no refusal started the command" test -e "$f"
assert_eq "--foreground with pidns: 125" 125 "$(st runx --foreground --kill-scope=pidns -- true 2>/dev/null)"

done_testing
