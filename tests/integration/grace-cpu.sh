#!/bin/bash
# What runx takes of the CPUs while it waits out a grace period: a job of
# N processes (RUNX_GRACE_CPU_N, default 3000), all forked copies of one
# perl that ignore SIGTERM, so that every newcomer pass of the stop reads
# each of them again (runx(1), STOPPING: a copy may exec a program that
# does not ignore the signal).  In each of the tree, cgroup and pidns
# scopes (skipped where unavailable), once runx has sent the first signal
# (its -v line): runx's own CPU time (utime + stime of /proc/PID/stat)
# over the next 4 s of wall time is at most 20 % of it: runx keeps its
# passes to about a tenth of one CPU (before, they came every 100 ms
# whatever they cost: 40 to 51 % of a CPU here at 3,000, and a whole CPU
# at 10,000; the share is of runx's own CPU time, so a loaded machine
# does not raise it).
# A process the job forks then (a newcomer, default SIGTERM action) still
# gets the first signal during the grace period (it is gone while -v
# shows no SIGKILL sent: a bounded wait, not a timed assertion); a
# second SIGTERM then cuts the grace period short, none of the N is left
# (/proc) and runx returns 137 (its command
# was killed by SIGKILL).
# shellcheck source=SCRIPTDIR/lib.sh
. "$TESTLIB"

N=${RUNX_GRACE_CPU_N:-3000}
case $N in '' | *[!0-9]*) bail_out "RUNX_GRACE_CPU_N='$N': not a number" ;; esac
SCOPES=(tree cgroup pidns)
WINDOW=4 # seconds of wall time over which runx's CPU time is taken

command -v perl >/dev/null || skip_all "perl is needed (the job forks $N processes)"
require_room_for "$N"
TICKS=$(getconf CLK_TCK)

probe_scopes

plan $((4 * ${#SCOPES[@]}))

WORK=$(mktemp -d)
at_exit "rm -rf '$WORK'"

# The job: perl as "sleep MARKER", ignoring SIGTERM, forking N - 1 copies
# of itself; on SIGUSR1 the first forks one more (the newcomer), which
# takes SIGTERM's default action and reads as "sleep $NEWMARK" (from the
# environment: a marker in runx's own command line would match runx).
# The newcomer is born with both (the parent sets them, SIGTERM blocked,
# around the fork), and the parent, not the newcomer, then writes the
# newcomer's pid (in the job's pid namespace) to NEW: a newcomer that had
# to say so itself could be ended by runx's pass before it did (seen on a
# loaded machine: "the job forked no newcomer in 30 s").
JOB='use POSIX ();
my ($n, $mark, $ready, $new) = @ARGV;
my $newmark = $ENV{NEWMARK};
$0 = "sleep $mark";
$SIG{TERM} = "IGNORE";
my $usr1 = 0;
$SIG{USR1} = sub { $usr1 = 1 };
for my $i (1 .. $n - 1) {
	my $pid = fork();
	die "fork: $!\n" unless defined $pid;
	next if $pid;
	$SIG{USR1} = "IGNORE";
	open(my $r, ">>", $ready) or POSIX::_exit(1);
	syswrite($r, "$$\n");
	close($r);
	POSIX::pause() while 1;
}
while (1) {
	POSIX::pause();
	next unless $usr1;
	$usr1 = 0;
	my $term = POSIX::SigSet->new(POSIX::SIGTERM());
	POSIX::sigprocmask(POSIX::SIG_BLOCK(), $term);
	$SIG{TERM} = "DEFAULT";
	$0 = "sleep $newmark";
	my $pid = fork();
	die "fork: $!\n" unless defined $pid;
	if (!$pid) {
		POSIX::sigprocmask(POSIX::SIG_UNBLOCK(), $term);
		POSIX::pause() while 1;
	}
	$0 = "sleep $mark";
	$SIG{TERM} = "IGNORE"; # discards a SIGTERM pending meanwhile
	POSIX::sigprocmask(POSIX::SIG_UNBLOCK(), $term);
	open(my $w, ">", "$new.tmp") or die "$new.tmp: $!\n";
	syswrite($w, "$pid\n");
	close($w);
	rename("$new.tmp", $new) or die "$new: $!\n";
}'

# all_ready READY: every copy is there, SIGTERM ignored.
# shellcheck disable=SC2317 # called through poll
all_ready() {
	[ "$(lines "$1")" -ge $((N - 1)) ]
}

# newcomer_ended_by_first_signal MARKER LOG: no live process carries
# MARKER, and then runx's -v LOG shows no SIGKILL sent (the newcomer's
# only other way to end).
# shellcheck disable=SC2317 # called through assert_true
newcomer_ended_by_first_signal() {
	marked_none "$1" && ! grep -q SIGKILL "$2"
}

# cpu_ticks PID: utime + stime of PID (clock ticks).
cpu_ticks() {
	local u s
	u=$(stat_field "$1" 14) && s=$(stat_field "$1" 15) || return 1
	echo $((u + s))
}

# one_scope SCOPE: the four checks of one scope.
one_scope() {
	local scope=$1 m m2 log ready new t0 t1 c0 c1 share pid
	new_marker m
	new_marker m2
	log=$WORK/$scope.err ready=$WORK/$scope.ready new=$WORK/$scope.new
	local args=("${LAUNCH_ARGS[@]}" -v -k 60s --kill-scope="$scope")
	[ "$scope" = cgroup ] && args=("${CG_LAUNCH_ARGS[@]}" -v -k 60s -C)
	NEWMARK=$m2 env --default-signal=INT,QUIT "$RUNX" "${args[@]}" -- \
		perl -e "$JOB" "$N" "$m" "$ready" "$new" 2>"$log" &
	RUNX_PID=$!
	wait_exec "$RUNX_PID"
	poll 2400 0.05 all_ready "$ready" ||
		diag "$scope: $(lines "$ready") of $((N - 1)) copies started in 120 s"
	wait_marked "$m" "$N" 120 ||
		diag "$scope: only $(marked_count "$m") of $N processes started"
	kill -TERM "$RUNX_PID"
	# the first signal's SIGCONT line: the first pass is over
	poll 1200 0.05 grep -q 'sending: SIGCONT' "$log" ||
		diag "$scope: no 'sending: SIGCONT' line in 60 s"
	t0=$EPOCHREALTIME c0=$(cpu_ticks "$RUNX_PID")
	sleep "$WINDOW"
	t1=$EPOCHREALTIME c1=$(cpu_ticks "$RUNX_PID")
	# runx's share of one CPU, in percent
	share=$(awk -v c="$((c1 - c0))" -v hz="$TICKS" -v a="$t0" -v b="$t1" \
		'BEGIN { printf "%d", 100 * c / hz / (b - a) }')
	assert_true "$scope: runx took at most 20 % of a CPU while it waited ($share %)" \
		test "$share" -le 20
	# a newcomer, born during the grace period, gets the first signal:
	# once it has said it is there, no live process reads as its marker
	# (it is gone, or a zombie: the job's perl does not reap), and runx
	# has sent no SIGKILL yet (-v), which would end it too
	pid=$(pgrep -o -f "^sleep $m\$") || pid=
	[ -n "$pid" ] && kill -USR1 "$pid"
	if wait_file "$new" 30; then
		poll 400 0.05 marked_none "$m2" ||
			diag "$scope: the newcomer still alive after 20 s"
		assert_true "$scope: the newcomer got the first signal in the grace period (gone before any SIGKILL)" \
			newcomer_ended_by_first_signal "$m2" "$log"
	else
		not_ok "$scope: the newcomer got the first signal in the grace period (gone before any SIGKILL)" \
			"the job forked no newcomer in 30 s"
	fi
	kill -TERM "$RUNX_PID" 2>/dev/null
	wait_pid_exit "$RUNX_PID" 120
	assert_eq "$scope: runx returns 137 (the command, ignoring SIGTERM, was killed)" 137 "$WAIT_STATUS"
	assert_dead "$scope: none of the $N processes is left" "$m"
}

for scope in "${SCOPES[@]}"; do
	why=$(scope_missing "$scope")
	if [ -n "$why" ]; then
		skips 4 "$scope" "$why"
	else
		one_scope "$scope"
	fi
done

done_testing
