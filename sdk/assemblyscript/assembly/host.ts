// The Extism host imports, declared here (no PDK needed), and the call's
// input and output. Output is always written as UTF-8 bytes with their byte
// length, so non-ASCII text arrives whole.

@external("extism:host/env", "input_length")
declare function input_length(): u64;
@external("extism:host/env", "input_load_u8")
declare function input_load_u8(off: u64): u32;
@external("extism:host/env", "input_load_u64")
declare function input_load_u64(off: u64): u64;
@external("extism:host/env", "alloc")
declare function alloc(n: u64): u64;
@external("extism:host/env", "free")
declare function free(off: u64): void;
@external("extism:host/env", "length")
declare function length(off: u64): u64;
@external("extism:host/env", "load_u8")
declare function load_u8(off: u64): u32;
@external("extism:host/env", "load_u64")
declare function load_u64(off: u64): u64;
@external("extism:host/env", "store_u8")
declare function store_u8(off: u64, v: u32): void;
@external("extism:host/env", "store_u64")
declare function store_u64(off: u64, v: u64): void;
@external("extism:host/env", "output_set")
declare function output_set(off: u64, n: u64): void;
@external("extism:host/env", "error_set")
declare function error_set(off: u64): void;
@external("extism:host/env", "log_info")
declare function log_info(off: u64): void;
@external("extism:host/env", "log_warn")
declare function log_warn(off: u64): void;
@external("extism:host/env", "log_error")
declare function log_error(off: u64): void;
@external("extism:host/user", "read_asset")
declare function read_asset(off: u64): u64;

/** The call's input bytes. */
export function input(): Uint8Array {
  const n = <i32>input_length();
  const out = new Uint8Array(n);
  const base = out.dataStart;
  let i = 0;
  for (; i + 8 <= n; i += 8) store<u64>(base + <usize>i, input_load_u64(<u64>i));
  for (; i < n; i++) store<u8>(base + <usize>i, <u8>input_load_u8(<u64>i));
  return out;
}

function toBlock(data: Uint8Array): u64 {
  const n = data.length;
  const off = alloc(<u64>n);
  const base = data.dataStart;
  let i = 0;
  for (; i + 8 <= n; i += 8) store_u64(off + <u64>i, load<u64>(base + <usize>i));
  for (; i < n; i++) store_u8(off + <u64>i, <u32>load<u8>(base + <usize>i));
  return off;
}

function fromBlock(off: u64): Uint8Array {
  const n = <i32>length(off);
  const out = new Uint8Array(n);
  const base = out.dataStart;
  let i = 0;
  for (; i + 8 <= n; i += 8) store<u64>(base + <usize>i, load_u64(off + <u64>i));
  for (; i < n; i++) store<u8>(base + <usize>i, <u8>load_u8(off + <u64>i));
  return out;
}

export function utf8(s: string): Uint8Array {
  return Uint8Array.wrap(String.UTF8.encode(s));
}

/** Sets the call's output to s, as UTF-8. */
export function outputString(s: string): void {
  const bytes = utf8(s);
  output_set(toBlock(bytes), <u64>bytes.length);
}

/** Sets the call's error message (the export then returns non-zero). */
export function setError(msg: string): void {
  error_set(toBlock(utf8(msg)));
}

/** Writes a line to the run log: level "info", "warn" or "error". */
export function log(level: string, msg: string): void {
  const off = toBlock(utf8(msg));
  if (level == "warn") log_warn(off);
  else if (level == "error") log_error(off);
  else log_info(off);
  free(off);
}

/** A file of the problem directory read through the host's read_asset;
 * null when refused (the reason is in the run log). */
export function readAsset(path: string): Uint8Array | null {
  const off = toBlock(utf8(path));
  const res = read_asset(off);
  free(off);
  if (res == 0) return null;
  const data = fromBlock(res);
  free(res);
  return data;
}
