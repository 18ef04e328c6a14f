#!/bin/bash
# runx as PID 1 of a real OCI container under runc: `runc kill ID TERM`
# (what `docker stop` sends) reaches the app's TERM handler, the grace
# (-k) is honoured before SIGKILL, the container's exit status is the one
# SPEC.md gives, nothing of the container is left (its cgroup, host
# /proc); `runc kill ID HUP` is only forwarded (the container keeps
# running); orphans are reaped by runx as PID 1.
#
# The host has hybrid cgroups whose v1 hierarchies belong to the host, so
# every runc command runs in a private mount namespace in which
# /sys/fs/cgroup is a cgroup2 mount: runc then takes its cgroup v2 manager
# and puts the container in the unified hierarchy, never in v1 (checked:
# the container's v1 cgroups are the ones it inherited from this script,
# and no cgroup named after it appears outside cgroup2).
#
# The runx in the container is $RUNX_STATIC when that names a binary,
# else $RUNX; a dynamic one gets the host's /usr/lib and /usr/lib64
# bind-mounted read-only into the rootfs (busybox-static).
# (shellcheck: new_marker assigns m; the sh -c scripts expand their own $0
# and $1; at_exit and assert_true call functions indirectly.)
# shellcheck source=tests/integration/lib.sh disable=SC2154,SC2016,SC2153,SC2317
. "$TESTLIB"

require_command runc "(Debian package runc; scripts/install-deps)"
require_command unshare "(util-linux)"
require_python3 "to write the container's config.json"
BUSYBOX=$(command -v busybox) || skip_all "busybox is needed (busybox-static)"
if ldd "$BUSYBOX" >/dev/null 2>&1; then
	skip_all "$BUSYBOX is dynamic: the rootfs needs busybox-static"
fi
CG2=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
[ -n "$CG2" ] || skip_all "no cgroup2 file system is mounted (runc's v2 manager needs one)"

CRUNX=$RUNX
if [ -n "${RUNX_STATIC:-}" ] && [ -x "$RUNX_STATIC" ]; then
	CRUNX=$RUNX_STATIC
fi
CRUNX_DYNAMIC=0
ldd "$CRUNX" >/dev/null 2>&1 && CRUNX_DYNAMIC=1
echo "# runx in the container: $CRUNX (dynamic: $CRUNX_DYNAMIC)"

ROOTFS=$TMPD/rootfs
SHARED=$TMPD/shared
STATE=$TMPD/runc-state
mkdir -p "$ROOTFS"/{bin,proc,dev,sys,tmp,usr/lib,usr/lib64,shared} "$SHARED" "$STATE"
cp "$BUSYBOX" "$ROOTFS/bin/busybox"
for a in $("$BUSYBOX" --list); do
	[ "$a" = busybox ] || ln -s busybox "$ROOTFS/bin/$a"
done
ln -s usr/lib "$ROOTFS/lib"
ln -s usr/lib64 "$ROOTFS/lib64"
: >"$ROOTFS/runx"

# xrunc ARGS...: runc with this script's state directory, in a private
# mount namespace whose /sys/fs/cgroup is cgroup2 (see the top).
xrunc() {
	unshare --mount --propagation private sh -c '
		mount -t cgroup2 cgroup2 /sys/fs/cgroup || exit 125
		exec runc --root "$0" "$@"' "$STATE" "$@"
}

CONTAINERS=()
# Whatever a failed test left: SIGKILL the container, delete it.
remove_containers() {
	local id
	for id in ${CONTAINERS[@]+"${CONTAINERS[@]}"}; do
		xrunc kill "$id" KILL >/dev/null 2>&1
		xrunc delete --force "$id" >/dev/null 2>&1
	done
}
at_exit remove_containers

if ! xrunc --version >/dev/null 2>&1; then
	skip_all "needs root: cannot mount cgroup2 on /sys/fs/cgroup in a private mount namespace (unshare --mount)"
fi

# 8 TERM, 6 grace, 6 HUP, 4 orphans, 1 nothing in v1
plan $((8 + 6 + 6 + 4 + 1))

# make_bundle NAME RUNX-ARG...: $TMPD/NAME/config.json from `runc spec`,
# running /runx RUNX-ARG... as the container's process (PID 1), with
# cgroupsPath /runx-runc-$$-NAME and $SHARED mounted read-write at /shared.
make_bundle() {
	local name=$1 b=$TMPD/$1
	shift
	mkdir -p "$b"
	(cd "$b" && runc spec) || return 1
	CG_NAME=runx-runc-$$-$name PY_ROOTFS=$ROOTFS PY_SHARED=$SHARED \
		PY_RUNX=$CRUNX PY_LIBS=$CRUNX_DYNAMIC "$PY" - "$b/config.json" "$@" <<'EOF'
import json, os, sys
path, args = sys.argv[1], sys.argv[2:]
with open(path) as f:
    c = json.load(f)
c["process"]["terminal"] = False
c["process"]["args"] = ["/runx"] + args
# A sanitizer build of runx keeps the settings make check runs it with.
c["process"]["env"] += ["%s=%s" % (k, os.environ[k]) for k in
                        ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS") if k in os.environ]
c["root"] = {"path": os.environ["PY_ROOTFS"], "readonly": True}
c["hostname"] = "runx-test"
c["linux"]["cgroupsPath"] = "/" + os.environ["CG_NAME"]
# No cgroup file system inside: the test needs none.
c["mounts"] = [m for m in c["mounts"] if m["destination"] != "/sys/fs/cgroup"]
binds = [(os.environ["PY_RUNX"], "/runx", "ro"),
         (os.environ["PY_SHARED"], "/shared", "rw")]
if os.environ["PY_LIBS"] == "1":
    binds += [("/usr/lib", "/usr/lib", "ro"), ("/usr/lib64", "/usr/lib64", "ro")]
for src, dst, mode in binds:
    c["mounts"].append({"destination": dst, "type": "bind", "source": src,
                        "options": ["rbind", mode, "nosuid", "nodev"]})
with open(path, "w") as f:
    json.dump(c, f, indent=1)
EOF
}

# start_container NAME RUNX-ARG...: `runc run` in the background, from the
# bundle made by make_bundle; RUN_PID is the pid of that runc (its exit
# status is the container's), its stdout and stderr go to $TMPD/NAME.out.
start_container() {
	local name=$1 id=runx-test-$$-$1
	make_bundle "$@" || return 1
	CONTAINERS+=("$id")
	(cd "$TMPD/$name" && exec unshare --mount --propagation private sh -c '
		mount -t cgroup2 cgroup2 /sys/fs/cgroup || exit 125
		exec runc --root "$0" run "$1"' "$STATE" "$id") \
		</dev/null >"$TMPD/$name.out" 2>&1 &
	RUN_PID=$!
}

# init_pid NAME: the host pid of the container's PID 1 (runx), once running.
init_pid() {
	local state
	state=$(xrunc state "runx-test-$$-$1" 2>/dev/null) || return 0
	"$PY" -c 'import json, sys; s = json.loads(sys.argv[1]); print(s["pid"] if s["status"] == "running" else "")' "$state"
}

# app_pid NAME: the host pid of runx's child in the container (the app).
app_pid() {
	local init
	init=$(init_pid "$1")
	[ -z "$init" ] || pgrep -P "$init"
}

# container_running NAME: runc says the container is running.
container_running() {
	[ -n "$(init_pid "$1")" ]
}

# wait_container NAME: wait for runc run (RUN_PID) to end: RUN_STATUS is
# its exit status ("hung" after 120 s).
wait_container() {
	wait_pid_exit "$RUN_PID" 120
	RUN_STATUS=$WAIT_STATUS
	[ "$RUN_STATUS" != hung ] || diag "runc run $1 hung: $(cat "$TMPD/$1.out")"
}

# assert_container_gone NAME MARKER: after the container ended, no process
# carrying MARKER is alive on the host and its cgroup is gone or empty.
assert_container_gone() {
	local cg=$CG2/runx-runc-$$-$1 procs=""
	assert_dead "$1: no process of the container is left in the host's /proc" "$2"
	[ ! -e "$cg/cgroup.procs" ] || procs=$(cat "$cg/cgroup.procs")
	assert_eq "$1: the container's cgroup is gone or empty" "" "$procs"
}

# --- runc kill TERM reaches the app's handler; its status is the container's

new_marker m
cat >"$SHARED/term.sh" <<EOF
trap 'echo TERM >/shared/term.got; exit 3' TERM
echo ready >/shared/term.ready
while :; do sleep $m & wait; done
EOF
start_container term "${LAUNCH_ARGS[@]}" -v -k 10s -- sh /shared/term.sh
if wait_file "$SHARED/term.ready" 120; then
	ok "term: the container's app started under runx"
else
	not_ok "term: the container's app started under runx" "$(cat "$TMPD/term.out")"
fi
pid=$(init_pid term)
assert_eq "term: runx is the container's PID 1" 1 \
	"$(awk '/^NSpid:/ { print $NF }' "/proc/$pid/status" 2>/dev/null)"
# runc used its v2 manager: the container is in cgroup2's
# /runx-runc-$$-term, and in v1 it stays where this script is.
assert_eq "term: runc put the container in the unified hierarchy" \
	"0::/runx-runc-$$-term" "$(grep '^0::' "/proc/$pid/cgroup" 2>/dev/null)"
assert_eq "term: the container's v1 cgroups are this script's (runc wrote none)" \
	"$(grep -v '^0::' /proc/self/cgroup)" "$(grep -v '^0::' "/proc/$pid/cgroup" 2>/dev/null)"
xrunc kill "runx-test-$$-term" TERM
wait_container term
assert_eq "term: the app's TERM handler ran" TERM "$(cat "$SHARED/term.got" 2>/dev/null)"
assert_eq "term: the container exits with the app's status (3)" 3 "$RUN_STATUS" \
	"$(cat "$TMPD/term.out")"
assert_container_gone term "$m"

# --- an app that ignores TERM gets SIGKILL only after runx's grace -------------

new_marker m
cat >"$SHARED/grace.sh" <<EOF
trap 'echo TERM >/shared/grace.got' TERM
echo ready >/shared/grace.ready
while :; do sleep 0.1; done
EOF
# (a grace of 8 s: the check 1 s after the handler ran holds on a loaded
# machine, where runc kill and the handler take a while)
start_container grace "${LAUNCH_ARGS[@]}" -v -k 8s -- sh /shared/grace.sh "$m"
wait_file "$SHARED/grace.ready" 120
app=$(app_pid "grace")
xrunc kill "runx-test-$$-grace" TERM
assert_true "grace: the app's TERM handler ran" wait_file "$SHARED/grace.got" 60
sleep 1
assert_true "grace: 1 s into the 8 s grace the app is still alive" pid_alive "${app:-0}"
wait_container grace
assert_eq "grace: the container exits 137 (SIGKILL after the grace; a stop is not a deadline)" \
	137 "$RUN_STATUS" "$(cat "$TMPD/grace.out")"
assert_match "grace: runx sent the SIGKILL after its 8s grace" \
	"still alive after the 8s grace period.*SIGKILL" "$(tr '\n' ' ' <"$TMPD/grace.out")"
assert_container_gone grace "$m"

# --- runc kill HUP is only forwarded: the container keeps running ----------------

new_marker m
cat >"$SHARED/hup.sh" <<EOF
trap 'echo HUP >>/shared/hup.got' HUP
trap 'exit 4' TERM
echo ready >/shared/hup.ready
while :; do sleep 0.1; done
EOF
start_container hup "${LAUNCH_ARGS[@]}" -v -k 1s -- sh /shared/hup.sh "$m"
wait_file "$SHARED/hup.ready" 120
app=$(app_pid "hup")
xrunc kill "runx-test-$$-hup" HUP
assert_true "hup: the app's HUP handler ran" wait_file "$SHARED/hup.got" 60
# Past runx's 1 s grace: had HUP started a stop, SIGKILL would have come.
sleep 2
assert_true "hup: 2 s later the app is still alive (HUP is not a stop signal)" pid_alive "${app:-0}"
assert_true "hup: 2 s later the container is still running" container_running hup
xrunc kill "runx-test-$$-hup" TERM 2>/dev/null
wait_container hup
assert_eq "hup: a TERM then ends it with the app's status (4)" 4 "$RUN_STATUS" \
	"$(cat "$TMPD/hup.out")"
assert_container_gone hup "$m"

# --- orphans are reaped by runx as PID 1 -------------------------------------------

new_marker m
cat >"$SHARED/zombie.sh" <<'EOF'
# Orphans (their parents exit at once) that exit by themselves: they are
# re-parented to PID 1 (runx), which must reap them.
(sleep 0.1 &)
(sh -c 'sleep 0.2 &' &)
setsid sh -c 'sleep 0.1 &'
sh -c '(sleep 0.1; exit 3) & exit 0'
i=0
while :; do
	sleep 0.5
	ps -o stat,ppid,pid,args >/shared/zombie.ps
	n=$(awk '$1 ~ /^Z/' /shared/zombie.ps | wc -l)
	[ "$n" -eq 0 ] && [ $i -ge 1 ] && break
	i=$((i + 1))
	[ $i -ge 20 ] && break
done
echo "$n" >/shared/zombie.count
exit 6
EOF
start_container zombie "${LAUNCH_ARGS[@]}" -k 1s -- sh /shared/zombie.sh "$m"
wait_container zombie
assert_eq "zombie: the container exits with the app's status (6)" 6 "$RUN_STATUS" \
	"$(cat "$TMPD/zombie.out")"
assert_eq "zombie: no zombie left in the container" 0 \
	"$(cat "$SHARED/zombie.count" 2>/dev/null)" "$(cat "$SHARED/zombie.ps" 2>/dev/null)"
assert_container_gone zombie "$m"

# --- runc wrote nothing in the host's v1 hierarchies --------------------------------

left=$(find /sys/fs/cgroup -path "$CG2" -prune -o -name "runx-runc-$$-*" -print 2>/dev/null)
assert_eq "no cgroup of these containers appeared outside cgroup2" "" "$left"

done_testing
