// Mock services: the upstreams (payments, a currency API, an LLM) that a
// submission under test calls, answered by a plugin. A mock is a function
// from one request to its response; what it must remember between calls
// of a group travels in the state:
//
//   export function mock(): i32 { return serveMock(answer); }
//
//   function answer(input: MockInput): MockOutput | null {
//     const out = new MockOutput();
//     out.response = textResponse(200, "ok");
//     return out;
//   }

import { Value } from "./json";
import { MockRequest, MockResponse } from "./models";
import { base64 } from "./setup";

/** A response with status and a text body. */
export function textResponse(status: i32, body: string): MockResponse {
  const r = new MockResponse();
  r.status = status;
  r.headers.set("content-type", "text/plain; charset=utf-8");
  r.body = body;
  return r;
}

/** A response with status and v as its body, as canonical JSON; null
 * when v cannot be written as JSON (a number that is not finite). */
export function jsonResponse(status: i32, v: Value): MockResponse | null {
  const body = v.toJSON();
  if (body === null) return null;
  const r = new MockResponse();
  r.status = status;
  r.headers.set("content-type", "application/json");
  r.body = body;
  return r;
}

/** A response with status and any bytes as its body (sent base64). */
export function bytesResponse(status: i32, contentType: string, body: Uint8Array): MockResponse {
  const r = new MockResponse();
  r.status = status;
  r.headers.set("content-type", contentType);
  r.bodyBase64 = base64(body);
  return r;
}

/** A map of lists of strings (a request's query or headers) as a JSON
 * value: an object of arrays. */
export function stringLists(m: Map<string, Array<string>>): Value {
  const out = Value.newObject();
  const keys = m.keys();
  for (let i = 0; i < keys.length; i++) {
    const list = m.get(keys[i]);
    const a = new Array<Value>();
    for (let j = 0; j < list.length; j++) a.push(Value.str(list[j]));
    out.set(keys[i], Value.array(a));
  }
  return out;
}

/** The request's body: its text's UTF-8 bytes, or its base64 decoded
 * (null when that is not base64). */
export function requestBody(r: MockRequest): Uint8Array | null {
  if (r.bodyBase64.length == 0) return Uint8Array.wrap(String.UTF8.encode(r.body));
  return decodeBase64(r.bodyBase64);
}

/** The standard base64 decoding (RFC 4648, padded); null for text that is
 * not base64. */
export function decodeBase64(text: string): Uint8Array | null {
  const n = text.length;
  if (n % 4 != 0) return null;
  let pad = 0;
  if (n > 0 && text.charCodeAt(n - 1) == 0x3d) pad++;
  if (n > 1 && text.charCodeAt(n - 2) == 0x3d) pad++;
  const out = new Uint8Array(n / 4 * 3 - pad);
  let o = 0;
  for (let i = 0; i < n; i += 4) {
    let v: u32 = 0;
    for (let k = 0; k < 4; k++) {
      const c = text.charCodeAt(i + k);
      let d: i32;
      if (c >= 0x41 && c <= 0x5a) d = c - 0x41;
      else if (c >= 0x61 && c <= 0x7a) d = c - 0x61 + 26;
      else if (c >= 0x30 && c <= 0x39) d = c - 0x30 + 52;
      else if (c == 0x2b) d = 62;
      else if (c == 0x2f) d = 63;
      else if (c == 0x3d && i + 4 == n && k >= 4 - pad) d = 0;
      else return null;
      v = (v << 6) | <u32>d;
    }
    if (o < out.length) out[o++] = <u8>(v >> 16);
    if (o < out.length) out[o++] = <u8>(v >> 8);
    if (o < out.length) out[o++] = <u8>v;
  }
  return out;
}
