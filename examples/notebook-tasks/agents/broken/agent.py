#!/usr/bin/env python3
"""A scripted agent for the notebook-tasks example: no model, no Jupyter,
no network.

It speaks wasmeval's agent protocol (wasmeval.agent/1): the request JSON
(task_name, instruction, metadata, timeout_s) arrives on stdin, and the
result JSON goes to stdout; logs go to stderr. The working directory is
the agent's sandbox, which stands for the machine's home directory: a
path /home/user/x in an instruction is ./x here.

Each task (named by its id) is solved by a short script calling tools on
the sandbox: read_file, write_file, list_files, delete and run_notebook,
which runs a notebook's code cells in order in one namespace, as a kernel
would, and writes their outputs and execution counts back into the
.ipynb. Every call and its result is recorded in the conversation
(OpenAI chat messages) and the execution trace.

agents/broken/agent.py is this file with BROKEN = True: it gets some
tasks wrong, each in its own way.
"""

import ast
import contextlib
import csv
import io
import json
import os
import shutil
import sys
import time
import traceback

BROKEN = True

HOME = "/home/user"


def vm_path(path):
    """The sandbox path of a path of the machine."""
    if path == HOME or path.startswith(HOME + "/"):
        return os.path.relpath(path, HOME)
    return path


# The tools, acting on the sandbox (the working directory).
def read_file(path):
    with open(vm_path(path), encoding="utf-8") as f:
        return f.read()


def write_file(path, content):
    with open(vm_path(path), "w", encoding="utf-8") as f:
        f.write(content)
    return {"written": path, "bytes": len(content.encode("utf-8"))}


def list_files(path):
    found = []
    for root, dirs, files in os.walk(vm_path(path)):
        dirs.sort()
        for f in sorted(files):
            found.append(os.path.join(root, f))
    return found


def delete(path):
    p = vm_path(path)
    if os.path.isdir(p):
        shutil.rmtree(p)
    else:
        os.remove(p)
    return {"deleted": path}


def _lines(text):
    """Text as nbformat stores it: a list of lines, each with its line end."""
    return text.splitlines(True)


def run_notebook(path):
    """Runs the code cells of a notebook in order, in one namespace, and
    saves their outputs: what printed (a stream output), the value of a
    cell's last expression (an execute_result) or the error that stopped
    it (an error output; the cells after it do not run)."""
    p = vm_path(path)
    with open(p, encoding="utf-8") as f:
        nb = json.load(f)
    namespace = {"__name__": "__main__"}
    count = 0
    ran = 0
    for cell in nb["cells"]:
        if cell.get("cell_type") != "code":
            continue
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        count += 1
        cell["execution_count"] = count
        cell["outputs"] = []
        out = io.StringIO()
        value, error = None, None
        try:
            tree = ast.parse(source)
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Expression(tree.body.pop().value)
            with contextlib.redirect_stdout(out):
                exec(compile(tree, "<cell %d>" % count, "exec"), namespace)
                if last is not None:
                    value = eval(compile(last, "<cell %d>" % count, "eval"), namespace)
        except Exception as e:  # the cell failed: the notebook keeps the error
            error = e
        if out.getvalue():
            cell["outputs"].append({"output_type": "stream", "name": "stdout", "text": _lines(out.getvalue())})
        if value is not None:
            cell["outputs"].append({"output_type": "execute_result", "execution_count": count,
                                    "data": {"text/plain": _lines(repr(value))}, "metadata": {}})
        ran += 1
        if error is not None:
            cell["outputs"].append({"output_type": "error", "ename": type(error).__name__, "evalue": str(error),
                                    "traceback": traceback.format_exception_only(type(error), error)})
            break
    with open(p, "w", encoding="utf-8") as f:
        json.dump(nb, f, indent=1)
        f.write("\n")
    return {"notebook": path, "cells_run": ran}


TOOLS = {"read_file": read_file, "write_file": write_file, "list_files": list_files, "delete": delete,
         "run_notebook": run_notebook}


class Run:
    """One task's run: the conversation and the trace."""

    def __init__(self, request):
        self.conversation = [
            {"role": "system", "content": "You operate a Linux machine with Jupyter and a spreadsheet. Use the tools."},
            {"role": "user", "content": request["instruction"]},
        ]
        self.trace = []
        self.calls = 0

    def call(self, name, thought="", **args):
        """Calls a tool, recording the call and its result."""
        self.calls += 1
        call_id = "call_%02d" % self.calls
        try:
            value = TOOLS[name](**args)
            content = value if isinstance(value, str) else json.dumps(value)
        except OSError as e:  # the tool failed: the agent sees the error
            value, content = None, "error: %s" % e
        self.conversation.append({"role": "assistant", "content": thought or None, "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]})
        self.conversation.append({"role": "tool", "tool_call_id": call_id, "content": content})
        self.trace.append({"action": "%s(%s)" % (name, json.dumps(args)), "feedback": content[:200]})
        return value

    def say(self, text):
        self.conversation.append({"role": "assistant", "content": text})


# The tasks, by id.

def region_totals(run):
    rows = list(csv.DictReader(io.StringIO(run.call("read_file", "Read the sales.", path=HOME + "/sales.csv"))))
    totals = {}
    for r in rows:
        units, revenue = totals.get(r["region"], (0, 0.0))
        if BROKEN:
            units += 1  # counts sales, not units
        else:
            units += int(r["units"])
        totals[r["region"]] = (units, revenue + int(r["units"]) * float(r["unit_price"]))
    out = "region,units,revenue\n" + "".join("%s,%d,%.2f\n" % (k, u, v) for k, (u, v) in sorted(totals.items()))
    run.call("write_file", "Write one row per region.", path=HOME + "/region_totals.csv", content=out)
    return "done"


def ranked_scores(run):
    text = run.call("read_file", "Read the scores.", path=HOME + "/scores.csv")
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    if BROKEN:
        body.sort(key=lambda r: (-int(r[2]), r[0]))  # ties by name: the other accepted order
    else:
        body.sort(key=lambda r: -int(r[2]))  # stable: ties keep their order
    out = "".join(",".join(r) + "\n" for r in [header] + body)
    run.call("write_file", "Save the sorted table.", path=HOME + "/ranked.csv", content=out)
    return "done"


def temperatures_notebook(run):
    if BROKEN:
        # Forgets that /home/user is the working directory: open() fails
        # and the agent crashes without a result.
        with open(HOME + "/analysis.ipynb") as f:
            json.load(f)
    run.call("run_notebook", "Run all the cells.", path=HOME + "/analysis.ipynb")
    return "done"


def weekly_total(run):
    if BROKEN:
        # Computes the total itself and never runs the notebook.
        text = run.call("read_file", "Read the sales.", path=HOME + "/data/weekly.csv")
        total = sum(int(r["amount"]) for r in csv.DictReader(io.StringIO(text)))
    else:
        run.call("run_notebook", "Run all the cells.", path=HOME + "/weekly.ipynb")
        nb = json.loads(run.call("read_file", "Find the grand total.", path=HOME + "/weekly.ipynb"))
        total = None
        for cell in nb["cells"]:
            for out in cell.get("outputs", []):
                for line in "".join(out.get("text", [])).splitlines():
                    if line.startswith("grand total:"):
                        total = int(line.split(":")[1])
    run.call("write_file", "Save the total.", path=HOME + "/total.txt", content="%d\n" % total)
    return str(total)


def r_kernel(run):
    nb = json.loads(run.call("read_file", "Which kernels are there?", path=HOME + "/report.ipynb"))
    run.say("The notebook's kernel is %s, and the machine has no R kernel to switch to: this cannot be done."
            % nb["metadata"]["kernelspec"]["name"])
    return "FAIL"


def clean_project(run):
    if BROKEN:
        run.say("I am not allowed to delete files.")
        return "FAIL"
    for path in run.call("list_files", "What is in the project?", path=HOME + "/project"):
        if path.endswith(".tmp"):
            run.call("delete", path=HOME + "/" + path)
    run.call("delete", "The cache goes too.", path=HOME + "/project/cache")
    return "done"


TASKS = {
    "6a06299b-1c31-4cf2-a485-c372ddbf4335": region_totals,
    "21d50181-bd3e-49df-8000-338ecd876df9": ranked_scores,
    "20a92be5-6727-4b24-8058-c9680d4ec633": temperatures_notebook,
    "f7450ae8-7d1b-4637-aaaf-d2b6e662eb35": weekly_total,
    "01047512-7785-4de1-9f6b-a56ae241cc95": r_kernel,
    "de157872-55b7-434d-9eb9-0c3691b8ade9": clean_project,
}


def main():
    started = time.monotonic()
    request = json.load(sys.stdin)
    name = request["task_name"]
    print("task %s in %s" % (name, os.getcwd()), file=sys.stderr)
    run = Run(request)
    solve = TASKS.get(name)
    if solve is None:
        run.say("I do not know how to do this.")
        answer = "FAIL"
    else:
        answer = solve(run)
        if answer != "FAIL":
            run.say("Done: %s" % answer)
    words = sum(len(str(m.get("content") or "").split()) for m in run.conversation)
    result = {
        "task_name": name,
        "instruction": request["instruction"],
        "status": "completed",
        "iterations": run.calls + 1,
        "task_result": answer,
        "conversation": run.conversation,
        "execution_trace": run.trace,
        "usage": {"input_tokens": 40 * words, "output_tokens": 8 * words},
        "elapsed_seconds": round(time.monotonic() - started, 3),
    }
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
