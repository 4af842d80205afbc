//! Entry points: the host imports, declared here so the SDK needs no crate
//! from crates.io, and one helper (and macro) per plugin kind.
//!
//! The SDK speaks wasmeval's native transport (docs/plugin-abi.md): the
//! host writes the input into a buffer the SDK hands it (wasmeval_input)
//! and reads the output where the SDK says it is (wasmeval_output), one
//! copy each way, and the module imports nothing from Extism. Compiled with
//! `--cfg wasmeval_extism` it speaks Extism's ABI instead, for other
//! Extism hosts.

use crate::json::Value;
use crate::models::*;

#[cfg(all(target_arch = "wasm32", wasmeval_extism))]
mod host {
    #[link(wasm_import_module = "extism:host/env")]
    extern "C" {
        pub fn input_length() -> u64;
        pub fn input_load_u8(offset: u64) -> u32;
        pub fn input_load_u64(offset: u64) -> u64;
        pub fn alloc(length: u64) -> u64;
        pub fn free(offset: u64);
        pub fn length(offset: u64) -> u64;
        pub fn load_u8(offset: u64) -> u32;
        pub fn load_u64(offset: u64) -> u64;
        pub fn store_u8(offset: u64, v: u32);
        pub fn store_u64(offset: u64, v: u64);
        pub fn output_set(offset: u64, length: u64);
        pub fn error_set(offset: u64);
        pub fn log_info(offset: u64);
        pub fn log_warn(offset: u64);
        pub fn log_error(offset: u64);
    }
    #[link(wasm_import_module = "extism:host/user")]
    extern "C" {
        pub fn read_asset(offset: u64) -> u64;
    }
}

/// The call's input bytes (8 bytes per host call, then the rest).
#[cfg(all(target_arch = "wasm32", wasmeval_extism))]
pub fn input() -> Vec<u8> {
    unsafe {
        let n = host::input_length() as usize;
        let mut out = vec![0u8; n];
        let mut i = 0;
        while i + 8 <= n {
            let w = host::input_load_u64(i as u64);
            out[i..i + 8].copy_from_slice(&w.to_le_bytes());
            i += 8;
        }
        while i < n {
            out[i] = host::input_load_u8(i as u64) as u8;
            i += 1;
        }
        out
    }
}

/// Copies bytes into a fresh Extism memory block and returns its offset.
#[cfg(all(target_arch = "wasm32", wasmeval_extism))]
fn to_block(data: &[u8]) -> u64 {
    unsafe {
        let off = host::alloc(data.len() as u64);
        let mut i = 0;
        while i + 8 <= data.len() {
            let mut w = [0u8; 8];
            w.copy_from_slice(&data[i..i + 8]);
            host::store_u64(off + i as u64, u64::from_le_bytes(w));
            i += 8;
        }
        while i < data.len() {
            host::store_u8(off + i as u64, data[i] as u32);
            i += 1;
        }
        off
    }
}

#[cfg(all(target_arch = "wasm32", wasmeval_extism))]
fn from_block(off: u64) -> Vec<u8> {
    unsafe {
        let n = host::length(off) as usize;
        let mut out = vec![0u8; n];
        let mut i = 0;
        while i + 8 <= n {
            out[i..i + 8].copy_from_slice(&host::load_u64(off + i as u64).to_le_bytes());
            i += 8;
        }
        while i < n {
            out[i] = host::load_u8(off + i as u64) as u8;
            i += 1;
        }
        out
    }
}

/// Sets the call's output (UTF-8 bytes, any length).
#[cfg(all(target_arch = "wasm32", wasmeval_extism))]
pub fn output(data: &[u8]) {
    let off = to_block(data);
    unsafe { host::output_set(off, data.len() as u64) }
}

/// Sets the call's error message (the export then returns non-zero).
#[cfg(all(target_arch = "wasm32", wasmeval_extism))]
pub fn set_error(msg: &str) {
    let off = to_block(msg.as_bytes());
    unsafe { host::error_set(off) }
}

/// Writes a line to the run log.
#[cfg(all(target_arch = "wasm32", wasmeval_extism))]
pub fn log(level: &str, msg: &str) {
    let off = to_block(msg.as_bytes());
    unsafe {
        match level {
            "warn" => host::log_warn(off),
            "error" => host::log_error(off),
            _ => host::log_info(off),
        }
        host::free(off);
    }
}

/// Reads a file of the problem directory through the host's read_asset;
/// None when refused (the reason is in the run log).
#[cfg(all(target_arch = "wasm32", wasmeval_extism))]
pub fn read_asset(path: &str) -> Option<Vec<u8>> {
    let off = to_block(path.as_bytes());
    let res = unsafe { host::read_asset(off) };
    unsafe { host::free(off) };
    if res == 0 {
        return None;
    }
    let data = from_block(res);
    unsafe { host::free(res) };
    Some(data)
}

#[cfg(all(target_arch = "wasm32", not(wasmeval_extism)))]
mod native {
    #[link(wasm_import_module = "wasmeval")]
    extern "C" {
        pub fn read_asset(path_ptr: *const u8, path_len: u32, buf_ptr: *mut u8, buf_cap: u32) -> i64;
        pub fn log(level: i32, ptr: *const u8, len: u32);
    }
    // One call at a time per instance: the host writes INPUT, the export
    // reads it, and RESULT holds the output (or the error message) until
    // the host has read it. Both keep their memory for the next call, up
    // to KEEP bytes.
    pub static mut INPUT: Vec<u8> = Vec::new();
    pub static mut RESULT: Vec<u8> = Vec::new();
    pub const KEEP: usize = 4 << 20;

    /// Takes a buffer out of its static (which is left empty).
    pub unsafe fn take(buf: *mut Vec<u8>) -> Vec<u8> {
        core::ptr::replace(buf, Vec::new())
    }
}

/// wasmeval_input: room for the next call's input (the describe! macro
/// exports it).
#[cfg(all(target_arch = "wasm32", not(wasmeval_extism)))]
pub fn native_input(n: i32) -> i32 {
    let n = if n < 0 { 0 } else { n as usize };
    unsafe {
        let mut buf = native::take(core::ptr::addr_of_mut!(native::INPUT));
        if buf.capacity() > native::KEEP && n <= native::KEEP {
            buf = Vec::new();
        }
        buf.clear();
        crate::bytes::reserve(&mut buf, n);
        // The host writes all n bytes before the export reads them.
        buf.set_len(n);
        let ptr = buf.as_mut_ptr() as i32;
        native::INPUT = buf;
        let mut result = native::take(core::ptr::addr_of_mut!(native::RESULT));
        if result.capacity() <= native::KEEP {
            result.clear();
            native::RESULT = result;
        }
        ptr
    }
}

/// wasmeval_output: where the last call's output is, address << 32 | length.
#[cfg(all(target_arch = "wasm32", not(wasmeval_extism)))]
pub fn native_output() -> i64 {
    unsafe {
        let r = &*core::ptr::addr_of!(native::RESULT);
        if r.is_empty() {
            return 0;
        }
        ((r.as_ptr() as u32 as i64) << 32) | r.len() as i64
    }
}

/// Built for Extism, the module imports Extism's functions, so the host
/// never uses the native exports; they answer nothing.
#[cfg(all(target_arch = "wasm32", wasmeval_extism))]
pub fn native_input(_n: i32) -> i32 {
    0
}

#[cfg(all(target_arch = "wasm32", wasmeval_extism))]
pub fn native_output() -> i64 {
    0
}

/// The call's input bytes.
#[cfg(all(target_arch = "wasm32", not(wasmeval_extism)))]
pub fn input() -> Vec<u8> {
    unsafe { native::take(core::ptr::addr_of_mut!(native::INPUT)) }
}

#[cfg(all(target_arch = "wasm32", not(wasmeval_extism)))]
fn set_result(v: Vec<u8>) {
    unsafe { native::RESULT = v }
}

/// Sets the call's output (UTF-8 bytes, any length).
#[cfg(all(target_arch = "wasm32", not(wasmeval_extism)))]
pub fn output(data: &[u8]) {
    set_result(data.to_vec())
}

/// Sets the call's error message (the export then returns non-zero).
#[cfg(all(target_arch = "wasm32", not(wasmeval_extism)))]
pub fn set_error(msg: &str) {
    set_result(msg.as_bytes().to_vec())
}

/// Writes a line to the run log.
#[cfg(all(target_arch = "wasm32", not(wasmeval_extism)))]
pub fn log(level: &str, msg: &str) {
    let l = match level {
        "warn" => 3,
        "error" => 4,
        _ => 2,
    };
    unsafe { native::log(l, msg.as_ptr(), msg.len() as u32) }
}

/// Reads a file of the problem directory through the host's read_asset;
/// None when refused (the reason is in the run log).
#[cfg(all(target_arch = "wasm32", not(wasmeval_extism)))]
pub fn read_asset(path: &str) -> Option<Vec<u8>> {
    let mut buf: Vec<u8> = Vec::with_capacity(64 << 10);
    loop {
        let n = unsafe { native::read_asset(path.as_ptr(), path.len() as u32, buf.as_mut_ptr(), buf.capacity() as u32) };
        if n < 0 {
            return None;
        }
        let n = n as usize;
        if n <= buf.capacity() {
            unsafe { buf.set_len(n) };
            return Some(buf);
        }
        buf = Vec::with_capacity(n);
    }
}

/// The transport-free core of every entry point: input bytes in, canonical
/// output bytes out, or the failure message.
pub fn handle<I, O: ToValue>(
    input: &[u8],
    decode: fn(&[u8]) -> Result<I, String>,
    f: impl FnOnce(I) -> Result<O, String>,
) -> Result<String, String> {
    let mut out = String::new();
    handle_into(input, decode, f, &mut out)?;
    Ok(out)
}

/// handle, appending the output to out; on failure out may hold part of
/// it past its length before the call.
fn handle_into<I, O: ToValue>(
    input: &[u8],
    decode: fn(&[u8]) -> Result<I, String>,
    f: impl FnOnce(I) -> Result<O, String>,
    out: &mut String,
) -> Result<(), String> {
    let in_ = decode(input).map_err(|e| format!("invalid input: {}", e))?;
    let o = f(in_)?;
    // An output is about as long as its input (a verdict holds the actual
    // and expected values): room for it at once, not grown a step at a
    // time.
    out.reserve(input.len() + 256);
    o.write_json(out)
}

/// The transport-free core of every batch export (docs/plugin-abi.md,
/// "Batches"): a batch input in, the batch output out. Each call goes
/// through handle's own path on its own bytes, so its result's `output` is
/// the single call's output byte for byte, or its `error` the single
/// call's failure message; every result is written into one buffer. Err
/// means the input is not a batch at all.
pub fn handle_batch<I, O: ToValue>(
    input: &[u8],
    decode: fn(&[u8]) -> Result<I, String>,
    f: fn(I) -> Result<O, String>,
) -> Result<String, String> {
    let mut out = String::new();
    handle_batch_into(input, decode, f, &mut out)?;
    Ok(out)
}

fn handle_batch_into<I, O: ToValue>(
    input: &[u8],
    decode: fn(&[u8]) -> Result<I, String>,
    f: fn(I) -> Result<O, String>,
    out: &mut String,
) -> Result<(), String> {
    let calls = batch_calls(input).map_err(|e| format!("invalid input: {}", e))?;
    out.reserve(input.len() + 64);
    out.push_str("{\"results\":[");
    for (i, &(start, end)) in calls.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"call\":");
        out.push_str(&i.to_string());
        let mark = out.len();
        out.push_str(",\"output\":");
        if let Err(msg) = handle_into(&input[start..end], decode, f, out) {
            out.truncate(mark);
            out.push_str(",\"error\":");
            crate::json::quote_into(&msg, out);
        }
        out.push('}');
    }
    out.push_str("]}");
    Ok(())
}

/// handle_batch_into for the SDK's own envelopes, whose decoders also take
/// a parsed value: each call is parsed where it is in the batch, once,
/// instead of being delimited first and parsed from its own bytes. What
/// that gives is the same (a call's value is what its own bytes parse to,
/// and its failures come from the same decoder and function); whatever
/// the quick path does not take as it comes — a call that is not valid
/// JSON, anything unusual around the calls, an input that is not a batch
/// — goes through handle_batch_into from the start, for its messages.
fn handle_batch_parsed<I, O: ToValue>(
    input: &[u8],
    decode: fn(&[u8]) -> Result<I, String>,
    decode_at: DecodeAt<I>,
    f: fn(I) -> Result<O, String>,
    out: &mut String,
) -> Result<(), String> {
    let base = out.len();
    if batch_parsed(input, decode_at, f, out).is_some() {
        return Ok(());
    }
    out.truncate(base);
    handle_batch_into(input, decode, f, out)
}

/// The quick path of handle_batch_parsed; None where it does not apply.
fn batch_parsed<I, O: ToValue>(
    input: &[u8],
    decode_at: DecodeAt<I>,
    f: fn(I) -> Result<O, String>,
    out: &mut String,
) -> Option<()> {
    crate::json::check_utf8(input).ok()?;
    let at = |pos: usize| input.get(pos).copied();
    let skip = |pos: usize| crate::bytes::space_end(input, pos);
    let base = out.len();
    let mut pos = skip(0);
    if at(pos) != Some(b'{') {
        return None;
    }
    pos = skip(pos + 1);
    let mut found = false;
    if at(pos) == Some(b'}') {
        pos += 1;
    } else {
        loop {
            pos = skip(pos);
            if at(pos) != Some(b'"') {
                return None;
            }
            let (key, end) = crate::json::parse_at(input, pos).ok()?;
            pos = skip(end);
            if at(pos) != Some(b':') {
                return None;
            }
            pos = skip(pos + 1);
            if key.as_str() == Some("calls") {
                // A repeated key counts the last time.
                out.truncate(base);
                pos = batch_calls_parsed(input, pos, decode_at, f, out)?;
                found = true;
            } else {
                pos = crate::json::parse_at(input, pos).ok()?.1;
            }
            pos = skip(pos);
            match at(pos) {
                Some(b',') => pos += 1,
                Some(b'}') => {
                    pos += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    if !found || skip(pos) != input.len() {
        return None;
    }
    Some(())
}

/// Decodes the call whose value starts at input[pos] (input is UTF-8),
/// with the offset past it: what the type's decode gives for the call's
/// own bytes. None when the call is not JSON.
type DecodeAt<I> = fn(&[u8], usize) -> Option<(Result<I, String>, usize)>;

/// DecodeAt for an input type decoded from the call parsed whole (for
/// the batch exports, built for wasm32 only).
#[cfg(target_arch = "wasm32")]
macro_rules! decode_parsed_at {
    ($t:ty) => {
        |input: &[u8], pos: usize| {
            let (call, end) = crate::json::parse_at(input, pos).ok()?;
            Some((<$t>::decode_value(call), end))
        }
    };
}

/// The calls array at pos, each call answered into out; the offset past
/// the array.
fn batch_calls_parsed<I, O: ToValue>(
    input: &[u8],
    mut pos: usize,
    decode_at: DecodeAt<I>,
    f: fn(I) -> Result<O, String>,
    out: &mut String,
) -> Option<usize> {
    let at = |pos: usize| input.get(pos).copied();
    let skip = |pos: usize| crate::bytes::space_end(input, pos);
    if at(pos) != Some(b'[') {
        return None;
    }
    out.reserve(input.len() - pos + 64);
    out.push_str("{\"results\":[");
    pos = skip(pos + 1);
    if at(pos) == Some(b']') {
        out.push_str("]}");
        return Some(pos + 1);
    }
    let mut i: i64 = 0;
    loop {
        pos = skip(pos);
        let (call, end) = decode_at(input, pos)?;
        pos = skip(end);
        let last = match at(pos) {
            Some(b',') => false,
            Some(b']') => true,
            _ => return None,
        };
        pos += 1;
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"call\":");
        crate::json::write_int(i, unsafe { out.as_mut_vec() });
        let mark = out.len();
        out.push_str(",\"output\":");
        let r = call.map_err(|e| format!("invalid input: {}", e)).and_then(f).and_then(|o| o.write_json(out));
        if let Err(msg) = r {
            out.truncate(mark);
            out.push_str(",\"error\":");
            crate::json::quote_into(&msg, out);
        }
        out.push('}');
        i += 1;
        if last {
            out.push_str("]}");
            return Some(pos);
        }
    }
}

/// What the verify_batch export answers for a batch input, without the
/// transport: handle_batch's answer, each call parsed where it is in the
/// batch.
pub fn handle_verify_batch(input: &[u8], f: fn(VerifyInput) -> Result<VerifyOutput, String>) -> Result<String, String> {
    let mut out = String::new();
    handle_batch_parsed(input, VerifyInput::decode, VerifyInput::decode_at, f, &mut out)?;
    Ok(out)
}

/// Where each call of a batch input is (start and end byte offsets). The
/// scan only delimits the calls: a call that is not valid JSON, or not an
/// envelope, fails when it is decoded, with the message the same input
/// gets alone. An input that is not a batch fails with the message parse
/// and the envelope decoders give.
pub fn batch_calls(data: &[u8]) -> Result<Vec<(usize, usize)>, String> {
    let mut s = SpanScanner { data, pos: 0 };
    let mut spans = Vec::new();
    if s.batch(&mut spans) {
        return Ok(spans);
    }
    let v = crate::json::parse_input(data).map_err(|e| e.to_string())?;
    match &v {
        Value::Object(m) => match m.get("calls") {
            None => Err("$.calls is missing, expected an array".to_string()),
            Some(c) => Err(format!("$.calls is {}, expected an array", type_name(c))),
        },
        _ => Err(format!("$ is {}, expected an object", type_name(&v))),
    }
}

/// Walks a batch input's top-level object without decoding it.
struct SpanScanner<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> SpanScanner<'a> {
    fn skip(&mut self) {
        while self.pos < self.data.len() {
            match self.data[self.pos] {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                _ => return,
            }
        }
    }
    fn at(&self, c: u8) -> bool {
        self.data.get(self.pos) == Some(&c)
    }
    /// Reads {"calls":[…], …}; false for anything else, including an
    /// input without a calls array. A repeated key counts the last time.
    fn batch(&mut self, spans: &mut Vec<(usize, usize)>) -> bool {
        self.skip();
        if !self.at(b'{') {
            return false;
        }
        self.pos += 1;
        self.skip();
        let mut found = false;
        if self.at(b'}') {
            self.pos += 1;
        } else {
            loop {
                self.skip();
                if !self.at(b'"') {
                    return false;
                }
                let key_start = self.pos;
                if !self.string() {
                    return false;
                }
                let key = &self.data[key_start..self.pos];
                self.skip();
                if !self.at(b':') {
                    return false;
                }
                self.pos += 1;
                self.skip();
                if is_calls_key(key) {
                    spans.clear();
                    if !self.calls(spans) {
                        return false;
                    }
                    found = true;
                } else if !self.value() {
                    return false;
                }
                self.skip();
                if self.at(b',') {
                    self.pos += 1;
                    continue;
                }
                if self.at(b'}') {
                    self.pos += 1;
                    break;
                }
                return false;
            }
        }
        self.skip();
        found && self.pos == self.data.len()
    }
    fn calls(&mut self, spans: &mut Vec<(usize, usize)>) -> bool {
        if !self.at(b'[') {
            return false;
        }
        self.pos += 1;
        self.skip();
        if self.at(b']') {
            self.pos += 1;
            return true;
        }
        loop {
            self.skip();
            let start = self.pos;
            if !self.value() {
                return false;
            }
            spans.push((start, self.pos));
            self.skip();
            if self.at(b',') {
                self.pos += 1;
                continue;
            }
            if self.at(b']') {
                self.pos += 1;
                return true;
            }
            return false;
        }
    }
    /// Moves past one value: a string, an object or array (brackets
    /// matched, strings skipped) or a scalar (up to the next delimiter).
    fn value(&mut self) -> bool {
        match self.data.get(self.pos) {
            None => false,
            Some(b'"') => self.string(),
            Some(b'\'') => self.raw(),
            Some(b'{') | Some(b'[') => {
                let mut depth = 0usize;
                while self.pos < self.data.len() {
                    match self.data[self.pos] {
                        b'"' => {
                            if !self.string() {
                                return false;
                            }
                            continue;
                        }
                        b'\'' => {
                            if !self.raw() {
                                return false;
                            }
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.pos += 1;
                                return true;
                            }
                        }
                        _ => {}
                    }
                    self.pos += 1;
                }
                false
            }
            Some(_) => {
                let start = self.pos;
                while self.pos < self.data.len() {
                    match self.data[self.pos] {
                        b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r' | b'{' | b'[' | b'"' | b':' => break,
                        _ => self.pos += 1,
                    }
                }
                self.pos > start
            }
        }
    }
    /// Moves past a raw string (json::parse_input), whose bytes may hold
    /// anything.
    fn raw(&mut self) -> bool {
        match crate::json::raw_string_at(self.data, self.pos) {
            Some((_, end)) => {
                self.pos = end;
                true
            }
            None => false,
        }
    }
    /// Moves past a string, from its opening quote to its closing one
    /// (its plain runs a block of bytes at a time).
    fn string(&mut self) -> bool {
        let mut i = self.pos + 1;
        loop {
            i = crate::bytes::string_stop(self.data, i);
            match self.data.get(i) {
                None => return false,
                Some(b'"') => {
                    self.pos = i + 1;
                    return true;
                }
                Some(b'\\') => i += 2,
                Some(_) => i += 1,
            }
        }
    }
}

/// Whether a key's JSON text (quotes included) is "calls", however it is
/// escaped.
fn is_calls_key(text: &[u8]) -> bool {
    if text == b"\"calls\"" {
        return true;
    }
    if !text.contains(&b'\\') {
        return false;
    }
    matches!(crate::json::parse(text), Ok(Value::String(k)) if k == "calls")
}

/// The transport this build speaks: native, or extism with
/// `--cfg wasmeval_extism`.
#[cfg(not(wasmeval_extism))]
pub const TRANSPORT: &str = "native";
#[cfg(wasmeval_extism)]
pub const TRANSPORT: &str = "extism";

/// Canonical JSON of describe, with the ABI version and transport filled in.
pub fn describe_json(d: &Describe) -> Result<String, String> {
    let mut d = d.clone();
    if d.abi_version == 0 {
        d.abi_version = ABI_VERSION;
    }
    if d.transport.is_empty() {
        d.transport = TRANSPORT.to_string();
    }
    if d.batch.is_none() {
        d.batch = Some(batch_exports(&d.kinds));
    }
    let mut v = d.to_value();
    if d.transport == "native" {
        // The SDK's input decoding takes raw strings (json::parse_input).
        if let Value::Object(m) = &mut v {
            m.insert("raw_strings".into(), Value::Bool(true));
        }
    }
    v.to_json()
}

/// The batch exports the kind macros provide for the declared kinds, in
/// the ABI's order: verify, evaluate, test.
pub fn batch_exports(kinds: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (kind, export) in [("verifier", "verify"), ("evaluator", "evaluate"), ("test", "test")] {
        if kinds.iter().any(|k| k == kind) {
            out.push(export.to_string());
        }
    }
    out
}

#[cfg(all(target_arch = "wasm32", not(wasmeval_extism)))]
fn finish(r: Result<String, String>) -> i32 {
    match r {
        Ok(s) => {
            set_result(s.into_bytes());
            0
        }
        Err(e) => {
            set_result(e.into_bytes());
            1
        }
    }
}

#[cfg(all(target_arch = "wasm32", wasmeval_extism))]
fn finish(r: Result<String, String>) -> i32 {
    match r {
        Ok(s) => {
            output(s.as_bytes());
            0
        }
        Err(e) => {
            set_error(&e);
            1
        }
    }
}

/// Runs one call: its input in, its output (or failure message) written
/// into the result buffer kept from the last call.
#[cfg(all(target_arch = "wasm32", not(wasmeval_extism)))]
pub(crate) fn serve(run: impl FnOnce(&[u8], &mut String) -> Result<(), String>) -> i32 {
    crate::panic::install();
    unsafe {
        let input = native::take(core::ptr::addr_of_mut!(native::INPUT));
        let mut out = native::take(core::ptr::addr_of_mut!(native::RESULT));
        out.clear();
        // Only whole UTF-8 encodings are written into it.
        let mut out = String::from_utf8_unchecked(out);
        let r = run(&input, &mut out);
        native::INPUT = input;
        let mut out = out.into_bytes();
        match r {
            Ok(()) => {
                native::RESULT = out;
                0
            }
            Err(e) => {
                out.clear();
                crate::bytes::extend(&mut out, e.as_bytes());
                native::RESULT = out;
                1
            }
        }
    }
}

#[cfg(all(target_arch = "wasm32", wasmeval_extism))]
pub(crate) fn serve(run: impl FnOnce(&[u8], &mut String) -> Result<(), String>) -> i32 {
    crate::panic::install();
    let mut out = String::new();
    let r = run(&input(), &mut out);
    finish(r.map(|()| out))
}

/// Serves describe.
#[cfg(target_arch = "wasm32")]
pub fn serve_describe(d: &Describe) -> i32 {
    crate::panic::install();
    finish(describe_json(d))
}

/// Serves verify with f.
#[cfg(target_arch = "wasm32")]
pub fn serve_verify(f: fn(VerifyInput) -> Result<VerifyOutput, String>) -> i32 {
    serve(|input, out| handle_into(input, VerifyInput::decode, f, out))
}

/// Serves load_cases with f.
#[cfg(target_arch = "wasm32")]
pub fn serve_load(f: fn(LoadInput) -> Result<LoadOutput, String>) -> i32 {
    serve(|input, out| handle_into(input, LoadInput::decode, f, out))
}

/// Serves evaluate with f.
#[cfg(target_arch = "wasm32")]
pub fn serve_evaluate(f: fn(EvaluateInput) -> Result<EvaluateOutput, String>) -> i32 {
    serve(|input, out| handle_into(input, EvaluateInput::decode, f, out))
}

/// Serves test with f.
#[cfg(target_arch = "wasm32")]
pub fn serve_test(f: fn(TestInput) -> Result<TestOutput, String>) -> i32 {
    serve(|input, out| handle_into(input, TestInput::decode, f, out))
}

/// Serves verify_batch with f: every call as serve_verify would answer it.
#[cfg(target_arch = "wasm32")]
pub fn serve_verify_batch(f: fn(VerifyInput) -> Result<VerifyOutput, String>) -> i32 {
    serve(|input, out| handle_batch_parsed(input, VerifyInput::decode, VerifyInput::decode_at, f, out))
}

/// Serves evaluate_batch with f.
#[cfg(target_arch = "wasm32")]
pub fn serve_evaluate_batch(f: fn(EvaluateInput) -> Result<EvaluateOutput, String>) -> i32 {
    serve(|input, out| handle_batch_parsed(input, EvaluateInput::decode, decode_parsed_at!(EvaluateInput), f, out))
}

/// Serves test_batch with f.
#[cfg(target_arch = "wasm32")]
pub fn serve_test_batch(f: fn(TestInput) -> Result<TestOutput, String>) -> i32 {
    serve(|input, out| handle_batch_parsed(input, TestInput::decode, decode_parsed_at!(TestInput), f, out))
}

/// Exports `describe` answering with the given Describe expression, and
/// the native transport's wasmeval_input and wasmeval_output.
#[macro_export]
macro_rules! describe {
    ($d:expr) => {
        #[export_name = "describe"]
        pub extern "C" fn __wasmeval_describe() -> i32 {
            $crate::serve_describe(&$d)
        }
        #[export_name = "wasmeval_input"]
        pub extern "C" fn __wasmeval_input(n: i32) -> i32 {
            $crate::native_input(n)
        }
        #[export_name = "wasmeval_output"]
        pub extern "C" fn __wasmeval_output() -> i64 {
            $crate::native_output()
        }
    };
}

/// Exports `verify` served by a fn(VerifyInput) -> Result<VerifyOutput, String>,
/// and its batch form `verify_batch`, which describe! announces.
#[macro_export]
macro_rules! verifier {
    ($f:path) => {
        #[export_name = "verify"]
        pub extern "C" fn __wasmeval_verify() -> i32 {
            $crate::serve_verify($f)
        }
        #[export_name = "verify_batch"]
        pub extern "C" fn __wasmeval_verify_batch() -> i32 {
            $crate::serve_verify_batch($f)
        }
    };
}

/// Exports `load_cases` served by a fn(LoadInput) -> Result<LoadOutput, String>
/// (load_cases has no batch form: a stateful loader's calls depend on each
/// other's results).
#[macro_export]
macro_rules! loader {
    ($f:path) => {
        #[export_name = "load_cases"]
        pub extern "C" fn __wasmeval_load_cases() -> i32 {
            $crate::serve_load($f)
        }
    };
}

/// Exports `evaluate` served by a fn(EvaluateInput) -> Result<EvaluateOutput, String>,
/// and its batch form `evaluate_batch`, which describe! announces.
#[macro_export]
macro_rules! evaluator {
    ($f:path) => {
        #[export_name = "evaluate"]
        pub extern "C" fn __wasmeval_evaluate() -> i32 {
            $crate::serve_evaluate($f)
        }
        #[export_name = "evaluate_batch"]
        pub extern "C" fn __wasmeval_evaluate_batch() -> i32 {
            $crate::serve_evaluate_batch($f)
        }
    };
}

/// Exports `test` served by a fn(TestInput) -> Result<TestOutput, String>,
/// and its batch form `test_batch`, which describe! announces.
#[macro_export]
macro_rules! test_function {
    ($f:path) => {
        #[export_name = "test"]
        pub extern "C" fn __wasmeval_test() -> i32 {
            $crate::serve_test($f)
        }
        #[export_name = "test_batch"]
        pub extern "C" fn __wasmeval_test_batch() -> i32 {
            $crate::serve_test_batch($f)
        }
    };
}
