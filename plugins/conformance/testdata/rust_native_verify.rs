// The Rust conformance verifier's verify path compiled for the machine
// itself, for BenchmarkRustNative: the same functions on the same batch
// input as its verify_batch export, with no WebAssembly in between.
// plugin.rs is the plugin's lib.rs without its inner doc comments, its
// `use` and its export macros (which only build for wasm32).
//
//     rust_native_verify BATCH_INPUT ROUNDS
//
// answers ROUNDS times every call of BATCH_INPUT (a verify_batch input)
// and prints the number of calls answered.
#![allow(dead_code)]
use wasmeval::*;
include!("plugin.rs");

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let input = std::fs::read(&args[1]).expect("read the batch input");
    let rounds: usize = args[2].parse().expect("rounds");
    let calls = batch_calls(&input).expect("a batch input").len();
    let mut bytes = 0;
    for _ in 0..rounds {
        let out = handle_verify_batch(&input, verify_case).expect("a batch output");
        bytes += out.len();
    }
    println!("{} calls, {} bytes of output", calls * rounds, bytes);
}
