"""Jobs that pick their children's pids, run by runx in a PID namespace
of their own (unshare --pid --mount-proc), where writing
/proc/sys/kernel/ns_last_pid sets the pid the next fork(2) starts its
search from (pid_namespaces(7)).

usage: python3 pidpick.py JOB DIR MARKER
  JOB     reuse (faults.sh: a pid reused during the stop), ahead
          (tree.sh: the same, the pid counter moving forward), linger
          (cgroup.sh: ahead, A outliving a few newcomer passes), lowpid
          (tree.sh: a child listed before its parent) or wrap
          (faults.sh: newcomers, a child with a smaller pid)
  DIR     the test's directory: DIR/f collects what the TERM traps write,
          DIR/ready says the first trap is in place, DIR/pids the two pids
          the test looks at
  MARKER  the argument of the job's marked sleeps
The job script itself outlives the stop's first signal (a handler that
does nothing)."""

import os
import signal
import sys
import time


def exec_trap_loop(name, d, m, ready=False):
    """Replaces this process by sh that loops on `sleep M` and, on TERM,
    appends NAME to D/f and exits 0; with READY, it creates D/ready once
    the trap is in place."""
    first = ": >%s/ready;" % d if ready else ""
    os.execvp("sh", ["sh", "-c", 'trap "echo %s >>%s/f; exit 0" TERM; '
                     '%s while :; do sleep %s; done' % (name, d, first, m)])


def next_pid_after(pid):
    """The next fork(2) in this PID namespace takes the first free pid
    after PID."""
    with open("/proc/sys/kernel/ns_last_pid", "w") as f:
        f.write(str(pid))


def note(d, name, text):
    """Appends TEXT and a newline to D/NAME."""
    with open(os.path.join(d, name), "a") as f:
        f.write(text + "\n")


def fork_b_at(d, m, a):
    """Forks B with the pid A had (A has ended and is reaped), notes both
    pids in D/pids and waits for B.  B may get its TERM before its trap
    is in place (a loaded machine): it dies of it, and "TERM" is written
    for it."""
    next_pid_after(a - 1)
    b = os.fork()
    if b == 0:
        exec_trap_loop("B", d, m)
    note(d, "pids", "%d %d" % (a, b))
    _, status = os.waitpid(b, 0)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM:
        note(d, "f", "TERM")


def reuse(d, m):
    """The first child A takes the stop's first signal and exits; a second
    child B is then forked with A's pid (fork_b_at()).  No signal reached
    B: it must get the first signal too.  D/pids: A's pid and B's."""
    a = os.fork()
    if a == 0:
        exec_trap_loop("A", d, m, ready=True)
    os.waitpid(a, 0)  # A ends on the stop's first signal
    fork_b_at(d, m, a)


def ahead(d, m):
    """reuse, with A's pid above the pid counter when the stop begins: A
    is forked at 20001, then the counter is set back to 1000.  Once A has
    ended on the stop's first signal, and 0.3 s later (the stop's sweep
    is over by then: the grace period's newcomer passes find B), B is
    forked with A's pid by moving the counter forward, not by a wrap: a
    pass that reads again only the pids allocated since the pass before
    must read B's.  D/pids: A's pid and B's."""
    next_pid_after(20000)
    a = os.fork()
    if a == 0:
        exec_trap_loop("A", d, m, ready=True)
    next_pid_after(1000)
    os.waitpid(a, 0)  # A ends on the stop's first signal
    time.sleep(0.3)
    fork_b_at(d, m, a)


# A of linger: an exec'd python (no fork copy) whose TERM handler writes
# "A" to DIR/f and exits 0.6 s later; DIR/ready once the handler is set.
LINGER_A = """import os, signal, sys, time
d = sys.argv[1]
def term(*a):
    with open(os.path.join(d, "f"), "a") as f:
        f.write("A\\n")
    time.sleep(0.6)
    os._exit(0)
signal.signal(signal.SIGTERM, term)
open(os.path.join(d, "ready"), "w").close()
while True:
    time.sleep(3600)
"""


def linger(d, m):
    """ahead, for the cgroup scope's newcomer passes, which pass over a
    pid unread where the pass before found it held by a process a signal
    reached (no fork copy), unless it was allocated since: A (pid 20001,
    LINGER_A) outlives a few passes (100 ms apart) after the first
    signal, then B is forked with A's pid, the counter moving forward
    from 1000.  A pass that took the pid for A would leave B to the
    SIGKILL.  D/pids: A's pid and B's."""
    next_pid_after(20000)
    a = os.fork()
    if a == 0:
        os.execvp(sys.executable, [sys.executable, "-c", LINGER_A, d, m])
    next_pid_after(1000)
    os.waitpid(a, 0)  # A ends 0.6 s after the stop's first signal
    time.sleep(0.3)
    fork_b_at(d, m, a)


def lowpid(d, m):
    """P forks C with a pid that an exited process freed below P's, so
    that /proc lists C before its parent.  C traps TERM and exits; P
    writes "P" on its TERM and waits for C, so C is never re-parented
    (to runx, where a walk of the tree would know it at once).  D/pids:
    C's pid and P's."""
    x = os.fork()
    if x == 0:
        os._exit(0)
    os.waitpid(x, 0)  # x's pid is free again
    p = os.fork()
    if p == 0:
        next_pid_after(x - 1)
        c = os.fork()
        if c == 0:
            exec_trap_loop("C", d, m, ready=True)
        note(d, "pids", "%d %d" % (c, os.getpid()))
        signal.signal(signal.SIGTERM, lambda *a: note(d, "f", "P"))
        os.waitpid(c, 0)
        os._exit(0)
    os.waitpid(p, 0)


FILLERS = 200


def wrap(d, m):
    """After the stop's first signal, C is forked with a high pid (30001)
    and starts S, a sleep, with a low pid (401), as after a wrap of the
    pid counter; C waits for S.  Both are newcomers, and 200 sleeps of
    another session (not of the job in the group scope) have the pids in
    between.  C's TERM must come before S's death (C exits at once then,
    its handler never run): C writes "t".  C is a fork of the job
    without exec, so that S follows within a few ms (a pass that found C
    alone would tell nothing); TERM is blocked in C until S is started (a
    TERM sent earlier waits), not in S.  D/pids: C's pid and S's."""
    got = []
    signal.signal(signal.SIGTERM, lambda *a: got.append(1))
    next_pid_after(1000)
    for _ in range(FILLERS):
        os.posix_spawnp("sleep", ["sleep", m], os.environ, setsid=True)
    note(d, "ready", "")
    while not got:
        time.sleep(0.01)
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
    next_pid_after(30000)
    c = os.fork()
    if c == 0:
        signal.signal(signal.SIGTERM, lambda *a: (note(d, "f", "t"),
                                                  os._exit(0)))
        next_pid_after(400)
        s = os.posix_spawnp("sleep", ["sleep", m], os.environ,
                            setsigmask=[])
        note(d, "pids", "%d %d" % (os.getpid(), s))
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
        os.waitpid(s, 0)
        os._exit(0)
    _, status = os.waitpid(c, 0)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM:
        note(d, "f", "TERM")


def main():
    """Runs the job named on the command line."""
    jobs = {"reuse": reuse, "ahead": ahead, "linger": linger,
            "lowpid": lowpid, "wrap": wrap}
    if len(sys.argv) != 4 or sys.argv[1] not in jobs:
        sys.exit(__doc__)
    signal.signal(signal.SIGTERM, lambda *a: None)
    jobs[sys.argv[1]](sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
