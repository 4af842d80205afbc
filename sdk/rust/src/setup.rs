//! Setup functions: the steps of a task spec's `config` that are not built
//! into wasmeval. A setup function does not touch the sandbox; it returns
//! the actions that prepare it (files to write, commands to run), which
//! wasmeval performs. A plugin serves several, by name:
//!
//! ```ignore
//! use wasmeval::*;
//!
//! fn seed(input: SetupInput) -> Result<SetupOutput, String> {
//!     Ok(SetupOutput { actions: vec![write_file("db/seed.sql", "...")], ..Default::default() })
//! }
//!
//! const SETUP: &[(&str, SetupFunction)] = &[("seed_database", seed)];
//!
//! describe!(Describe::new("my-setup", "1.0.0", &["setup"]).with_setup_functions(SETUP));
//! setup!(SETUP);
//! ```

use crate::models::{Describe, SetupAction, SetupInput, SetupOutput, ToValue};

/// One setup function: the actions for a task, an output whose `error`
/// says why it cannot prepare this task, or Err when the call itself fails.
pub type SetupFunction = fn(SetupInput) -> Result<SetupOutput, String>;

/// The action that writes text into the sandbox at path.
pub fn write_file(path: &str, content: &str) -> SetupAction {
    SetupAction::Write { path: path.to_string(), content: content.to_string(), content_base64: String::new() }
}

/// The action that writes bytes, of any kind, into the sandbox at path
/// (sent base64).
pub fn write_bytes(path: &str, data: &[u8]) -> SetupAction {
    SetupAction::Write { path: path.to_string(), content: String::new(), content_base64: base64(data) }
}

/// The action that runs a program with its arguments in the sandbox's
/// working directory (no shell).
pub fn run_command(command: &[&str]) -> SetupAction {
    SetupAction::Run { command: command.iter().map(|w| w.to_string()).collect() }
}

/// The standard base64 encoding (RFC 4648, with padding), as the host
/// decodes `content_base64`.
pub(crate) fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity((data.len() + 2) / 3 * 4);
    for chunk in data.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The error every SDK answers a setup call with when the plugin has no
/// function of that name: `unknown setup function "name" (functions: a, b)`.
pub fn unknown_setup_function(name: &str, have: &[String]) -> String {
    let mut msg = String::from("unknown setup function ");
    crate::json::quote_into(name, &mut msg);
    msg.push_str(" (functions: ");
    msg.push_str(&have.join(", "));
    msg.push(')');
    msg
}

/// The names of fns, sorted, each once.
pub fn setup_function_names(fns: &[(&str, SetupFunction)]) -> Vec<String> {
    let mut names: Vec<String> = fns.iter().map(|(name, _)| name.to_string()).collect();
    names.sort();
    names.dedup();
    names
}

/// What the setup export answers for input, without the transport: the
/// function of fns the input names (the first of that name), or, for a
/// name fns does not have, an output whose error names the functions it
/// has (the task cannot run; the call itself does not fail).
pub fn handle_setup(input: &[u8], fns: &[(&str, SetupFunction)]) -> Result<String, String> {
    let mut out = String::new();
    handle_setup_into(input, fns, &mut out)?;
    Ok(out)
}

pub(crate) fn handle_setup_into(input: &[u8], fns: &[(&str, SetupFunction)], out: &mut String) -> Result<(), String> {
    let in_ = SetupInput::decode(input).map_err(|e| format!("invalid input: {}", e))?;
    let result = match fns.iter().find(|(name, _)| *name == in_.function) {
        Some((_, f)) => f(in_)?,
        None => SetupOutput { error: unknown_setup_function(&in_.function, &setup_function_names(fns)), ..Default::default() },
    };
    result.write_json(out)
}

impl Describe {
    /// Lists the names of fns in `functions`, after those listed already
    /// (sorted, each once), as the setup export dispatches on them.
    pub fn with_setup_functions(mut self, fns: &[(&str, SetupFunction)]) -> Describe {
        for name in setup_function_names(fns) {
            if !self.functions.contains(&name) {
                self.functions.push(name);
            }
        }
        self
    }
}

/// Serves setup with fns.
#[cfg(target_arch = "wasm32")]
pub fn serve_setup(fns: &[(&str, SetupFunction)]) -> i32 {
    crate::entry::serve(|input, out| handle_setup_into(input, fns, out))
}

/// Exports `setup` served by a list of setup functions by name,
/// `&[(&str, SetupFunction)]`; list the same in describe with
/// `Describe::with_setup_functions`.
#[macro_export]
macro_rules! setup {
    ($fns:expr) => {
        #[export_name = "setup"]
        pub extern "C" fn __wasmeval_setup() -> i32 {
            $crate::serve_setup($fns)
        }
    };
}
