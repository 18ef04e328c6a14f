#!/bin/sh
# /init of the scripts/vm-check guest (busybox sh, PID 1 of the VM).
#
# Mounts a pure cgroup v2 hierarchy with the options systemd uses, enables
# memory, pids and cpu for the root's children, then runs every guest test
# named in /tests/run-list in two layouts, one after the other:
#   root     the test shell (and so runx) in the root cgroup;
#   session  the test shell in a populated session scope, as a systemd host
#            gives a root shell: /user.slice/user-0.slice/session-1.scope,
#            holding a sleeping process too, with +memory +pids +cpu in
#            the subtree_control of every parent (the scope's own is empty).
# The session layout only adds to the root one (nothing is left of the
# first run: each test checks that no runx-* cgroup remains).
#
# Lines for the host (scripts/vm-check): VM-INIT-START, then per script
# VM-TEST-START LAYOUT SCRIPT and VM-TEST-END LAYOUT SCRIPT status=N, the
# scripts' TAP lines in between, and VM-DONE last; then power-off.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root RUNX=/bin/runx
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t cgroup2 -o nsdelegate,memory_recursiveprot cgroup2 /sys/fs/cgroup
CG=/sys/fs/cgroup
SESSION=/user.slice/user-0.slice/session-1.scope

# uptime: seconds since boot (guest clock).
uptime_s() {
	cut -d' ' -f1 /proc/uptime
}

# run_layout LAYOUT CGROUP: every test script, each in a shell that first
# moves itself into CGROUP (relative to the mount).
run_layout() {
	while read -r t; do
		echo "VM-TEST-START $1 $t uptime=$(uptime_s)"
		VM_LAYOUT=$1 sh -c 'echo $$ >"$1/cgroup.procs" && exec sh "$2"' \
			sh "$CG$2" "/tests/$t" </dev/null
		echo "VM-TEST-END $1 $t status=$? uptime=$(uptime_s)" </dev/null
	done </tests/run-list
}

echo "VM-INIT-START uptime=$(uptime_s) kernel=$(uname -r)" \
	"controllers=$(tr ' ' , <$CG/cgroup.controllers) cpus=$(nproc)"
echo "+memory +pids +cpu" >$CG/cgroup.subtree_control

run_layout root ""

mkdir -p "$CG$SESSION"
echo "+memory +pids +cpu" >$CG/user.slice/cgroup.subtree_control
echo "+memory +pids +cpu" >$CG/user.slice/user-0.slice/cgroup.subtree_control
sh -c 'echo $$ >"$1/cgroup.procs" && exec sleep 100000' sh "$CG$SESSION" &
VM_SESSION_PID=$!
while ! grep -qx "0::$SESSION" "/proc/$VM_SESSION_PID/cgroup"; do sleep 0.05; done
export VM_SESSION=$SESSION VM_SESSION_PID
run_layout session "$SESSION"
kill "$VM_SESSION_PID"

echo "VM-DONE uptime=$(uptime_s)"
sync
poweroff -f
