//! wasmeval — the Rust SDK for wasmeval plugins.
//!
//! A plugin is a `cdylib` built for `wasm32-unknown-unknown`; it exchanges
//! envelopes with the host over wasmeval's native transport, or, compiled
//! with `--cfg wasmeval_extism`, through Extism's input and output (the SDK
//! declares the host's imports itself, so no crate from crates.io is
//! needed). A plugin author writes one function per kind and exports it
//! with a macro, which for verify, evaluate and test also exports the
//! batch form that answers many calls at once (docs/plugin-abi.md,
//! "Batches"); a setup plugin serves its setup functions by name with
//! `setup!` (see the setup module), a mock plugin its upstream with `mock!`
//! (see the mock module):
//!
//! ```ignore
//! use wasmeval::*;
//!
//! fn check(input: VerifyInput) -> Result<VerifyOutput, String> { ... }
//!
//! describe!(Describe::new("my-verifier", "1.0.0", &["verifier"]));
//! verifier!(check);
//! ```
//!
//! JSON follows the shared model of every wasmeval SDK (see
//! docs/conformance.md): numbers keep their literal text, output is
//! canonical (keys sorted, encoding/json's escaping), and malformed input
//! gives the same message in every language.

mod answer;
mod bytes;
mod canonical;
mod compare;
mod entry;
mod json;
mod mock;
mod models;
mod panic;
mod setup;
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics"), not(wasmeval_system_alloc)))]
mod pool;
mod text;

/// Built for wasm32 the SDK brings the module's allocator (see pool.rs);
/// `--cfg wasmeval_system_alloc` leaves the standard library's.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics"), not(wasmeval_system_alloc)))]
#[global_allocator]
static ALLOCATOR: pool::Pool = pool::Pool::new();

pub use answer::*;
pub use canonical::{parse_canonical, Canonical};
pub use compare::*;
pub use entry::*;
pub use json::*;
pub use mock::*;
pub use models::*;
pub use setup::*;
pub use text::*;
