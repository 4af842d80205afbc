#!/usr/bin/env python3
"""The eval-cases example's scripted agent, served over HTTP.

    python3 http/server.py --port 8080 [--host 127.0.0.1] [--agent reference|broken] [--dialect openai|anthropic]

wasmeval starts it once for all the cases (eval-http.yaml's agent block)
and POSTs each case's request JSON to /run; the response body is the
result JSON. GET /health answers 200 once the server is up. The agent
itself is ../reference/agent.py (or ../broken/agent.py with --agent
broken), so the submission is the whole agents/ directory.
"""

import argparse
import importlib.util
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer


def load_agent(name):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", name, "agent.py")
    spec = importlib.util.spec_from_file_location("agent_" + name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def handler(agent, dialect):
    class Handler(BaseHTTPRequestHandler):
        def send(self, status, body, kind="application/json"):
            data = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path == "/health":
                self.send(200, "ok\n", "text/plain")
            else:
                self.send(404, json.dumps({"error": "not found"}))

        def do_POST(self):
            if self.path != "/run":
                self.send(404, json.dumps({"error": "POST requests to /run"}))
                return
            try:
                request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            except ValueError as e:
                self.send(400, json.dumps({"error": "the request is not JSON: %s" % e}))
                return
            print("task %s" % request.get("task_name"), file=sys.stderr, flush=True)
            self.send(200, json.dumps(agent.respond(request, dialect)))

        def log_message(self, *args):
            pass

    return Handler


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--agent", choices=["reference", "broken"], default="reference")
    p.add_argument("--dialect", choices=["openai", "anthropic"], default=None,
                   help="the conversation's dialect (default: Anthropic for multi-step queries, else OpenAI)")
    args = p.parse_args()
    server = HTTPServer((args.host, args.port), handler(load_agent(args.agent), args.dialect))
    print("agent %s listening on %s:%d" % (args.agent, args.host, args.port), file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
