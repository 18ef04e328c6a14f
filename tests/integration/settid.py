"""A newcomer whose pid is chosen below the pid counter (clone3(2)'s
set_tid), born while the stop's pass for newcomers may read only the pids
allocated since the pass before (group.sh, pidns.sh; root only).

usage: python3 settid.py OUT MARKER MODE LEVELS
  OUT     where TERM is written once the child got it
  MARKER  the child's $0, and the argument of its sleep
  MODE    fork: the child runs sleep MARKER in the background and waits;
          read: it forks nothing and waits in read(1) on a FIFO
  LEVELS  1: the pid is chosen in runx's PID namespace (the group scope);
          2: in the job's namespace and in runx's (the pidns scope)

The job catches TERM; 1 s after it, it forks the child, which execs a
shell that traps TERM (writing TERM to OUT), and right after, a helper
makes 3 forks fail after the kernel allocated their pids, which moves the
pid counter with no fork counted (/proc/stat's "processes"), as a busy
machine's failed forks do.  The job then waits for the child, and writes
TERM to OUT itself if the child died of TERM before its trap was set.  A
child that met only the SIGKILL leaves no TERM: the job dies of it too.
"clone3: ..." on stderr: set_tid refused here."""

import ctypes, os, signal, struct, subprocess, sys, time

out, marker, mode, levels = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
termed = []
signal.signal(signal.SIGTERM, lambda s, f: termed.append(time.monotonic()))
# a helper that, told to, moves the pid counter by 3 without a fork, as
# forks elsewhere on a busy machine can: a fork into a pid namespace whose
# init has died fails (ENOMEM) after the kernel allocated its pid
# (kernel/pid.c alloc_pid(), PIDNS_ADDING).  It execs, and catches TERM
# rather than ignore it: a fork copy, or a process that ignores the
# signal, waits to be looked at again after an execve(2), and runx reads
# every process meanwhile.
helper = subprocess.Popen([sys.executable, "-c", """
import ctypes, os, signal, sys
signal.signal(signal.SIGTERM, lambda s, f: None)
if ctypes.CDLL(None).unshare(0x20000000) == 0:  # CLONE_NEWPID
    init = os.fork()
    if init == 0:
        os._exit(0)
    os.waitpid(init, 0)
sys.stdin.buffer.read(1)
for _ in range(3):
    try:
        if os.fork() == 0:
            os._exit(0)
    except OSError:
        pass
"""], stdin=subprocess.PIPE)
while not termed:
    time.sleep(0.02)
time.sleep(1)
# the counter of the reader's own namespace: with LEVELS 2 the job's, and
# the pids tried in runx's (below 400) are those of a machine's first boot
# processes, free or not (EEXIST: the next is tried)
last = int(open("/proc/loadavg").read().split()[-1])
os.mkfifo(out + ".fifo")
script = b"trap 'echo TERM >%s; exit 0' TERM; echo $$ >%s.pid; " % (
    out.encode(), out.encode())
if mode == "fork":
    script += b"sleep %s & wait" % marker.encode()
else:
    script += b"read x <>%s.fifo" % out.encode()
argv = (ctypes.c_char_p * 5)(b"/bin/sh", b"-c", script, marker.encode(), None)
for pid in range(max(last - 2000, 400), 300, -1):
    if os.path.exists("/proc/%d" % pid):
        continue
    # set_tid lists the pid of each level, the job's own namespace first
    tid = (ctypes.c_int * 2)(*([500, pid] if levels == 2 else [pid, 0]))
    # struct clone_args: flags, pidfd, child_tid, parent_tid, exit_signal,
    # stack, stack_size, tls, set_tid, set_tid_size
    args = struct.pack("QQQQQQQQQQ", 0, 0, 0, 0, signal.SIGCHLD, 0, 0, 0,
                       ctypes.addressof(tid), levels)
    buf = ctypes.create_string_buffer(args)
    r = libc.syscall(435, buf, len(args))
    if r == 0:
        libc.execv(b"/bin/sh", argv)
        os._exit(127)
    if r > 0:
        helper.stdin.write(b"g")
        helper.stdin.flush()
        print("child", r, "counter", last, file=sys.stderr)
        _, st = os.waitpid(r, 0)
        if os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGTERM:
            open(out, "w").write("TERM\n")
        break
    if ctypes.get_errno() != 17:  # EEXIST: taken meanwhile
        sys.exit("clone3: %s" % os.strerror(ctypes.get_errno()))
