// The transport: the call's input and output, the run log and the
// problem's assets (docs/plugin-abi.md, "Transports").
//
// By default the SDK speaks wasmeval's native transport: the host writes
// the input into a buffer the SDK hands it (wasmeval_input) and reads the
// output where the SDK says it is (wasmeval_output), one copy each way,
// and the module imports nothing but the host module `wasmeval`. Compiled
// with `--use WASMEVAL_EXTISM=1` it speaks Extism's ABI instead (declared
// here, no PDK needed), for other Extism hosts. Only the functions the
// chosen transport uses are imported.
//
// Output is always UTF-8 bytes with their byte length, so non-ASCII text
// arrives whole.

import { ByteWriter } from "./json";

// The native transport's host module.
@external("wasmeval", "read_asset")
declare function wasmeval_read_asset(pathPtr: usize, pathLen: i32, bufPtr: usize, bufCap: i32): i64;
@external("wasmeval", "log")
declare function wasmeval_log(level: i32, ptr: usize, len: i32): void;

// Extism's, with --use WASMEVAL_EXTISM=1.
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
declare function extism_read_asset(off: u64): u64;

// One call at a time per instance. Each call's input has a buffer of its
// own: values read from it point into it, and may outlive the call (a
// plugin can keep one), so the next input is not written over it. The
// output is the writer's buffer, kept (until a call has made it large), so
// a call allocates none.
let inputBuf: ArrayBuffer = new ArrayBuffer(0);
let inputLen: i32 = 0;
const writer = new ByteWriter(4096);
let resultSet: bool = false;

// What a call allocates grows with its input (its documents, their
// tapes, unescaped text). The incremental collector frees it over later
// calls' allocations, but garbage of large calls can pile up faster than
// it runs: once the calls since the last full collection have read
// COLLECT_AFTER bytes of input, a call starts with one, so memory stays
// near what the largest call needs. With small calls (a batch of the
// benchmark's is about 1 MiB) that is a collection every few batches.
const COLLECT_AFTER = 8 << 20;
let sinceCollect = 0;

// Built with asc's minimal runtime (--runtime minimal) the module keeps no
// shadow stack, which makes every call cheaper, and so nothing collects
// but __collect, which may run only where no reference lives on the stack
// alone: here, before a call, where every call then starts with one. What
// a call allocates stays until the next call starts (docs/sdk-assemblyscript.md,
// "The runtime").
const MINIMAL_RUNTIME = ASC_RUNTIME == 1;

/** A new buffer for an input of n bytes (with room after it for the
 * parser's eight-byte reads, so the input is parsed where it is). */
function inputRoom(n: i32): void {
  sinceCollect += n;
  if (MINIMAL_RUNTIME || sinceCollect >= COLLECT_AFTER) {
    inputBuf = new ArrayBuffer(0); // the last input goes too
    __collect();
    sinceCollect = n;
  }
  inputBuf = new ArrayBuffer(n + 16);
  inputLen = n;
}

/** Starts a call: the last call's output is no longer needed. */
function startCall(): void {
  resultSet = false;
  writer.reset();
  if (writer.buf.byteLength > (4 << 20)) writer.buf = new ArrayBuffer(4096);
}

/** The writer the entry points encode the call's output into. */
export function outputWriter(): ByteWriter {
  return writer;
}

/** wasmeval_input(len): room for the next call's input. A plugin exports
 * it (with wasmeval_output) by re-exporting both from the SDK:
 *
 *   export { wasmeval_input, wasmeval_output } from "…/assembly/index";
 */
export function wasmeval_input(n: i32): i32 {
  inputRoom(n < 0 ? 0 : n);
  startCall();
  return <i32>changetype<usize>(inputBuf);
}

/** wasmeval_output(): where the last call's output is, address << 32 |
 * length (0 for none). */
export function wasmeval_output(): i64 {
  if (!resultSet || writer.len == 0) return 0;
  return (<i64>writer.dataStart << 32) | <i64>writer.len;
}

/** The call's input bytes. */
export function input(): Uint8Array {
  if (isDefined(WASMEVAL_EXTISM)) {
    const n = <i32>input_length();
    inputRoom(n);
    const base = changetype<usize>(inputBuf);
    let i = 0;
    for (; i + 8 <= n; i += 8) store<u64>(base + <usize>i, input_load_u64(<u64>i));
    for (; i < n; i++) store<u8>(base + <usize>i, <u8>input_load_u8(<u64>i));
    startCall();
  }
  return Uint8Array.wrap(inputBuf, 0, inputLen);
}

function toBlock(ptr: usize, n: i32): u64 {
  const off = alloc(<u64>n);
  let i = 0;
  for (; i + 8 <= n; i += 8) store_u64(off + <u64>i, load<u64>(ptr + <usize>i));
  for (; i < n; i++) store_u8(off + <u64>i, <u32>load<u8>(ptr + <usize>i));
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

/** Makes what the output writer holds the call's output (or, when the
 * export returns non-zero, its failure message). */
export function commitOutput(failed: bool): void {
  resultSet = true;
  if (isDefined(WASMEVAL_EXTISM)) {
    const off = toBlock(writer.dataStart, writer.len);
    if (failed) error_set(off);
    else output_set(off, <u64>writer.len);
    writer.reset();
  }
}

/** Sets the call's output to s, as UTF-8. */
export function outputString(s: string): void {
  writer.reset();
  writer.text(s);
  commitOutput(false);
}

/** Sets the call's error message (the export then returns non-zero). */
export function setError(msg: string): void {
  writer.reset();
  writer.text(msg);
  commitOutput(true);
}

/** Writes a line to the run log: level "info", "warn" or "error". */
export function log(level: string, msg: string): void {
  if (isDefined(WASMEVAL_EXTISM)) {
    const b = utf8(msg);
    const off = toBlock(b.dataStart, b.length);
    if (level == "warn") log_warn(off);
    else if (level == "error") log_error(off);
    else log_info(off);
    free(off);
  } else {
    const b = String.UTF8.encode(msg);
    const l = level == "warn" ? 3 : (level == "error" ? 4 : 2);
    wasmeval_log(l, changetype<usize>(b), b.byteLength);
  }
}

/** A file of the problem directory read through the host's read_asset;
 * null when refused (the reason is in the run log). */
export function readAsset(path: string): Uint8Array | null {
  if (isDefined(WASMEVAL_EXTISM)) {
    const p = utf8(path);
    const off = toBlock(p.dataStart, p.length);
    const res = extism_read_asset(off);
    free(off);
    if (res == 0) return null;
    const data = fromBlock(res);
    free(res);
    return data;
  }
  const p = String.UTF8.encode(path);
  let buf = new ArrayBuffer(64 << 10);
  while (true) {
    const n = wasmeval_read_asset(changetype<usize>(p), p.byteLength, changetype<usize>(buf), buf.byteLength);
    if (n < 0) return null;
    // Exactly the file's bytes, so data.buffer is the file too.
    if (n <= <i64>buf.byteLength) return Uint8Array.wrap(<i32>n == buf.byteLength ? buf : buf.slice(0, <i32>n));
    buf = new ArrayBuffer(<i32>n);
  }
  return null;
}
