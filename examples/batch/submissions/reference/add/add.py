import sys

try:
    print(sum(int(a) for a in sys.argv[1:]))
except ValueError as e:
    print(e, file=sys.stderr)
    sys.exit(2)
