// The Rust SDK's parse_canonical held to parse_str, for TestRustCanonical:
// on every text, both fail with the same error or both succeed with the
// same canonical encoding; and compare_json gives the same answer on the
// canonical values as on the trees, with and without a tolerance and with
// lists compared as multisets. The texts are generated (keys in any
// order, repeated keys, keys and strings spelt with escapes, surrogates,
// characters encoding/json escapes, number spellings, white space,
// nesting at and past the limit) and then some of them broken (cut short,
// a byte changed).
//
//     rust_canonical_check COUNT
//
// prints how many texts were canonical, malformed and how many compares
// found a difference; it panics on the first disagreement.
use wasmeval::*;

include!("rust_check_rng.rs");

const STRINGS: &[&str] = &[
    "a", "b", "ab", "sku", "\\u0061", "\\\"", "<", ">", "&", "\\u2028", "\u{2028}", "\u{2029}", "\u{e2}x", "é",
    "\\u00e9", "\\ud83d\\ude00", "\\ud83d", "\\ude00x", "\\/", "\\n", "\\t", "x\\u0000", "\\\\", "€", "", "zz",
    "A", "\\u005a", "ab ", "a\\u0062", "the quick brown fox", "sixteen bytes ok", "fifteen bytes o", "a longer text & more",
    "seventeen bytes <", "ütf-8 text, accents é à",
];
const KEYS: &[&str] = &["a", "b", "ab", "\\u0061", "\\u0062", "é", "\\u00e9", "z", "ab ", "a\\u0062", "aaaaaaaaa", "aaaaaaaab"];
const NUMBERS: &[&str] = &["0", "1", "1.0", "1e0", "-0", "1E+2", "12345678901234567890", "0.5", "-1.25e-3", "3", "10E-1", "123456789.123456789e123", "-98765432109", "1234567"];
const SPACE: &[&str] = &[" ", "\n", "\t ", "\r\n"];

fn value(r: &mut Rng, depth: u32, s: &mut String) {
    if r.below(5) == 0 {
        s.push_str(r.pick(SPACE));
    }
    match if depth > 4 { r.below(4) } else { r.below(7) } {
        0 => {
            s.push('"');
            s.push_str(r.pick(STRINGS));
            if r.below(2) == 0 {
                s.push_str(r.pick(STRINGS));
            }
            s.push('"');
        }
        1 | 3 => s.push_str(r.pick(NUMBERS)),
        2 => s.push_str(r.pick(&["true", "false", "null"])),
        4 | 5 => {
            s.push('{');
            for i in 0..r.below(6) {
                if i > 0 {
                    s.push(',');
                }
                s.push('"');
                s.push_str(r.pick(KEYS));
                s.push('"');
                if r.below(5) == 0 {
                    s.push_str(r.pick(SPACE));
                }
                s.push(':');
                value(r, depth + 1, s);
            }
            s.push('}');
        }
        _ => {
            s.push('[');
            for i in 0..r.below(5) {
                if i > 0 {
                    s.push(',');
                }
                value(r, depth + 1, s);
            }
            s.push(']');
        }
    }
    if r.below(5) == 0 {
        s.push_str(r.pick(SPACE));
    }
}

fn encoded(v: &Value) -> String {
    let mut out = String::new();
    encode(v, &mut out).expect("a parsed value encodes");
    out
}

fn main() {
    let count: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100000);
    let mut r = Rng(88172645463325252);
    let mut texts = Vec::new();
    for _ in 0..count {
        let mut s = String::new();
        value(&mut r, 0, &mut s);
        r.break_text(&mut s, 6, &["\"", "\\", "x", "1", ",", "}", "\u{1}", "-"]);
        texts.push(s);
    }
    for n in [999, 1000, 1001] {
        texts.push("[".repeat(n) + &"]".repeat(n));
        texts.push("{\"a\":".repeat(n) + "1" + &"}".repeat(n));
    }
    // Lists of records: objects with the same keys in the same order, as a
    // list of records has (the pass reuses the order of the object before),
    // some spelt differently, some with one key changed or repeated.
    for _ in 0..count / 5 {
        let keys: Vec<&str> = (0..1 + r.below(6)).map(|_| r.pick(KEYS)).collect();
        let mut s = String::from("[");
        for o in 0..2 + r.below(4) {
            if o > 0 {
                s.push(',');
            }
            let mut ks = keys.clone();
            match r.below(6) {
                0 => {
                    let i = r.below(ks.len() as u64) as usize;
                    ks[i] = r.pick(KEYS);
                }
                1 => ks.push(keys[0]),
                _ => {}
            }
            s.push('{');
            for (i, k) in ks.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                s.push_str(&format!("\"{}\":", k));
                value(&mut r, 3, &mut s);
            }
            s.push('}');
        }
        s.push(']');
        texts.push(s);
    }
    // Objects with more members than the insertion sort takes, in reverse
    // order and with repeated keys.
    for n in [16, 17, 40] {
        let members: Vec<String> = (0..n).rev().map(|i| format!("\"k{}\":{}", i % (n - 3), i)).collect();
        texts.push(format!("{{{}}}", members.join(",")));
        texts.push(format!("[{{{}}},{{\"b\":1,\"a\":2}}]", members.join(" , ")));
    }
    let (mut canonical, mut malformed) = (0, 0);
    for s in &texts {
        match (parse_canonical(s), parse_str(s)) {
            (Ok(c), Ok(t)) => {
                assert_eq!(encoded(&c), encoded(&t), "the encodings of {:?} differ", s);
                if let Value::Canonical(_) = c {
                    canonical += 1;
                }
            }
            (Err(a), Err(b)) => {
                assert_eq!(a, b, "the errors for {:?} differ", s);
                malformed += 1;
            }
            (a, b) => panic!("{:?}: parse_canonical gives {:?}, parse_str {:?}", s, a, b),
        }
    }
    let options = [
        JsonOptions::default(),
        JsonOptions { tolerance: 0.5, ..Default::default() },
        JsonOptions { unordered_lists: true, ..Default::default() },
    ];
    let mut differences = 0;
    for i in 0..texts.len() {
        let (s, t) = (&texts[i], if r.below(3) == 0 { &texts[i] } else { &texts[(i * 7 + 1) % texts.len()] });
        if let (Ok(a), Ok(b), Ok(x), Ok(y)) = (parse_canonical(s), parse_canonical(t), parse_str(s), parse_str(t)) {
            for o in &options {
                let d = compare_json(&a, &b, o);
                assert_eq!(d, compare_json(&x, &y, o), "compare_json of {:?} and {:?} differs", s, t);
                if d.is_some() {
                    differences += 1;
                }
            }
        }
    }
    println!("{} canonical, {} malformed, {} differences", canonical, malformed, differences);
}
