// The abort handler of wasmeval AssemblyScript plugins (asc --use
// abort=…/abort/abort/wasmevalAbort): a failed assertion or a runtime error
// is reported, then the call traps, so the host says which plugin failed
// and why instead of a bare `unreachable`. On the native transport the
// message goes to standard error, which the host quotes in the fault; on
// Extism's (--use WASMEVAL_EXTISM=1) it is the call's error.

@external("wasi_snapshot_preview1", "fd_write")
declare function fdWrite(fd: i32, iovs: usize, iovsLen: i32, written: usize): i32;
@external("extism:host/env", "alloc")
declare function extismAlloc(n: u64): u64;
@external("extism:host/env", "store_u8")
declare function extismStoreU8(off: u64, v: u8): void;
@external("extism:host/env", "error_set")
declare function extismErrorSet(off: u64): void;

export function wasmevalAbort(message: string | null, fileName: string | null, line: u32, column: u32): void {
  let text = message !== null ? message : "abort";
  if (fileName !== null) text += " (" + fileName + ":" + line.toString() + ":" + column.toString() + ")";
  if (isDefined(WASMEVAL_EXTISM)) {
    const bytes = Uint8Array.wrap(String.UTF8.encode(text));
    const off = extismAlloc(<u64>bytes.length);
    for (let i = 0; i < bytes.length; i++) extismStoreU8(off + <u64>i, bytes[i]);
    extismErrorSet(off);
  } else {
    const bytes = Uint8Array.wrap(String.UTF8.encode(text + "\n"));
    // One iovec (address, length), then the count written.
    const iov = memory.data(16);
    store<u32>(iov, <u32>bytes.dataStart);
    store<u32>(iov, <u32>bytes.length, 4);
    fdWrite(2, iov, 1, iov + 8);
  }
  unreachable();
}
