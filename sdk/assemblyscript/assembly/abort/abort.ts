// The abort handler of wasmeval AssemblyScript plugins (asc --use
// abort=…/abort/abort): a failed assertion or a runtime error becomes the
// call's error message, then the call traps, so the host reports which
// plugin failed and why instead of a bare `unreachable`.

@external("extism:host/env", "alloc")
declare function extismAlloc(n: u64): u64;
@external("extism:host/env", "store_u8")
declare function extismStoreU8(off: u64, v: u8): void;
@external("extism:host/env", "error_set")
declare function extismErrorSet(off: u64): void;

export function wasmevalAbort(message: string | null, fileName: string | null, line: u32, column: u32): void {
  let text = message !== null ? message : "abort";
  if (fileName !== null) text += " (" + fileName + ":" + line.toString() + ":" + column.toString() + ")";
  const bytes = Uint8Array.wrap(String.UTF8.encode(text));
  const off = extismAlloc(<u64>bytes.length);
  for (let i = 0; i < bytes.length; i++) extismStoreU8(off + <u64>i, bytes[i]);
  extismErrorSet(off);
  unreachable();
}
