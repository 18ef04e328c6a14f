#!/usr/bin/python3
"""deny-pidfd-open.py [--except-self | --sigkill | --subreaper] ERRNO
COMMAND...: runs
COMMAND with pidfd_open(2) failing with ERRNO (a name: EPERM, EMFILE, ...),
a real fault from the kernel: a seccomp filter (seccomp(2),
SECCOMP_RET_ERRNO), installed here and kept across execve(2) and by every
child.  With --except-self, pidfd_open of this process's own pid (COMMAND
keeps it) still works.  With --sigkill, pidfd_open works, and instead
every way to send SIGKILL fails with ERRNO: kill(2), tkill(2), tgkill(2)
and pidfd_send_signal(2) with signal 9 (other signals go).  With
--subreaper, only prctl(2) PR_SET_CHILD_SUBREAPER fails with ERRNO.  Exits
77 where the filter cannot be installed, saying why on stderr."""
import ctypes
import errno
import os
import platform
import struct
import sys

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
LD_W_ABS, JEQ_K, RET_K = 0x20, 0x15, 0x06
ARCHES = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
NR_PIDFD_OPEN = 434  # the same on every architecture (Linux 5.3)
NR_PIDFD_SEND_SIGNAL = 424  # the same on every architecture (Linux 5.1)
# kill, tkill, tgkill (asm/unistd.h)
NR_KILLS = {"x86_64": (62, 200, 234), "aarch64": (129, 130, 131)}
SIGKILL = 9
NR_PRCTL = {"x86_64": 157, "aarch64": 167}
PR_SET_CHILD_SUBREAPER = 36


def insn(code, jt, jf, k):
    return struct.pack("=HBBI", code, jt, jf, k)


def only_call(arch, nr):
    """The start of a filter that allows every system call but nr of
    arch; seccomp_data: nr at 0, arch at 4, args[0]'s low word at 16."""
    return [
        insn(LD_W_ABS, 0, 0, 4),
        insn(JEQ_K, 1, 0, arch),
        insn(RET_K, 0, 0, SECCOMP_RET_ALLOW),
        insn(LD_W_ABS, 0, 0, 0),
        insn(JEQ_K, 1, 0, nr),
        insn(RET_K, 0, 0, SECCOMP_RET_ALLOW),
    ]


def program(arch, err, self_pid):
    """pidfd_open refused (with self_pid: but of that pid)."""
    prog = only_call(arch, NR_PIDFD_OPEN)
    if self_pid:
        prog += [insn(LD_W_ABS, 0, 0, 16), insn(JEQ_K, 0, 1, self_pid),
                 insn(RET_K, 0, 0, SECCOMP_RET_ALLOW)]
    prog.append(insn(RET_K, 0, 0, SECCOMP_RET_ERRNO | err))
    return prog


def sigkill_program(arch, err, kills):
    """SIGKILL refused: the signal is args[1] (low word at 24), but for
    tgkill, args[2] (at 32)."""
    kill, tkill, tgkill = kills
    deny = insn(RET_K, 0, 0, SECCOMP_RET_ERRNO | err)
    allow = insn(RET_K, 0, 0, SECCOMP_RET_ALLOW)
    return [
        insn(LD_W_ABS, 0, 0, 4),
        insn(JEQ_K, 1, 0, arch),
        allow,
        insn(LD_W_ABS, 0, 0, 0),
        insn(JEQ_K, 4, 0, NR_PIDFD_SEND_SIGNAL),  # to the args[1] check
        insn(JEQ_K, 3, 0, kill),
        insn(JEQ_K, 2, 0, tkill),
        insn(JEQ_K, 3, 0, tgkill),  # to the args[2] check
        allow,
        insn(LD_W_ABS, 0, 0, 24),
        insn(JEQ_K, 3, 2, SIGKILL),  # deny : allow
        insn(LD_W_ABS, 0, 0, 32),
        insn(JEQ_K, 1, 0, SIGKILL),
        allow,
        deny,
    ]


def subreaper_program(arch, err, nr_prctl):
    """prctl(PR_SET_CHILD_SUBREAPER, ...) refused: the option is args[0]
    (low word at 16)."""
    return only_call(arch, nr_prctl) + [
        insn(LD_W_ABS, 0, 0, 16),
        insn(JEQ_K, 0, 1, PR_SET_CHILD_SUBREAPER),
        insn(RET_K, 0, 0, SECCOMP_RET_ERRNO | err),
        insn(RET_K, 0, 0, SECCOMP_RET_ALLOW),
    ]


def main():
    args = sys.argv[1:]
    self_pid = 0
    sigkill = subreaper = False
    if args and args[0] == "--except-self":
        self_pid = os.getpid()
        args = args[1:]
    elif args and args[0] == "--sigkill":
        sigkill = True
        args = args[1:]
    elif args and args[0] == "--subreaper":
        subreaper = True
        args = args[1:]
    if len(args) < 2 or not hasattr(errno, args[0]):
        sys.exit(__doc__)
    arch = ARCHES.get(platform.machine())
    if arch is None:
        print("no seccomp filter for " + platform.machine(), file=sys.stderr)
        sys.exit(77)
    err = getattr(errno, args[0])
    if sigkill:
        code = b"".join(sigkill_program(arch, err,
                                        NR_KILLS[platform.machine()]))
    elif subreaper:
        code = b"".join(subreaper_program(arch, err,
                                          NR_PRCTL[platform.machine()]))
    else:
        code = b"".join(program(arch, err, self_pid))
    buf = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(code) // 8, ctypes.addressof(buf))
    libc = ctypes.CDLL(None, use_errno=True)
    if (libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or
            libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER,
                       ctypes.byref(fprog), 0, 0) != 0):
        e = ctypes.get_errno()
        print("cannot install a seccomp filter: " + os.strerror(e),
              file=sys.stderr)
        sys.exit(77)
    os.execvp(args[0 + 1], args[1:])


main()
