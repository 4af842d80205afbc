// The Rust SDK's verify input decoding held to itself along its two paths,
// for TestRustDecode: an envelope whose keys are all plain is read as
// members, without maps (parse_members); the same envelope with one of
// its keys spelt with an escape is parsed whole into maps first. Both must
// give the same input, or the same message, on every envelope. The
// envelopes are generated (fields in any order, missing, repeated, of the
// wrong type, case and actual that are not objects, raw strings, white
// space, unknown fields) and then some of them broken (cut short, a byte
// changed).
//
//     rust_decode_check COUNT
//
// prints how many envelopes decoded and how many were refused; it panics
// on the first disagreement.
use wasmeval::*;

include!("rust_check_rng.rs");

const VALUES: &[&str] = &[
    "null", "true", "1", "1.5", "-3", "1e400", "\"text\"", "\"\\u00e9\\n\"", "[]", "[\"a\",\"b\"]", "[1]", "{}",
    "{\"a\":1}", "{\"k\":[\"v\"]}", "'3:abc", "'0:", "'2:\u{e9}", "9007199254740993",
];
const SPACE: &[&str] = &["", "", "", " ", "\n", "\t "];

fn member(r: &mut Rng, s: &mut String, key: &str, value: &str) {
    if !s.ends_with('{') {
        s.push(',');
    }
    s.push_str(r.pick(SPACE));
    s.push('"');
    s.push_str(key);
    s.push('"');
    s.push_str(r.pick(SPACE));
    s.push(':');
    s.push_str(r.pick(SPACE));
    s.push_str(value);
}

fn object(r: &mut Rng, keys: &[&str], special: &dyn Fn(&mut Rng, &str) -> Option<String>) -> String {
    let mut s = String::from("{");
    for _ in 0..r.below(keys.len() as u64 + 3) {
        let key = r.pick(keys);
        let value = match special(r, key) {
            Some(v) if r.below(4) != 0 => v,
            _ => r.pick(VALUES).to_string(),
        };
        member(r, &mut s, key, &value);
    }
    s.push('}');
    s
}

const ROOT: &[&str] = &["abi_version", "config", "case", "actual", "expected", "other"];
const CASE: &[&str] = &[
    "id", "checkpoint", "group", "group_type", "arguments", "stdin", "env", "input_files", "tracked_files", "expected",
    "timeout_s", "reset", "extra", "other",
];
const ACTUAL: &[&str] = &["status_code", "output", "stderr", "files", "timed_out", "mock_calls", "other"];

fn envelope(r: &mut Rng) -> String {
    object(r, ROOT, &|r, key| match key {
        "abi_version" => Some("1".into()),
        "config" | "expected" => Some("{\"tolerance\":0.001,\"output\":'5:[1,2]}".into()),
        "case" => Some(object(r, CASE, &|r, key| match key {
            "id" | "stdin" => Some(format!("\"case-{}\"", r.below(9))),
            "arguments" | "tracked_files" => Some("[\"a\",\"b\\u0063\"]".into()),
            "env" => Some("{\"A\":\"1\",\"B\":\"\"}".into()),
            "input_files" => Some("[{\"path\":\"p\",\"content\":\"c\"},{\"path\":1}]".into()),
            "timeout_s" => Some("2.5".into()),
            _ => None,
        })),
        "actual" => Some(object(r, ACTUAL, &|r, key| match key {
            "status_code" => Some(r.pick(&["0", "1", "-1", "2.0", "2.5"]).into()),
            "output" => Some(r.pick(&["'7:{\"a\":1}", "\"{\\\"a\\\":1}\"", "\"\""]).into()),
            "mock_calls" => Some("[{\"mock\":\"m\",\"method\":\"GET\",\"status\":200,\"query\":{\"q\":[\"1\"]}}]".into()),
            _ => None,
        })),
        _ => None,
    })
}

/// The envelope with its first key spelt with an escape (its first
/// character as \u00XX), or None when it has no key.
fn respelt(s: &str) -> Option<String> {
    let rest = s.strip_prefix('{')?;
    let at = s.len() - rest.trim_start().strip_prefix('"')?.len();
    let c = s[at..].chars().next()?;
    if !c.is_ascii_alphabetic() {
        return None;
    }
    Some(format!("{}\\u{:04x}{}", &s[..at], c as u32, &s[at + 1..]))
}

/// A message with the offset it names left out.
fn without_offset(msg: &str) -> String {
    match msg.find("at byte ") {
        Some(at) => {
            let rest = msg[at + 8..].trim_start_matches(|c: char| c.is_ascii_digit());
            format!("{}at byte N{}", &msg[..at], rest)
        }
        None => msg.to_string(),
    }
}

fn main() {
    let count: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100000);
    let mut r = Rng(88172645463325252);
    let (mut decoded, mut refused) = (0, 0);
    for _ in 0..count {
        let mut s = envelope(&mut r);
        r.break_text(&mut s, 8, &["\"", "\\", "x", "1", ",", "}", "{", "'", "-"]);
        let slow = match respelt(&s) {
            Some(t) => t,
            None => continue,
        };
        let (a, b) = (VerifyInput::decode(s.as_bytes()), VerifyInput::decode(slow.as_bytes()));
        match (&a, &b) {
            (Ok(x), Ok(y)) => {
                assert_eq!(format!("{:?}", x), format!("{:?}", y), "{:?} decodes otherwise spelt {:?}", s, slow);
                decoded += 1;
            }
            (Err(x), Err(y)) => {
                // The same message, but for the byte it names: the
                // escape is five bytes longer than the character.
                if without_offset(x) != without_offset(y) {
                    panic!("{:?} is refused with {:?}, otherwise spelt with {:?}", s, x, y);
                }
                refused += 1;
            }
            _ => panic!("{:?} gives {:?}, otherwise spelt {:?}", s, a, b),
        }
    }
    println!("{} decoded, {} refused", decoded, refused);
}
