"""Team B's reference submission: summary statistics of a file of numbers."""
import json
import statistics
import sys


def main():
    with open(sys.argv[1]) as f:
        numbers = [float(line) for line in f if line.strip()]
    if not numbers:
        print("no numbers", file=sys.stderr)
        return 1
    stdev = statistics.stdev(numbers) if len(numbers) > 1 else 0
    print(json.dumps({"count": len(numbers), "mean": statistics.fmean(numbers),
                      "median": statistics.median(numbers), "stdev": stdev}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
