"""A to-do web app with deliberate bugs: the broken submission of the
todo-web example. The heading reads "Todo", the import drops the file's last
line, and there is no "Clear completed" button.

The page talks to a small JSON API on the same server; the list lives on the
server, so every browser sees the same items."""
import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TODOS = []

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Todos</title>
<style>.done { text-decoration: line-through; } #empty[hidden] { display: none; }</style></head>
<body>
<h1>Todo</h1>
<form id="add">
  <label for="title">New todo</label>
  <input id="title" name="title" autocomplete="off">
  <button type="submit">Add</button>
</form>
<p id="empty">Nothing to do.</p>
<ul id="list"></ul>
<p><span id="left">0</span> left</p>
<form id="import">
  <label for="file">Import file</label>
  <input id="file" type="file">
</form>
<script>
async function api(method, path, body) {
  const r = await fetch(path, {method, headers: {"Content-Type": "application/json"}, body: body === undefined ? undefined : JSON.stringify(body)});
  return r.json();
}
function render(todos) {
  const list = document.getElementById("list");
  list.innerHTML = "";
  for (const t of todos) {
    const li = document.createElement("li");
    if (t.done) li.className = "done";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.checked = t.done;
    box.setAttribute("aria-label", "Done: " + t.title);
    box.addEventListener("change", async () => render(await api("POST", "/api/toggle", {id: t.id})));
    li.append(box, " ", t.title);
    list.append(li);
  }
  document.getElementById("empty").hidden = todos.length > 0;
  document.getElementById("left").textContent = todos.filter(t => !t.done).length;
}
document.getElementById("add").addEventListener("submit", async (e) => {
  e.preventDefault();
  const input = document.getElementById("title");
  const title = input.value.trim();
  if (!title) return;
  input.value = "";
  render(await api("POST", "/api/todos", {title}));
});
document.getElementById("file").addEventListener("change", async (e) => {
  const text = await e.target.files[0].text();
  const titles = text.split("\\n").slice(0, -1).map(s => s.trim()).filter(Boolean);
  render(await api("POST", "/api/import", {titles}));
});
api("GET", "/api/todos").then(render);
</script>
</body></html>
"""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        print("%s %s" % (self.command, self.path), flush=True)

    def send(self, status, body, content_type="application/json"):
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"{}")

    def do_GET(self):
        if self.path == "/":
            return self.send(200, PAGE, "text/html; charset=utf-8")
        if self.path == "/api/todos":
            return self.send(200, TODOS)
        return self.send(404, {"error": "no route"})

    def do_POST(self):
        data = self.body()
        if self.path == "/api/todos":
            TODOS.append({"id": len(TODOS) + 1, "title": data["title"], "done": False})
        elif self.path == "/api/toggle":
            for t in TODOS:
                if t["id"] == data["id"]:
                    t["done"] = not t["done"]
        elif self.path == "/api/clear":
            TODOS[:] = [t for t in TODOS if not t["done"]]
        elif self.path == "/api/import":
            for title in data["titles"]:
                TODOS.append({"id": len(TODOS) + 1, "title": title, "done": False})
        else:
            return self.send(404, {"error": "no route"})
        return self.send(200, TODOS)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    args = ap.parse_args()
    ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
