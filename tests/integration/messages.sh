#!/bin/bash
# Messages are one line each, whatever the values in them: a newline or an
# escape sequence in -t, -s, --kill-scope, -o or the command name is
# escaped (\n, \x1b), a backslash doubled, nothing is started; a
# 5000-character -o path is shortened in the middle so the reason at the
# end survives; --help and --version with stdout closed or full fail with
# 125 and say so.
# shellcheck disable=SC1090 # lib.sh, named by make check
. "$TESTLIB"

D=$TMPD
NL=$'\n'
ESC=$'\033'

# 5 x 18 values shown escaped, 5 a non-executable command, 2 x 8 long
# paths, 4 as nobody, 2 x 11 --help and --version, 3 a long command name
plan $((5 * 18 + 5 + 2 * 8 + 4 + 2 * 11 + 3))

# one_line NAME STATUS FILE-WITH-STDERR WANT-STATUS: exactly one line that
# starts with "runx: ", holds no ESC byte, and no forged "runx:" line.
one_line() {
	local name=$1 s=$2 errfile=$3 want=$4 err
	err=$(sed -n 1p "$errfile")
	assert_eq "$name: exit $want" "$want" "$s"
	if [ "$(wc -l <"$errfile")" -eq 1 ] && [ "$(grep -c '' "$errfile")" -eq 1 ] &&
		[[ "$err" == "runx: "* ]]; then
		ok "$name: one line on stderr"
	else
		not_ok "$name: one line on stderr" "stderr: $(od -c "$errfile" | head -n 20)"
	fi
	assert_eq "$name: no ESC byte reaches stderr" 0 "$(grep -c "$ESC" "$errfile")"
}

# forged NAME WANT-STATUS WANT-TEXT RUNX-ARGS...: runx ARGS (the command
# appended unless ARGS hold it) exits WANT-STATUS with one line on stderr
# that contains WANT-TEXT (the escaped value), and starts nothing.
forged() {
	local name=$1 want=$2 text=$3 s=0
	shift 3
	rm -f "$D/started"
	runx "$@" >/dev/null 2>"$D/err" || s=$?
	one_line "$name" "$s" "$D/err" "$want"
	assert_match "$name: the value is shown escaped" "$text" "$(cat "$D/err")"
	assert_false "$name: nothing started" test -e "$D/started"
}

start=(sh -c "touch '$D/started'")
inj="1${NL}runx: injected"
forged "-t with a newline" 125 "'1\\\\nrunx: injected'" -t "$inj" -- "${start[@]}"
forged "--timeout with ESC" 125 "'5\\\\x1b\\[2J'" --timeout="5${ESC}[2J" -- "${start[@]}"
forged "-s with a newline" 125 "'TERM\\\\nrunx: injected'" -s "TERM${NL}runx: injected" -- "${start[@]}"
forged "-s with ESC" 125 "'\\\\x1b\\]0;title'" -s "${ESC}]0;title" -- "${start[@]}"
forged "--kill-scope with a newline" 125 "'tree\\\\nrunx: injected'" \
	--kill-scope="tree${NL}runx: injected" -- "${start[@]}"
forged "--kill-scope with ESC" 125 "'\\\\x1b\\[31mgroup'" --kill-scope="${ESC}[31mgroup" -- "${start[@]}"
forged "-o with a newline" 125 "nodir/x\\\\nrunx: injected': No such file or directory$" \
	-o "$D/nodir/x${NL}runx: injected" -- "${start[@]}"
forged "-o with ESC" 125 "nodir/\\\\x1b\\[2Jx': No such file or directory$" \
	-o "$D/nodir/${ESC}[2Jx" -- "${start[@]}"
forged "-e with a newline" 125 "nodir/e\\\\nx" -e "$D/nodir/e${NL}x" -- "${start[@]}"
forged "--stop-signals with a newline" 125 "'HUP\\\\nx'" --stop-signals="TERM,HUP${NL}x" -- "${start[@]}"
# a backslash is doubled, so the typed \x01 and a 0x01 byte read apart
forged "--timeout with a backslash" 125 "'a\\\\\\\\x01'" --timeout='a\x01' -- "${start[@]}"
forged "--timeout with a 0x01 byte" 125 "'a\\\\x01'" --timeout=$'a\x01' -- "${start[@]}"
# U+202E (right-to-left override) would make the rest of the line read
# backwards; U+2028 (line separator) is a new line to some viewers
forged "--timeout with U+202E" 125 "'5\\\\xe2\\\\x80\\\\xae'" --timeout=$'5\xe2\x80\xae' -- "${start[@]}"
forged "--timeout with U+2028" 125 "'5\\\\xe2\\\\x80\\\\xa8x'" --timeout=$'5\xe2\x80\xa8x' -- "${start[@]}"
forged "--memory-max with ESC" 125 "'1\\\\x1bM'" --memory-max="1${ESC}M" -- "${start[@]}"
forged "an unknown option with a newline" 125 "'--x\\\\nrunx: injected'" \
	"--x${NL}runx: injected" -- "${start[@]}"
forged "command name with a newline" 127 "no\\\\nrunx: injected" "no${NL}runx: injected"
forged "command name with ESC" 127 "no\\\\x1b\\[2Jsuch" "no${ESC}[2Jsuch"

# A command that is found but not executable, its name with a newline.
mkdir "$D/bin"
printf 'not a program\n' >"$D/bin/x${NL}y"
chmod 644 "$D/bin/x${NL}y"
forged "a non-executable command named with a newline" 126 "x\\\\ny" "$D/bin/x${NL}y"

# --- a very long value keeps the reason at the end of the line --------------
# long_path LENGTH PREFIX: PREFIX then 200-character components up to
# LENGTH characters (every component within NAME_MAX).
long_path() {
	local len=$1 p=$2 comp
	comp=$(printf 'c%.0s' $(seq 200))
	while [ ${#p} -lt "$len" ]; do
		p=$p/$comp
	done
	printf '%s' "${p:0:$len}"
}

# keeps_reason NAME REASON PATH: -o PATH fails with one line ending in
# ": REASON", starting with the start of the path, nothing started.
keeps_reason() {
	local name=$1 reason=$2 path=$3 s=0 err
	rm -f "$D/started"
	runx -o "$path" -- "${start[@]}" 2>"$D/err" || s=$?
	err=$(cat "$D/err")
	one_line "$name" "$s" "$D/err" 125
	assert_match "$name: the line ends with the reason" ": $reason\$" "$err"
	assert_match "$name: the start of the path is shown" "^runx: cannot open '${path:0:40}" "$err"
	assert_match "$name: the middle is shortened" "[^.]\\.\\.\\.[^.]" "$err"
	assert_true "$name: the line is short (${#err} bytes)" test "${#err}" -lt 1024
	assert_false "$name: nothing started" test -e "$D/started"
}
# ENAMETOOLONG: "File name too long" (glibc), "Filename too long" (musl)
keeps_reason "a 5000-character -o path" "File ?name too long" "$(long_path 5000 "$D/nodir")"
keeps_reason "a 4000-character -o path under a missing directory" \
	"No such file or directory" "$(long_path 4000 "$D/nodir")"

# Permission denied, as uid 65534 under a directory it may not enter.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	setup_nobody
	mkdir -m 700 "$NOBODY_DIR/locked"
	path=$(long_path 3000 "$NOBODY_DIR/locked")
	s=0
	as_nobody "$NRUNX" -o "$path" -- true 2>"$D/err" || s=$?
	one_line "a 3000-character -o path, as nobody" "$s" "$D/err" 125
	assert_match "a 3000-character -o path, as nobody: ends with the reason" \
		": Permission denied\$" "$(cat "$D/err")"
else
	skips 4 "a 3000-character -o path, as nobody" "needs root (setpriv to uid 65534)"
fi

# --- --help and --version cannot lose their output silently -----------------
for opt in --help --version; do
	s=0
	"$RUNX" "$opt" >&- 2>"$D/err" || s=$?
	one_line "$opt with stdout closed" "$s" "$D/err" 125
	assert_match "$opt with stdout closed: says why" "Bad file descriptor" "$(cat "$D/err")"
	s=0
	"$RUNX" "$opt" >/dev/full 2>"$D/err" || s=$?
	one_line "$opt with stdout full" "$s" "$D/err" 125
	assert_match "$opt with stdout full: says why" "No space left on device" "$(cat "$D/err")"
	s=0
	out=$("$RUNX" "$opt" 2>"$D/err") || s=$?
	assert_eq "$opt on a pipe: 0" 0 "$s"
	assert_eq "$opt on a pipe: nothing on stderr" "" "$(cat "$D/err")"
	assert_match "$opt on a pipe: the text" "^(Usage: runx|runx [0-9])" "$out"
done

# A command name of 4557 characters (past the message buffer): the reason
# at the end of the line survives, in stderr and in the report.
long=$(printf 'd%.0s' $(seq 4557))
s=$(st runx --report="$TMPD/long.json" -- "$long" 2>"$TMPD/long.err")
assert_eq "a 4557-character command name: 127" 127 "$s"
assert_match "a 4557-character command name: the line keeps its reason" \
	"^runx: failed to run command 'd+\\.\\.\\.d+': No such file or directory\$" "$(cat "$TMPD/long.err")"
assert_match "a 4557-character command name: the report's error keeps it too" \
	": No such file or directory\$" "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["error"])' "$TMPD/long.json")"

done_testing
