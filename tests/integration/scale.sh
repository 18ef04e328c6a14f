#!/bin/bash
# A stop at scale: N processes (RUNX_SCALE_N, default 1000; .ci/run runs it
# once more with 5000, on its own: at 5000 the three scopes cost about 4
# minutes of CPU, which would starve the rest of a parallel make check on a
# 2-core machine), every other one in a new session (out of
# the process group), every tenth ignoring SIGTERM, the others with a TERM
# handler that appends a line to a file and exits.  In each of the tree,
# cgroup and pidns scopes (skipped where unavailable): runx gets SIGTERM once
# all are alive; once every handler has written its line (a bounded wait,
# not a timed assertion), a second SIGTERM cuts the 30 s grace period short
# (runx(1), STOPPING); then none of the processes is left (/proc), every
# handler ran before the SIGKILL (the line count after runx returned), and
# runx returned 143.
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

N=${RUNX_SCALE_N:-1000}
case $N in '' | *[!0-9]*) bail_out "RUNX_SCALE_N='$N': not a number" ;; esac
# handlers: every process but the command itself and every tenth
HANDLERS=$(((N - 1) - (N - 1) / 10))
SCOPES=(tree cgroup pidns)

command -v perl >/dev/null || skip_all "perl is needed (the job forks $N processes)"

# --- what this machine allows ---------------------------------------------------------
require_room_for "$N"

probe_scopes

plan $((3 * ${#SCOPES[@]}))

WORK=$(mktemp -d)
at_exit "rm -rf '$WORK'"

# The job: perl as "sleep MARKER" forking N - 1 copies of itself.
JOB='use POSIX ();
my ($n, $mark, $log, $ready) = @ARGV;
$0 = "sleep $mark";
for my $i (1 .. $n - 1) {
	my $pid = fork();
	die "fork: $!\n" unless defined $pid;
	next if $pid;
	POSIX::setsid() if $i % 2;
	if ($i % 10 == 0) {
		$SIG{TERM} = "IGNORE";
	} else {
		$SIG{TERM} = sub {
			open(my $f, ">>", $log) or POSIX::_exit(1);
			syswrite($f, "$$\n");
			POSIX::_exit(0);
		};
	}
	# ready: its TERM disposition is set (a copy marked but not yet
	# ready would die of the TERM by default, without its line)
	open(my $r, ">>", $ready) or POSIX::_exit(1);
	syswrite($r, "$$\n");
	close($r);
	POSIX::pause() while 1;
}
POSIX::pause() while 1;'

# all_handled LOG: every handler has written its line.
# shellcheck disable=SC2317 # called through poll
all_handled() {
	[ "$(lines "$1")" -ge "$HANDLERS" ]
}

# all_ready READY: every process but the command has set its TERM
# disposition (handler or ignore).
# shellcheck disable=SC2317 # called through poll
all_ready() {
	[ "$(lines "$1")" -ge $((N - 1)) ]
}

# one_scope SCOPE: the three checks of one scope.
one_scope() {
	local scope=$1 m log status
	new_marker m
	log=$WORK/$scope.log
	local args=("${LAUNCH_ARGS[@]}" -k 30s --kill-scope="$scope")
	[ "$scope" = cgroup ] && args=("${CG_LAUNCH_ARGS[@]}" -k 30s -C)
	env --default-signal=INT,QUIT "$RUNX" "${args[@]}" -- \
		perl -e "$JOB" "$N" "$m" "$log" "$log.ready" &
	RUNX_PID=$!
	wait_exec "$RUNX_PID"
	# the ready file first: a scan of /proc for the marker reads every
	# process's command line, and one every 50 ms while thousands are
	# forked took CPU from them (the scan then confirms they are there)
	poll 2400 0.05 all_ready "$log.ready" ||
		diag "$scope: $(lines "$log.ready") of $((N - 1)) processes set their TERM disposition in 120 s"
	if ! wait_marked "$m" "$N" 120; then
		diag "$scope: only $(marked_count "$m") of $N processes started"
	fi
	kill -TERM "$RUNX_PID"
	# the handlers exit at once; the TERM-ignoring tenth would keep runx
	# for the grace period: a second SIGTERM sends the SIGKILL now
	poll 1200 0.05 all_handled "$log" ||
		diag "$scope: $(lines "$log") of $HANDLERS handlers ran in 60 s"
	kill -TERM "$RUNX_PID" 2>/dev/null
	status=0
	wait "$RUNX_PID" || status=$?
	assert_eq "$scope: runx returns 143 (stopped by SIGTERM)" 143 "$status"
	assert_dead "$scope: none of the $N processes is left" "$m"
	assert_eq "$scope: every TERM handler ran before the SIGKILL" \
		"$HANDLERS" "$(lines "$log")"
}

for scope in "${SCOPES[@]}"; do
	why=$(scope_missing "$scope")
	if [ -n "$why" ]; then
		skips 3 "$scope" "$why"
	else
		one_scope "$scope"
	fi
done

done_testing
