// The random numbers of the Rust check programs (rust_canonical_check.rs,
// rust_decode_check.rs), included by each: xorshift64, so that every run
// generates the same texts, and the way they break a text.

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len() as u64) as usize]
    }
    /// Breaks s one time in `of`: cut short, or in another time in `of`
    /// a byte replaced by one of bytes; otherwise s is left as it is.
    fn break_text(&mut self, s: &mut String, of: u64, bytes: &[&str]) {
        match self.below(of) {
            0 => {
                let mut cut = self.below(s.len() as u64 + 1) as usize;
                while !s.is_char_boundary(cut) {
                    cut -= 1;
                }
                s.truncate(cut);
            }
            1 => {
                let at = self.below(s.len() as u64) as usize;
                if s.is_char_boundary(at) && s.is_char_boundary(at + 1) {
                    s.replace_range(at..at + 1, self.pick(bytes));
                }
            }
            _ => {}
        }
    }
}
