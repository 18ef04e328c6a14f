#!/bin/bash
# A static build (./configure --enable-static-binary; make check exports
# how src/runx was linked as RUNX_LINK): the ELF file has no program
# interpreter (PT_INTERP) and needs no shared library (no DT_NEEDED), so
# it runs in a `FROM scratch` image or a busybox initramfs; ldd(1) finds
# nothing to load; the binary still runs a command and reports its status.
# A dynamic build needs the C library alone (no libjansson, nothing else).
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

require_command readelf "(binutils) to read the ELF headers"
case ${RUNX_LINK:-dynamic} in
static-*) ;;
*)
	plan 2
	diag "RUNX_LINK=${RUNX_LINK:-dynamic}"
	# (the sanitizer runtimes of an instrumented build are not runx's)
	assert_eq "dynamic runx: the only shared library it needs is libc" \
		"libc.so.6" \
		"$(LC_ALL=C readelf -dW "$RUNX" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' |
			grep -Ev '^lib(a|ub|l|t)san\.so' | tr '\n' ' ' | sed 's/ $//')"
	assert_eq "dynamic runx: it runs a command: its status 7" 7 \
		"$(st runx -- sh -c 'exit 7')"
	done_testing # exits
	;;
esac

# 3 ELF headers, 2 ldd (where there is one), 2 runs
n_ldd=0
command -v ldd >/dev/null && n_ldd=2
plan $((3 + n_ldd + 2))
diag "RUNX_LINK=$RUNX_LINK"
headers=$(LC_ALL=C readelf -lW "$RUNX" 2>&1)
assert_match "readelf reads $RUNX's program headers" 'Program Headers:' "$headers"
assert_eq "no program interpreter (PT_INTERP)" "" \
	"$(grep -E '^[[:space:]]*INTERP[[:space:]]' <<<"$headers")"
assert_eq "no shared library needed (DT_NEEDED)" "" \
	"$(LC_ALL=C readelf -dW "$RUNX" 2>&1 | grep -F '(NEEDED)')"

# glibc's ldd prints "not a dynamic executable" (or "statically linked"
# for a static PIE) and lists no library.
if command -v ldd >/dev/null; then
	out=$(LC_ALL=C ldd "$RUNX" 2>&1)
	assert_match "ldd: not dynamic" 'not a dynamic executable|statically linked' "$out"
	assert_eq "ldd lists no library" "" "$(grep -F '=>' <<<"$out")"
fi

assert_eq "the static runx runs a command: its status 7" 7 \
	"$(st runx -- sh -c 'exit 7')"
assert_eq "the static runx: command not found is 127" 127 \
	"$(st runx -- /nonexistent/runx-static-test 2>/dev/null)"

if command -v strip >/dev/null; then
	stripped=$TMPD/runx.stripped
	strip -o "$stripped" "$RUNX"
	diag "size stripped: $(stat -c %s "$stripped") bytes"
fi
done_testing
