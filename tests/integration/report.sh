#!/bin/bash
# --report=FILE: the JSON report of a run.  Every field is checked for each
# reason (exited, signaled, timeout with and without SIGKILL, idle_timeout,
# runx_signaled, exec_failed 127/126, runx_error), plus: atomic write (temp
# file + rename, nothing left behind, the old file replaced and not written
# in place), --report=- on stderr, invalid UTF-8 and control characters in
# the command, the file mode (0666 & ~umask, or the replaced file's mode
# and group), an unwritable report path, and rusage (peak memory, CPU time).
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

require_python3 "to parse the JSON report"
"$PY" -c 'import json' 2>/dev/null || skip_all "python3 cannot import json"

# --- own helpers ---------------------------------------------------------------

# now: wall-clock seconds since the epoch, with nanoseconds.
now() { date +%s.%N; }

# json_args ARG...: the arguments as a JSON array (for the expected command).
json_args() {
	"$PY" -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@"
}

EXPECT_BACKEND=${RUNX_LAUNCH:-vfork}
RUNX_VERSION=$("$RUNX" --version | sed -n '1s/^runx //p')

# The checker: reads the report FILE and, on stdin, one check per line,
# "NAME|PYTHON-EXPRESSION" (r = the report; E = os.environ; J(name) = the
# JSON value of environment variable name; ts(text) = seconds since the
# epoch of an RFC 3339 time).  Prints "ok<TAB>NAME" or
# "fail<TAB>NAME<TAB>diagnostic" for each check.
cat >"$TMPD/check.py" <<'EOF'
import datetime, json, os, re, sys

E = os.environ
def J(name):
    return json.loads(E[name])
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
def ts(text):
    if not isinstance(text, str) or not RFC3339.match(text):
        raise ValueError("not RFC 3339 UTC with microseconds: %r" % (text,))
    d = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")
    return d.replace(tzinfo=datetime.timezone.utc).timestamp()
def num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)
def real(x):
    return isinstance(x, float)
def integer(x):
    return isinstance(x, int) and not isinstance(x, bool)
def same(x, want):
    return type(x) is type(want) and x == want

path = sys.argv[1]
checks = [l.rstrip("\n").split("|", 1) for l in sys.stdin if "|" in l]
try:
    if path == "-":
        text = E["REPORT_TEXT"]
    else:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")  # strict: valid UTF-8
    r = json.loads(text)  # strict: no raw control characters
    if not isinstance(r, dict):
        raise ValueError("not a JSON object")
except Exception as e:
    for name, _ in checks:
        print("fail\t%s\tno valid report: %s" % (name, e))
    sys.exit(0)
for name, expr in checks:
    try:
        good = eval(expr)
        why = "false: " + expr
    except Exception as e:
        good = False
        why = "%s: %s: %s" % (expr, type(e).__name__, e)
    if good:
        print("ok\t%s" % name)
    else:
        print("fail\t%s\t%s  --  report: %s" % (name, why, json.dumps(r, sort_keys=True)))
EOF

# check_report LABEL FILE: runs the checks on stdin against FILE (TAP):
# one test per check, in order.  A check the checker gave no result for
# (it failed) is a failure with the checker's stderr; a checker that
# failed after giving them all bails out.
check_report() {
	local label=$1 file=$2 res name why hs=0 i=0 want
	local -a checks results
	mapfile -t checks < <(grep '|')
	printf '%s\n' "${checks[@]}" |
		"$PY" "$TMPD/check.py" "$file" >"$TMPD/check.out" 2>"$TMPD/check.err" || hs=$?
	mapfile -t results <"$TMPD/check.out"
	for ((i = 0; i < ${#checks[@]}; i++)); do
		want=${checks[$i]%%|*}
		IFS=$'\t' read -r res name why <<<"${results[$i]:-}"
		if [ -z "${results[$i]:-}" ]; then
			not_ok "$label: $want" "no result: $(helper_failure "$hs" "$TMPD/check.err")"
		elif [ "$name" != "$want" ]; then
			not_ok "$label: $want" "the checker's result is for '$name'"
		elif [ "$res" = ok ]; then
			ok "$label: $name"
		else
			not_ok "$label: $name" "$why"
		fi
	done
	if [ "$hs" != 0 ] && [ ${#results[@]} -ge ${#checks[@]} ]; then
		bail_out "check_report $label: $(helper_failure "$hs" "$TMPD/check.err")"
	fi
}

# shellcheck disable=SC2089 # JSON text for check.py, not shell words
ALL_KEYS='["runx_version","command","pid","scope","scope_target","backend","timeout","idle_timeout","grace","first_signal","start_time","end_time","wall_time","reason","exit_status","exit_code","signal","runx_signal","signals_sent","signals_omitted","leftovers_stopped","killed_after_grace","alive_at_deadline","alive_after_grace","error","exec_errno","rusage","memory_peak","cpu_time","pids_peak","oom_kills","attempt_count","attempts"]'
# shellcheck disable=SC2090
export ALL_KEYS RUNX_VERSION

# common_checks: the checks every report passes.  Environment: X_CMD (JSON
# array), X_T0/X_T1 (wall clock before/after the run).
common_checks() {
	cat <<'EOF'
exactly the documented fields|sorted(r) == sorted(J("ALL_KEYS"))
runx_version|r["runx_version"] == E["RUNX_VERSION"]
command|r["command"] == J("X_CMD")
start_time is RFC 3339 UTC with microseconds|ts(r["start_time"]) > 0
end_time is RFC 3339 UTC with microseconds|ts(r["end_time"]) > 0
start_time <= end_time, within the run|float(E["X_T0"]) - 0.001 <= ts(r["start_time"]) <= ts(r["end_time"]) <= float(E["X_T1"]) + 0.001
wall_time is a float, end - start|real(r["wall_time"]) and 0 <= r["wall_time"] and abs(r["wall_time"] - (ts(r["end_time"]) - ts(r["start_time"]))) < 0.05
first_signal|r["first_signal"] == E.get("X_FIRST", "SIGTERM")
rusage fields|sorted(r["rusage"]) == ["max_rss_kib", "system_cpu", "user_cpu"]
rusage cpu times are floats >= 0|real(r["rusage"]["user_cpu"]) and real(r["rusage"]["system_cpu"]) and r["rusage"]["user_cpu"] >= 0 and r["rusage"]["system_cpu"] >= 0
cgroup figures are null outside the cgroup scope|r["scope"] == "cgroup" or all(r[k] is None for k in ("memory_peak", "cpu_time", "pids_peak", "oom_kills"))
rusage max_rss_kib is an integer|integer(r["rusage"]["max_rss_kib"]) and r["rusage"]["max_rss_kib"] >= 0
exit_status|r["exit_status"] == int(E["X_STATUS"])
signals_sent entries|all(sorted(s) == ["processes", "scope", "signal", "time"] and real(s["time"]) and s["time"] >= 0 and integer(s["processes"]) and s["processes"] >= 0 and s["scope"] == r["scope_target"] for s in r["signals_sent"])
signals_omitted: none here|r["signals_omitted"] == 0
signals_sent times increase, within wall_time|all(a["time"] <= b["time"] for a, b in zip(r["signals_sent"], r["signals_sent"][1:])) and all(s["time"] <= r["wall_time"] + 0.001 for s in r["signals_sent"])
EOF
}

# checks for a command that ran (pid X_PID) in the group scope
ran_checks() {
	cat <<'EOF'
pid|r["pid"] == int(E["X_PID"])
scope|r["scope"] == "group"
scope_target|r["scope_target"] == "process group %s" % E["X_PID"]
backend|r["backend"] == E["EXPECT_BACKEND"]
error is null|r["error"] is None
exec_errno is null|r["exec_errno"] is None
rusage max_rss_kib > 0 (a command ran)|r["rusage"]["max_rss_kib"] > 0
EOF
}
export EXPECT_BACKEND

# end_checks REASON FIELD=VALUE[|NAME]...: the checks of the fields that
# tell how a command that ran ended, in this order: reason (REASON),
# exit_code, signal, runx_signal, timeout, idle_timeout, grace,
# signals_sent (the signal names), processes (how many each reached),
# leftovers_stopped, killed_after_grace.  VALUE is a Python literal,
# compared with its type (5.0 is not 5); None checks for null.  Not given:
# exit_code and processes are not checked, the others have the values of a
# run that ended by itself (signal, runx_signal, timeout and idle_timeout
# None, grace 5.0, signals_sent [], leftovers_stopped and
# killed_after_grace 0).  NAME replaces the check's name ("F", "F is
# null", "leftovers_stopped N", "killed_after_grace N", "no signals sent",
# "signals sent: A, B").
end_checks() {
	local -A want=([signal]=None [runx_signal]=None [timeout]=None
		[idle_timeout]=None [grace]=5.0 [signals_sent]=[]
		[leftovers_stopped]=0 [killed_after_grace]=0)
	local -A name=()
	local arg f v n
	printf 'reason|r["reason"] == "%s"\n' "$1"
	shift
	for arg in "$@"; do
		f=${arg%%=*}
		v=${arg#*=}
		if [[ $v == *"|"* ]]; then
			name[$f]=${v#*|}
			v=${v%%|*}
		fi
		want[$f]=$v
	done
	for f in exit_code signal runx_signal timeout idle_timeout grace \
		signals_sent processes leftovers_stopped killed_after_grace; do
		[ -n "${want[$f]+set}" ] || continue
		v=${want[$f]}
		case $f:$v in
		signals_sent:\[\])
			n="no signals sent"
			v='r["signals_sent"] == []' ;;
		signals_sent:*)
			n=${v#[}
			n="signals sent: ${n%]}"
			n=${n//\"/}
			v="same([s[\"signal\"] for s in r[\"signals_sent\"]], $v)" ;;
		processes:*)
			n="processes $v"
			v="same([s[\"processes\"] for s in r[\"signals_sent\"]], $v)" ;;
		*:None)
			n="$f is null"
			v="r[\"$f\"] is None" ;;
		leftovers_stopped:* | killed_after_grace:*)
			n="$f $v"
			v="same(r[\"$f\"], $v)" ;;
		*)
			n=$f
			v="same(r[\"$f\"], $v)" ;;
		esac
		printf '%s|%s\n' "${name[$f]:-$n}" "$v"
	done
}

# A python command that writes its pid to $1 (atomically), prints "hello",
# and on SIGTERM sleeps 0.3 s and exits 7; it sleeps ~1000 s ($2, the
# marker) otherwise.  One process, so every count is exact.
SLOW_TERM='import os, signal, sys, time
signal.signal(signal.SIGTERM, lambda s, f: (time.sleep(0.3), os._exit(7)))
open(sys.argv[1] + ".tmp", "w").write(str(os.getpid()))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
print("hello", flush=True)
time.sleep(float(sys.argv[2]))'

# --- the checks of each case -----------------------------------------------------

# One function per check_report below (the plan counts their lines).
# X_T: the deadline or idle deadline of a run under on_time.
exec_checks() {
	cat <<'EOF'
reason|r["reason"] == "exec_failed"
pid is null (nothing ran)|r["pid"] is None
scope|r["scope"] == "group"
scope_target is null (no process group exists)|r["scope_target"] is None
exit_code is null|r["exit_code"] is None
signal is null|r["signal"] is None
runx_signal is null|r["runx_signal"] is None
no signals sent|r["signals_sent"] == []
leftovers_stopped 0|r["leftovers_stopped"] == 0
killed_after_grace 0|r["killed_after_grace"] == 0
exec_errno|r["exec_errno"] == int(E["X_ERRNO"])
error|r["error"] == E["X_ERROR"]
EOF
}
checks_exited() {
	common_checks
	ran_checks
	end_checks exited exit_code=3 "timeout=None|timeout is null (none given)" \
		"grace=5.0|grace is the default 5.0"
	echo 'wall_time covers the 0.2 s sleep|r["wall_time"] >= 0.2'
}
checks_signaled() {
	common_checks
	ran_checks
	end_checks signaled exit_code=None signal='"SIGUSR1"'
}
checks_timeout() {
	common_checks
	ran_checks
	end_checks timeout "exit_code=7|exit_code (the handler's)" 'timeout=float(E["X_T"])' \
		'signals_sent=["SIGTERM", "SIGCONT"]' "processes=[1, 1]|each reached the one process"
	cat <<'EOF'
SIGTERM at or after the deadline|r["signals_sent"][0]["time"] >= float(E["X_T"])
wall_time covers deadline and handler|r["wall_time"] >= float(E["X_T"]) + 0.3
EOF
}
checks_timeout_kill() {
	common_checks
	ran_checks
	end_checks timeout exit_code=None signal='"SIGKILL"' 'timeout=float(E["X_T"])' grace=0.5 \
		'signals_sent=["SIGTERM", "SIGCONT", "SIGKILL"]' \
		"processes=[2, 2, 2]|each reached sh and sleep" killed_after_grace=2
	cat <<'EOF'
times strictly increase|r["signals_sent"][0]["time"] < r["signals_sent"][1]["time"] < r["signals_sent"][2]["time"]
SIGTERM at or after the deadline|r["signals_sent"][0]["time"] >= float(E["X_T"])
SIGKILL a grace period after SIGTERM|r["signals_sent"][2]["time"] - r["signals_sent"][0]["time"] >= 0.5
EOF
}
checks_s_int_k_0() {
	common_checks
	cat <<'EOF'
first signal sent is SIGINT|r["signals_sent"][0]["signal"] == "SIGINT"
grace 0 is 0.0, not null|r["grace"] == 0.0 and real(r["grace"])
timeout|r["timeout"] == 0.3
reason|r["reason"] == "timeout"
EOF
}
checks_t_0_k_inf() {
	common_checks
	cat <<'EOF'
-t 0 is null (no limit)|r["timeout"] is None
-k inf is null|r["grace"] is None
--idle-timeout=inf is null|r["idle_timeout"] is None
reason|r["reason"] == "exited"
exit_code|r["exit_code"] == 0
EOF
}
checks_leftovers() {
	common_checks
	ran_checks
	end_checks exited exit_code=4 grace=0.5 'signals_sent=["SIGTERM", "SIGCONT", "SIGKILL"]' \
		"processes=[1, 1, 1]|each reached the one leftover" leftovers_stopped=1 killed_after_grace=1
	cat <<'EOF'
SIGKILL a grace period after SIGTERM|r["signals_sent"][2]["time"] - r["signals_sent"][0]["time"] >= 0.5
EOF
}
checks_idle_timeout() {
	common_checks
	ran_checks
	end_checks idle_timeout "exit_code=7|exit_code (the handler's)" 'idle_timeout=float(E["X_T"])' \
		'signals_sent=["SIGTERM", "SIGCONT"]' "processes=[1, 1]|each reached the one process"
	cat <<'EOF'
SIGTERM after the idle period|r["signals_sent"][0]["time"] >= float(E["X_T"])
EOF
}
checks_runx_signaled() {
	common_checks
	ran_checks
	end_checks runx_signaled "exit_code=7|exit_code (the handler's)" runx_signal='"SIGTERM"' \
		'signals_sent=["SIGTERM", "SIGCONT"]|signals sent: SIGTERM (forwarded), SIGCONT' \
		"processes=[1, 1]|each reached the one process"
}
checks_runx_signaled_int() {
	common_checks
	ran_checks
	cat <<'EOF'
reason|r["reason"] == "runx_signaled"
runx_signal|r["runx_signal"] == "SIGINT"
signal|r["signal"] == "SIGINT"
exit_code is null|r["exit_code"] is None
first signal sent is the forwarded SIGINT|r["signals_sent"][0]["signal"] == "SIGINT" and r["signals_sent"][0]["processes"] == 1
no SIGTERM on top of it|"SIGTERM" not in [s["signal"] for s in r["signals_sent"]]
killed_after_grace 0|r["killed_after_grace"] == 0
EOF
}
checks_exec_failed_127() {
	common_checks
	exec_checks
	echo 'backend is null (looked up first: nothing launched)|r["backend"] is None'
}
checks_exec_failed_127_path() {
	common_checks
	exec_checks
	echo 'backend is null (nothing launched)|r["backend"] is None'
}
# shellcheck disable=SC2317 # called through not_runnable
checks_exec_failed_126_eacces() {
	common_checks
	exec_checks
	echo 'backend is null (looked up first: nothing launched)|r["backend"] is None'
}
# shellcheck disable=SC2317 # called through not_runnable
checks_exec_failed_126_enoexec() {
	common_checks
	exec_checks
	echo 'backend: the one that tried (only execve(2) tells)|r["backend"] == E["EXPECT_BACKEND"]'
}
checks_runx_error() {
	common_checks
	cat <<'EOF'
reason|r["reason"] == "runx_error"
error|r["error"] == E["X_ERROR"]
pid is null|r["pid"] is None
scope|r["scope"] == "group"
scope_target is null|r["scope_target"] is None
backend is null|r["backend"] is None
exit_code is null|r["exit_code"] is None
signal is null|r["signal"] is None
runx_signal is null|r["runx_signal"] is None
exec_errno is null|r["exec_errno"] is None
no signals sent|r["signals_sent"] == []
leftovers_stopped 0|r["leftovers_stopped"] == 0
killed_after_grace 0|r["killed_after_grace"] == 0
grace|r["grace"] == 5.0
EOF
}
checks_atomic() {
	echo 'the new report replaces the old content (no append)|r["reason"] == "exited"'
}
checks_atomic_2() {
	echo 'a second run replaces the report|r["exit_status"] == 5 and r["command"] == J("X_CMD")'
}
checks_report_dash() {
	common_checks
	echo 'reason|r["reason"] == "exited" and r["exit_code"] == 6'
}
checks_utf_8() {
	cat <<'EOF'
argv[0..1] as given|r["command"][:2] == ["sh", "-c"]
a lone 0xFF byte is U+FFFD|r["command"][3] == "\ufffd"
stray continuation and 0xFE bytes are U+FFFD each|r["command"][4] == "a\ufffdb\ufffd"
valid multi-byte UTF-8 is kept|r["command"][5] == "caf\u00e9 \u20ac \U0001F600"
control characters round-trip|r["command"][6] == "\x01\x02\x1f\t\n\r\"\\/\x7f end"
a truncated sequence at the end is U+FFFD|r["command"][7] == "tail\ufffd"
an overlong encoding is U+FFFD per byte|r["command"][8] == "\ufffd\ufffd"
seven arguments|len(r["command"]) == 9
EOF
}
checks_rusage() {
	echo 'max_rss_kib >= 50000 for a 50 MiB allocation|r["rusage"]["max_rss_kib"] >= 50000'
}
checks_rusage_2() {
	echo 'user_cpu + system_cpu >= 0.25 s for 0.3 s of CPU|r["rusage"]["user_cpu"] + r["rusage"]["system_cpu"] >= 0.25'
}
checks_cgroup() {
	cat <<'EOF'
scope|r["scope"] == "cgroup"
cpu_time is a real >= 0.25 s for 0.3 s of CPU, <= wall_time * 2|real(r["cpu_time"]) and 0.25 <= r["cpu_time"] <= r["wall_time"] * 2
memory_peak: >= 30 MiB where the job has memory.peak, else null|(integer(r["memory_peak"]) and r["memory_peak"] >= 30 * 1024 * 1024) if E["X_memory"] else r["memory_peak"] is None
oom_kills: 0 where the job has memory.events, else null|same(r["oom_kills"], 0) if E["X_memory"] else r["oom_kills"] is None
pids_peak: 2 (python and its fork) where the job has pids.peak, else null|same(r["pids_peak"], 2) if E["X_pids"] else r["pids_peak"] is None
EOF
}

# The tests: the script's own (the sum in the plan), one for the second use of
# checks_rusage_2, and one per check of the functions above (a check is a
# line "NAME|EXPRESSION").  A rerun with another backend (lib.sh's
# backend_rerun) runs the launch's cases only: the exited case and the
# four exec_failed ones (6 of the script's own, and their functions'
# checks).
n_checks=0
if backend_rerun; then
	for f in checks_exited checks_exec_failed_127 checks_exec_failed_127_path \
		checks_exec_failed_126_eacces checks_exec_failed_126_enoexec; do
		n_checks=$((n_checks + $("$f" | grep -c '|')))
	done
	plan $((6 + n_checks))
	diag "RUNX_LAUNCH=$RUNX_LAUNCH: the launch's cases only; the others do not depend on the backend and ran with the default one (report.sh)"
else
	for f in $(declare -F | awk '$3 ~ /^checks_/ { print $3 }'); do
		n_checks=$((n_checks + $("$f" | grep -c '|')))
	done
	plan $((77 + 10 + 3 + 2 + 5 + 4 + 2 + 5 + 1 + 3 + 2 + 1 + 18 + 15 + 1 + 12 + 6 + 7 + 5 + 8 + n_checks))
fi

# --- exited ---------------------------------------------------------------------
new_marker m
rep=$TMPD/exited.json
pidf=$TMPD/exited.pid
script='echo $$ >"$1"; sleep 0.2; exit 3'
X_T0=$(now)
s=$(st runx --report="$rep" -- sh -c "$script" sh "$pidf" "$m")
X_T1=$(now)
assert_eq "exited: exit status 3" 3 "$s"
X_STATUS=3 X_PID=$(cat "$pidf" 2>/dev/null)
export X_T0 X_T1 X_STATUS X_PID
X_CMD=$(json_args sh -c "$script" sh "$pidf" "$m")
export X_CMD
check_report exited "$rep" < <(checks_exited)

# --- exec_failed ------------------------------------------------------------------------

missing=$TMPD/no-such-command
rep=$TMPD/enoent.json
X_T0=$(now)
s=$(st runx --report="$rep" -- "$missing" arg 2>"$TMPD/enoent.err")
X_T1=$(now)
assert_eq "exec_failed ENOENT: 127" 127 "$s"
X_STATUS=127 X_ERRNO=2 X_CMD=$(json_args "$missing" arg)
export X_T0 X_T1 X_STATUS X_ERRNO X_CMD
export X_ERROR="failed to run command '$missing': No such file or directory"
assert_eq "exec_failed ENOENT: message on stderr" "runx: $X_ERROR" "$(cat "$TMPD/enoent.err")"
check_report "exec_failed 127" "$rep" < <(checks_exec_failed_127)

# not found in PATH: nothing is launched either
rep=$TMPD/enoent-path.json
X_T0=$(now)
s=$(PATH=$TMPD:/usr/bin:/bin st runx --report="$rep" -- runx-no-such-command-here 2>/dev/null)
X_T1=$(now)
assert_eq "exec_failed, not in PATH: 127" 127 "$s"
export X_T0 X_T1 X_CMD='["runx-no-such-command-here"]'
export X_ERROR="failed to run command 'runx-no-such-command-here': No such file or directory"
check_report "exec_failed 127 (PATH)" "$rep" < <(checks_exec_failed_127_path)

# not_runnable WHAT FILE TEXT MODE ERRNO STRERROR CHECKS: FILE (in
# TMPD), holding TEXT (printf %b) with MODE, is a file execve(2) refuses
# with ERRNO: runx exits 126, and its report passes CHECKS (a function).
not_runnable() {
	local what=$1 f=$TMPD/$2 rep=$TMPD/$2.json s
	printf '%b' "$3" >"$f"
	chmod "$4" "$f"
	X_T0=$(now)
	s=$(st runx --report="$rep" -- "$f" 2>/dev/null)
	X_T1=$(now)
	assert_eq "exec_failed $what: 126" 126 "$s"
	X_STATUS=126 X_ERRNO=$5 X_CMD=$(json_args "$f")
	export X_T0 X_T1 X_STATUS X_ERRNO X_CMD
	export X_ERROR="failed to run command '$f': $6"
	check_report "exec_failed 126 $what" "$rep" < <("$7")
}
not_runnable EACCES not-executable '#!/bin/sh\nexit 0\n' 644 13 \
	"Permission denied" checks_exec_failed_126_eacces
not_runnable ENOEXEC no-shebang 'exit 0\n' 755 8 "Exec format error" \
	checks_exec_failed_126_enoexec

# --- the other cases: with the default backend only -----------------------------
# (what the report says of a command that ran, its stop, the file it
# is written to and the figures in it are the same for every backend;
# the backend's own part is the report of a command it started and of
# one it could not start, above)
backend_rerun && done_testing

# --- signaled ---------------------------------------------------------------------
rep=$TMPD/signaled.json
pidf=$TMPD/signaled.pid
script='echo $$ >"$1"; kill -USR1 $$; sleep 5'
X_T0=$(now)
s=$(st runx --report="$rep" -- sh -c "$script" sh "$pidf")
X_T1=$(now)
assert_eq "signaled: exit status 138" 138 "$s"
X_STATUS=138 X_PID=$(cat "$pidf" 2>/dev/null)
export X_T0 X_T1 X_STATUS X_PID
X_CMD=$(json_args sh -c "$script" sh "$pidf")
export X_CMD
check_report signaled "$rep" < <(checks_signaled)

# --- timeout, the command ends within the grace period ----------------------------------
new_marker m
rep=$TMPD/timeout.json
pidf=$TMPD/timeout.pid
X_T0=$(now)
# (on_time: the TERM handler must be in place before the deadline; the
# pid file says it is)
on_time 1 "$pidf" ">/dev/null" -- runx --report="$rep" -t @T -k 5 -- "$PY" -c "$SLOW_TERM" "$pidf" "$m"
X_T1=$(now)
export X_T=$OT_T
assert_eq "timeout: exit status 124" 124 "$OT_STATUS"
assert_dead "timeout: dead" "$m"
X_STATUS=124 X_PID=$(cat "$pidf" 2>/dev/null)
export X_T0 X_T1 X_STATUS X_PID
X_CMD=$(json_args "$PY" -c "$SLOW_TERM" "$pidf" "$m")
export X_CMD
check_report timeout "$rep" < <(checks_timeout)

# --- timeout that needs SIGKILL ---------------------------------------------------------
new_marker m
rep=$TMPD/timeout-kill.json
pidf=$TMPD/timeout-kill.pid
script='echo $$ >"$1"; trap "" TERM; : >"$1.ready"; sleep "$2"; :'
X_T0=$(now)
# (on_time: sh must ignore TERM, and its sleep run, before the deadline)
on_time 0.5 "$pidf.ready" -- runx --report="$rep" -t @T -k 0.5 -- sh -c "$script" sh "$pidf" "$m"
X_T1=$(now)
export X_T=$OT_T
assert_eq "timeout+KILL: exit status 124" 124 "$OT_STATUS"
assert_dead "timeout+KILL: dead" "$m"
X_STATUS=124 X_PID=$(cat "$pidf" 2>/dev/null)
export X_T0 X_T1 X_STATUS X_PID
X_CMD=$(json_args sh -c "$script" sh "$pidf" "$m")
export X_CMD
check_report "timeout+KILL" "$rep" < <(checks_timeout_kill)

# --- -s, -k 0 and -k inf, -t 0 in the report -----------------------------------------
new_marker m
rep=$TMPD/sigint.json
X_T0=$(now)
s=$(st runx --report="$rep" -t 0.3 -s INT -k 0 -- sleep "$m")
X_T1=$(now)
assert_eq "-s INT -k 0: exit status 124" 124 "$s"
assert_dead "-s INT -k 0: dead" "$m"
X_STATUS=124 X_FIRST=SIGINT X_CMD=$(json_args sleep "$m")
export X_T0 X_T1 X_STATUS X_FIRST X_CMD
check_report "-s INT -k 0" "$rep" < <(checks_s_int_k_0)
unset X_FIRST

rep=$TMPD/inf.json
X_T0=$(now)
s=$(st runx --report="$rep" -t 0 -k inf --idle-timeout=inf -- true)
X_T1=$(now)
assert_eq "-t 0 -k inf: exit status 0" 0 "$s"
export X_T0 X_T1 X_STATUS=0 X_CMD='["true"]'
check_report "-t 0 -k inf" "$rep" < <(checks_t_0_k_inf)

# --- leftovers stopped after the command exits ------------------------------------
new_marker m
rep=$TMPD/leftovers.json
pidf=$TMPD/leftovers.pid
# (the command exits once its leftover ignores TERM, waiting at most 20 s)
script='echo $$ >"$1"; (trap "" TERM; : >"$1.ready"; exec sleep "$2") &
i=0; while [ ! -e "$1.ready" ] && [ $i -lt 2000 ]; do sleep 0.01; i=$((i + 1)); done; exit 4'
X_T0=$(now)
s=$(st runx --report="$rep" -k 0.5 -- sh -c "$script" sh "$pidf" "$m")
X_T1=$(now)
assert_eq "leftovers: the command's status 4" 4 "$s"
assert_dead "leftovers: dead" "$m"
X_STATUS=4 X_PID=$(cat "$pidf" 2>/dev/null)
export X_T0 X_T1 X_STATUS X_PID
X_CMD=$(json_args sh -c "$script" sh "$pidf" "$m")
export X_CMD
check_report leftovers "$rep" < <(checks_leftovers)

# --- idle_timeout -----------------------------------------------------------------------
new_marker m
rep=$TMPD/idle.json
pidf=$TMPD/idle.pid
X_T0=$(now)
# (on_time: the handler in place and "hello" out before the idle deadline)
on_time 0.5 "$pidf" ">$TMPD/idle.out" -- runx --report="$rep" --idle-timeout=@T -k 5 -- "$PY" -c "$SLOW_TERM" "$pidf" "$m"
X_T1=$(now)
export X_T=$OT_T
assert_eq "idle: exit status 124" 124 "$OT_STATUS"
assert_eq "idle: the output went through" hello "$(cat "$TMPD/idle.out")"
assert_dead "idle: dead" "$m"
X_STATUS=124 X_PID=$(cat "$pidf" 2>/dev/null)
export X_T0 X_T1 X_STATUS X_PID
X_CMD=$(json_args "$PY" -c "$SLOW_TERM" "$pidf" "$m")
export X_CMD
check_report idle_timeout "$rep" < <(checks_idle_timeout)

# --- runx_signaled ------------------------------------------------------------------------
new_marker m
rep=$TMPD/runxsig.json
pidf=$TMPD/runxsig.pid
X_T0=$(now)
runx_bg --report="$rep" -k 5 -- "$PY" -c "$SLOW_TERM" "$pidf" "$m" >/dev/null
if wait_file "$pidf" 60; then
	sleep 0.1
	kill -TERM "$RUNX_PID"
fi
wait_pid_exit "$RUNX_PID" 30
X_T1=$(now)
assert_eq "runx_signaled: exit status is the command's own (7)" 7 "$WAIT_STATUS"
assert_dead "runx_signaled: dead" "$m"
X_STATUS=7 X_PID=$(cat "$pidf" 2>/dev/null)
export X_T0 X_T1 X_STATUS X_PID
X_CMD=$(json_args "$PY" -c "$SLOW_TERM" "$pidf" "$m")
export X_CMD
check_report runx_signaled "$rep" < <(checks_runx_signaled)

# runx gets SIGINT, the command dies of it: 130
new_marker m
rep=$TMPD/runxint.json
pidf=$TMPD/runxint.pid
script='echo $$ >"$1.tmp"; mv "$1.tmp" "$1"; exec sleep "$2"'
X_T0=$(now)
runx_bg --report="$rep" -- sh -c "$script" sh "$pidf" "$m"
if wait_file "$pidf" 60; then
	wait_marked "$m" 1 30
	kill -INT "$RUNX_PID"
fi
wait_pid_exit "$RUNX_PID" 30
X_T1=$(now)
assert_eq "runx_signaled INT: exit status 130" 130 "$WAIT_STATUS"
assert_dead "runx_signaled INT: dead" "$m"
X_STATUS=130 X_PID=$(cat "$pidf" 2>/dev/null)
export X_T0 X_T1 X_STATUS X_PID
X_CMD=$(json_args sh -c "$script" sh "$pidf" "$m")
export X_CMD
check_report "runx_signaled INT" "$rep" < <(checks_runx_signaled_int)

# --- runx_error ----------------------------------------------------------------------------
new_marker m
rep=$TMPD/runxerr.json
bad=$TMPD/no-such-dir/out
X_T0=$(now)
s=$(st runx --report="$rep" -o "$bad" -- sh -c 'touch "$1"' sh "$TMPD/started.$m" 2>"$TMPD/runxerr.err")
X_T1=$(now)
assert_eq "runx_error: 125" 125 "$s"
assert_false "runx_error: the command did not start" test -e "$TMPD/started.$m"
X_STATUS=125 X_CMD=$(json_args sh -c 'touch "$1"' sh "$TMPD/started.$m")
export X_T0 X_T1 X_STATUS X_CMD
export X_ERROR="cannot open '$bad': No such file or directory"
assert_eq "runx_error: message on stderr" "runx: $X_ERROR" "$(cat "$TMPD/runxerr.err")"
check_report runx_error "$rep" < <(checks_runx_error)
# options that cannot go together: 125, and the report names the scope
# asked for (not "child", which nobody asked for; a limit's cgroup)
for c in "group --kill-scope=group --foreground" "cgroup --pids-max=5 --merge --stderr=$TMPD/e"; do
	read -r want opts <<<"$c"
	rep=$TMPD/refused.$want.json
	# shellcheck disable=SC2086 # $opts: options, split
	s=$(st runx --report="$rep" $opts -- true 2>/dev/null)
	assert_eq "a refused combination ($opts): 125, a new report: runx_error, the scope $want" "125 runx_error $want" \
		"$s $("$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["reason"], r["scope"])' "$rep" 2>&1)"
done

# entries DIR: the names in DIR, dot files too, on one line
entries() { find "$1" -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'; }

# --- atomic write -------------------------------------------------------------------------
d=$TMPD/atomic
mkdir "$d"
rep=$d/report.json
head -c 20000 /dev/zero | tr '\0' x >"$rep"
ln "$rep" "$d/old-link"
old_inode=$(stat -c %i "$rep")
s=$(st runx --report="$rep" -- sh -c 'exit 0')
assert_eq "atomic: exit status 0" 0 "$s"
assert_eq "atomic: nothing but the report in the directory (no temp file)" \
	"old-link report.json" "$(entries "$d")"
assert_ne "atomic: the report is a new file (renamed over the old one)" "$old_inode" "$(stat -c %i "$rep")"
assert_eq "atomic: the old file was not written in place (still 20000 x)" "20000 0" \
	"$(wc -c <"$d/old-link" | tr -d ' ') $(tr -d x <"$d/old-link" | wc -c | tr -d ' ')"
X_T0=0 X_T1=$(now) X_STATUS=0 X_CMD=$(json_args sh -c 'exit 0')
export X_T0 X_T1 X_STATUS X_CMD
check_report atomic "$rep" < <(checks_atomic)
# a second run replaces the first report
s=$(st runx --report="$rep" -- sh -c 'exit 5')
X_STATUS=5 X_CMD=$(json_args sh -c 'exit 5')
export X_STATUS X_CMD
check_report atomic "$rep" < <(checks_atomic_2)
assert_eq "atomic: still nothing else in the directory" "old-link report.json" "$(entries "$d")"

# --- a FILE that is no regular file is written through, never replaced -------------------
# (a new user's --report=/dev/full turned the device into a JSON file)
d=$TMPD/special
mkdir "$d"
# shellcheck disable=SC2317 # called through assert_true
valid_json() { "$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }
made="dangling dangling2 dangling3 fifo full link null stderr sub target"
if [ "$(id -u)" = 0 ]; then
	mknod "$d/null" c 1 3
	mknod "$d/full" c 1 7
	s=$(st runx --report="$d/null" -- sh -c 'exit 3')
	assert_eq "a device (/dev/null's numbers): the command's status" 3 "$s"
	assert_eq "a device: still the device" "character special file" "$(stat -c %F "$d/null")"
	s=$(st runx --report="$d/full" -- sh -c 'exit 4' 2>"$TMPD/full.err")
	assert_eq "/dev/full's numbers: the command's status" 4 "$s"
	assert_match "/dev/full's numbers: says the write failed" "^runx: cannot write the report '.*': No space left on device\$" "$(cat "$TMPD/full.err")"
	assert_eq "/dev/full's numbers: still the device" "character special file" "$(stat -c %F "$d/full")"
	# with -v, "exiting with status N" stays the last line (runx(1))
	s=$(st runx -v --report="$d/full" -- sh -c 'exit 4' 2>"$TMPD/full.err")
	assert_eq "/dev/full's numbers, -v: the failed write, then exiting with status 4 last" \
		"4|runx: cannot write the report|runx: exiting with status 4" \
		"$s|$(tail -n 2 "$TMPD/full.err" | head -n 1 | cut -d"'" -f1 | sed 's/ $//')|$(tail -n 1 "$TMPD/full.err")" \
		"$(cat "$TMPD/full.err")"
else
	made="dangling dangling2 dangling3 fifo link stderr sub target"
	skips 6 "a device (mknod)" "needs root"
fi
ln -s /proc/self/fd/2 "$d/stderr"
# runx's own fd by /proc/thread-self (its one thread's table is its own):
# written at that fd's offset, after the command's output, as
# /proc/self/fd/1 is (8f09516 opened it again, truncating the file)
s=0
runx --report=/proc/thread-self/fd/1 -- echo the command wrote this >"$TMPD/thread-self.out" || s=$?
assert_eq "--report=/proc/thread-self/fd/1: runx's own fd 1, after the command's line" "0 the command wrote this {" \
	"$s $(head -n 2 "$TMPD/thread-self.out" | tr '\n' ' ' | sed 's/ $//')" "$(cat "$TMPD/thread-self.out")"
s=0
runx --report="$d/stderr" -- true 2>"$TMPD/through.err" || s=$?
assert_eq "a symlink to /proc/self/fd/2: 0" 0 "$s"
assert_true "a symlink to /proc/self/fd/2: the report is on stderr" valid_json "$TMPD/through.err"
assert_eq "a symlink to /proc/self/fd/2: still a symlink" "symbolic link" "$(stat -c %F "$d/stderr")"
# /dev/stdout, /dev/fd/N, /proc/self/fd/N: runx's own fd, written as it
# is, not opened again (which truncated a file behind it, and lost the
# command's output written there before the report); one that was not
# open for writing when runx started is refused (125, nothing started)
s=0
runx --report=/dev/stdout -- echo hello >"$TMPD/own.out" || s=$?
assert_eq "--report=/dev/stdout into a file: 0" 0 "$s"
assert_eq "--report=/dev/stdout into a file: the command's output, then the report" "hello|0" \
	"$(head -n 1 "$TMPD/own.out")|$(tail -n +2 "$TMPD/own.out" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["exit_status"])' 2>&1)"
echo "old line" >"$TMPD/own3.out"
runx --report=/proc/self/fd/3 -- true 3>>"$TMPD/own3.out"
assert_eq "--report=/proc/self/fd/3 (>>F): the old line, then the report" "old line|0" \
	"$(head -n 1 "$TMPD/own3.out")|$(tail -n +2 "$TMPD/own3.out" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["exit_status"])' 2>&1)"
s=0
err=$(runx --report=/dev/fd/9 -- touch "$d/started9" 2>&1 9>&-) || s=$?
assert_eq "--report=/dev/fd/9, fd 9 closed: 125, the command not started" "125 no" \
	"$s $([ -e "$d/started9" ] && echo yes || echo no)" "$err"
s=0
err=$(runx --report=/dev/fd/0 -- touch "$d/started0" 2>&1 </dev/null) || s=$?
assert_eq "--report=/dev/fd/0, read-only: 125, the command not started" "125 no" \
	"$s $([ -e "$d/started0" ] && echo yes || echo no)" "$err"
# /dev/fd/01 names no file (proc(5): no leading zero); the runx before
# took it as fd 1
s=0
err=$(runx --report=/dev/fd/01 -- touch "$d/started01" 2>&1 >"$TMPD/fd01.out") || s=$?
assert_eq "--report=/dev/fd/01, no such file: 125, the command not started, nothing on fd 1" "125 no 0" \
	"$s $([ -e "$d/started01" ] && echo yes || echo no) $(wc -c <"$TMPD/fd01.out")" "$err"
# runx SIGKILLed while it writes a report: the file it writes has no name
# yet (O_TMPFILE; linked and renamed once written and fsync'd), so nothing
# is left; runx made it as .runx-report.XXXXXX before, and a kill left it
# (6 runs in 60 of a trial's random kills).  strace holds runx 5 s in the
# report's fsync(2) (fault injection: delay_enter); runx is killed there.
kd=$TMPD/killed
mkdir "$kd"
if ! "$PY" -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_TMPFILE | os.O_WRONLY))' "$kd" 2>/dev/null; then
	skips 2 "a report whose runx is killed while it writes it" \
		"the file system of $TMPD has no O_TMPFILE (runx then names its temporary file)"
elif have_strace 2 "a report whose runx is killed while it writes it"; then
	fsync_nr=$(printf '#include <sys/syscall.h>\nSYS_fsync\n' | cpp -P 2>/dev/null | tail -n 1)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -qq -f -o /dev/null -e trace=fsync -e inject=fsync:delay_enter=5000000 \
		"$RUNX" "${LAUNCH_ARGS[@]}" --report="$kd/r.json" -- true 2>/dev/null &
	tracer=$!
	in_fsync=no
	for ((i = 0; i < 400; i++)); do
		kpid=$(pgrep -P "$tracer" | head -n 1)
		if [ -n "$kpid" ] && [ "$(cut -d' ' -f1 "/proc/$kpid/syscall" 2>/dev/null)" = "$fsync_nr" ]; then
			in_fsync=yes
			kill -KILL "$kpid"
			break
		fi
		sleep 0.05
	done
	wait_pid_exit "$tracer" 30
	assert_eq "killed while it writes the report: it was in the report's fsync(2)" yes "$in_fsync"
	assert_eq "killed while it writes the report: nothing left in the directory" "" \
		"$(find "$kd" -mindepth 1 -printf '%f ')"
fi

# A named process's command line longer than the 512 bytes kept: its
# argv says so (argv_truncated), as -v does, where it was cut silently
# (the last argument kept a part of itself, as if whole)
new_marker m
s=0
# shellcheck disable=SC2046 # 201 arguments
runx -v -t 0.98 --report="$TMPD/cut.json" -- sh -c 'sleep "$1"; :' sh "$m" $(seq 1000 1200) \
	2>"$TMPD/cut.err" || s=$?
assert_eq "a command line over 512 bytes, alive at the deadline: 124" 124 "$s"
assert_dead "a command line over 512 bytes: dead" "$m"
assert_eq "a command line over 512 bytes: the report says it was cut, and not the short one's" \
	"2|sh,True,True|sleep,False,True" \
	"$("$PY" -c 'import json, sys
a = json.load(open(sys.argv[1]))["alive_at_deadline"]
ps = sorted(a["processes"], key=lambda p: p["argv"][0])
print("|".join([str(a["count"])] + ["%s,%s,%s" % (p["argv"][0], p["argv_truncated"],
    len("\0".join(p["argv"])) <= 512) for p in ps]))' "$TMPD/cut.json" 2>&1)"
assert_match "a command line over 512 bytes: -v says it was cut" \
	"alive at the deadline: pid [0-9]+, age [0-9.]+s: sh -c .* \[command line cut at 512 bytes\]" \
	"$(cat "$TMPD/cut.err")"
# -v's ages are the report's in tenths of a second, rounded half up (the
# runx before cut them: the report's 0.49 read "age 0.4s"; the deadline
# of 0.98 s puts the ages just under 1 s, unless the machine is slow)
assert_eq "the ages -v shows are the report's, rounded half up to tenths" "2 ok" \
	"$("$PY" -c 'import decimal, json, re, sys
D = decimal.Decimal
ages = {p["pid"]: D(repr(p["age"])) for p in json.load(open(sys.argv[1]))["alive_at_deadline"]["processes"]}
shown = {int(m.group(1)): D(m.group(2)) for m in re.finditer(
    r"alive at the deadline: pid (\d+), age ([0-9.]+)s", open(sys.argv[2], errors="replace").read())}
bad = ["%d: %s for %s" % (p, shown.get(p), a) for p, a in ages.items()
       if shown.get(p) != a.quantize(D("0.1"), rounding=decimal.ROUND_HALF_UP)]
print(len(ages), " ".join(bad) or "ok")' "$TMPD/cut.json" "$TMPD/cut.err" 2>&1)"
# Empty arguments at the end of a command line are arguments (the runx
# before dropped them, with every trailing NUL); a command line of 513
# bytes (its last NUL included) is whole, and -v shows all 512 bytes of it
# (the runx before showed 511); a cut in the middle of a character leaves
# no part of it on the -v line (the report's JSON is whole as it is)
new_marker m
pad=$(printf 'x%.0s' $(seq $((513 - 27 - ${#m}))))
s=0
runx -v -t 1 --report="$TMPD/empty.json" -- sh -c 'sleep "$1"; :' s "$m" "" "$pad" "" "" \
	2>"$TMPD/empty.err" || s=$?
assert_eq "empty last arguments: 124" 124 "$s"
assert_eq "empty last arguments: in the report's argv, and not cut" \
	"[\"sh\",\"-c\",\"sleep \\\"\$1\\\"; :\",\"s\",\"$m\",\"\",\"${pad:0:2}\",\"\",\"\"] false" \
	"$(jq -c '.alive_at_deadline.processes[] | select(.argv[0] == "sh") | [.argv[:6][], .argv[6][:2], .argv[7:][]], .argv_truncated' "$TMPD/empty.json" | tr '\n' ' ' | sed 's/ $//')"
assert_match "a command line of 512 bytes and its NUL: -v shows all of it" \
	"alive at the deadline: pid [0-9]+, age [0-9.]+s: sh -c sleep \"\\\$1\"; : s $m  x+  \$" \
	"$(grep -a 'alive at the deadline: .*: sh -c' "$TMPD/empty.err")"
euro=$'\342\202\254'
# the pad starts at byte 24 + ${#m}; 0 to 2 ASCII bytes first put a
# character across the cut of this runx (at 512) and of the one before
# (at 511)
pad=$(head -c $(((510 - 24 - ${#m}) % 3)) /dev/zero | tr '\0' a)$(for _ in $(seq 300); do printf %s "$euro"; done)
s=0
runx -v -t 1 --report="$TMPD/utf8.json" -- sh -c 'sleep "$1"; :' sh "$m" "$pad" 2>"$TMPD/utf8.err" || s=$?
assert_eq "a cut inside a character: 124" 124 "$s"
assert_match "a cut inside a character: -v keeps whole characters only" \
	"alive at the deadline: pid [0-9]+, age [0-9.]+s: sh -c .*($euro)+ \[command line cut at 512 bytes\]\$" \
	"$(grep -a 'alive at the deadline: .*: sh -c' "$TMPD/utf8.err")"
# and the report's argv has no U+FFFD for the bytes of the cut character
# (71e0adc's runx ended it with one per byte)
assert_match "a cut inside a character: the report's last argument ends with whole characters" \
	"^true a*($euro)+\$" \
	"$(jq -r '.alive_at_deadline.processes[] | select(.argv[0] == "sh") | "\(.argv_truncated) \(.argv[-1])"' "$TMPD/utf8.json" 2>&1)"
# a process whose argv is one empty string (sh exec'd by perl with argv
# [""], reading its commands from a pipe that sleep holds open): argv
# [""], not [] (97fbc41 dropped it with the NUL that ends it)
new_marker m
s=0
# shellcheck disable=SC2016 # $1 for the inner sh
runx -t 1 --report="$TMPD/emptyarg.json" -- sh -c 'sleep "$1" | perl -e "exec {q(/bin/sh)} q()"' sh "$m" || s=$?
assert_eq "one empty argument: the report's argv is [\"\"]" "124 1" \
	"$s $(jq '[.alive_at_deadline.processes[] | select(.argv == [""])] | length' "$TMPD/emptyarg.json" 2>&1)"
assert_dead "one empty argument: dead" "$m"
printf 'a longer old text than any report could be, to see the truncation%.0s' $(seq 100) >"$d/target"
ln -s target "$d/link"
runx --report="$d/link" -- true
assert_true "a symlink to a file: the file holds the report, nothing else" valid_json "$d/target"
assert_eq "a symlink to a file: still a symlink" "symbolic link" "$(stat -c %F "$d/link")"
# A symlink to no file (dangling), through another one: the write makes
# the file where it points, as the shell's > would; one into a directory
# that does not exist is refused before the command starts (125).
mkdir "$d/sub"
ln -s sub/made.json "$d/dangling"
ln -s dangling "$d/dangling2"
s=0
runx --report="$d/dangling2" -- sh -c 'exit 5' || s=$?
assert_eq "a symlink to a symlink to no file: the command's status" 5 "$s"
assert_true "a symlink to a symlink to no file: the report made where they point" valid_json "$d/sub/made.json"
ln -s nowhere/made.json "$d/dangling3"
s=0
err=$(runx --report="$d/dangling3" -- touch "$d/started" 2>&1) || s=$?
assert_eq "a symlink into no directory: 125, the command not started" "125 no" \
	"$s $([ -e "$d/started" ] && echo yes || echo no)" "$err"
# A chain of 30 relative links, each "../DIR/next" (DIR's name 200
# bytes): written through as the kernel follows it, each target looked up
# from its link's directory.  Joined into one path, the chain is 6,000
# bytes, past PATH_MAX: until runx looked each target up from its link's
# directory, it passed the check before the start (the kernel's
# access(2)) and then failed to write it after the run (ENAMETOOLONG).
chain=$TMPD/chain/$(printf 'r%.0s' $(seq 200))
mkdir -p "$chain"
for i in $(seq 0 28); do ln -s "../${chain##*/}/l$((i + 1))" "$chain/l$i"; done
ln -s end.json "$chain/l29"
: >"$chain/end.json"
s=0
err=$(runx --report="$chain/l0" -- true 2>&1) || s=$?
assert_eq "a chain of 30 relative links, 6000 bytes joined: exit 0, the report at its end, no message" "0 yes " \
	"$s $(valid_json "$chain/end.json" && echo yes) $err"
# ... and with no file at its end: the check before the start follows it
# as the write does (4c8177f's check joined it, and refused it: "No such
# file or directory"), and the write makes the file there
rm "$chain/end.json"
s=0
err=$(runx --report="$chain/l0" -- true 2>&1) || s=$?
assert_eq "a chain of 30 relative links to no file: exit 0, the report made at its end, no message" "0 yes " \
	"$s $(valid_json "$chain/end.json" && echo yes) $err"
mkfifo "$d/fifo"
# The reader: opens the FIFO (without waiting for a writer), says so, then
# reads what comes until the writer closes it (at most 120 s).
cat >"$TMPD/fifo-reader.py" <<'EOF'
import os, select, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
open(sys.argv[2], "w").close()
out = open(sys.argv[3], "wb")
p = select.poll()
p.register(fd, select.POLLIN)
end = time.monotonic() + 120
while time.monotonic() < end:
    if not p.poll(1000):
        continue
    try:
        b = os.read(fd, 65536)
    except BlockingIOError:
        continue
    if not b:
        break
    out.write(b)
EOF
"$PY" "$TMPD/fifo-reader.py" "$d/fifo" "$TMPD/fifo.reading" "$TMPD/fifo.out" &
reader=$!
wait_file "$TMPD/fifo.reading" 60
s=$(st runx --report="$d/fifo" -- sh -c 'exit 5')
wait "$reader"
assert_eq "a FIFO with a reader: the command's status" 5 "$s"
assert_true "a FIFO with a reader: the reader got the report" valid_json "$TMPD/fifo.out"
s=$(st runx --report="$d/fifo" -- sh -c 'exit 5' 2>"$TMPD/fifo.err")
assert_eq "a FIFO without a reader: the command's status, no wait" 5 "$s"
assert_match "a FIFO without a reader: says so, and what it means" "No such device or address \\(a FIFO that nobody has open for reading\\)\$" "$(cat "$TMPD/fifo.err")"
# a reader that holds the FIFO open and reads nothing: a report larger
# than the pipe is waited for 5 s at most, then dropped, and the message
# says what happened (the runx before: "Resource temporarily unavailable")
# (the holder waits in the FIFO's open for runx, a writer: wchan)
new_marker hold
# shellcheck disable=SC2217,SC2154 # sleep holds the FIFO open, reads none
sleep "$hold" <"$d/fifo" &
holder=$!
poll 400 0.05 grep -qs partner "/proc/$holder/wchan"
runx_bg --report="$d/fifo" -- true "$(head -c 100000 /dev/zero | tr '\0' a)" 2>"$TMPD/fifo.err"
wait_pid_exit "$RUNX_PID" 60
s=$WAIT_STATUS
kill "$holder" 2>/dev/null || true
wait "$holder" 2>/dev/null || true
assert_eq "a FIFO whose reader reads nothing: the command's status, not a hang" 0 "$s"
assert_match "a FIFO whose reader reads nothing: says why" \
	"cannot write the report '.*/fifo': Resource temporarily unavailable \\(its reader did not take all of it within the 5 s that runx waits for a reader\\)\$" \
	"$(cat "$TMPD/fifo.err")"
assert_dead "a FIFO whose reader reads nothing: the reader ended" "$hold"
assert_eq "a FIFO: still a FIFO" fifo "$(stat -c %F "$d/fifo")"
assert_eq "nothing else was made in the directory" "$made" "$(entries "$d")"

# --- --report=- goes to stderr ------------------------------------------------------------
d=$TMPD/dash
mkdir "$d"
s=0
(cd "$d" && runx --report=- -- sh -c 'echo out; echo err >&2; exit 6') >"$TMPD/dash.out" 2>"$TMPD/dash.err" || s=$?
assert_eq "--report=-: exit status 6" 6 "$s"
assert_eq "--report=-: stdout is only the command's" out "$(cat "$TMPD/dash.out")"
assert_eq "--report=-: stderr starts with the command's own" err "$(head -n 1 "$TMPD/dash.err")"
assert_eq "--report=-: no file named '-' (or anything else) is created" "" "$(ls -A "$d")"
REPORT_TEXT=$(tail -n +2 "$TMPD/dash.err")
export REPORT_TEXT
X_T0=0 X_T1=$(now) X_STATUS=6 X_CMD=$(json_args sh -c 'echo out; echo err >&2; exit 6')
export X_T0 X_T1 X_STATUS X_CMD
check_report "--report=-" - < <(checks_report_dash)
unset REPORT_TEXT
assert_eq "--report=- with stderr closed: exit status unchanged" 6 \
	"$(st runx --report=- -- sh -c 'exit 6' 2>&-)"

# --- invalid UTF-8 and control characters ------------------------------------------------------
rep=$TMPD/utf8.json
a1=$'\xff'
a2=$'a\x80b\xfe'
a3=$'caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80'
a4=$'\x01\x02\x1f\t\n\r"\\/\x7f end'
a5=$'tail\xc3'
a6=$'\xc0\xaf'
s=$(st runx --report="$rep" -- sh -c 'exit 0' "$a1" "$a2" "$a3" "$a4" "$a5" "$a6")
assert_eq "utf-8: exit status 0" 0 "$s"
assert_true "utf-8: the report is valid UTF-8" "$PY" -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$rep"
assert_false "utf-8: no raw control byte in the file (escaped)" \
	grep -qaP '[\x00-\x08\x0b-\x1f]' "$rep"
check_report utf-8 "$rep" < <(checks_utf_8)

# --- file mode --------------------------------------------------------------------------------
for um in 022 027 077 000; do
	rep=$TMPD/mode-$um.json
	(umask "$um" && "$RUNX" "${LAUNCH_ARGS[@]}" --report="$rep" -- true)
	want=$(printf '%o' $((0666 & ~8#$um)))
	assert_eq "mode: umask $um gives $want" "$want" "$(stat -c %a "$rep" 2>/dev/null)"
done

# An existing report of runx's own user keeps its mode (a file made 0600
# stays private) and its group; another user's file, or one with another
# name (a hard link), passes on nothing: in a sticky /tmp a user could
# otherwise make root's report 0666 and rewrite it (review of 37945f3).
rep=$TMPD/mode-kept.json
: >"$rep"
chmod 600 "$rep"
old_inode=$(stat -c %i "$rep")
s=$( (umask 022 && st runx --report="$rep" -- true))
assert_eq "mode: an existing 0600 report is replaced (exit 0, a new inode, valid JSON), still 0600 (umask 022)" \
	"0 yes yes 600" \
	"$s $([ "$(stat -c %i "$rep")" != "$old_inode" ] && echo yes) $(valid_json "$rep" && echo yes) $(stat -c %a "$rep")"
chmod 604 "$rep"
old_inode=$(stat -c %i "$rep")
(umask 077 && "$RUNX" "${LAUNCH_ARGS[@]}" --report="$rep" -- true)
assert_eq "mode: an existing 0604 report is replaced, still 0604 (umask 077)" \
	"yes 604" "$([ "$(stat -c %i "$rep")" != "$old_inode" ] && echo yes) $(stat -c %a "$rep")"
chmod 600 "$rep"
ln "$rep" "$rep.link"
(umask 022 && "$RUNX" "${LAUNCH_ARGS[@]}" --report="$rep" -- true)
assert_eq "mode: a report with a second name (a hard link) gives its mode to nothing: 0644 (umask 022), the link kept 0600" \
	"644 600" "$(stat -c %a "$rep") $(stat -c %a "$rep.link")"
if [ "$(id -u)" = 0 ]; then
	d=$TMPD/mode-other
	mkdir "$d"
	chmod 1777 "$d"
	: >"$d/r.json"
	chown 65534:65534 "$d/r.json"
	chmod 666 "$d/r.json"
	(umask 022 && "$RUNX" "${LAUNCH_ARGS[@]}" --report="$d/r.json" -- true)
	assert_eq "owner: another user's 0666 file in a sticky directory: root's report is root's, 0644 (umask 022)" \
		"0 0 644" "$(stat -c '%u %g %a' "$d/r.json")"
	d=$TMPD/mode-sgid
	mkdir "$d"
	chgrp 65534 "$d"
	chmod 2775 "$d"
	: >"$d/r.json"
	chgrp 0 "$d/r.json"
	chmod 640 "$d/r.json"
	"$RUNX" "${LAUNCH_ARGS[@]}" --report="$d/r.json" -- true
	assert_eq "group: a report in a set-group-ID directory keeps its own group (0), not the directory's, and 0640" \
		"0 0 640" "$(stat -c '%u %g %a' "$d/r.json")"
	# runx as uid 65534, its own file in a group it is not in (100): the
	# group cannot be kept, so the new file's group gets no group bits
	setup_nobody
	: >"$NOBODY_DIR/g.json"
	chown 65534:100 "$NOBODY_DIR/g.json"
	chmod 640 "$NOBODY_DIR/g.json"
	as_nobody "$NRUNX" "${LAUNCH_ARGS[@]}" --report="$NOBODY_DIR/g.json" -- true
	assert_eq "group: a group runx cannot keep (not runx's user's) gets none of the old group bits: 65534 65534 600" \
		"65534 65534 600" "$(stat -c '%u %g %a' "$NOBODY_DIR/g.json")"
else
	skips 3 "a report owned by another user, a set-group-ID directory, a group not kept" "needs root"
fi

# A symbolic link of another user (neither runx's nor root's) is not
# followed: its owner would choose the file that root's runx truncates
# (review of 4b1a3cc).  Made beforehand: refused before the start (125,
# nothing started); made by the command run with --user: the report is
# not written, and the file it points to is untouched.  runx's own link
# is still written through.
if [ "$(id -u)" = 0 ]; then
	d=$(mktemp -d /tmp/runx-link.XXXXXX)
	at_exit "rm -rf '$d'"
	chmod 755 "$d"
	mkdir "$d/user"
	chown 65534 "$d/user"
	echo secret >"$d/victim"
	chmod 600 "$d/victim"
	ln -s "$d/victim" "$d/user/pre.json"
	chown -h 65534 "$d/user/pre.json"
	rm -f "$TMPD/started"
	s=$(st runx --report="$d/user/pre.json" -- touch "$TMPD/started" 2>"$TMPD/link.err")
	assert_eq "another user's symlink, made before: 125, nothing started, the file it names untouched, one line" \
		"125 no secret runx: cannot write the report '$d/user/pre.json': a symbolic link of uid 65534 (neither runx's user nor root), which runx does not follow" \
		"$s $([ -e "$TMPD/started" ] && echo started || echo no) $(cat "$d/victim") $(cat "$TMPD/link.err")"
	s=$(st runx --user=65534 --report="$d/user/made.json" -- ln -s "$d/victim" "$d/user/made.json" 2>"$TMPD/link.err")
	assert_eq "another user's symlink, made by the command under --user: exit 0, the file it names untouched, the message says why" \
		"0 secret 1" \
		"$s $(cat "$d/victim") $(grep -c "^runx: cannot write the report '$d/user/made.json': Permission denied (a symbolic link of another user, made during the run, which runx does not follow)\$" "$TMPD/link.err")"
	# The same user racing runx while it runs 300 times, as fast as it
	# can: (x) swapping two names (renameat2(2) RENAME_EXCHANGE), or (t)
	# one name there and not (rename(2) back and forth).  A FIFO of its
	# own and its link to the file; the end of root's link into its
	# directory, a file and its link; that end there and not; root's own
	# link in its directory and its link.  runx must never write through
	# the user's link (574ee02 did in about 10 runs of the first two,
	# 6d0aac4 in 18 to 330 of the last two: a race, so a check that
	# fails often, not always, on such a runx).
	as_nobody sh -c 'cd "$1" && mkfifo race.json && ln -s "$2" other && : >t.json && ln -s "$2" t2 &&
		ln -s "$2" x.t && ln -s "$2" evil' sh "$d/user" "$d/victim"
	ln -s "$d/user/t.json" "$d/root-link.json"
	ln -s "$d/user/x" "$d/root-link2.json"
	ln -s "$d/own-out.json" "$d/user/report.json"
	# the racers and the holder below carry it: the cleanup kills them
	new_marker rmk
	# shellcheck disable=SC2154 # set by new_marker
	for race in "x race.json other $d/user/race.json" "x t.json t2 $d/root-link.json" \
		"t x.t x $d/root-link2.json" "x report.json evil $d/user/report.json"; do
		read -r mode n1 n2 target <<<"$race"
		as_nobody_bg "$PY" -c '
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
d = os.open(sys.argv[2], os.O_RDONLY | os.O_DIRECTORY)
a, b = sys.argv[3].encode(), sys.argv[4].encode()
end = time.monotonic() + 60
while time.monotonic() < end:
    if sys.argv[1] == "x":
        if libc.renameat2(d, a, d, b, 2) != 0:
            break
    else:
        libc.renameat(d, a, d, b)
        libc.renameat(d, b, d, a)
' "$mode" "$d/user" "$n1" "$n2" "$rmk"
		racer=$NOBODY_PID
		for _ in $(seq 300); do
			"$RUNX" "${LAUNCH_ARGS[@]}" --report="$target" -- true 2>/dev/null
			[ "$(cat "$d/victim")" = secret ] || break
		done
		kill "$racer" 2>/dev/null
		wait "$racer" 2>/dev/null
		assert_eq "another user racing runx ($mode: $n1, $n2): the file its link names is untouched after 300 runs" \
			secret "$(cat "$d/victim")"
		echo secret >"$d/victim"
	done
	ln -s "$d/own.json" "$d/own-link.json"
	s=$(st runx --report="$d/own-link.json" -- true)
	assert_eq "runx's own symlink (root's) is still written through" "0 yes symbolic link" \
		"$s $(valid_json "$d/own.json" && echo yes) $(stat -c %F "$d/own-link.json")"
	# Another process's descriptor (review of cac5eab): a user holds an
	# O_PATH fd of root's 0600 file (search permission on its directory
	# is enough) in a process that is not dumpable, so that its
	# /proc/PID/fd/N is root's link, not the user's; root's runx must not
	# open the file for writing through it.  Named, through the user's
	# link to that directory, or that link made by the command under
	# --user (the directory there before the run).  Before 707aeb3 all
	# three wrote the victim; until 1091a9e, the first two were found
	# only after the run (the command started).  And a dumpable process
	# of the user's: its link is the user's, refused as a link on /proc
	# all the same, with the same message.
	rm -f "$d/user/holder.fd"
	as_nobody_bg "$PY" -c '
import ctypes, os, sys, time
fd = os.open(sys.argv[1], os.O_PATH)
if ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) != 0:
    sys.exit(1)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write("%d %d\n" % (os.getpid(), fd))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
time.sleep(120)
' "$d/victim" "$d/user/holder.fd" "$rmk"
	holder=$NOBODY_PID
	as_nobody_bg sleep "$rmk"
	sleeper=$NOBODY_PID
	if wait_file "$d/user/holder.fd" 30 && read -r hpid hfd <"$d/user/holder.fd" &&
		[ "$(stat -L -c %u "/proc/$hpid/fd")" = 0 ]; then
		ln -s "/proc/$hpid/fd" "$d/user/fdd"
		chown -h 65534 "$d/user/fdd"
		for rep in "/proc/$hpid/fd/$hfd" "$d/user/fdd/$hfd" "/proc/$sleeper/fd/1"; do
			rm -f "$TMPD/started"
			s=$(st runx --report="$rep" -- touch "$TMPD/started" 2>"$TMPD/fd.err")
			assert_eq "another process's descriptor ($rep): 125, nothing started, the file untouched, one line" \
				"125 no secret runx: cannot write the report '$rep': a link on /proc that is not one of runx's own file descriptors (such as another process's /proc/PID/fd/N), which runx does not follow" \
				"$s $([ -e "$TMPD/started" ] && echo started || echo no) $(cat "$d/victim") $(cat "$TMPD/fd.err")"
		done
		as_nobody mkdir "$d/user/late"
		s=$(st runx --user=65534 --report="$d/user/late/$hfd" -- \
			sh -c 'rmdir "$1" && ln -s "$2" "$1"' sh "$d/user/late" "/proc/$hpid/fd" 2>"$TMPD/fd.err")
		assert_eq "another process's descriptor, its link made by the command under --user: exit 0, the file untouched, the message says why" \
			"0 secret 1" \
			"$s $(cat "$d/victim") $(grep -c "^runx: cannot write the report '$d/user/late/$hfd': Permission denied (a link on /proc that is not one of runx's own file descriptors, which runx does not follow)\$" "$TMPD/fd.err")" \
			"$(cat "$TMPD/fd.err")"
	else
		not_ok "another process's descriptor: the holder of an O_PATH fd is ready, not dumpable" "$(cat "$d/user/holder.fd" 2>&1)"
		skips 3 "another process's descriptor" "its holder never got ready"
	fi
	kill "$holder" "$sleeper" 2>/dev/null
	wait "$holder" "$sleeper" 2>/dev/null
	# before "as_nobody_bg", the kills reached a subshell, and the racers
	# and the holder outlived them (60 s, 120 s)
	assert_dead "the racers, the holder of the O_PATH fd and the sleeper are gone" "$rmk"
else
	skips 12 "another user's symlink as the report" "needs root (chown)"
fi

# --- with no /proc ------------------------------------------------------------------------------
# In a mount namespace of the test's own with /proc unmounted, the
# report is still written: a regular file replaced (with a named
# temporary file), a link to a file written through (the end opened by
# its name and compared), a link to no file made; a link to /dev/stdout
# (itself a link into /proc) is refused before the start, as the write
# would fail (8f09516 let it pass, then failed after the run).
if [ "$(id -u)" = 0 ] && unshare -m --propagation private sh -c 'umount -l /proc && "$0" --version' \
	"$RUNX" >/dev/null 2>&1; then
	np=$TMPD/noproc
	mkdir "$np"
	echo old >"$np/plain.json"
	: >"$np/target.json"
	ln -s target.json "$np/link.json"
	ln -s made.json "$np/dangling.json"
	ln -s /dev/stdout "$np/stdout.json"
	# shellcheck disable=SC2016 # for the inner sh
	got=$(unshare -m --propagation private sh -c 'umount -l /proc || exit 99
		d=$1
		shift
		for r in plain link dangling stdout; do
			"$0" "$@" --report="$d/$r.json" -- touch "$d/started.$r" 2>"$d/$r.err"
			printf "%s " "$?"
		done' "$RUNX" "$np" "${LAUNCH_ARGS[@]}")
	assert_eq "no /proc: a file replaced, a link written through, a link to no file made: 0 0 0, all three valid" \
		"0 0 0 yes yes yes" "$(echo "$got" | cut -d' ' -f1-3) $(for f in plain target made; do
			valid_json "$np/$f.json" && echo yes || echo no; done | tr '\n' ' ' | sed 's/ $//')" \
		"$(cat "$np"/*.err)"
	assert_eq "no /proc: a link to /dev/stdout: 125 before the start, one line" \
		"125 no runx: cannot write the report '$np/stdout.json': No such file or directory" \
		"$(echo "$got" | cut -d' ' -f4) $([ -e "$np/started.stdout" ] && echo started || echo no) $(cat "$np/stdout.err")"
else
	skips 2 "the report with no /proc" \
		"needs root (unshare -m) and a runx that runs without /proc (a sanitizer build reads /proc/self/maps)"
fi

# --- unwritable report path ---------------------------------------------------------------------
# Found before the command starts: 125, one line naming the file, and
# nothing started (SPEC, Reporting).
rep=$TMPD/missing-dir/report.json
rm -f "$TMPD/started"
s=$(st runx --report="$rep" -- touch "$TMPD/started" 2>"$TMPD/unwritable.err")
assert_eq "unwritable report: 125" 125 "$s"
assert_eq "unwritable report: one line naming the file and the reason" \
	"runx: cannot write the report '$rep': No such file or directory" "$(cat "$TMPD/unwritable.err")"
assert_false "unwritable report: nothing started" test -e "$TMPD/started"
assert_false "unwritable report: nothing created" test -e "$TMPD/missing-dir"
touch "$TMPD/plainfile"
s=$(st runx --report="$TMPD/plainfile/r.json" -- touch "$TMPD/started" 2>"$TMPD/notdir.err")
assert_eq "report in a file, not a directory: 125" 125 "$s"
assert_match "report in a file, not a directory: says so" "Not a directory" "$(cat "$TMPD/notdir.err")"
assert_false "report in a file, not a directory: nothing started" test -e "$TMPD/started"

# the report path is a directory: 125 before anything starts
d=$TMPD/isdir
mkdir -p "$d/report.json"
s=$(st runx --report="$d/report.json" -- touch "$TMPD/started" 2>"$TMPD/isdir.err")
assert_eq "report path is a directory: 125" 125 "$s"
assert_match "report path is a directory: message" "report '$d/report.json': Is a directory" "$(cat "$TMPD/isdir.err")"
assert_false "report path is a directory: nothing started" test -e "$TMPD/started"
assert_eq "report path is a directory: no temp file left" "report.json" "$(entries "$d")"

# a file that exists but can be neither replaced nor written (/proc's
# files: root passes access(2) there), and a directory that takes no new
# file (sysfs): the check makes a temporary file and opens the file as
# the write would, so both are found before the start
rm -f "$TMPD/started"
s=$(st runx --report=/proc/version -- touch "$TMPD/started" 2>"$TMPD/proc.err")
assert_eq "a report file of /proc: 125, nothing started" "125 no" \
	"$s $([ -e "$TMPD/started" ] && echo yes || echo no)" "$(cat "$TMPD/proc.err")"
assert_match "a report file of /proc: one line naming it, refused, not missing" \
	"^runx: cannot write the report '/proc/version': Permission denied\$" "$(cat "$TMPD/proc.err")"
s=$(st runx --report=/sys/kernel/runx-report.json -- touch "$TMPD/started" 2>"$TMPD/sys.err")
assert_eq "a report in a sysfs directory: 125, nothing started" "125 no" \
	"$s $([ -e "$TMPD/started" ] && echo yes || echo no)" "$(cat "$TMPD/sys.err")"
# refused NAME REASON REP [PREFIX...]: runx --report=REP, started through
# PREFIX (a command that runs its arguments) if given, exits 125 before
# its command starts, with one line naming REP and REASON (2 tests)
refused() {
	local what=$1 why=$2 rep=$3 s
	shift 3
	rm -f "$TMPD/started"
	s=$(st "$@" "$RUNX" "${LAUNCH_ARGS[@]}" --report="$rep" -- touch "$TMPD/started" 2>"$TMPD/refused.err")
	assert_eq "$what: 125, nothing started" "125 no" \
		"$s $([ -e "$TMPD/started" ] && echo yes || echo no)" "$(cat "$TMPD/refused.err")"
	assert_match "$what: one line naming it, $why" \
		"^runx: cannot write the report '$rep': $why\$" "$(cat "$TMPD/refused.err")"
}
# ... and so is /proc's file behind a symlink, which is written through
# (open(2) by root succeeds, the write fails with EIO after the run)
ln -sfn /proc/version "$TMPD/to-proc"
refused "a symlink to a report file of /proc" "Permission denied" "$TMPD/to-proc"
# a file of /proc that root can write and whose write would set what it
# controls: the host name, named and through a symlink (in a UTS
# namespace of the test's own, unshare(1) -u, so that a runx that wrote
# it changes nothing outside; the name is kept in host.name)
ln -sfn /proc/sys/kernel/hostname "$TMPD/to-hostname"
if unshare -u true 2>/dev/null; then
	for rep in /proc/sys/kernel/hostname "$TMPD/to-hostname"; do
		refused "--report=$rep" "Permission denied" "$rep" unshare -u sh -c \
			'hostname runx-uts-test || exit 99; "$@"; s=$?; hostname >"$0"; exit $s' "$TMPD/host.name"
		assert_eq "--report=$rep: the host name kept" runx-uts-test "$(cat "$TMPD/host.name")"
	done
else
	skips 6 "--report=/proc/sys/kernel/hostname" "needs root (unshare -u)"
fi
# a cgroup's file (of a cgroup made for this test: a runx that wrote its
# report there would get EINVAL after the run; b742983 did)
cgmnt=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
cgown=$cgmnt$(sed -n 's/^0:://p' /proc/self/cgroup)
report_cg=${cgown%/}/runx-test-report.$$
if [ -n "$cgmnt" ] && mkdir "$report_cg" 2>/dev/null; then
	at_exit 'rmdir "$report_cg" 2>/dev/null'
	refused "a report into a cgroup's cgroup.procs" "Permission denied" "$report_cg/cgroup.procs"
	rmdir "$report_cg"
else
	skips 2 "a report into a cgroup's file" "no cgroup v2 here that this script can make a cgroup in"
fi
# /dev/tty is opened before the start as the write will open it: with no
# controlling terminal (setsid(1): a new session has none) it is
# refused, named or through a symlink; a socket never opens
ln -sfn /dev/tty "$TMPD/to-tty"
for rep in /dev/tty "$TMPD/to-tty"; do
	refused "--report=$rep, no controlling terminal" "No such device or address" "$rep" setsid -w
done
"$PY" -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$TMPD/report.sock"
refused "a report path that is a socket" "No such device or address" "$TMPD/report.sock"
# the file of --stdout or --stderr, which the report would replace (a
# rename(2) at the end: the command's output there lost), is refused
# before the start, a new one by its name, an existing one through a
# symlink too; a device they share is written through
rm -f "$TMPD/started" "$TMPD/out.log"
s=$(cd "$TMPD" && st "$RUNX" "${LAUNCH_ARGS[@]}" -o out.log --report=./out.log -- touch "$TMPD/started" 2>"$TMPD/same.err")
assert_eq "--report and -o name one new file: 125, nothing started, nothing made" "125 no no" \
	"$s $([ -e "$TMPD/started" ] && echo yes || echo no) $([ -e "$TMPD/out.log" ] && echo yes || echo no)" "$(cat "$TMPD/same.err")"
assert_eq "--report and -o name one new file: one line naming it" \
	"runx: --report='./out.log' is the file of --stdout: the report would replace the command's output" "$(cat "$TMPD/same.err")"
echo kept >"$TMPD/err.log"
ln -sfn err.log "$TMPD/err.link"
s=$(st runx -e "$TMPD/err.link" --report="$TMPD/err.log" -- touch "$TMPD/started" 2>"$TMPD/same.err")
assert_eq "--report and -e (a symlink) name one file: 125, nothing started, the file kept" "125 no kept" \
	"$s $([ -e "$TMPD/started" ] && echo yes || echo no) $(cat "$TMPD/err.log")" "$(cat "$TMPD/same.err")"
# a symlink to no file is the name it makes (the report would replace
# the file -o made through it), and --stdin's file is refused too
rm -f "$TMPD/out.log"
ln -sfn out.log "$TMPD/dangling"
s=$(st runx -o "$TMPD/out.log" --report="$TMPD/dangling" -- touch "$TMPD/started" 2>"$TMPD/same.err")
assert_eq "--report through a symlink to no file, -o that file: 125, nothing started" "125 no" \
	"$s $([ -e "$TMPD/started" ] && echo yes || echo no)" "$(cat "$TMPD/same.err")"
echo input >"$TMPD/in.txt"
s=$(st runx -i "$TMPD/in.txt" --report="$TMPD/in.txt" -- cat 2>"$TMPD/same.err")
assert_eq "--report and -i name one file: 125, the input kept" "125 input" "$s $(cat "$TMPD/in.txt")" \
	"$(cat "$TMPD/same.err")"
# an input file that is not there is that error, not the report's
s=$(st runx -i "$TMPD/no-input" --report="$TMPD/no-input" -- cat 2>"$TMPD/same.err")
assert_eq "--report and -i name one missing file: 125, it cannot be opened" \
	"125 runx: cannot open '$TMPD/no-input': No such file or directory" "$s $(cat "$TMPD/same.err")"
s=$(st runx -o /dev/null --report=/dev/null -- true 2>"$TMPD/same.err")
assert_eq "--report and -o both /dev/null: exit 0, nothing said" "0 " "$s $(cat "$TMPD/same.err")"
# a symlink to a writable device is still written through
ln -sfn /dev/null "$TMPD/to-null"
s=$(st runx --report="$TMPD/to-null" -- true 2>"$TMPD/null.err")
assert_eq "a symlink to /dev/null: exit 0, nothing said" "0 " "$s $(cat "$TMPD/null.err")"
# no other device is opened before the run: an open and close of a pty
# slave that nobody else holds hangs it up, and its master reads EIO
# while the command runs, before the report (what 1316a85 did)
cat >"$TMPD/pty-report.py" <<'PYEOF'
import fcntl, os, select, struct, subprocess, sys, termios, time
m = os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY)
fcntl.ioctl(m, getattr(termios, "TIOCSPTLCK", 0x40045431), struct.pack("i", 0))
n = struct.unpack("I", fcntl.ioctl(m, getattr(termios, "TIOCGPTN", 0x80045430), b"\0" * 4))[0]
p = subprocess.Popen(sys.argv[1:] + ["--report=/dev/pts/%d" % n, "--", "sleep", "2"],
                     stdin=subprocess.DEVNULL)
first, got = None, b""
end = time.monotonic() + 60
while time.monotonic() < end:
    if select.select([m], [], [], 0.05)[0]:
        try:
            d = os.read(m, 65536)
            first = first or "data"
            got += d
        except OSError:
            first = first or "EIO"
            if p.poll() is not None:
                break
            time.sleep(0.05)
    elif p.poll() is not None and got:
        break
p.wait()
print(first, p.returncode, "yes" if b'"runx_version"' in got else "no")
PYEOF
got=$("$PY" "$TMPD/pty-report.py" "$RUNX" "${LAUNCH_ARGS[@]}" 2>&1)
assert_eq "--report=/dev/pts/N, a pty nobody else holds: no hang-up before the report, exit 0, the report there" \
	"data 0 yes" "$got"

d=$TMPD/probed
mkdir -p "$d"
s=$(st runx --report="$d/r.json" -- sh -c 'ls -A "$1" >"$1/../probed.ls"' sh "$d")
assert_eq "the check leaves no temporary file: none while the command runs, only the report after" \
	"0||r.json" "$s|$(cat "$TMPD/probed.ls")|$(entries "$d")"

# a last component as long as the directory allows (255 bytes here) is
# written (the temporary file has a short name of its own); one byte more
# is found before the start
d=$TMPD/longname
mkdir -p "$d"
long=$(head -c 255 /dev/zero | tr '\0' r)
s=$(st runx --report="$d/$long" -- true 2>"$TMPD/long.err")
assert_eq "a 255-byte report name: written, exit 0" "0 yes" \
	"$s $(valid_json "$d/$long" && echo yes || echo no)" "$(cat "$TMPD/long.err")"
rm -f "$TMPD/started"
s=$(st runx --report="$d/${long}r" -- touch "$TMPD/started" 2>"$TMPD/long.err")
assert_eq "a 256-byte report name: 125, nothing started" "125 no" "$s $([ -e "$TMPD/started" ] && echo yes || echo no)"
assert_match "a 256-byte report name: says so (glibc: File name, musl: Filename)" "File ?name too long" "$(cat "$TMPD/long.err")"

# a sticky directory (as /tmp) whose report file another user owns: a
# runx that is neither may not rename over it, but writes it through
# where the file lets it (mode 666), and is refused before the start
# where not (mode 644)
if command -v setpriv >/dev/null && as_nobody true 2>/dev/null; then
	setup_nobody
	d=$NOBODY_DIR/sticky
	mkdir -p "$d"
	chmod 1777 "$d"
	echo old >"$d/open.json"
	chmod 666 "$d/open.json"
	echo old >"$d/closed.json"
	chmod 644 "$d/closed.json"
	s=$(st as_nobody "$NRUNX" "${LAUNCH_ARGS[@]}" --report="$d/open.json" -- true 2>"$TMPD/sticky.err")
	assert_eq "sticky dir, another user's writable report file: written through, exit 0" \
		"0 yes 0" "$s $(valid_json "$d/open.json" && echo yes || echo no) $(stat -c %u "$d/open.json")" \
		"$(cat "$TMPD/sticky.err")"
	rm -f "$d/started"
	s=$(st as_nobody "$NRUNX" "${LAUNCH_ARGS[@]}" --report="$d/closed.json" -- touch "$d/started" 2>"$TMPD/sticky.err")
	assert_eq "sticky dir, another user's read-only report file: 125, nothing started, file kept" \
		"125 no old" "$s $([ -e "$d/started" ] && echo yes || echo no) $(cat "$d/closed.json")" "$(cat "$TMPD/sticky.err")"
else
	skips 2 "sticky directory report" "needs root and setpriv (util-linux)"
fi
# a report file that is a mount point (docker run -v host.json:/r.json):
# rename(2) over it fails (EBUSY); it is written through, in a mount
# namespace of the test's own
if unshare -m true 2>/dev/null; then
	echo old >"$TMPD/bound.src"
	: >"$TMPD/bound.json"
	s=$(st unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$TMPD/bound.src" "$TMPD/bound.json" \
		"$RUNX" "${LAUNCH_ARGS[@]}" --report="$TMPD/bound.json" -- true 2>"$TMPD/bound.err")
	assert_eq "a bind-mounted report file: written through (its source holds the report), exit 0" \
		"0 yes" "$s $(valid_json "$TMPD/bound.src" && echo yes || echo no)" "$(cat "$TMPD/bound.err")"
else
	skips 1 "a bind-mounted report file" "needs root (unshare -m)"
fi

# --- rusage ------------------------------------------------------------------------------------
rep=$TMPD/rss.json
s=$(st runx --report="$rep" -- "$PY" -c 'x = bytearray(50 * 1024 * 1024); x[::4096] = b"\1" * len(x[::4096])')
assert_eq "rusage: exit status 0" 0 "$s"
check_report rusage "$rep" < <(checks_rusage)
rep=$TMPD/cpu.json
s=$(st runx --report="$rep" -- "$PY" -c '
import time
t = time.process_time()
while time.process_time() - t < 0.3:
    pass')
assert_eq "rusage cpu: exit status 0" 0 "$s"
check_report rusage "$rep" < <(checks_rusage_2)

# The tree scope with --report: runx reaps every child itself, the command
# included, so its CPU time counts even when a stop ends it (without
# --report the kernel releases what a stop ends: runx(1), tree).
new_marker m
rep=$TMPD/tree-cpu.json
ready=$TMPD/tree-cpu.ready
runx_bg --kill-scope=tree -k 5 --report="$rep" -- "$PY" -c '
import subprocess, sys, time
for _ in range(20):
    subprocess.Popen(["sleep", sys.argv[2]], start_new_session=True)
t = time.process_time()
while time.process_time() - t < 0.3:
    pass
open(sys.argv[1], "w").close()
time.sleep(1000)' "$ready" "$m"
term_when_ready "tree scope, SIGTERM to runx" 143 "$ready" "$m" 20
check_report "tree scope, stopped: rusage" "$rep" < <(checks_rusage_2)

# --- the cgroup's own figures ---------------------------------------------------------------
# With -C the report has the job cgroup's memory_peak (bytes), cpu_time
# (seconds, cpu.stat), pids_peak and oom_kills, each null where the job's
# cgroup lacks the file: memory.* and pids.* exist only where runx's
# cgroup enables those controllers for its children (cgroup.subtree_control).
CGMNT=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
CGOWN_REL=$(sed -n 's/^0:://p' /proc/self/cgroup)
CGOWN=$CGMNT${CGOWN_REL%/}
rep=$TMPD/cgroup.json
if [ -n "$CGMNT" ] && mkdir "$CGOWN/runx-test-probe.$$" 2>/dev/null; then
	rmdir "$CGOWN/runx-test-probe.$$"
	s=$(st runx_cg -C --report="$rep" -- "$PY" -c '
import os, time
t = time.process_time()
x = bytearray(30 * 1024 * 1024); x[::4096] = b"\1" * len(x[::4096])
if os.fork() == 0:
    os._exit(0)
os.wait()
while time.process_time() - t < 0.3:
    pass')
	assert_eq "cgroup figures: exit status 0" 0 "$s"
	for c in memory pids; do
		if grep -qw "$c" "$CGOWN/cgroup.subtree_control"; then
			export "X_$c=1"
		else
			export "X_$c="
		fi
	done
	diag "the job's cgroup has memory.*: ${X_memory:-no}, pids.*: ${X_pids:-no}"
	check_report cgroup "$rep" < <(checks_cgroup)
else
	skips $((1 + $(checks_cgroup | grep -c '|'))) "cgroup figures" "no writable cgroup v2 here"
fi


# --- processes that are exiting are not alive ------------------------------------
# A process that a signal ends is exiting from the moment the signal is
# sent (the kernel queues SIGKILL to it then), though it may not have run
# since.  With -k 0, the count after the grace period, taken right after
# the first signal, leaves out the sleep that SIGTERM is ending (b742983
# counted it in 19 runs of 20 in the child scope); so does the count of
# leftovers, for a sleep that the command killed just before it exited
# (17 of 20 in the pidns scope).  5 runs of each, in every scope.
probe_scopes
for scope in child group tree cgroup pidns; do
	why=$(scope_missing "$scope")
	if [ -n "$why" ]; then
		skips 3 "exiting processes, $scope scope" "$why"
		continue
	fi
	R=(runx --kill-scope="$scope")
	[ "$scope" = cgroup ] && R=(runx_cg -C)
	new_marker m
	got="" lo=""
	for i in 1 2 3 4 5; do
		s=$(st "${R[@]}" -v -t 0.2 -k 0 --report="$TMPD/k0.json" -- sleep "$m" 2>"$TMPD/k0.$i.err")
		got+="$s $(jq -r '"\(.killed_after_grace) \(.alive_after_grace.count // 0)"' "$TMPD/k0.json" 2>&1);"
		# what -v said of a run that counted one alive (a failure's
		# diagnosis: once in a loaded run, in the pidns scope)
		[[ "$got" == *"124 0 0;" ]] || diag "run $i, runx -v:" "$(cat "$TMPD/k0.$i.err")"
		s=$(st "${R[@]}" --report="$TMPD/lo.json" -- sh -c 'sleep "$1" & kill -KILL $!; exit 0' sh "$m")
		lo+="$s $(jq -r .leftovers_stopped "$TMPD/lo.json" 2>&1);"
	done
	assert_eq "-k 0, $scope scope: the sleep that SIGTERM is ending is not alive after the grace period (5 runs)" \
		"$(printf '124 0 0;%.0s' 1 2 3 4 5)" "$got"
	assert_eq "$scope scope: a sleep that the command killed is no leftover (5 runs)" \
		"$(printf '0 0;%.0s' 1 2 3 4 5)" "$lo"
	assert_dead "exiting processes, $scope scope: nothing left" "$m"
done


# --- a process past taking its fatal signal is not alive ------------------------
# get_signal() clears the SIGKILL that a SIGTERM queued as it takes it; from
# there until do_exit() sets PF_EXITING the process shows PF_SIGNALED only
# (a window that once made the -k 0 case above count a sleep alive in a
# loaded CI run).  exit-stop.py holds the sleep there, at its
# PTRACE_EVENT_EXIT stop; a second SIGTERM to runx ends the grace period,
# and the count then leaves the sleep out.  The tracer lets it go once -v
# said what the count found.
for scope in child tree; do
	new_marker m
	d=$TMPD/exit-stop-$scope
	mkdir -p "$d"
	runx_bg -v --kill-scope="$scope" -t 60s -k 60s --report="$d/r.json" \
		-- sleep "$m" 2>"$d/err"
	sleep_pid=$(pid_of "$m" sleep) || sleep_pid=
	"$PY" "$(dirname "$TESTLIB")/exit-stop.py" "$sleep_pid" "$d" 2>"$d/tracer" &
	tracer=$!
	if ! wait_file "$d/seized" 10; then
		# runx runs on (-t 60s): its pid is its own; the tracer's may
		# be another process's by now, so it is let go, not killed
		touch "$d/release"
		kill -KILL "$RUNX_PID"
		kill_marked "$m"
		wait "$RUNX_PID" "$tracer"
		skips 4 "a process past its fatal signal, $scope scope" \
			"ptrace(2) refused: $(head -c 200 "$d/tracer")"
		continue
	fi
	kill -TERM "$RUNX_PID"
	wait_file "$d/exit-stop" 20
	flags=$(awk '{print $9}' "$d/exit-stop" 2>/dev/null)
	assert_eq "$scope scope: the sleep at its exit stop shows PF_SIGNALED, not PF_EXITING" \
		"$((0x400))" "$((${flags:-0} & 0x404))"
	kill -TERM "$RUNX_PID"
	poll 400 0.05 grep -q 'grace period was cut short' "$d/err"
	touch "$d/release"
	wait "$RUNX_PID"
	s=$?
	wait "$tracer"
	assert_eq "$scope scope: the sleep at its exit stop is not alive after the grace period (status, killed_after_grace, alive count)" \
		"143 0 0" "$s $(jq -r '"\(.killed_after_grace) \(.alive_after_grace.count // 0)"' "$d/r.json" 2>&1)"
	assert_match "$scope scope: -v says what is left is exiting" \
		'what is left is exiting, not yet gone, when the grace period was cut short' "$(cat "$d/err")"
	assert_dead "$scope scope: a process past its fatal signal: nothing left" "$m"
done

done_testing
