#!/usr/bin/env python3
"""exit-stop.py [--hold] PID DIR: holds process PID at its PTRACE_EVENT_EXIT stop.

Seizes PID (ptrace(2) PTRACE_SEIZE with PTRACE_O_TRACEEXIT; root, or
PID's parent's permissions), writes DIR/seized, passes on every signal
PID stops with (a signal-delivery-stop), and once PID stops at its exit
(do_exit(), kernel/exit.c, stops there before it sets PF_EXITING: it
has taken its fatal signal, PF_SIGNALED, and runs no code of its own
again) writes DIR/exit-stop, then waits until DIR/release exists (up
to 120 s) and detaches, which lets PID end.  A SIGKILL sent meanwhile
does not end the stop: the kernel drops a signal to a process whose
group exit started (prepare_signal(), kernel/signal.c).

With --hold it seizes PID (no options), writes DIR/seized, and never
waits for it: PID stops at its next signal (a signal-delivery-stop) and,
once a SIGKILL ends it, stays a zombie that only this tracer may reap
(wait_consider_task(), kernel/exit.c); when DIR/release exists (up to
120 s) it exits, which detaches PID and leaves the zombie to its parent.

Exit 0 once detached; 1 with the reason on stderr if PID ended before
its exit stop, or ptrace(2) failed.
"""
import ctypes
import os
import signal
import sys
import time

PTRACE_CONT = 7
PTRACE_DETACH = 17
PTRACE_SEIZE = 0x4206
PTRACE_O_TRACEEXIT = 0x40
PTRACE_EVENT_EXIT = 6
PTRACE_EVENT_STOP = 128
WALL = 0x40000000  # __WALL: a tracee that is not our child

libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p,
                        ctypes.c_void_p]
libc.ptrace.restype = ctypes.c_long


def ptrace(request, pid, data=0):
    if libc.ptrace(request, pid, None, ctypes.c_void_p(data)) == -1:
        err = ctypes.get_errno()
        sys.exit(f"exit-stop.py: ptrace({request}, {pid}): "
                 f"{os.strerror(err)}")


def wait_release(where):
    release = os.path.join(where, "release")
    until = time.monotonic() + 120
    while not os.path.exists(release) and time.monotonic() < until:
        time.sleep(0.01)


def main():
    hold = sys.argv[1:2] == ["--hold"]
    args = sys.argv[2:] if hold else sys.argv[1:]
    pid, where = int(args[0]), args[1]
    ptrace(PTRACE_SEIZE, pid, 0 if hold else PTRACE_O_TRACEEXIT)
    open(os.path.join(where, "seized"), "w").close()
    if hold:
        wait_release(where)
        return 0
    while True:
        _, status = os.waitpid(pid, WALL)
        if not os.WIFSTOPPED(status):
            sys.exit(f"exit-stop.py: {pid} ended before its exit stop "
                     f"(wait status {status:#x})")
        event = status >> 16
        if event == PTRACE_EVENT_EXIT:
            break
        # a signal-delivery-stop: the signal goes on; a group-stop
        # (PTRACE_EVENT_STOP) or another event: go on with none
        sig = os.WSTOPSIG(status) if event == 0 else 0
        ptrace(PTRACE_CONT, pid, sig)
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    with open(os.path.join(where, "exit-stop"), "w") as f:
        f.write(stat)
    wait_release(where)
    ptrace(PTRACE_DETACH, pid, 0)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
