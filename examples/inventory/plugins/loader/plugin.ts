// The inventory problem's loader plugin, written with the AssemblyScript
// SDK: one case per category found in the problem's catalog (read through
// the read_asset host function), each case's expected summary computed from
// the data itself, plus a case for a category that does not exist.
//
// Build: `task plugins` (or see docs/sdk-assemblyscript.md).

import {
  Value, Describe, LoadInput, LoadOutput, Case, str, parseNumber, parseString, trimSpace, readAsset, fail,
  serveDescribe, serveLoad,
} from "../../../../sdk/assemblyscript/assembly/index";

// The native transport's exports, which every plugin built with the SDK has.
export { wasmeval_input, wasmeval_output } from "../../../../sdk/assemblyscript/assembly/index";

export function describe(): i32 {
  const d = new Describe("inventory-loader", "1.0.0", ["loader"]);
  const schema = `{"type":"object","required":["catalog","asset"],"properties":{"catalog":{"type":"string"},"asset":{"type":"string"},"currency":{"type":"string"}}}`;
  const parsed = parseString(schema);
  if (parsed !== null) d.configSchema = parsed;
  d.description = "One summary case per catalog category, expected values computed from the catalog.";
  return serveDescribe(d);
}

export function load_cases(): i32 { return serveLoad(load); }

class Totals {
  items: i64 = 0;
  quantity: i64 = 0;
  value: f64 = 0;
}

/** Go's math.Round: half away from zero. */
function roundHalfAway(x: f64): f64 {
  const t = Math.trunc(x);
  if (Math.abs(x - t) >= 0.5) return t + (x < 0 ? -1 : 1);
  return t;
}

function load(input: LoadInput): LoadOutput | null {
  const catalog = str(input.config, "catalog");
  const asset = str(input.config, "asset");
  let currency = str(input.config, "currency");
  if (currency.length == 0) currency = "EUR";
  const data = readAsset(catalog);
  const out = new LoadOutput();
  if (data === null) {
    out.error = "cannot read " + catalog + " (see the run log)";
    return out;
  }
  const lines = String.UTF8.decode(data.buffer).split("\n");
  if (lines.length < 1 || trimSpace(lines[0]).length == 0) {
    out.error = catalog + " is not a CSV catalog: no header";
    return out;
  }
  const header = trimSpace(lines[0]).split(",");
  const cat = header.indexOf("category"), qty = header.indexOf("quantity"), price = header.indexOf("price");
  if (cat < 0 || qty < 0 || price < 0) return fail<LoadOutput>(catalog + " lacks a category, quantity or price column");
  const order = new Array<string>();
  const by = new Map<string, Totals>();
  for (let i = 1; i < lines.length; i++) {
    const line = trimSpace(lines[i]);
    if (line.length == 0) continue;
    const r = line.split(",");
    if (r.length != header.length) {
      out.error = catalog + " is not a CSV catalog: record on line " + (i + 1).toString() + " has " + r.length.toString() + " fields";
      return out;
    }
    const c = r[cat];
    const q = parseNumber(r[qty]);
    const p = parseNumber(r[price]);
    if (!by.has(c)) { by.set(c, new Totals()); order.push(c); }
    const t = by.get(c);
    t.items++;
    const qi: i64 = isNaN(q) ? 0 : <i64>q;
    t.quantity += qi;
    t.value += <f64>qi * (isNaN(p) ? 0 : p);
  }
  order.push("missing");
  by.set("missing", new Totals());
  for (let i = 0; i < order.length; i++) {
    const t = by.get(order[i]);
    const c = new Case();
    c.id = "category_" + order[i];
    c.arguments = ["summary", "--category", order[i], "{{static:" + asset + "}}"];
    const summary = Value.newObject()
      .set("items", Value.int(t.items))
      .set("total_quantity", Value.int(t.quantity))
      .set("total_value", Value.float(roundHalfAway(t.value * 100) / 100))
      .set("currency", Value.str(currency));
    c.expected.set("status_code", Value.int(0));
    c.expected.set("output", summary);
    out.cases.push(c);
  }
  out.done = true;
  return out;
}
