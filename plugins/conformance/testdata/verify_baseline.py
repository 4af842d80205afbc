"""The Python baseline of BenchmarkTargets: the check a verifier plugin
makes, done in process by Python on the same calls.

Each call is a verify input (the file holds a JSON list of them). The check
is the conformance verifier's for these calls: the exit status against the
expected one, and the output parsed as JSON and compared with the expected
JSON text, numbers within the config's absolute tolerance. It builds the
same verdict (attributes with actual, expected, is_correct, weight), as
Python objects: an in-process check hands its verdict on without encoding
it. It prints how many calls a second it made, timing its loop only.

    python3 verify_baseline.py CALLS.json COUNT
"""

import json
import sys
import time


def same(want, got, tol):
    if isinstance(want, bool) or isinstance(got, bool):
        return want is got
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        return want == got or abs(want - got) <= tol
    if isinstance(want, dict):
        return (isinstance(got, dict) and want.keys() == got.keys()
                and all(same(v, got[k], tol) for k, v in want.items()))
    if isinstance(want, list):
        return (isinstance(got, list) and len(want) == len(got)
                and all(same(w, g, tol) for w, g in zip(want, got)))
    return want == got


def verify(call):
    config, expected, actual = call["config"], call["expected"], call["actual"]
    tol = config.get("tolerance", 0)
    attrs = []
    if "status_code" in expected:
        want = expected["status_code"]
        attrs.append({"attribute": "status_code", "actual": actual["status_code"], "expected": want,
                      "is_correct": actual["status_code"] == want, "weight": 1})
    if "output" in expected:
        want = json.loads(expected["output"])
        try:
            got = json.loads(actual["output"])
        except ValueError:
            got = actual["output"]
        attrs.append({"attribute": "output", "actual": got, "expected": want,
                      "is_correct": same(want, got, tol), "weight": 1})
    return {"attributes": attrs}


def main():
    with open(sys.argv[1]) as f:
        calls = json.load(f)
    count = int(sys.argv[2])
    start = time.perf_counter()
    for i in range(count):
        verdict = verify(calls[i % len(calls)])
        if not all(a["is_correct"] for a in verdict["attributes"]):
            sys.exit("wrong verdict for call %d" % i)
    elapsed = time.perf_counter() - start
    print("%.1f calls/s" % (count / elapsed))


if __name__ == "__main__":
    main()
