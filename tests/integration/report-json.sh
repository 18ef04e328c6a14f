#!/bin/bash
# --report's JSON text itself (runx's own writer, src/json.c): a command
# whose arguments hold invalid UTF-8 (a lone 0xFF, the overlong C0 80, the
# surrogate ED A0 80, a code point above U+10FFFF, a truncated sequence),
# every control character, quotes, backslashes and a 4-byte emoji gives a
# report that two strict parsers (python3's json on strictly decoded
# UTF-8, and jq) accept, and both decode the arguments to exactly the
# expected strings, U+FFFD for each bad byte.  Also: the layout (two-space
# indentation, one final newline), numbers that are JSON reals, and a
# 57000-byte argument that makes the buffer grow many times.
# shellcheck source=SCRIPTDIR/lib.sh
. "${TESTLIB:?TESTLIB must name tests/integration/lib.sh}"

require_python3 "to parse the JSON report"
require_command jq "to parse the JSON report"

FFFD=$'\xef\xbf\xbd'
ctl=$'\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f'
ctl+=$'\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f'
# 57000 bytes: the writer's buffer grows many times within one string
big="" big_want=""
for ((i = 0; i < 1000; i++)); do
	big+=$'\xff''ab"c\d'$'\x01\xf0\x9f\x98\x80''xyz'$'\xc0''-----------------------------------------'
	big_want+="$FFFD"'ab"c\d'$'\x01\xf0\x9f\x98\x80''xyz'"$FFFD"'-----------------------------------------'
done

# Each argument and the exact text a parser must decode it to.
args=(
	$'\xff'
	$'\xc0\x80'
	$'\xed\xa0\x80'
	"$ctl"
	'say "hi" and "bye"'
	'back\slash \\ and \"'
	$'\xf0\x9f\x98\x80'
	$'caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80!'
	$'\xf4\x90\x80\x80'
	$'tail\xe2\x82'
	$'\xe2\x82x'
	$'a\x80b\xbf'
	$'\xe2\x80\xa8\xe2\x80\xa9'
	"$big"
)
want=(
	"$FFFD"
	"$FFFD$FFFD"
	"$FFFD$FFFD$FFFD"
	"$ctl"
	'say "hi" and "bye"'
	'back\slash \\ and \"'
	$'\xf0\x9f\x98\x80'
	$'caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80!'
	"$FFFD$FFFD$FFFD$FFFD"
	"tail$FFFD$FFFD"
	"$FFFD${FFFD}x"
	"a${FFFD}b$FFFD"
	$'\xe2\x80\xa8\xe2\x80\xa9'
	"$big_want"
)
names=(
	"a lone 0xFF"
	"the overlong C0 80 (two bad bytes)"
	"the surrogate ED A0 80 (three bad bytes)"
	"every control character 0x01..0x1F and DEL"
	"double quotes"
	"backslashes"
	"a 4-byte emoji"
	"valid 2-, 3- and 4-byte sequences"
	"F4 90 80 80, above U+10FFFF (four bad bytes)"
	"a truncated sequence at the end"
	"a truncated sequence before ASCII"
	"stray continuation bytes"
	"U+2028 and U+2029"
	"a 57000-byte argument mixing all of the above"
)

# 1 exit status; python3: 2, one per argument, 3; jq: 2, one per argument,
# 1; 5 on the text
plan $((1 + 2 + ${#names[@]} + 3 + 2 + ${#names[@]} + 1 + 5))

# hex: stdin as one line of hex digits (exact bytes, newlines included).
hex() { od -An -v -tx1 | tr -d ' \n'; }

# assert_same_bytes NAME WANT-FILE GOT-FILE: the files are byte for byte
# the same (the diagnostic shows where they differ, and how they start).
assert_same_bytes() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1" "$(cmp "$2" "$3" 2>&1)
want: $(head -c 48 "$2" | hex)
got:  $(head -c 48 "$3" | hex)"
	fi
}

rep=$TMPD/report.json
s=$(st runx --report="$rep" -- sh -c 'exit 0' sh "${args[@]}")
assert_eq "exit status 0" 0 "$s"

# --- python3: strict UTF-8, strict JSON ------------------------------------
# Prints one line per argument: "ok" or "bad<TAB>repr", then checks of the
# document as a whole.  Expected strings come in as files (argv cannot hold
# what a report of argv must show: the decoded U+FFFD).
mkdir "$TMPD/want"
for i in "${!want[@]}"; do
	printf '%s' "${want[$i]}" >"$TMPD/want/$i"
done
cat >"$TMPD/check.py" <<'EOF'
import json, sys

def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate keys: %r" % keys)
    return dict(pairs)

def no_constant(name):
    raise ValueError("not JSON: %s" % name)

path, wantdir, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
raw = open(path, "rb").read()
try:
    text = raw.decode("utf-8", errors="strict")
    r = json.loads(text, strict=True, object_pairs_hook=no_duplicates,
                   parse_constant=no_constant)
except Exception as e:
    print("invalid\t%s: %s" % (type(e).__name__, e))
    sys.exit(0)
print("valid")
cmd = r.get("command")
print("argc\t%d" % (len(cmd) - 4 if isinstance(cmd, list) else -1))
for i in range(n):
    want = open("%s/%d" % (wantdir, i), "rb").read().decode("utf-8")
    got = cmd[4 + i] if isinstance(cmd, list) and len(cmd) > 4 + i else None
    print("ok" if got == want else ("bad\t%r (want %r)" % (got, want))[:600])
print("head\t%s" % ("ok" if cmd[:4] == ["sh", "-c", "exit 0", "sh"] else repr(cmd[:4])))
reals = [r["wall_time"], r["grace"], r["rusage"]["user_cpu"], r["rusage"]["system_cpu"]]
print("reals\t%s" % ("ok" if all(type(x) is float for x in reals) else repr(reals)))
print("grace\t%r" % (r["grace"],))
EOF
hs=0
"$PY" "$TMPD/check.py" "$rep" "$TMPD/want" "${#want[@]}" >"$TMPD/check.out" 2>"$TMPD/check.err" || hs=$?
mapfile -t py <"$TMPD/check.out"
# (a checker that failed leaves lines missing: those tests fail, with its
# stderr on the first; one that failed after all of them bails out)
hdiag=""
[ "$hs" = 0 ] || hdiag=$(helper_failure "$hs" "$TMPD/check.err")
if [ "$hs" != 0 ] && [ "${#py[@]}" -ge $((${#names[@]} + 5)) ]; then
	bail_out "the python3 checker: $hdiag"
fi
assert_eq "python3 json (strict, strictly decoded UTF-8) parses the report" valid "${py[0]:-}" "$hdiag"
assert_eq "python3: the command has all ${#args[@]} arguments" "argc	${#args[@]}" "${py[1]:-}"
for i in "${!names[@]}"; do
	assert_eq "python3: ${names[$i]}" ok "${py[$((i + 2))]:-missing}"
done
n=$((${#names[@]} + 2))
assert_eq "python3: sh -c 'exit 0' sh kept" "head	ok" "${py[$n]:-}"
assert_eq "python3: times are JSON reals (with a point)" "reals	ok" "${py[$((n + 1))]:-}"
assert_eq "python3: the default grace is 5.0" "grace	5.0" "${py[$((n + 2))]:-}"

# --- jq: a second parser, compared byte for byte --------------------------------
assert_eq "jq parses the report, an object" object "$(jq -r type "$rep" 2>&1)"
assert_eq "jq: the command has all ${#args[@]} arguments" $((${#args[@]} + 4)) \
	"$(jq '.command | length' "$rep")"
for i in "${!names[@]}"; do
	jq -j ".command[$((i + 4))]" "$rep" >"$TMPD/jq.$i"
	assert_same_bytes "jq: ${names[$i]}" "$TMPD/want/$i" "$TMPD/jq.$i"
done
assert_eq "jq: wall_time and grace are numbers" "number number" \
	"$(jq -r '[.wall_time, .grace] | map(type) | join(" ")' "$rep")"

# --- the text -------------------------------------------------------------------
assert_false "no raw control byte in the file (all escaped)" \
	grep -qaP '[\x00-\x09\x0b-\x1f]' "$rep"
assert_eq "the control characters are written as JSON escapes" \
	'"\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000B\f\r\u000E\u000F\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001A\u001B\u001C\u001D\u001E\u001F'$'\x7f''",' \
	"$(sed -n 's/^    \("\\u0001.*\)$/\1/p' "$rep")"
assert_eq "two-space indentation" '  "runx_version": ' "$(sed -n '2s/^\(  "runx_version": \).*/\1/p' "$rep")"
assert_eq "an argument is indented four spaces" '    "sh",' "$(sed -n 4p "$rep")"
assert_eq "the file ends with one newline after the closing brace" "7d0a" \
	"$(tail -c 2 "$rep" | hex)"

done_testing
