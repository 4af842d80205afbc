// Package shellwords splits a string of arguments into words as a POSIX
// shell quotes them, and expands nothing: what a case's `arguments:`
// string, a server's arguments and a command template are made of.
package shellwords

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Split splits a string into words with POSIX shell quoting rules and
// nothing else: `a "b c"` is two words, and what a shell would expand
// stays as written — `$HOME`, `${HOME}`, `~`, `*.txt`, `{a,b}`,
// `$((1+2))` — as Python's shlex.split leaves it, which the harnesses
// problems come from use. A command substitution or an operator (`$(ls)`,
// `>`, `|`) is an error at its position: it has no meaning without a
// shell, and passing it on as written would hide the mistake.
//
// mvdan.cc/sh parses the words; they are then read back from the parse,
// not expanded, since its expansion (shell.Fields) always applies brace,
// tilde and arithmetic expansion.
func Split(s string) ([]string, error) {
	var out []string
	for w, err := range syntax.NewParser().WordsSeq(strings.NewReader(s)) {
		if err != nil {
			if strings.Contains(err.Error(), "is not a valid word") { // an operator: ; & | < > ( )
				return nil, fmt.Errorf("%w: quote it ('…') to pass it as an argument, or give the arguments as a list", err)
			}
			return nil, err
		}
		var b strings.Builder
		if err := literalParts(&b, s, w.Parts, false); err != nil {
			return nil, err
		}
		out = append(out, b.String())
	}
	return out, nil
}

// literalParts writes parts of a word of s as written, quotes and
// escapes removed; quoted says they are inside double quotes.
func literalParts(b *strings.Builder, s string, parts []syntax.WordPart, quoted bool) error {
	for _, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit:
			unescape(b, p.Value, quoted)
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteByte('$')
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				b.WriteByte('$')
			}
			if err := literalParts(b, s, p.Parts, true); err != nil {
				return err
			}
		case *syntax.CmdSubst:
			return fmt.Errorf("unexpected command substitution at %s: quote it ('…') to pass it as an argument", p.Pos())
		case *syntax.ProcSubst:
			return fmt.Errorf("unexpected process substitution at %s: quote it ('…') to pass it as an argument", p.Pos())
		default: // $NAME, ${…}, $((…)), extended globs: as written
			b.WriteString(s[part.Pos().Offset():part.End().Offset()])
		}
	}
	return nil
}

// unescape writes a literal's text without its escaping backslashes:
// outside quotes a backslash escapes any character, inside double quotes
// only $, `, " and \ (a line continuation is gone already).
func unescape(b *strings.Builder, lit string, quoted bool) {
	for i := 0; i < len(lit); i++ {
		if lit[i] == '\\' && i+1 < len(lit) && (!quoted || strings.IndexByte("$`\"\\", lit[i+1]) >= 0) {
			i++
		}
		b.WriteByte(lit[i])
	}
}
