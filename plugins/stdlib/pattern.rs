//! A small regular-expression matcher for compare_script_logs'
//! `ignore_patterns`. The SDK has no dependencies and neither has this
//! plugin, so it brings its own; it only answers "does the pattern occur
//! in this line", which a Thompson-NFA simulation does in time linear in
//! the line (pattern size times line length, never backtracking), so no
//! pattern and no log can make a call run away.
//!
//! Syntax: literals; `.`; classes `[abc]`, `[a-z]`, `[^…]`; `\d \D \w \W
//! \s \S`; escapes of punctuation (`\.`, `\[`, …) and `\t \n \r`;
//! anchors `^ $` (the line's start and end); groups `( )` and `(?: )`;
//! alternation `|`; quantifiers `* + ? {n} {n,} {n,m}` (a lazy `?` after
//! one is accepted; it changes nothing for a yes/no match). `\d` is
//! ASCII digits, `\w` letters, digits and `_`, `\s` whitespace.

const MAX_PATTERN: usize = 1_000;
const MAX_PROGRAM: usize = 10_000;
const MAX_REPEAT: u32 = 1_000;

#[derive(Clone, Debug)]
enum Item {
    Range(char, char),
    Digit(bool),
    Word(bool),
    Space(bool),
}

impl Item {
    fn matches(&self, c: char) -> bool {
        match *self {
            Item::Range(a, b) => a <= c && c <= b,
            Item::Digit(neg) => c.is_ascii_digit() != neg,
            Item::Word(neg) => (c.is_alphanumeric() || c == '_') != neg,
            Item::Space(neg) => c.is_whitespace() != neg,
        }
    }
}

#[derive(Clone, Debug)]
enum Node {
    Empty,
    Char(char),
    Any,
    Class(Vec<Item>, bool),
    Start,
    End,
    Cat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat(Box<Node>, u32, Option<u32>),
}

#[derive(Clone, Debug)]
enum Inst {
    Char(char),
    Any,
    Class(Vec<Item>, bool),
    Split(usize, usize),
    Jump(usize),
    Start,
    End,
    Match,
}

/// A compiled pattern.
pub struct Pattern {
    program: Vec<Inst>,
    /// Case-insensitive: literals are lowercased when compiled, and the
    /// text is matched lowercased (classes also try the uppercase).
    fold: bool,
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }
    fn fail<T>(&self, why: &str) -> Result<T, String> {
        Err(format!("{} at character {}", why, self.pos + 1))
    }
    fn alternation(&mut self, depth: usize) -> Result<Node, String> {
        if depth > 100 {
            return self.fail("groups nested too deeply");
        }
        let mut alts = vec![self.sequence(depth)?];
        while self.peek() == Some('|') {
            self.pos += 1;
            alts.push(self.sequence(depth)?);
        }
        Ok(if alts.len() == 1 { alts.pop().unwrap_or(Node::Empty) } else { Node::Alt(alts) })
    }
    fn sequence(&mut self, depth: usize) -> Result<Node, String> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom(depth)?;
            items.push(self.quantified(atom)?);
        }
        Ok(Node::Cat(items))
    }
    fn quantified(&mut self, atom: Node) -> Result<Node, String> {
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => match self.counts() {
                Some(r) => r?,
                None => return Ok(atom),
            },
            _ => return Ok(atom),
        };
        // Past the quantifier (or the '}' of a count).
        self.pos += 1;
        if self.peek() == Some('?') {
            self.pos += 1;
        }
        if matches!(self.peek(), Some('*') | Some('+') | Some('?')) {
            return self.fail("a quantifier follows a quantifier");
        }
        if matches!(atom, Node::Start | Node::End) {
            return self.fail("an anchor cannot be repeated");
        }
        Ok(Node::Repeat(Box::new(atom), min, max))
    }
    /// Reads {n}, {n,} or {n,m} at pos, leaving pos on its '}'; None when
    /// the brace does not start a count (it is then a literal '{').
    fn counts(&mut self) -> Option<Result<(u32, Option<u32>), String>> {
        let start = self.pos;
        let mut i = start + 1;
        let num = |i: &mut usize, chars: &[char]| -> Option<u32> {
            let s = *i;
            let mut n: u32 = 0;
            while let Some(d) = chars.get(*i).and_then(|c| c.to_digit(10)) {
                n = n.saturating_mul(10).saturating_add(d);
                *i += 1;
            }
            if *i == s {
                None
            } else {
                Some(n)
            }
        };
        let min = num(&mut i, &self.chars)?;
        let max = if self.chars.get(i) == Some(&',') {
            i += 1;
            num(&mut i, &self.chars)
        } else {
            Some(min)
        };
        if self.chars.get(i) != Some(&'}') {
            return None;
        }
        self.pos = i;
        if min > MAX_REPEAT || max.map_or(false, |m| m > MAX_REPEAT) {
            return Some(self.fail(&format!("a count above {}", MAX_REPEAT)));
        }
        if max.map_or(false, |m| m < min) {
            return Some(self.fail("a count range {n,m} with m below n"));
        }
        Some(Ok((min, max)))
    }
    fn atom(&mut self, depth: usize) -> Result<Node, String> {
        let c = match self.peek() {
            Some(c) => c,
            None => return self.fail("the pattern ends early"),
        };
        self.pos += 1;
        match c {
            '(' => {
                if self.peek() == Some('?') {
                    if self.chars.get(self.pos + 1) == Some(&':') {
                        self.pos += 2;
                    } else {
                        return self.fail("only (?: ) groups are supported, not other (? ) forms");
                    }
                }
                let inner = self.alternation(depth + 1)?;
                if self.peek() != Some(')') {
                    return self.fail("a ( without its )");
                }
                self.pos += 1;
                Ok(inner)
            }
            '.' => Ok(Node::Any),
            '^' => Ok(Node::Start),
            '$' => Ok(Node::End),
            '[' => self.class(),
            '\\' => match self.escape(false)? {
                Item::Range(a, _) => Ok(Node::Char(a)),
                item => Ok(Node::Class(vec![item], false)),
            },
            '*' | '+' | '?' => {
                self.pos -= 1;
                self.fail("a quantifier with nothing to repeat")
            }
            c => Ok(Node::Char(c)),
        }
    }
    /// The escape after a backslash: a character (as a one-character
    /// range) or a class.
    fn escape(&mut self, in_class: bool) -> Result<Item, String> {
        let c = match self.peek() {
            Some(c) => c,
            None => return self.fail("a \\ at the end of the pattern"),
        };
        self.pos += 1;
        let ch = |c: char| Ok(Item::Range(c, c));
        match c {
            'd' => Ok(Item::Digit(false)),
            'D' => Ok(Item::Digit(true)),
            'w' => Ok(Item::Word(false)),
            'W' => Ok(Item::Word(true)),
            's' => Ok(Item::Space(false)),
            'S' => Ok(Item::Space(true)),
            't' => ch('\t'),
            'n' => ch('\n'),
            'r' => ch('\r'),
            'b' if in_class => ch('\u{8}'),
            c if c.is_ascii_punctuation() || c == ' ' => ch(c),
            c => {
                self.pos -= 1;
                self.fail(&format!("the escape \\{} is not supported", c))
            }
        }
    }
    fn class(&mut self) -> Result<Node, String> {
        let mut neg = false;
        if self.peek() == Some('^') {
            neg = true;
            self.pos += 1;
        }
        let mut items = Vec::new();
        let mut first = true;
        loop {
            let c = match self.peek() {
                Some(c) => c,
                None => return self.fail("a [ without its ]"),
            };
            if c == ']' && !first {
                self.pos += 1;
                break;
            }
            first = false;
            self.pos += 1;
            let lo = if c == '\\' { self.escape(true)? } else { Item::Range(c, c) };
            let lo = match lo {
                Item::Range(a, _) => a,
                item => {
                    items.push(item);
                    continue;
                }
            };
            if self.peek() == Some('-') && self.chars.get(self.pos + 1).map_or(false, |&n| n != ']') {
                self.pos += 1;
                let c = self.peek().unwrap_or(']');
                self.pos += 1;
                let hi = match if c == '\\' { self.escape(true)? } else { Item::Range(c, c) } {
                    Item::Range(a, _) => a,
                    _ => return self.fail("a class like \\d cannot end a range"),
                };
                if hi < lo {
                    return self.fail("a range whose end comes before its start");
                }
                items.push(Item::Range(lo, hi));
            } else {
                items.push(Item::Range(lo, lo));
            }
        }
        Ok(Node::Class(items, neg))
    }
}

struct Compiler {
    program: Vec<Inst>,
}

impl Compiler {
    fn push(&mut self, i: Inst) -> Result<usize, String> {
        if self.program.len() >= MAX_PROGRAM {
            return Err(format!("the pattern is too large (its repetitions expand to more than {} steps)", MAX_PROGRAM));
        }
        self.program.push(i);
        Ok(self.program.len() - 1)
    }
    fn patch(&mut self, at: usize, to: usize) {
        match &mut self.program[at] {
            Inst::Split(_, b) => *b = to,
            Inst::Jump(a) => *a = to,
            _ => {}
        }
    }
    fn emit(&mut self, n: &Node) -> Result<(), String> {
        match n {
            Node::Empty => {}
            Node::Char(c) => {
                self.push(Inst::Char(*c))?;
            }
            Node::Any => {
                self.push(Inst::Any)?;
            }
            Node::Class(items, neg) => {
                self.push(Inst::Class(items.clone(), *neg))?;
            }
            Node::Start => {
                self.push(Inst::Start)?;
            }
            Node::End => {
                self.push(Inst::End)?;
            }
            Node::Cat(items) => {
                for i in items {
                    self.emit(i)?;
                }
            }
            Node::Alt(alts) => {
                let mut jumps = Vec::new();
                for (k, alt) in alts.iter().enumerate() {
                    if k + 1 < alts.len() {
                        let split = self.push(Inst::Split(0, 0))?;
                        self.program[split] = Inst::Split(split + 1, 0);
                        self.emit(alt)?;
                        jumps.push(self.push(Inst::Jump(0))?);
                        let next = self.program.len();
                        self.patch(split, next);
                    } else {
                        self.emit(alt)?;
                    }
                }
                let end = self.program.len();
                for j in jumps {
                    self.patch(j, end);
                }
            }
            Node::Repeat(inner, min, max) => {
                for _ in 0..*min {
                    self.emit(inner)?;
                }
                match max {
                    None => {
                        let split = self.push(Inst::Split(0, 0))?;
                        self.program[split] = Inst::Split(split + 1, 0);
                        self.emit(inner)?;
                        self.push(Inst::Jump(split))?;
                        let end = self.program.len();
                        self.patch(split, end);
                    }
                    Some(max) => {
                        let mut splits = Vec::new();
                        for _ in *min..*max {
                            let split = self.push(Inst::Split(0, 0))?;
                            self.program[split] = Inst::Split(split + 1, 0);
                            splits.push(split);
                            self.emit(inner)?;
                        }
                        let end = self.program.len();
                        for s in splits {
                            self.patch(s, end);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The threads of one step: each program counter at most once.
struct Threads {
    on: Vec<bool>,
    list: Vec<usize>,
}

impl Threads {
    fn new(n: usize) -> Threads {
        Threads { on: vec![false; n], list: Vec::new() }
    }
    fn clear(&mut self) {
        for &pc in &self.list {
            self.on[pc] = false;
        }
        self.list.clear();
    }
}

impl Pattern {
    /// Compiles p; with fold it matches text the caller has lowercased
    /// (wasmeval::lower_char), whatever the case of p's letters.
    pub fn compile(p: &str, fold: bool) -> Result<Pattern, String> {
        if p.chars().count() > MAX_PATTERN {
            return Err(format!("the pattern is longer than {} characters", MAX_PATTERN));
        }
        let mut parser = Parser { chars: p.chars().collect(), pos: 0 };
        let node = parser.alternation(0)?;
        if parser.pos < parser.chars.len() {
            return parser.fail("a ) without its (");
        }
        let mut c = Compiler { program: Vec::new() };
        c.emit(&node)?;
        c.push(Inst::Match)?;
        if fold {
            for i in c.program.iter_mut() {
                if let Inst::Char(x) = i {
                    *x = wasmeval::lower_char(*x);
                }
            }
        }
        Ok(Pattern { program: c.program, fold })
    }

    /// Adds the thread at pc, and every thread it reaches without reading
    /// a character, at position pos of a text of n characters; true when
    /// one of them is a match.
    fn add(&self, t: &mut Threads, pc: usize, pos: usize, n: usize, stack: &mut Vec<usize>) -> bool {
        stack.push(pc);
        while let Some(pc) = stack.pop() {
            if t.on[pc] {
                continue;
            }
            t.on[pc] = true;
            t.list.push(pc);
            match self.program[pc] {
                Inst::Jump(a) => stack.push(a),
                Inst::Split(a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                Inst::Start if pos == 0 => stack.push(pc + 1),
                Inst::End if pos == n => stack.push(pc + 1),
                Inst::Match => return true,
                _ => {}
            }
        }
        false
    }

    /// Whether the pattern occurs anywhere in text.
    pub fn is_match(&self, text: &str) -> bool {
        let chars: Vec<char> = text.chars().collect();
        let n = chars.len();
        let size = self.program.len();
        let (mut cur, mut next) = (Threads::new(size), Threads::new(size));
        let mut stack = Vec::new();
        for pos in 0..=n {
            // A new thread at every position: the pattern may start anywhere.
            if self.add(&mut cur, 0, pos, n, &mut stack) {
                return true;
            }
            if pos == n {
                break;
            }
            let c = chars[pos];
            next.clear();
            for k in 0..cur.list.len() {
                let pc = cur.list[k];
                let step = match &self.program[pc] {
                    Inst::Char(x) => *x == c,
                    Inst::Any => true,
                    Inst::Class(items, neg) => {
                        let upper = if self.fold { c.to_uppercase().next().unwrap_or(c) } else { c };
                        items.iter().any(|i| i.matches(c) || i.matches(upper)) != *neg
                    }
                    _ => false,
                };
                if step && self.add(&mut next, pc + 1, pos + 1, n, &mut stack) {
                    return true;
                }
            }
            std::mem::swap(&mut cur, &mut next);
        }
        false
    }
}
