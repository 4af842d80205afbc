//! Mock services: the upstreams (payments, a currency API, an LLM) that a
//! submission under test calls, answered by a plugin. A mock is a function
//! from one request to its response; what it must remember between calls
//! of a group travels in the state:
//!
//! ```ignore
//! use wasmeval::*;
//!
//! fn answer(input: MockInput) -> Result<MockOutput, String> {
//!     Ok(MockOutput { response: json_response(200, &object(vec![("ok", Value::Bool(true))]))?, ..Default::default() })
//! }
//!
//! describe!(Describe::new("payments", "1.0.0", &["mock"]));
//! mock!(answer);
//! ```

use crate::json::{Map, Value};
use crate::models::{MockInput, MockOutput, MockResponse, ToValue};
use std::collections::BTreeMap;

/// A response with status and a text body.
pub fn text_response(status: i64, body: &str) -> MockResponse {
    MockResponse { status, headers: headers("text/plain; charset=utf-8"), body: body.to_string(), ..Default::default() }
}

/// A response with status and v as its body, as canonical JSON.
pub fn json_response(status: i64, v: &Value) -> Result<MockResponse, String> {
    Ok(MockResponse { status, headers: headers("application/json"), body: v.to_json()?, ..Default::default() })
}

/// A response with status and any bytes as its body (sent base64).
pub fn bytes_response(status: i64, content_type: &str, body: &[u8]) -> MockResponse {
    MockResponse { status, headers: headers(content_type), body_base64: crate::setup::base64(body), ..Default::default() }
}

fn headers(content_type: &str) -> BTreeMap<String, String> {
    let mut h = BTreeMap::new();
    h.insert("content-type".to_string(), content_type.to_string());
    h
}

/// A map of lists of strings (a request's query or headers) as a JSON
/// value: an object of arrays.
pub fn string_lists(m: &BTreeMap<String, Vec<String>>) -> Value {
    let mut out = Map::new();
    for (k, list) in m {
        out.insert(k.clone(), Value::Array(list.iter().map(|s| Value::String(s.clone())).collect()));
    }
    Value::Object(out)
}

/// The standard base64 decoding (RFC 4648, padded), as the host encodes
/// a request's body_base64; None for text that is not base64.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let b = text.as_bytes();
    if b.len() % 4 != 0 {
        return None;
    }
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(b.len() / 4 * 3);
    for (i, q) in b.chunks(4).enumerate() {
        let last = i == b.len() / 4 - 1;
        let pad = q.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for &c in &q[..4 - pad] {
            n = n << 6 | val(c)?;
        }
        n <<= 6 * pad as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

impl crate::models::MockRequest {
    /// The request's body.
    pub fn body_bytes(&self) -> Result<Vec<u8>, String> {
        if self.body_base64.is_empty() {
            return Ok(self.body.as_bytes().to_vec());
        }
        decode_base64(&self.body_base64).ok_or_else(|| "request.body_base64 is not base64".to_string())
    }
}

/// What the mock export answers for input, without the transport.
pub fn handle_mock(input: &[u8], f: fn(MockInput) -> Result<MockOutput, String>) -> Result<String, String> {
    let mut out = String::new();
    handle_mock_into(input, f, &mut out)?;
    Ok(out)
}

pub(crate) fn handle_mock_into(input: &[u8], f: fn(MockInput) -> Result<MockOutput, String>, out: &mut String) -> Result<(), String> {
    let in_ = MockInput::decode(input).map_err(|e| format!("invalid input: {}", e))?;
    f(in_)?.write_json(out)
}

/// Serves mock with f.
#[cfg(target_arch = "wasm32")]
pub fn serve_mock(f: fn(MockInput) -> Result<MockOutput, String>) -> i32 {
    crate::entry::serve(|input, out| handle_mock_into(input, f, out))
}

/// Exports `mock` served by a fn(MockInput) -> Result<MockOutput, String>
/// (mock has no batch form: each call gets the state the one before it
/// left).
#[macro_export]
macro_rules! mock {
    ($f:path) => {
        #[export_name = "mock"]
        pub extern "C" fn __wasmeval_mock() -> i32 {
            $crate::serve_mock($f)
        }
    };
}
