package problem

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameBytes bounds a name: it becomes a file name, and file systems
// refuse longer ones.
const MaxNameBytes = 255

// CheckName says whether s may name a checkpoint, a group or a case. Each
// becomes one path component — the checkpoint's and group's directories
// in the problem, <checkpoint>/evaluation.json and
// artifacts/<checkpoint>/<group>/ in the run directory, a submission's
// per-checkpoint directory — and a part of the case's key in the journal.
// So a name is one plain component: not empty, not "." or "..", without
// / or \, without control characters, valid UTF-8 and at most 255 bytes.
func CheckName(s string) error {
	bad := ""
	switch {
	case s == "":
		bad = "is empty"
	case s == "." || s == "..":
		bad = "is . or .."
	case strings.ContainsAny(s, `/\`):
		bad = "contains a path separator (/ or \\)"
	case !utf8.ValidString(s):
		bad = "is not valid UTF-8"
	case len(s) > MaxNameBytes:
		bad = fmt.Sprintf("is %d bytes long (at most %d)", len(s), MaxNameBytes)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		bad = "contains a control character"
	default:
		return nil
	}
	return fmt.Errorf("name %q %s; a name becomes a directory name and part of a result's key, so it must be one plain path component", s, bad)
}

// CaseKey identifies a case within a run: checkpoint/group/id. Each part
// is escaped (% and / as %25 and %2F) so the key is unambiguous whatever
// the parts hold — group "g" with case "a/b" and group "g/a" with case "b"
// get different keys — while a key made of valid names (which have no /)
// reads as before. Keys are derived from a record's fields, never stored,
// so journals written earlier resume with them unchanged.
func CaseKey(checkpoint, group, id string) string {
	return escapeKey(checkpoint) + "/" + escapeKey(group) + "/" + escapeKey(id)
}

// GroupKey identifies a group within a run, escaped as CaseKey.
func GroupKey(checkpoint, group string) string {
	return escapeKey(checkpoint) + "/" + escapeKey(group)
}

var keyEscaper = strings.NewReplacer("%", "%25", "/", "%2F")

func escapeKey(s string) string {
	if !strings.ContainsAny(s, "%/") {
		return s
	}
	return keyEscaper.Replace(s)
}
