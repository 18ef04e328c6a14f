#!/usr/bin/python3
"""Jobs that test the cgroup scope's promise, and the cleanup after them.

cgroup-adversary.py nest MOUNT LEVELS MODE INFO MARKER
    Ignores SIGTERM, writes INFO ("PID STARTTIME TOP": its pid, its start
    time from /proc/self/stat, its cgroup's directory TOP below the cgroup2
    MOUNT), nests LEVELS cgroups "a" below TOP (mkdir, chdir: deeper than
    PATH_MAX is fine, every path is relative), moves itself into the
    deepest, writes INFO.ready ("LEVELS"), then with MODE "exit" exits 0,
    with MODE "sleep" execs `sleep MARKER` (SIGTERM stays ignored).

cgroup-adversary.py zombie-leader INFO
    Ignores SIGTERM, starts a thread that sleeps 300 s, writes INFO ("PID
    STARTTIME") and INFO.ready, then ends its main thread with the raw exit
    system call (pthread_exit(3) where the number is unknown): /proc/PID/stat
    says Z while the other thread runs, and cgroup.kill misses it.

cgroup-adversary.py cleanup TOP
    Removes what a nest job left if runx did not: SIGKILLs every pid in a
    cgroup.procs of TOP's chain (cgroup.kill misses a zombie leader), writes
    cgroup.kill, waits (5 s at most) for "populated 0", then removes the
    chain deepest first and TOP.  Nothing to do if TOP is gone.
"""
import ctypes
import os
import signal
import sys
import threading
import time


def start_time():
    """Field 22 of /proc/self/stat: start time in clock ticks."""
    with open("/proc/self/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[19]


def own_cgroup_dir(mount):
    """This process's cgroup v2 directory below mount."""
    with open("/proc/self/cgroup") as f:
        rel = [l[3:] for l in f.read().splitlines() if l.startswith("0::")][0]
    return mount if rel == "/" else mount + rel


def write_file(path, text):
    """Writes text to path through a rename: readers see all or nothing."""
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.rename(path + ".tmp", path)


def nest(mount, levels, mode, info, marker):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    top = own_cgroup_dir(mount)
    write_file(info, "%d %s %s\n" % (os.getpid(), start_time(), top))
    os.chdir(top)
    for _ in range(int(levels)):
        os.mkdir("a")
        os.chdir("a")
    with open("cgroup.procs", "w") as f:
        f.write(str(os.getpid()))
    os.chdir("/")
    write_file(info + ".ready", levels + "\n")
    if mode == "exit":
        sys.exit(0)
    os.execvp("sleep", ["sleep", marker])


def zombie_leader(info):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.Thread(target=time.sleep, args=(300,)).start()
    write_file(info, "%d %s\n" % (os.getpid(), start_time()))
    write_file(info + ".ready", "ok\n")
    libc = ctypes.CDLL(None)
    number = {"x86_64": 60, "aarch64": 93, "riscv64": 93}.get(os.uname().machine)
    if number is not None:
        libc.syscall(number, 0)  # exit(2) of this thread only
    libc.pthread_exit(None)


def kill_listed(procs):
    """SIGKILL every pid of a cgroup.procs file (they are the job's)."""
    try:
        with open(procs) as f:
            pids = [int(p) for p in f.read().split()]
    except OSError:
        return
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def kill_chain(top):
    """SIGKILLs the pids listed in top/a/a/... (cgroup.kill misses some)."""
    os.chdir(top)
    kill_listed("cgroup.procs")
    while os.path.isdir("a"):
        os.chdir("a")
        kill_listed("cgroup.procs")
    os.chdir("/")


def rmdir_retrying(path):
    """rmdir(2), again on EBUSY for up to 2 s; gone already is fine."""
    for _ in range(200):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)
    os.rmdir(path)


def cleanup(top):
    if not os.path.isdir(top):
        return
    kill_chain(top)
    try:
        with open(top + "/cgroup.kill", "w") as f:
            f.write("1")
    except OSError:
        pass
    for _ in range(100):
        with open(top + "/cgroup.events") as f:
            if "populated 0" in f.read():
                break
        time.sleep(0.05)
    os.chdir(top)
    depth = 0
    while os.path.isdir("a"):
        os.chdir("a")
        depth += 1
    for _ in range(depth):
        os.chdir("..")
        rmdir_retrying("a")
    os.chdir("/")
    rmdir_retrying(top)


def main():
    what = sys.argv[1]
    if what == "nest":
        nest(*sys.argv[2:7])
    elif what == "zombie-leader":
        zombie_leader(sys.argv[2])
    elif what == "cleanup":
        cleanup(sys.argv[2])
    else:
        sys.exit("cgroup-adversary.py: unknown job '%s'" % what)


main()
