package cases

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// readString reads a problem file into a string with one allocation of the
// file's size. Reading into a []byte and converting it (string(data))
// holds the content twice until the bytes are collected, and io.ReadAll's
// growing buffer allocates about twice the file on top: for a 50 MB
// expected output that was three to four copies on the way to one.
func (gc *groupCtx) readString(file string) (string, error) {
	f, err := gc.files.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(int(st.Size()))
	if _, err := io.Copy(&b, f); err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	return b.String(), nil
}

// readValue reads an expected value from a file as verify.FileValue
// types it: text when it is UTF-8, bytes otherwise.
func (gc *groupCtx) readValue(file string) (any, error) {
	s, err := gc.readString(file)
	if err != nil {
		return nil, err
	}
	if utf8.ValidString(s) {
		return s, nil
	}
	return []byte(s), nil
}

// withoutBOM is text without the UTF-8 byte order mark an editor may put
// at its start: for files that are parsed (ARGS, expected JSON, an exit
// status), where it would be read as part of the first word or token.
// Files given to the submission keep theirs.
func withoutBOM(text string) string { return strings.TrimPrefix(text, "\ufeff") }
