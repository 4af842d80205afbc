#!/usr/bin/env python3
"""The broken variant of the agent-tasks example's scripted agent.

It gets two tasks wrong (capital, longest-word), crashes on sum-report
and prints prose instead of a result on stock-json; count-csv it gets
right. Otherwise it is the reference agent: no model, no network.

It speaks wasmeval's agent protocol (wasmeval.agent/1): the request JSON
(task_name, instruction, metadata, timeout_s) arrives on stdin, and the
result JSON goes to stdout. The working directory is the agent's sandbox,
holding the task's workspace files. Each task is solved by a short script
that calls real tools on the sandbox (list_files, read_file, write_file,
lookup_capital), and every call and its result is recorded in the
conversation (OpenAI chat messages, or Anthropic content blocks for one
task) and in the execution trace, as an agent framework would record them.
"""

import json
import os
import sys
import time

CAPITALS = {"france": "Paris", "germany": "Berlin", "italy": "Rome", "spain": "Madrid"}


# The tools, acting on the sandbox (the working directory).
def list_files(path="."):
    found = []
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for f in sorted(files):
            found.append(os.path.relpath(os.path.join(root, f), "."))
    return found


def read_file(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write_file(path, content):
    with open(path, "w", encoding="utf-8") as f:
        f.write(content)
    return {"written": path, "bytes": len(content.encode("utf-8"))}


def lookup_capital(country):
    city = CAPITALS.get(country.strip().lower())
    if city is None:
        return {"error": "unknown country " + country}
    return {"country": country, "capital": city}


TOOLS = {"list_files": list_files, "read_file": read_file, "write_file": write_file, "lookup_capital": lookup_capital}


class Run:
    """One task's run: the conversation, in either dialect, and the trace."""

    def __init__(self, request, dialect="openai"):
        self.request = request
        self.dialect = dialect
        self.conversation = [
            {"role": "system", "content": "You are a careful agent. Use the tools; hand in your answer."},
            {"role": "user", "content": request["instruction"]},
        ]
        self.trace = []
        self.calls = 0
        self.task_result = None

    def _id(self):
        self.calls += 1
        return ("call_%02d" if self.dialect == "openai" else "toolu_%02d") % self.calls

    def call(self, name, thought="", **args):
        """Calls a tool, recording the call and its result."""
        call_id = self._id()
        try:
            value = TOOLS[name](**args) if name != "task_complete" else "accepted"
            is_error = False
        except Exception as e:  # the tool failed: the agent sees the error
            value, is_error = "error: %s" % e, True
        content = value if isinstance(value, str) else json.dumps(value)
        if self.dialect == "openai":
            self.conversation.append({"role": "assistant", "content": thought or None, "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]})
            self.conversation.append({"role": "tool", "tool_call_id": call_id, "content": content})
        else:
            blocks = [{"type": "text", "text": thought}] if thought else []
            blocks.append({"type": "tool_use", "id": call_id, "name": name, "input": args})
            self.conversation.append({"role": "assistant", "content": blocks})
            result = {"type": "tool_result", "tool_use_id": call_id, "content": content}
            if is_error:
                result["is_error"] = True
            self.conversation.append({"role": "user", "content": [result]})
        self.trace.append({"action": "%s(%s)" % (name, ", ".join("%s=%r" % kv for kv in args.items())),
                           "feedback": content[:200]})
        return value

    def say(self, text):
        """The agent's reply (the final reply when it is the last)."""
        if self.dialect == "openai":
            self.conversation.append({"role": "assistant", "content": text})
        else:
            self.conversation.append({"role": "assistant", "content": [{"type": "text", "text": text}]})

    def result(self, status, started):
        out = {
            "task_name": self.request["task_name"],
            "instruction": self.request["instruction"],
            "status": status,
            "iterations": self.calls + 1,
            "conversation": self.conversation,
            "execution_trace": self.trace,
            "sandbox": {"kind": "workdir", "path": os.getcwd()},
            "model": "scripted-broken",
            "elapsed_seconds": round(time.monotonic() - started, 3),
        }
        if self.task_result is not None:
            out["task_result"] = self.task_result
        return out


# The scripts, one per task, each with its bug.
def capital(run):
    # Wrong: it never looks the capital up and guesses.
    run.call("task_complete", "It must be the largest city in the south.", answer="Lyon")
    run.say("The capital of France is Lyon.")


def count_csv(run):
    # Right: the same script as the reference agent's.
    files = run.call("list_files", "Let me list what is under data/.", path="data")
    n = sum(1 for f in files if f.endswith(".csv"))
    run.task_result = n
    run.say("There are %d .csv files under data/." % n)


def sum_report(run):
    # Crashes: it reads the numbers as a mapping. The traceback goes to
    # stderr and nothing to stdout.
    text = run.call("read_file", "Reading the numbers.", path="numbers.txt")
    totals = json.loads("{}")
    run.call("write_file", path="report.txt", content="%d\n" % totals["total"])


def stock_json(run):
    # Prints prose instead of its result JSON.
    text = run.call("read_file", path="inventory.csv")
    print("Done! tools=42, office=257, kitchen=4 (I hope that is what you wanted)")
    sys.exit(0)


def longest_word(run):
    # Wrong: it answers with the first word.
    words = run.call("read_file", path="words.txt").split()
    run.say("The longest word in words.txt is <answer>%s</answer>." % words[0])


SCRIPTS = {
    "capital": (capital, "openai"),
    "count-csv": (count_csv, "openai"),
    "sum-report": (sum_report, "openai"),
    "stock-json": (stock_json, "anthropic"),
    "longest-word": (longest_word, "anthropic"),
}


def main():
    started = time.monotonic()
    request = json.load(sys.stdin)
    if request.get("protocol") != "wasmeval.agent/1":
        print("unknown protocol %r" % request.get("protocol"), file=sys.stderr)
    script, dialect = SCRIPTS.get(request["task_name"], (None, "openai"))
    run = Run(request, dialect)
    print("task %s in %s" % (request["task_name"], os.getcwd()), file=sys.stderr)
    if script is None:
        run.say("I have no script for the task %s." % request["task_name"])
        status = "failed"
    else:
        script(run)
        status = "completed"
    json.dump(run.result(status, started), sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
