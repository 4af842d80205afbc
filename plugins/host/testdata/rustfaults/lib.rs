//! A Rust verifier built with the SDK that faults on purpose, for the
//! tests of what the host says about it: config.mode "panic" panics,
//! "oom" allocates past any memory cap.

use wasmeval::*;

describe!(Describe::new("rustfaults", "1.0.0", &["verifier"]));
verifier!(verify_case);

static mut KEPT: Vec<Vec<u8>> = Vec::new();

fn verify_case(input: VerifyInput) -> Result<VerifyOutput, String> {
    let mode = input.config.get("mode").and_then(|v| v.as_str()).unwrap_or("").to_string();
    if mode == "panic" {
        panic!("no expected output for case {}", input.case.id);
    }
    if mode == "oom" {
        loop {
            let mut chunk = vec![0u8; 8 << 20];
            chunk[0] = 1;
            unsafe { (*core::ptr::addr_of_mut!(KEPT)).push(chunk) };
        }
    }
    Ok(VerifyOutput::default())
}
