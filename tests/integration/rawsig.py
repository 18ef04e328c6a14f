#!/usr/bin/env python3
"""rawsig.py: signal dispositions and masks set with the system calls.

    rawsig.py known                  exit 0 if this machine's numbers of
                                     rt_sigaction(2) and rt_sigprocmask(2)
                                     are known here, else 3
    rawsig.py reset PROGRAM ARG...   every signal 1 to 64 (but SIGKILL and
                                     SIGSTOP) to SIG_DFL, nothing blocked,
                                     then execs PROGRAM
    rawsig.py block MASK PROGRAM ARG...
                                     blocks MASK (hex, bit N-1 for signal
                                     N) on top of the mask it inherited,
                                     then execs PROGRAM

The C library's own real-time signals (32 and 33 in glibc, 34 too in
musl) are why: glibc's sigaction(3), sigprocmask(3) and sigaddset(3)
refuse or drop them, so neither perl nor Python's signal module can
reset or block them.  The system calls take a kernel sigset of 8 bytes
(_NSIG / 8) and a struct of handler, flags, restorer and mask.  Exit 3
where the numbers are not known (the caller skips, saying so), 1 if a
call fails (the reason on stderr).
"""
import ctypes
import os
import sys

# (rt_sigaction, rt_sigprocmask): arch/x86/entry/syscalls/syscall_64.tbl,
# include/uapi/asm-generic/unistd.h
NUMBERS = {"x86_64": (13, 14), "aarch64": (134, 135)}
SIG_BLOCK, SIG_SETMASK = 0, 2
SIGKILL, SIGSTOP = 9, 19

libc = ctypes.CDLL(None, use_errno=True)


def call(nr, *args):
    if libc.syscall(nr, *args) != 0:
        err = ctypes.get_errno()
        sys.exit(f"rawsig.py: system call {nr}: {os.strerror(err)}")


def main(argv):
    numbers = NUMBERS.get(os.uname().machine)
    if numbers is None:
        return 3
    act, mask = numbers
    if argv[1:2] == ["known"]:
        return 0
    if argv[1:2] == ["reset"] and len(argv) > 2:
        dfl = (ctypes.c_ulong * 4)()  # SIG_DFL, no flags, no mask
        for sig in range(1, 65):
            if sig not in (SIGKILL, SIGSTOP):
                call(act, sig, ctypes.byref(dfl), None, 8)
        call(mask, SIG_SETMASK, ctypes.byref(ctypes.c_uint64(0)), None, 8)
        os.execv(argv[2], argv[2:])
    if argv[1:2] == ["block"] and len(argv) > 3:
        bits = ctypes.c_uint64(int(argv[2], 16))
        call(mask, SIG_BLOCK, ctypes.byref(bits), None, 8)
        os.execv(argv[3], argv[3:])
    sys.exit(f"usage: {argv[0]} known | reset PROGRAM ARG... | "
             "block MASK PROGRAM ARG...")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
