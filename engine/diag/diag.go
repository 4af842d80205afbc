// Package diag carries configuration and input diagnostics that name the
// file, the key path and (where known) the line of the offending value.
//
// Every loader in the engine reports bad input as a *diag.Error (or a List of
// them) so that the CLI can print all problems at once and exit with a usage
// error instead of a stack trace.
package diag

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Error is one problem found in one input file.
type Error struct {
	File string // path of the file, as the user would type it
	Path string // key path inside the file, e.g. "checkpoints.checkpoint_1.groups.core.timeout"
	Line int    // 1-based line, 0 when unknown
	Msg  string // what is wrong and what was expected
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Path != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(printable(e.Path))
	}
	if b.Len() > 0 { // an error with no place is its message alone
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// List is a set of diagnostics reported together.
type List []*Error

// Add appends a diagnostic.
func (l *List) Add(file, path string, line int, format string, args ...any) {
	*l = append(*l, &Error{File: file, Path: path, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// Append adds an arbitrary error, flattening nested diagnostics.
func (l *List) Append(err error) {
	if err == nil {
		return
	}
	var list List
	if errors.As(err, &list) {
		*l = append(*l, list...)
		return
	}
	var one *Error
	if errors.As(err, &one) {
		*l = append(*l, one)
		return
	}
	*l = append(*l, &Error{Msg: err.Error()})
}

// Err returns nil when the list is empty, the list otherwise.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}

// Sort orders diagnostics by file then line so output is stable.
func (l List) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		if l[i].File != l[j].File {
			return l[i].File < l[j].File
		}
		return l[i].Line < l[j].Line
	})
}

func (l List) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// JoinPath appends a key to a dotted key path.
func JoinPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// IndexPath appends a list index to a key path.
func IndexPath(parent string, i int) string {
	return fmt.Sprintf("%s[%d]", parent, i)
}

// UnwrapPathError drops the path from an *os.PathError, for messages that
// already name the file.
func UnwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// printable is a key path to print: as it is, or quoted (a\x00b) when it
// holds a control character, which would otherwise be printed raw (a
// NUL, a newline that breaks the line in two).
func printable(path string) string {
	if strings.IndexFunc(path, unicode.IsControl) < 0 {
		return path
	}
	return strconv.Quote(path)
}
