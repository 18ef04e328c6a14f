#!/bin/bash
# Out of file descriptors, never a lie (runx(1), "The point of no
# return"): for every backend x scope x {plain, --idle-timeout, --report}
# and RLIMIT_NOFILE from 3 to 24 (the cgroup scope needs more than 16, so
# the range goes on until it runs too), runx either refuses before
# anything starts (125, one line, the command never ran) or runs the
# command under a working deadline and empties its scope before it exits
# (124, and no process of the job alive the moment runx is gone).  It
# never hangs.
# Loops over the backends itself: run once.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"
require_python3 "(the test harness)"

cgroup_ok=no
[ "$("$RUNX" -C -- true 2>/dev/null; echo $?)" = 0 ] && cgroup_ok=yes
diag "cgroup scope usable here: $cgroup_ok"

cat >"$TMPD/matrix.py" <<'EOF'
import concurrent.futures, os, re, subprocess, sys
runx, tmpd, marker_base, cgroup_ok = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "yes"
backends = ["posix_spawn", "fork", "vfork", "clone3"]
scopes = ["child", "group", "tree"] + (["cgroup"] if cgroup_ok else [])
modes = {"plain": [], "idle": ["--idle-timeout=30"], "report": ["--report=%s/r-{id}.json" % tmpd]}

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

def one(case):
    i, b, sc, mode, n = case
    marker = "%s%d" % (marker_base, i)
    started = "%s/started-%d" % (tmpd, i)
    job = "touch %s; trap '' TERM; sleep %s & sleep %s" % (started, marker, marker)
    if sc == "child":
        job = "touch %s; exec sleep %s" % (started, marker)
    args = [a.replace("{id}", str(i)) for a in modes[mode]]
    cmd = "ulimit -n %d && exec %s --launch=%s --kill-scope=%s -t 0.3 -k 0.2 %s -- sh -c %s" % (
        n, runx, b, sc, " ".join(args), "'" + job.replace("'", "'\\''") + "'")
    try:
        p = subprocess.run(["bash", "-c", cmd], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=30)
        status, err = p.returncode, p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        status, err = "hung", ""
    left = alive(marker)
    for pid in left:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    ran = os.path.exists(started)
    name = "%s %s %s ulimit -n %d" % (b, sc, mode, n)
    lines = err.strip().splitlines()
    # one line; with --report, a second may say the report could not be
    # written either (for the same lack of fds)
    extra = [l for l in lines[1:] if not l.startswith("runx: cannot write the report")]
    if status == 125 and not ran and len(lines) >= 1 and not extra and not left:
        return (True, name, "refused: " + lines[0])
    if status == 124 and ran and not left:
        return (True, name, "ran")
    # a dynamic runx with 3 fds: the dynamic loader cannot open libc, and
    # exits 127 before runx's first instruction (the static build runs)
    if status == 127 and not ran and not left and "error while loading shared libraries" in err:
        return (True, name, "refused by the dynamic loader")
    return (False, name, "status %s, ran %s, left %s, stderr %r" % (status, ran, left, err[-400:]))

cases = []
i = 0
for b in backends:
    for sc in scopes:
        for mode in modes:
            for n in range(3, 25):
                i += 1
                cases.append((i, b, sc, mode, n))
ran = refused = 0
with concurrent.futures.ThreadPoolExecutor(max_workers=8) as ex:
    for good, name, why in ex.map(one, cases):
        if good:
            print("ok - %s: %s" % (name, why))
            ran += why == "ran"
            refused += why != "ran"
        else:
            print("not ok - %s" % name)
            print("# " + why)
print("# %d ran under a working deadline, %d refused before starting" % (ran, refused))
EOF

while IFS= read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	"not ok - "*) name=${line#not ok - } ;;
	"# "*)
		if [ -n "${name:-}" ]; then
			not_ok "$name" "${line#\# }"
			name=""
		else
			diag "${line#\# }"
		fi
		;;
	esac
done < <("$PY" "$TMPD/matrix.py" "$RUNX" "$TMPD" "1000.${MARK_BASE}8" "$cgroup_ok")

# The example from the issue: with 7 fds the group scope used to start the
# command, fail to arm the deadline, and exit 137; now it refuses.
new_marker m
s=$( (ulimit -n 7 && exec "$RUNX" -t 1 -- sh -c "touch $TMPD/seven.$m; sleep $m") 2>"$TMPD/seven.err"; echo $?)
assert_eq "ulimit -n 7, group: 125" 125 "$s"
assert_false "ulimit -n 7, group: nothing started" test -e "$TMPD/seven.$m"
assert_match "ulimit -n 7, group: one line saying why" "^runx: .*(file descriptors|Too many open files)[^
]*$" "$(cat "$TMPD/seven.err")"
assert_dead "ulimit -n 7: nothing left" "$m"

done_testing
