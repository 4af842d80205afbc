package journal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal/journaltest"
	"github.com/wasmeval/wasmeval/engine/result"
)

// corruptJournal is a journal with bad lines in the middle, each bad in
// another way, and a torn last line.
const corruptJournal = `{"checkpoint":"c","group":"g","id":"a"}
{"checkpoint":"c","group":"g","id":"b","score":
{"checkpoint":"c","group":"g","id":"c"}
null
` + "\x00\x00\x00\x00" + `
{"checkpoint":"c","group":"g","id":"d","passed":"yes"}

{"checkpoint":"c","group":"g","id":"e"}
{"checkpoint":"c","group":"g","id":"f`

func TestCheckNamesEveryCorruptLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	os.WriteFile(path, []byte(corruptJournal), 0o644)
	err := Read(path, func(*result.CaseRecord) error { return nil })
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Line != 2 || ce.Path != path || !strings.Contains(err.Error(), path+":2: corrupt journal line: unexpected end of JSON input") {
		t.Fatalf("Read: %v", err)
	}
	c, err := Check(path)
	if err != nil || c == nil {
		t.Fatalf("Check: %v %v", c, err)
	}
	var got []string
	for _, l := range c.Lines {
		got = append(got, l.Error())
	}
	want := []string{
		path + `:2: corrupt journal line: unexpected end of JSON input (the line starts "{\"checkpoint\":\"c\",\"group\":\"g\",\"id\":\"b\",\"")`,
		path + `:4: corrupt journal line: not a JSON object (the line starts "null")`,
		path + `:5: corrupt journal line: not a JSON object (the line starts "\x00\x00\x00\x00")`,
		path + `:6: corrupt journal line: passed: expected bool, got a JSON string (the line starts "{\"checkpoint\":\"c\",\"group\":\"g\",\"id\":\"d\",\"")`,
		path + `:7: corrupt journal line: empty line`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("corrupt lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(c.Error(), "has 5 corrupt line(s)") {
		t.Errorf("summary: %s", c.Error())
	}
}

// Salvage moves the corrupt lines aside byte for byte and leaves a journal
// every reader accepts, with the good records in order.
func TestSalvageSetsCorruptLinesAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	os.WriteFile(path, []byte(corruptJournal), 0o664)
	os.Chmod(path, 0o664)
	c, err := Salvage(path)
	if err != nil || c == nil || len(c.Lines) != 5 {
		t.Fatalf("Salvage: %v %v", c, err)
	}
	var ids []string
	if err := Read(path, func(r *result.CaseRecord) error { ids = append(ids, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, ",") != "a,c,e" {
		t.Fatalf("journal after salvage: %v", ids)
	}
	aside, _ := os.ReadFile(filepath.Join(dir, SetAsideName))
	lines := strings.Split(corruptJournal, "\n")
	want := strings.Join([]string{lines[1], lines[3], lines[4], lines[5], lines[6]}, "\n") + "\n"
	if string(aside) != want {
		t.Fatalf("set aside:\n%q\nwant\n%q", aside, want)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o664 {
		t.Errorf("journal mode after salvage: %v", st.Mode())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files left behind: %v", entries)
	}
	// A sound journal is left alone.
	before, _ := os.ReadFile(path)
	if c, err := Salvage(path); c != nil || err != nil {
		t.Fatalf("second salvage: %v %v", c, err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("a sound journal was rewritten")
	}
}

// A salvage that cannot complete (no room for the copy) leaves the journal
// as it was and sets nothing aside.
func TestSalvageOnAFullDiskChangesNothing(t *testing.T) {
	dir, resize := journaltest.Tmpfs(t, "64k")
	path := filepath.Join(dir, FileName)
	var journal bytes.Buffer
	for i := 0; journal.Len() < 40<<10; i++ {
		journal.WriteString(`{"checkpoint":"c","group":"g","id":"` + strings.Repeat("x", 4000) + `"}` + "\n")
		if i == 2 {
			journal.WriteString("garbage\n")
		}
	}
	if err := os.WriteFile(path, journal.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Salvage(path)
	if c != nil || err == nil || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), "it is unchanged") {
		t.Fatalf("salvage on a full disk: %v %v", c, err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, journal.Bytes()) {
		t.Fatal("the journal changed")
	}
	if data, _ := os.ReadFile(filepath.Join(dir, SetAsideName)); len(data) != 0 {
		t.Fatalf("set aside although the salvage failed: %q", data)
	}
	resize("1m")
	if c, err := Salvage(path); err != nil || c == nil || len(c.Lines) != 1 || c.Lines[0].Line != 4 {
		t.Fatalf("salvage with room: %v %v", c, err)
	}
}
