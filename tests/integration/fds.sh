#!/bin/bash
# Out of file descriptors, never a lie (runx(1), "The point of no
# return"): for every backend (RUNX_FDS_BACKENDS: some) x scope x
# {plain, --idle-timeout, --report}
# and RLIMIT_NOFILE from 3 to 24 (the cgroup scope needs more than 16, so
# the range goes on until it runs too), runx either refuses before
# anything starts (125, one line, the command never ran) or runs the
# command under a working deadline and empties its scope before it exits
# (124, and no process of the job alive the moment runx is gone).  It
# never hangs.  The helper that runs the matrix is checked: a case it
# gives no result for is a failure, and so is its own failure.
# Loops over the backends itself: run once.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"
require_python3 "(the test harness)"

cgroup_ok=no
[ "$("$RUNX" -C -- true 2>/dev/null; echo $?)" = 0 ] && cgroup_ok=yes
diag "cgroup scope usable here: $cgroup_ok"

# The backends of the matrix: RUNX_FDS_BACKENDS (some of them,
# space-separated), or all.  .ci/run's sanitizer build names the default
# one and posix_spawn, the one whose launch owns heap memory of its own
# (the README's command and the static binary's distcheck run all four).
backends=${RUNX_FDS_BACKENDS:-$ALL_BACKENDS}
for b in $backends; do
	is_backend "$b" || bail_out "RUNX_FDS_BACKENDS: '$b' is not one of: $ALL_BACKENDS"
done
[ -n "${backends// /}" ] || bail_out "RUNX_FDS_BACKENDS names no backend"
[ "$backends" = "$ALL_BACKENDS" ] || diag "RUNX_FDS_BACKENDS: the matrix covers $backends"

# The cases, in the order of their test lines: "BACKEND SCOPE MODE N".
# Every backend x scope x mode x N is a test; where the cgroup scope
# cannot run, its cases are skips.
: >"$TMPD/cases"
ncases=0
for b in $backends; do
	for sc in child group tree cgroup; do
		for mode in plain idle report; do
			for ((n = 3; n <= 24; n++)); do
				echo "$b $sc $mode $n" >>"$TMPD/cases"
				ncases=$((ncases + 1))
			done
		done
	done
done
plan $((ncases + 4 + 2 * 3))

# The helper runs the cases it is given (one a line: "I BACKEND SCOPE MODE
# N") eight at a time and prints "I<TAB>ok|fail<TAB>WHY" for each.  The
# job writes its "started" file first: a deadline (-t) that came before
# that (status 124, no started file: a loaded machine) tells nothing, so
# such a case runs again with a longer deadline (3, 10, then 30 s).  A run
# that takes longer than 60 s plus 4 deadlines is "hung".
cat >"$TMPD/matrix.py" <<'EOF'
import concurrent.futures, os, subprocess, sys
runx, tmpd, marker_base, casefile = sys.argv[1:5]
modes = {"plain": [], "idle": ["--idle-timeout=30"], "report": ["--report=%s/r-{id}.json" % tmpd]}
deadlines = [0.3, 3, 10, 30]

def alive(marker):
    """pids of live processes whose command line holds marker"""
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            cmd = open("/proc/%s/cmdline" % p, "rb").read()
            st = open("/proc/%s/stat" % p).read()
        except OSError:
            continue
        if marker.encode() in cmd and st.rsplit(")", 1)[1].split()[0] not in "ZXx":
            found.append(int(p))
    return found

def run(i, b, sc, mode, n, t):
    """one run of case i with the deadline t: status, stderr, left, ran"""
    marker = "%s%d" % (marker_base, i)
    started = "%s/started-%d" % (tmpd, i)
    if os.path.exists(started):
        os.unlink(started)
    job = "touch %s; trap '' TERM; sleep %s & sleep %s" % (started, marker, marker)
    if sc == "child":
        job = "touch %s; exec sleep %s" % (started, marker)
    args = [a.replace("{id}", str(i)) for a in modes[mode]]
    cmd = "ulimit -n %d && exec %s --launch=%s --kill-scope=%s -t %s -k 0.2 %s -- sh -c %s" % (
        n, runx, b, sc, t, " ".join(args), "'" + job.replace("'", "'\\''") + "'")
    try:
        p = subprocess.run(["bash", "-c", cmd], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=60 + 4 * t)
        status, err = p.returncode, p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        status, err = "hung", ""
    left = alive(marker)
    for pid in left:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    return status, err, left, os.path.exists(started)

def one(case):
    i, b, sc, mode, n = case
    for t in deadlines:
        status, err, left, ran = run(i, b, sc, mode, n, t)
        if not (status == 124 and not ran and not left):
            break
    late = "" if t == deadlines[0] else " (-t %s: the job had not started before the shorter deadlines)" % t
    lines = err.strip().splitlines()
    # one line; with --report, a second may say the report could not be
    # written either (for the same lack of fds)
    extra = [l for l in lines[1:] if not l.startswith("runx: cannot write the report")]
    if status == 125 and not ran and len(lines) >= 1 and not extra and not left:
        return (i, True, "refused: " + lines[0])
    if status == 124 and ran and not left:
        return (i, True, "ran" + late)
    # a dynamic runx with 3 fds: the dynamic loader cannot open libc, and
    # exits 127 before runx's first instruction (the static build runs)
    if status == 127 and not ran and not left and "error while loading shared libraries" in err:
        return (i, True, "refused by the dynamic loader")
    return (i, False, "status %s, ran %s, left %s, stderr %r%s" % (status, ran, left, err[-400:], late))

cases = []
for line in open(casefile):
    i, b, sc, mode, n = line.split()
    cases.append((int(i), b, sc, mode, int(n)))
with concurrent.futures.ThreadPoolExecutor(max_workers=8) as ex:
    for i, good, why in ex.map(one, cases):
        print("%d\t%s\t%s" % (i, "ok" if good else "fail", why.replace("\n", " ")), flush=True)
EOF

# The cases this machine can run go to the helper; its results are read
# once it is done, and every case gets its test line, in order.
awk -v cg="$cgroup_ok" '$2 != "cgroup" || cg == "yes" { print NR, $0 }' "$TMPD/cases" >"$TMPD/torun"
hs=0
"$PY" "$TMPD/matrix.py" "$RUNX" "$TMPD" "1000.${MARK_BASE}8" "$TMPD/torun" \
	>"$TMPD/results" 2>"$TMPD/matrix.err" || hs=$?
declare -A res=()
while IFS=$'\t' read -r i r why; do
	res[$i]="$r	$why"
done <"$TMPD/results"
i=0 nran=0 nrefused=0 nmissing=0
while read -r b sc mode n; do
	i=$((i + 1))
	name="$b $sc $mode ulimit -n $n"
	if [ "$sc" = cgroup ] && [ "$cgroup_ok" = no ]; then
		skip "$name" "the cgroup scope is not usable here"
	elif [ -z "${res[$i]+set}" ]; then
		nmissing=$((nmissing + 1))
		not_ok "$name" "no result: $(helper_failure "$hs" "$TMPD/matrix.err")"
	elif [ "${res[$i]%%	*}" = ok ]; then
		why=${res[$i]#*	}
		ok "$name: $why"
		case $why in
		ran*) nran=$((nran + 1)) ;;
		*) nrefused=$((nrefused + 1)) ;;
		esac
	else
		not_ok "$name" "${res[$i]#*	}"
	fi
done <"$TMPD/cases"
if [ "$hs" != 0 ] && [ "$nmissing" = 0 ]; then
	bail_out "the matrix: $(helper_failure "$hs" "$TMPD/matrix.err")"
fi
diag "$nran ran under a working deadline, $nrefused refused before starting"

# The example from the issue: with 7 fds the group scope used to start the
# command, fail to arm the deadline, and exit 137; now it refuses.
new_marker m
s=$( (ulimit -n 7 && exec "$RUNX" -t 1 -- sh -c "touch $TMPD/seven.$m; sleep $m") 2>"$TMPD/seven.err"; echo $?)
assert_eq "ulimit -n 7, group: 125" 125 "$s"
assert_false "ulimit -n 7, group: nothing started" test -e "$TMPD/seven.$m"
assert_match "ulimit -n 7, group: one line saying why" "^runx: .*(file descriptors|Too many open files)[^
]*$" "$(cat "$TMPD/seven.err")"
assert_dead "ulimit -n 7: nothing left" "$m"

# Leftovers counted with few fds: the census watches each live member
# through a pidfd, up to 64, but never so many that the walk of /proc
# which finds them runs out of fds (runx_census_found()).  With 16 fds
# and 30 leftovers, runx used to say "cannot list the processes of the
# scope: Too many open files" and count fewer.  Inherited fds above 2
# are closed, so that the limit is what runx has.
# close_inherited_fds: closes every fd of this (sub)shell above 2.
# (The list is taken first: the glob reads it through an fd of its own,
# gone by then.  No redirect on the loop: bash would keep the fd it saves
# fd 2 in above 2, and the loop would close it.)
close_inherited_fds() {
	local fd fds=(/proc/"$BASHPID"/fd/*)
	for fd in "${fds[@]##*/}"; do
		[ "$fd" -gt 2 ] && [ -e "/proc/$BASHPID/fd/$fd" ] && eval "exec $fd>&-"
	done
	return 0
}
for sc in group tree; do
	new_marker m
	s=$( (close_inherited_fds && ulimit -n 16 && exec "$RUNX" "${LAUNCH_ARGS[@]}" -v --kill-scope=$sc -k 5 -- \
		sh -c "for i in \$(seq 30); do sleep $m & done; exit 7") 2>"$TMPD/few.err"; echo $?)
	assert_eq "ulimit -n 16, $sc, 30 leftovers: the command's status, all 30 counted" \
		"7 1" "$s $(grep -c "^runx: stopping 30 leftover processes in " "$TMPD/few.err")" "$(cat "$TMPD/few.err")"
	assert_eq "ulimit -n 16, $sc, 30 leftovers: no census failed" 0 \
		"$(grep -c 'cannot list' "$TMPD/few.err")"
	assert_dead "ulimit -n 16, $sc, 30 leftovers: nothing left" "$m"
done

done_testing
