//! The panic hook: a panic's message reaches the host before the call
//! traps. Built for wasm32-unknown-unknown, Rust's default hook writes
//! nowhere, so without this a panic shows only as `unreachable`. On the
//! native transport the message goes to standard error (WASI fd_write,
//! which the host provides and quotes in the fault); on Extism's it is
//! the call's error, as the AssemblyScript SDK's abort handler does.

/// Installs the hook once per instance; every export calls it first.
#[cfg(target_arch = "wasm32")]
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| report(&format!("{}", info))));
    });
}

#[cfg(all(target_arch = "wasm32", not(wasmeval_extism)))]
fn report(msg: &str) {
    #[link(wasm_import_module = "wasi_snapshot_preview1")]
    extern "C" {
        fn fd_write(fd: i32, iovs: *const u32, iovs_len: i32, written: *mut u32) -> i32;
    }
    let line = format!("{}\n", msg);
    let iov = [line.as_ptr() as u32, line.len() as u32];
    let mut written = 0u32;
    unsafe {
        fd_write(2, iov.as_ptr(), 1, &mut written);
    }
}

#[cfg(all(target_arch = "wasm32", wasmeval_extism))]
fn report(msg: &str) {
    crate::entry::set_error(msg);
}
