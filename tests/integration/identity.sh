#!/bin/bash
# The command's identity and settings: --user (names, numbers,
# USER:GROUP, supplementary groups, HOME/USER/LOGNAME, no capability
# left), --rlimit, --no-new-privs, --chdir, --umask; refusals (125, one
# line naming the value, nothing started); redirects opened before the
# drop; posix_spawn refused; a child whose drop fails never runs the
# command; and in every scope, a job dropped to nobody that ignores
# SIGTERM is stopped on time with nothing left.
#
# The passwd and group files are the test's own, bind-mounted over
# /etc/passwd and /etc/group in a private mount namespace: the script
# runs itself again inside `unshare -m --propagation private` (the
# machine's files are never changed).
if [ -z "${RUNX_IDENTITY_NS:-}" ] && [ "$(id -u)" = 0 ] &&
	unshare -m --propagation private true 2>/dev/null; then
	RUNX_IDENTITY_NS=1 exec unshare -m --propagation private "$BASH" "$0" "$@"
fi
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"
require_root "(--user changes the identity of the command)"
[ -n "${RUNX_IDENTITY_NS:-}" ] ||
	skip_all "unshare -m is not permitted here (a private mount namespace)"

SCOPES=(group tree cgroup pidns)
# 8 --user app, 2 number with entry, 5 number without, 2 USER:GROUP,
# 13 refusals, 4 rlimit, 2 no-new-privs, 5 chdir, 3 umask, 2 redirect,
# 3 drop fails, 3 per scope
N_IDENTITY=$((8 + 2 + 5 + 2 + 13 + 4 + 2 + 5 + 3 + 2 + 3 + 3 * ${#SCOPES[@]}))
plan $((2 + N_IDENTITY))

cat >"$TMPD/passwd" <<'EOF'
# the test's own passwd: comments, an empty line, a numeric name

root:x:0:0:root:/root:/bin/bash
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
app:x:1234:1234:The App,,,:/home/app:/bin/sh
9999:x:4321:4321::/home/numeric:/bin/sh
EOF
# last: an entry whose home (4,106 bytes) is longer than PATH_MAX
printf 'deep:x:4444:4444::/%s:/bin/sh\n' "$(printf 'd%.0s' $(seq 4105))" >>"$TMPD/passwd"
printf 'root:x:0:\nnogroup:x:65534:\napp:x:1234:\nstaff:x:50:app\nextra:x:51:nobody,app\ntools:x:52:app' >"$TMPD/group"
if ! mount --bind "$TMPD/passwd" /etc/passwd || ! mount --bind "$TMPD/group" /etc/group; then
	bail_out "cannot bind-mount the test's passwd and group"
fi

# --- posix_spawn runs no code of runx's in the child: 125 ---------------
s=0
runx_with posix_spawn --user=app -- touch "$TMPD/spawned" 2>"$TMPD/ps.err" || s=$?
assert_eq "posix_spawn with --user: 125, nothing started" "125 no" \
	"$s $(test -e "$TMPD/spawned" && echo yes || echo no)"
assert_eq "posix_spawn with --umask: the message says why" \
	"runx: --launch=posix_spawn cannot apply --umask: it runs no code of runx's in the child; use --launch=vfork (the default), fork or clone3" \
	"$(runx_with posix_spawn --umask=022 -- true 2>&1)"

if [ "${RUNX_LAUNCH:-}" = posix_spawn ]; then
	skips "$N_IDENTITY" "identity and settings" "posix_spawn cannot apply them (checked above)"
	done_testing
else

# status_of ARGS...: runx ARGS (stdout to $TMPD/out, stderr to $TMPD/err)
# and its exit status.
status_of() {
	local s=0
	runx "$@" >"$TMPD/out" 2>"$TMPD/err" || s=$?
	echo "$s"
}

# proc_ids: the command's view of itself, one line.
# shellcheck disable=SC2016 # expanded by the command's shell
PROC_IDS='grep -E "^(Uid|Gid|Groups|CapEff|CapPrm|CapAmb|NoNewPrivs):" /proc/self/status | tr -s "\t " " " | paste -sd"|"'

# --- --user by name ------------------------------------------------------
assert_eq "--user=app: status 0" 0 "$(status_of --user=app -- id)" "$(cat "$TMPD/err")"
assert_eq "--user=app: id" "uid=1234(app) gid=1234(app) groups=1234(app),50(staff),51(extra),52(tools)" \
	"$(cat "$TMPD/out")"
runx --user=app -- sh -c "$PROC_IDS" >"$TMPD/out" 2>&1
assert_eq "--user=app: /proc/self/status: every id, the groups, no capability" \
	"Uid: 1234 1234 1234 1234|Gid: 1234 1234 1234 1234|Groups: 50 51 52 1234 |CapPrm: 0000000000000000|CapEff: 0000000000000000|CapAmb: 0000000000000000|NoNewPrivs: 0" \
	"$(cat "$TMPD/out")"
HOME=/root USER=root LOGNAME=root runx --user=app -- sh -c 'echo "$HOME|$USER|$LOGNAME|$RUNX_ATTEMPT"' >"$TMPD/out" 2>&1
assert_eq "--user=app: HOME, USER, LOGNAME from the entry" "/home/app|app|app|1" "$(cat "$TMPD/out")"
FOO=kept runx --user=app -- sh -c 'echo "$FOO"; env | grep -c "^HOME="' >"$TMPD/out" 2>&1
assert_eq "--user=app: the rest of the environment kept, HOME once" "kept|1" "$(paste -sd'|' "$TMPD/out")"
runx --user=app -- sh -c 'touch /root/x 2>/dev/null && echo wrote || echo denied' >"$TMPD/out" 2>&1
assert_eq "--user=app: the command cannot write where only root can" denied "$(cat "$TMPD/out")"
runx -v --user=app -- true 2>"$TMPD/err"
assert_eq "-v --user=app: says who the command runs as" \
	"runx: the command runs as uid 1234, gid 1234, with 4 supplementary groups" \
	"$(grep 'runs as' "$TMPD/err")"
runx --user=nobody -- id >"$TMPD/out" 2>&1
assert_eq "--user=nobody: its primary group and its supplementary one" \
	"uid=65534(nobody) gid=65534(nogroup) groups=65534(nogroup),51(extra)" "$(cat "$TMPD/out")"

# --- a number with an entry is that user ---------------------------------
assert_eq "--user=1234: status 0" 0 "$(status_of --user=1234 -- sh -c 'id; echo "$HOME"')"
assert_eq "--user=1234: the entry's groups and HOME" \
	"uid=1234(app) gid=1234(app) groups=1234(app),50(staff),51(extra),52(tools)|/home/app" \
	"$(paste -sd'|' "$TMPD/out")"

# --- a number without an entry: same group, no supplementary one ---------
# (9999 is a user's name, not its uid: as a number it has no entry)
for u in 4242 9999; do
	runx --user=$u -- sh -c "$PROC_IDS" >"$TMPD/out" 2>&1
	assert_eq "--user=$u (no entry): the ids, no group, no capability" \
		"Uid: $u $u $u $u|Gid: $u $u $u $u|Groups: |CapPrm: 0000000000000000|CapEff: 0000000000000000|CapAmb: 0000000000000000|NoNewPrivs: 0" \
		"$(cat "$TMPD/out")"
done
HOME=/root USER=root LOGNAME=root runx --user=4242 -- sh -c 'echo "$HOME|${USER-unset}|${LOGNAME-unset}"' >"$TMPD/out" 2>&1
assert_eq "--user=4242: HOME=/, no USER or LOGNAME of root's" "/|unset|unset" "$(cat "$TMPD/out")"
runx --user=4242:app -- id >"$TMPD/out" 2>&1
assert_eq "--user=4242:app: the group by name" "uid=4242 gid=1234(app) groups=1234(app)" "$(cat "$TMPD/out")"
runx --user=4242:77 -- id >"$TMPD/out" 2>&1
assert_eq "--user=4242:77: the group by number" "uid=4242 gid=77 groups=77" "$(cat "$TMPD/out")"

# --- USER:GROUP ------------------------------------------------------------
runx --user=app:staff -- id >"$TMPD/out" 2>&1
assert_eq "--user=app:staff: GROUP, then the user's groups" \
	"uid=1234(app) gid=50(staff) groups=50(staff),51(extra),52(tools)" "$(cat "$TMPD/out")"
runx --user=nobody:0 -- id >"$TMPD/out" 2>&1
assert_eq "--user=nobody:0: a group by number" \
	"uid=65534(nobody) gid=0(root) groups=0(root),51(extra)" "$(cat "$TMPD/out")"

# --- refusals: 125, one line naming the value, nothing started ------------
# refused NAME MESSAGE ARGS...: runx ARGS -- touch a file; 125, exactly
# MESSAGE on stderr, and the file is not there.
refused() {
	local name=$1 msg=$2 s=0
	shift 2
	rm -f "$TMPD/started"
	runx "$@" -- touch "$TMPD/started" 2>"$TMPD/err" || s=$?
	assert_eq "$name: 125, the message, nothing started" \
		"125|$msg|no" \
		"$s|$(paste -sd'#' "$TMPD/err")|$(test -e "$TMPD/started" && echo yes || echo no)"
}
refused "an unknown user" \
	"runx: --user: unknown user 'nosuch' (not in '/etc/passwd')" --user=nosuch
refused "an unknown user, escaped" \
	"runx: --user: unknown user 'a\\nb\\x1b' (not in '/etc/passwd')" --user=$'a\nb\x1b'
refused "a passwd entry with a home longer than PATH_MAX, by name" \
	"runx: --user: the entry of user 'deep' in '/etc/passwd' is too long for runx (a name of 256 bytes or more, or a home of 4096 or more)" --user=deep
refused "a passwd entry with a home longer than PATH_MAX, by number" \
	"runx: --user: the entry of user '4444' in '/etc/passwd' is too long for runx (a name of 256 bytes or more, or a home of 4096 or more)" --user=4444
refused "an unknown group" \
	"runx: --user: unknown group 'wheel' (not in '/etc/group')" --user=app:wheel
refused "a user id past the largest" \
	"runx: --user: unknown user '4294967295' (not in '/etc/passwd'; a user id is 0 to 4294967294)" --user=4294967295
refused "a negative group id" \
	"runx: --user: unknown group '-1' (not in '/etc/group'; a group id is 0 to 4294967294)" --user=root:-1
refused "a GROUP without a USER" \
	"runx: --user=':staff': a GROUP needs a USER (USER:GROUP)" --user=:staff
refused "SOFT above HARD" \
	"runx: --rlimit='nofile=300:200': SOFT is above HARD" --rlimit=nofile=300:200
refused "an unknown resource" \
	"runx: invalid --rlimit 'files=1' (RES=SOFT[:HARD], RES one of as core cpu data fsize memlock msgqueue nice nofile nproc rss rtprio rttime sigpending stack)" --rlimit=files=1
refused "a missing --chdir" \
	"runx: --chdir='$TMPD/missing': No such file or directory" --chdir="$TMPD/missing"
refused "a --chdir that is a file" \
	"runx: --chdir='$TMPD/passwd': Not a directory" --chdir="$TMPD/passwd"
refused "a bad umask" "runx: invalid umask '8' (octal, 0 to 0777)" --umask=8

# --- --rlimit -------------------------------------------------------------
runx --rlimit=nofile=100:200 --rlimit=core=0 --rlimit=cpu=unlimited --user=app -- \
	sh -c 'echo "$(ulimit -Sn) $(ulimit -Hn) $(ulimit -c) $(ulimit -t)"' >"$TMPD/out" 2>&1
assert_eq "--rlimit: nofile, core, cpu in the command (as app)" "100 200 0 unlimited" "$(cat "$TMPD/out")"
runx --rlimit=fsize=4096 -- sh -c 'grep "^Max file size" /proc/self/limits | tr -s " " | sed "s/ *$//"' >"$TMPD/out" 2>&1
assert_eq "--rlimit=fsize=4096: HARD is SOFT, in bytes" "Max file size 4096 4096 bytes" "$(cat "$TMPD/out")"
hard=$(ulimit -Hn)
cap_res=no
(((16#$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status) >> 24) & 1)) && cap_res=yes
s=$(status_of --rlimit=nofile=10:$((hard + 1)) -- true)
if [ $cap_res = yes ]; then
	assert_eq "--rlimit: a HARD above runx's own, with CAP_SYS_RESOURCE: 0" 0 "$s" "$(cat "$TMPD/err")"
	ok "--rlimit: (no message to check with CAP_SYS_RESOURCE)"
else
	assert_eq "--rlimit: a HARD above runx's own, without CAP_SYS_RESOURCE: 125" 125 "$s"
	assert_eq "--rlimit: the message names the value and runx's limit" \
		"runx: --rlimit='nofile=10:$((hard + 1))': HARD is above runx's own hard limit ($hard), which only CAP_SYS_RESOURCE may raise" \
		"$(cat "$TMPD/err")"
fi

# --- --no-new-privs --------------------------------------------------------
runx --no-new-privs -- sh -c 'grep "^NoNewPrivs:" /proc/self/status | tr -s "\t" " "' >"$TMPD/out" 2>&1
assert_eq "--no-new-privs: NoNewPrivs 1" "NoNewPrivs: 1" "$(cat "$TMPD/out")"
runx --user=app --no-new-privs -- sh -c "$PROC_IDS" >"$TMPD/out" 2>&1
assert_eq "--user=app --no-new-privs: both" \
	"Uid: 1234 1234 1234 1234|Gid: 1234 1234 1234 1234|Groups: 50 51 52 1234 |CapPrm: 0000000000000000|CapEff: 0000000000000000|CapAmb: 0000000000000000|NoNewPrivs: 1" \
	"$(cat "$TMPD/out")"

# --- --chdir ---------------------------------------------------------------
mkdir -p "$TMPD/work/sub" "$TMPD/here"
chmod 755 "$TMPD" "$TMPD/work" "$TMPD/work/sub"
printf '#!/bin/sh\npwd\n' >"$TMPD/here/where"
chmod 755 "$TMPD/here" "$TMPD/here/where"
runx --chdir="$TMPD/work/sub" -- pwd >"$TMPD/out" 2>&1
assert_eq "--chdir: pwd in the command" "$TMPD/work/sub" "$(cat "$TMPD/out")"
(cd "$TMPD/here" && runx --chdir=../work -- ./where) >"$TMPD/out" 2>&1
assert_eq "--chdir=../work: a relative DIR and COMMAND, both from runx's directory" \
	"$TMPD/work" "$(cat "$TMPD/out")"
(cd "$TMPD/here" && runx --chdir="$TMPD/work" -o rel.out -- pwd) 2>"$TMPD/err"
assert_eq "--chdir: a relative -o is opened in runx's directory" \
	"$TMPD/work|no" "$(cat "$TMPD/here/rel.out" 2>/dev/null)|$(test -e "$TMPD/work/rel.out" && echo yes || echo no)"
runx --user=app --chdir="$TMPD/work" -- sh -c 'pwd; id -u' >"$TMPD/out" 2>&1
assert_eq "--chdir with --user" "$TMPD/work|1234" "$(paste -sd'|' "$TMPD/out")"
runx --chdir=/ -- pwd >"$TMPD/out" 2>&1
assert_eq "--chdir=/: the command starts in /" "/" "$(cat "$TMPD/out")"

# --- --umask ---------------------------------------------------------------
runx --umask=027 -- sh -c umask >"$TMPD/out" 2>&1
assert_eq "--umask=027: umask in the command" 0027 "$(cat "$TMPD/out")"
runx --umask=0 --user=app -- sh -c umask >"$TMPD/out" 2>&1
assert_eq "--umask=0 with --user" 0000 "$(cat "$TMPD/out")"
(umask 077 && runx -- sh -c umask) >"$TMPD/out" 2>&1
assert_eq "no --umask: runx's own" 0077 "$(cat "$TMPD/out")"

# --- redirects are opened by runx before the drop --------------------------
mkdir -p "$TMPD/rootonly"
chmod 700 "$TMPD/rootonly"
s=0
runx --user=nobody -o "$TMPD/rootonly/out" -e "$TMPD/rootonly/err" -- \
	sh -c 'id -u; echo e >&2; touch "$1/new" 2>/dev/null || echo cannot >&2' sh "$TMPD/rootonly" || s=$?
assert_eq "--user=nobody -o/-e in a root-only directory: status 0" 0 "$s"
assert_eq "--user=nobody: writes through the redirects, not beside them" \
	"65534|e#cannot" "$(cat "$TMPD/rootonly/out")|$(paste -sd'#' "$TMPD/rootonly/err")"

# --- a drop that fails in the child never runs the command -----------------
# In a user namespace of its own (unshare -U -r), runx has its
# capabilities but setgroups(2) is denied: the child reports, runx exits
# 125 naming the step.
if unshare -U -r true 2>/dev/null; then
	rm -f "$TMPD/started"
	s=0
	unshare -U -r "$RUNX" "${LAUNCH_ARGS[@]}" --user=4242 -- touch "$TMPD/started" 2>"$TMPD/err" || s=$?
	assert_eq "a failed drop: 125" 125 "$s"
	assert_eq "a failed drop: says which step" \
		"runx: the command was not started: setgroups failed in the child: Operation not permitted" \
		"$(cat "$TMPD/err")"
	assert_false "a failed drop: the command did not run" test -e "$TMPD/started"
else
	skips 3 "a failed drop" "unshare -U -r is not permitted here"
fi

# --- every scope: a job dropped to nobody, ignoring TERM, stopped on time ---
setup_nobody # NOBODY_DIR: where the job as nobody says it is ready
cgroup_ok=no
[ "$(runx -C -- true 2>/dev/null; echo $?)" = 0 ] && cgroup_ok=yes
pidns_ok=no
[ "$(runx --kill-scope=pidns -- true 2>/dev/null; echo $?)" = 0 ] && pidns_ok=yes
for sc in "${SCOPES[@]}"; do
	name="--user=nobody, --kill-scope=$sc, TERM ignored"
	if [ "$sc" = cgroup ] && [ $cgroup_ok = no ]; then
		skips 3 "$name" "no cgroup scope here"
		continue
	fi
	if [ "$sc" = pidns ] && [ $pidns_ok = no ]; then
		skips 3 "$name" "runx cannot make a PID namespace here"
		continue
	fi
	# the group scope cannot reach a setsid'd process (its documented
	# escape): there the grandchild stays in the group
	detach=setsid
	[ "$sc" = group ] && detach=
	new_marker m
	# shellcheck disable=SC2154 # m: set by new_marker
	on_time 1 "$NOBODY_DIR/ready.$sc" "$m" "$TMPD/scope.out" -- \
		runx --user=nobody --kill-scope="$sc" -t @T -k 0.5 -o "$TMPD/scope.out" -- \
		sh -c 'trap "" TERM; '"$detach"' sh -c "trap \"\" TERM; exec sleep $1" & id -u; : >"$2"; exec sleep "$1"' \
		sh "$m" "$NOBODY_DIR/ready.$sc"
	assert_eq "$name: 124, the command ran as nobody" "124|65534" \
		"$OT_STATUS|$(head -n1 "$TMPD/scope.out")"
	# deadline + 0.5 s grace, on a loaded machine
	assert_true "$name: ended on time (${OT_ELAPSED}s for -t $OT_T -k 0.5)" \
		awk -v e="$OT_ELAPSED" -v t="$OT_T" 'BEGIN { exit !(e < t + 0.5 + 5) }'
	assert_dead "$name: nothing left" "$m"
done

done_testing
fi
