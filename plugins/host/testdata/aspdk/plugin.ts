// A verifier written with Extism's own AssemblyScript PDK (@extism/as-pdk)
// and nothing of wasmeval's: the host must run any module built with an
// Extism PDK, through the released Extism Go SDK. It finds the values it
// needs in the input's text rather than decoding it (the PDK has no JSON).

import { Host } from "@extism/as-pdk";

export function describe(): i32 {
  Host.outputString('{"abi_version":1,"name":"as-pdk-verifier","version":"1.0.0","kinds":["verifier"],"transport":"extism"}');
  return 0;
}

// stringAfter returns the JSON string value that follows key in s, still
// escaped, or null.
function stringAfter(s: string, key: string): string | null {
  const at = s.indexOf(key);
  if (at < 0) return null;
  let i = at + key.length;
  let out = "";
  while (i < s.length) {
    const c = s.charAt(i);
    if (c == '"') return out;
    if (c == "\\") {
      out += s.substr(i, 2);
      i += 2;
      continue;
    }
    out += c;
    i++;
  }
  return null;
}

export function verify(): i32 {
  const input = Host.inputString();
  const actual = stringAfter(input, '"actual":{"status_code":0,"output":"');
  const expected = stringAfter(input, '"expected":{"output":"');
  if (actual == null || expected == null) {
    Host.outputString('{"attributes":[],"error":"the case has no output to compare"}');
    return 0;
  }
  const same = actual == expected;
  Host.outputString('{"attributes":[{"attribute":"output","actual":"' + actual + '","expected":"' + expected +
    '","is_correct":' + (same ? "true" : "false") + ',"weight":1}]}');
  return 0;
}

// pdkAbort is the module's abort handler (asc --use abort=…): an abort
// traps, which the host reports as the call's fault.
function pdkAbort(message: string | null, fileName: string | null, line: u32, column: u32): void {
  unreachable();
}
