"""A checkout service: the reference submission of the checkout-api example.

POST /checkout totals a cart, converts the total into the requested
currency with the rates upstream, and charges it once through the payments
upstream. The upstreams' base URLs come from the environment
(WASMEVAL_MOCK_RATES, WASMEVAL_MOCK_PAYMENTS).
"""
import argparse
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from decimal import ROUND_HALF_UP, Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Upstream(Exception):
    """An upstream answered with an error status."""

    def __init__(self, status, payload):
        super().__init__(status)
        self.status, self.payload = status, payload


def call(method, url, payload=None):
    """One request to an upstream: (status, JSON body); numbers as Decimal."""
    data = None if payload is None else json.dumps(payload).encode()
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read() or b"null", parse_float=Decimal)
    except urllib.error.HTTPError as err:
        raise Upstream(err.code, json.loads(err.read() or b"null", parse_float=Decimal))


def rate(source, target):
    if source == target:
        return Decimal(1)
    query = urllib.parse.urlencode({"from": source, "to": target})
    _, body = call("GET", os.environ["WASMEVAL_MOCK_RATES"] + "/v1/rates?" + query)
    return Decimal(str(body["rate"]))


def charge(amount, currency):
    _, body = call("POST", os.environ["WASMEVAL_MOCK_PAYMENTS"] + "/v1/charges",
                   {"amount": amount, "currency": currency})
    return body


def total(cart):
    """The cart's total in minor units, or an error message."""
    items = cart.get("items") if isinstance(cart, dict) else None
    if not items:
        return None, "cart is empty"
    amount = 0
    for i, item in enumerate(items):
        price, qty = item.get("unit_price"), item.get("quantity")
        if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (price, qty)):
            return None, "items[%d]: unit_price and quantity must be positive integers" % i
        amount += price * qty
    return amount, None


def checkout(order):
    cart, target = order.get("cart"), order.get("currency")
    amount, err = total(cart)
    if err:
        return 400, {"error": err}
    if not isinstance(target, str) or not target:
        return 400, {"error": "currency is required"}
    try:
        r = rate(cart.get("currency", ""), target)
    except Upstream as e:
        if e.status == 404:
            return 400, {"error": "unsupported currency %s" % target}
        return 502, {"error": "rates upstream answered %d" % e.status}
    converted = int((amount * r).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    try:
        paid = charge(converted, target)
    except Upstream as e:
        if e.status == 402:
            return 402, {"error": "payment declined", "reason": (e.payload or {}).get("error", "")}
        return 502, {"error": "payments upstream answered %d" % e.status}
    return 201, {"status": "paid", "charge_id": paid["id"], "amount": converted, "currency": target}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        print("%s %s" % (self.command, self.path), flush=True)

    def send(self, status, payload):
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/health":
            return self.send(200, {"ok": True})
        self.send(404, {"error": "not found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path != "/checkout":
            return self.send(404, {"error": "not found"})
        try:
            order = json.loads(raw)
        except ValueError:
            order = None
        if not isinstance(order, dict):
            return self.send(400, {"error": "body must be a JSON object"})
        self.send(*checkout(order))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8080)
    args = ap.parse_args()
    ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
