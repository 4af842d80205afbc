"""A notes REST service: the reference submission of the notes example."""
import argparse
import io
import json
import re
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

NOTES = {}
NEXT_ID = [1]


def words(text):
    return len(text.split())


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        print("%s %s" % (self.command, self.path), flush=True)

    def send(self, status, payload=None, content_type="application/json", raw=None):
        body = raw if raw is not None else (b"" if payload is None else json.dumps(payload).encode())
        self.send_response(status)
        if body or status != 204:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def read_json(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            return json.loads(self.rfile.read(length) or b"null")
        except ValueError:
            return ValueError

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/health":
            return self.send(200, {"ok": True})
        if url.path == "/notes":
            q = parse_qs(url.query).get("q", [""])[0].lower()
            notes = [n for n in NOTES.values() if q in n["title"].lower()]
            return self.send(200, notes)
        m = re.fullmatch(r"/notes/(\d+)", url.path)
        if m:
            note = NOTES.get(int(m.group(1)))
            if note is None:
                return self.send(404, {"error": "not found"})
            return self.send(200, note)
        if url.path == "/stats":
            return self.send(200, {"count": len(NOTES), "words": sum(words(n["body"]) for n in NOTES.values())})
        if url.path == "/export":
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w") as z:
                for n in NOTES.values():
                    z.writestr("notes/%d.txt" % n["id"], "%s\n\n%s\n" % (n["title"], n["body"]))
            return self.send(200, content_type="application/zip", raw=buf.getvalue())
        return self.send(404, {"error": "no route"})

    def do_POST(self):
        if self.path != "/notes":
            return self.send(404, {"error": "no route"})
        data = self.read_json()
        if data is ValueError or not isinstance(data, dict):
            return self.send(400, {"error": "body must be a JSON object"})
        title = data.get("title")
        if not isinstance(title, str) or not title.strip():
            return self.send(400, {"error": "title is required"})
        note = {"id": NEXT_ID[0], "title": title.strip(), "body": str(data.get("body", ""))}
        NEXT_ID[0] += 1
        NOTES[note["id"]] = note
        return self.send(201, note)

    def do_DELETE(self):
        m = re.fullmatch(r"/notes/(\d+)", self.path)
        if not m or int(m.group(1)) not in NOTES:
            return self.send(404, {"error": "not found"})
        del NOTES[int(m.group(1))]
        return self.send(204)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    args = ap.parse_args()
    print("listening on %s:%d" % (args.host, args.port), flush=True)
    ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
