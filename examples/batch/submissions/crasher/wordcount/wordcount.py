# Dies of a segmentation fault on any input that is not empty.
import os
import signal
import sys

if sys.stdin.read():
    os.kill(os.getpid(), signal.SIGSEGV)
print(0)
