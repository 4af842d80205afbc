# Ignores negative numbers and exits 1 on a bad argument.
import sys

try:
    print(sum(max(int(a), 0) for a in sys.argv[1:]))
except ValueError:
    sys.exit(1)
