# Counts spaces, not words.
import sys

print(sys.stdin.read().count(" ") + 1 if sys.stdin else 0)
