package problem

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// choice is one word a problem key may take, and what it means.
type choice struct{ word, meaning string }

// oneOf checks a problem key that takes one of a few words: empty gives
// the first (the default); a word not listed is an error at the key's
// line that lists each word with its meaning.
func (l *loader) oneOf(file string, root *yaml.Node, key, noun, v string, choices ...choice) string {
	if v == "" {
		return choices[0].word
	}
	var say []string
	for i, c := range choices {
		if c.word == v {
			return v
		}
		s := c.word + " — " + c.meaning
		if i == 0 {
			s += ", the default"
		}
		say = append(say, s)
	}
	l.errs.Add(file, key, keyLine(root, key), "unknown %s %q (expected %s)", noun, v, strings.Join(say, ", or "))
	return choices[0].word
}
