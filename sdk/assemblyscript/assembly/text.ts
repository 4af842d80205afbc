// Text normalisation, JSON Lines and number literals, with the same rules
// as the Go and Rust SDKs.

import { Value, Kind, parseString, parseError, numberValue } from "./json";

/** Unicode White_Space, the set Go's unicode.IsSpace and Rust's
 * char::is_whitespace use. */
export function isSpace(c: i32): bool {
  return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0x85 || c == 0xa0 || c == 0x1680
    || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

/** Lowercases one code point with Unicode's simple (one-to-one) mapping,
 * as Go's unicode.ToLower does. */
export function lowerCodePoint(c: i32): i32 {
  if (c < 0x80) return c >= 0x41 && c <= 0x5a ? c + 32 : c;
  if (c == 0x130) return 0x69;
  if (c == 0x3a3) return 0x3c3; // Σ → σ, without the final-sigma rule
  const l = String.fromCodePoint(c).toLowerCase();
  const lc = l.codePointAt(0);
  return l.length == (lc >= 0x10000 ? 2 : 1) ? lc : c;
}

function lower(s: string): string {
  const out = new Array<string>();
  let start = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.codePointAt(i);
    const w = c >= 0x10000 ? 2 : 1;
    const l = lowerCodePoint(c);
    if (l != c) {
      if (i > start) out.push(s.substring(start, i));
      out.push(String.fromCodePoint(l));
      start = i + w;
    }
    i += w;
  }
  if (start == 0) return s;
  out.push(s.substring(start));
  return out.join("");
}

/** Splits s at runs of whitespace, dropping empty fields (Go's
 * strings.Fields). */
export function fields(s: string): Array<string> {
  const out = new Array<string>();
  let start = -1;
  for (let i = 0; i < s.length; i++) {
    const sp = isSpace(s.charCodeAt(i));
    if (sp && start >= 0) { out.push(s.substring(start, i)); start = -1; }
    else if (!sp && start < 0) start = i;
  }
  if (start >= 0) out.push(s.substring(start));
  return out;
}

/** Trims whitespace at both ends (Go's strings.TrimSpace). */
export function trimSpace(s: string): string {
  let a = 0, b = s.length;
  while (a < b && isSpace(s.charCodeAt(a))) a++;
  while (b > a && isSpace(s.charCodeAt(b - 1))) b--;
  return a == 0 && b == s.length ? s : s.substring(a, b);
}

/** The engine's text normalisations: line endings become \n; ignoring case
 * lowercases every character; ignoring whitespace collapses runs of
 * whitespace inside a line to one space, trims each line and drops blank
 * lines. */
export function normalizeText(s: string, ignoreWhitespace: bool, ignoreCase: bool): string {
  s = s.replaceAll("\r\n", "\n");
  if (ignoreCase) s = lower(s);
  if (!ignoreWhitespace) return s;
  const lines = s.split("\n");
  const out = new Array<string>();
  for (let i = 0; i < lines.length; i++) {
    const f = fields(lines[i]);
    if (f.length > 0) out.push(f.join(" "));
  }
  return out.join("\n");
}

/** Set when parseJSONL returns null: "line N: invalid JSON at …". */
export let jsonlError: string = "";

/** Decodes JSON Lines: blank lines skipped, a bad line named by number. */
export function parseJSONL(s: string): Array<Value> | null {
  const out = new Array<Value>();
  const lines = s.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (trimSpace(lines[i]).length == 0) continue;
    const v = parseString(lines[i]);
    if (v === null) { jsonlError = "line " + (i + 1).toString() + ": " + parseError; return null; }
    out.push(v);
  }
  return out;
}

/** Reads s (surrounding whitespace ignored) as a JSON number literal; NaN
 * when it is not one (only the JSON grammar is accepted, as in every SDK). */
export function parseNumber(s: string): f64 {
  const v = parseString(trimSpace(s));
  if (v === null || v.kind != Kind.Number) return NaN;
  return numberValue(v.s);
}
