"""A deliberately broken solution: each bug fails specific cases of the example."""
import csv
import json
import os
import sys


def fail(code, msg):
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(code)


def read_items(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError:
        print("no such file")  # BUG: not an error exit, nothing on stderr
        sys.exit(0)


def value(item):
    return int(item["quantity"]) * int(float(item["price"]))  # BUG: drops cents


def summary(args):
    category = None
    if len(args) >= 2 and args[0] == "--category":
        category, args = args[1], args[2:]
    if len(args) != 1:
        fail(2, "usage: summary [--category C] FILE")
    items = read_items(args[0])
    if category is not None:
        items = [i for i in items if i["category"] == category]
    print(json.dumps({
        "items": len(items),
        "total_quantity": sum(int(i["quantity"]) for i in items),
        "total_value": round(sum(value(i) for i in items), 2),
        "currency": os.environ.get("INVENTORY_CURRENCY", "USD"),
    }))


def top(args):
    if len(args) != 2:
        fail(2, "usage: top N FILE")
    try:
        n = int(args[0])
    except ValueError:
        n = 0
    if n <= 0:
        fail(2, f"N must be a positive integer, got {args[0]!r}")
    items = sorted(read_items(args[1]), key=lambda i: -int(i["quantity"]))  # BUG: ranks by quantity, not value
    for item in items[:n]:
        print(item["name"])


def export(args):
    if len(args) != 3 or args[1] != "--out":
        fail(2, "usage: export FILE --out PATH")
    items = read_items(args[0])  # BUG: not sorted
    out = args[2]
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["sku", "name", "value"])
        for i in items:
            w.writerow([i["sku"], i["name"], f"{value(i):.2f}"])
    print(f"wrote {len(items)} rows")


def main(argv):
    if not argv:
        fail(2, "usage: inventory.py summary|top|export ...")
    commands = {"summary": summary, "top": top, "export": export}
    if argv[0] not in commands:
        fail(2, f"unknown command {argv[0]!r}")
    commands[argv[0]](argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
