#!/bin/bash
# Exit statuses: passthrough, 124 on deadline (also when SIGKILL was
# needed), -p/--preserve-status, 125 for bad options and values (nothing
# started, one-line message naming the bad text), 126 vs 127, 128+N.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

# 9 passthrough and parsing, 6 deadline, 9 -p, 17 bad values x 3, 2 with
# no command, 12 for 126/127, 4 for 128+N
plan $((9 + 6 + 9 + 17 * 3 + 2 + 12 + 4))

# --- passthrough -----------------------------------------------------------
assert_eq "exit 0 passes through" 0 "$(st runx -- true)"
assert_eq "exit 1 passes through" 1 "$(st runx -- false)"
assert_eq "exit 42 passes through" 42 "$(st runx -- sh -c 'exit 42')"
assert_eq "exit 255 passes through" 255 "$(st runx -- sh -c 'exit 255')"
assert_eq "exit 42 passes through with a deadline that does not fire" 42 \
	"$(st runx -t 30 -- sh -c 'exit 42')"
assert_eq "exit 125 of the command itself passes through" 125 \
	"$(st runx -- sh -c 'exit 125')"

# Option parsing stops at the first operand.
out=$(runx sh -c 'echo "$*"' x -t 5 -v --bogus 2>&1)
assert_eq "options after the command go to the command" "-t 5 -v --bogus" "$out"
out=$(runx -t 30 -- sh -c 'echo "$*"' x -- -k 2>&1)
assert_eq "'--' ends runx's options" "-- -k" "$out"

# Arguments and environment reach the command unchanged.
out=$(RUNX_TEST_VAR='a  b' runx -- sh -c 'printf "[%s]" "$RUNX_TEST_VAR" "$@"' x 'one two' '' '*' '$HOME')
assert_eq "arguments and environment are passed verbatim" '[a  b][one two][][*][$HOME]' "$out"

# --- 124 on deadline ---------------------------------------------------------
new_marker m
assert_eq "deadline: 124" 124 "$(st runx -t 0.5 -- sleep "$m")"
assert_dead "deadline: command is dead" "$m"

new_marker m
assert_eq "deadline with a TERM handler that exits 3: still 124" 124 \
	"$(st runx -t 0.5 -- sh -c "trap 'exit 3' TERM; sleep $m & wait")"
assert_dead "deadline with a TERM handler: nothing left" "$m"

# TERM ignored by sh and (inherited SIG_IGN) by sleep: SIGKILL is needed.
new_marker m
assert_eq "deadline needing SIGKILL: still 124" 124 \
	"$(st runx -t 0.5 -k 0.5 -- sh -c "trap '' TERM; sleep $m; :")"
assert_dead "deadline needing SIGKILL: command is dead" "$m"

# --- -p / --preserve-status ---------------------------------------------------
new_marker m
assert_eq "-p: killed by SIGTERM gives 143" 143 \
	"$(st runx -p -t 0.5 -- sleep "$m")"
assert_dead "-p TERM: dead" "$m"

# (on_time: the job's trap must be in place before the deadline)
new_marker m
r=$TMPD/ready.$m
on_time 0.5 "$r" -- runx -p -t @T -k 0.5 -- sh -c "trap '' TERM; : >$r; sleep $m; :"
assert_eq "-p: killed by SIGKILL after grace gives 137" 137 "$OT_STATUS"
assert_dead "-p KILL: dead" "$m"

new_marker m
r=$TMPD/ready.$m
on_time 0.5 "$r" -- runx -p -t @T -- sh -c "trap 'exit 3' TERM; : >$r; sleep $m & wait"
assert_eq "-p: the command's own status from its TERM handler" 3 "$OT_STATUS"
assert_dead "-p own status: dead" "$m"

new_marker m
assert_eq "--preserve-status (long form): 143" 143 \
	"$(st runx --preserve-status --timeout=0.5 -- sleep "$m")"
assert_dead "--preserve-status: dead" "$m"

assert_eq "-p without a deadline firing: own status" 7 \
	"$(st runx -p -t 30 -- sh -c 'exit 7')"

# --- 125: bad options and values ------------------------------------------------
# check_125 NAME BADTEXT RUNX-ARGS...: exit 125, exactly one line on stderr
# that names BADTEXT, nothing on stdout, the command (which would create
# a marker file) not started.
check_125() {
	local name=$1 bad=$2 s=0 out err nlines
	shift 2
	rm -f "$TMPD/started"
	out=$(runx "$@" -- sh -c "touch '$TMPD/started'" 2>"$TMPD/err") || s=$?
	err=$(cat "$TMPD/err")
	nlines=$(wc -l <"$TMPD/err" | tr -d ' ')
	assert_eq "$name: exit 125" 125 "$s"
	if [ "$nlines" = 1 ] && [[ "$err" == *"$bad"* ]] && [[ "$err" == "runx: "* ]]; then
		ok "$name: one 'runx: ' line naming '$bad'"
	else
		not_ok "$name: one 'runx: ' line naming '$bad'" "stderr ($nlines lines):
$err"
	fi
	if [ ! -e "$TMPD/started" ] && [ -z "$out" ]; then
		ok "$name: command not started"
	else
		not_ok "$name: command not started" "marker file exists or stdout: '$out'"
	fi
}

check_125 "-t abc" abc -t abc
check_125 "-t -1" -1 -t -1
check_125 "-t -0" -0 -t -0
check_125 "-t nan" nan -t nan
check_125 "-t 5x (unknown unit)" 5x -t 5x
check_125 "-t '1 s' (inner space)" "1 s" -t "1 s"
check_125 "-t '' (empty)" "''" -t ""
check_125 "--timeout=1s. (trailing junk)" "1s." --timeout=1s.
check_125 "-k bad" 2y -k 2y
check_125 "--grace bad" zz --grace=zz
check_125 "-s FOO" FOO -s FOO
check_125 "-s 99 (out of range)" 99 -s 99
check_125 "-s RTMIN+99" RTMIN+99 -s RTMIN+99
check_125 "--kill-scope=nope" nope --kill-scope=nope
check_125 "--launch=nope" nope --launch=nope
check_125 "unknown long option" --no-such-option --no-such-option
check_125 "unknown short option" -y -y

rm -f "$TMPD/started"
s=0
runx >/dev/null 2>"$TMPD/err" || s=$?
assert_eq "no command: 125" 125 "$s"
assert_eq "no command: one line, the pointer to --help at its end" \
	"runx: missing command; try 'runx --help'" "$(paste -sd'|' "$TMPD/err")"

# --- 126 / 127 --------------------------------------------------------------------
printf '#!/bin/sh\ntouch %s/ran-noexec\n' "$TMPD" >"$TMPD/noexec"
chmod 644 "$TMPD/noexec"
printf 'touch %s/ran-nohashbang\n' "$TMPD" >"$TMPD/nohashbang"
chmod 755 "$TMPD/nohashbang"
mkdir "$TMPD/adir" "$TMPD/bin"

s=0; runx -- "$TMPD/noexec" 2>"$TMPD/err" || s=$?
assert_eq "126: file without execute permission" 126 "$s"
assert_false "126: non-executable file did not run" test -e "$TMPD/ran-noexec"
assert_match "126: message names the command" "^runx: .*'$TMPD/noexec'" "$(cat "$TMPD/err")"

s=0; runx -- "$TMPD/adir" 2>/dev/null || s=$?
assert_eq "126: a directory" 126 "$s"

s=0; runx -- "$TMPD/nohashbang" 2>/dev/null || s=$?
assert_eq "126: executable script without #! (no /bin/sh fallback)" 126 "$s"
assert_false "126: script without #! did not run" test -e "$TMPD/ran-nohashbang"

s=0; runx -- "$TMPD/no-such-file" 2>"$TMPD/err" || s=$?
assert_eq "127: not found, name with a slash" 127 "$s"
assert_eq "127: one line on stderr" 1 "$(wc -l <"$TMPD/err" | tr -d ' ')"

s=0; runx -- no-such-command-$$ 2>"$TMPD/err" || s=$?
assert_eq "127: not found in PATH" 127 "$s"
assert_match "127: message names the command" "^runx: .*'no-such-command-$$'" "$(cat "$TMPD/err")"

# PATH search as execvp: a non-executable match only -> 126; a later
# executable match is used.
cp "$TMPD/noexec" "$TMPD/bin/runxtestcmd"
s=0; PATH="$TMPD/bin:$PATH" runx -- runxtestcmd 2>/dev/null || s=$?
assert_eq "126: only a non-executable match in PATH" 126 "$s"
mkdir "$TMPD/bin2"
printf '#!/bin/sh\nexit 33\n' >"$TMPD/bin2/runxtestcmd"
chmod 755 "$TMPD/bin2/runxtestcmd"
s=0; PATH="$TMPD/bin:$TMPD/bin2:$PATH" runx -- runxtestcmd 2>/dev/null || s=$?
assert_eq "PATH: a non-executable match is skipped for a later executable one" 33 "$s"

# --- 128+N: killed by a signal not from runx ----------------------------------------
assert_eq "killed by its own SIGUSR1: 138" 138 "$(st runx -- sh -c 'kill -USR1 $$')"
assert_eq "killed by its own SIGKILL: 137" 137 "$(st runx -- sh -c 'kill -KILL $$')"
assert_eq "killed by its own SIGTERM, deadline not reached: 143" 143 \
	"$(st runx -t 30 -- sh -c 'kill -TERM $$')"
assert_eq "killed by SIGUSR1 with -p: 138" 138 "$(st runx -p -- sh -c 'kill -USR1 $$')"

done_testing
