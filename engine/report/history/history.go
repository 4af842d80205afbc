// Package history keeps a directory of past runs' eval-results documents
// (see report.EvalResults) and compares a run with the one before it:
//
//	<dir>/latest.json                          the most recent run's document
//	<dir>/runs/<UTC start>-<run id>.json       every run's document
//
// Entries are named by the run's start, so they sort in run order and the
// previous run of an entry is the one named just before it, whatever
// order runs were recorded in. An entry is never replaced: it is written
// to a temporary file, synced, and linked to its name only if that name
// is free (a second record of the same run gets a suffix), so two
// processes recording at once each keep their entry. latest.json is
// replaced whole (a temporary file renamed over it) by a copy of the
// newest entry, and each writer checks after its rename that no newer
// entry appeared meanwhile, so the last word is always the newest run's.
package history

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/report/runfile"
)

// File names inside a history directory.
const (
	LatestName = "latest.json"
	RunsDir    = "runs"
)

// stampLayout names entries: UTC, fixed width, so names sort by time.
const stampLayout = "20060102T150405Z"

// Entry is one run of the history.
type Entry struct {
	// Path is the entry's file.
	Path    string
	Results *report.EvalResults
}

// Record adds a run's document to the history in dir (created if needed)
// and updates latest.json. runAt is the run's start (the entry's name;
// the document's run_at when zero) and runID its id. It returns the
// entry written and the run before it (nil when there is none), to
// compare with (see Compare).
func Record(dir, runID string, runAt time.Time, doc *report.EvalResults) (entry, prev *Entry, err error) {
	if runAt.IsZero() {
		if runAt, err = time.Parse(time.RFC3339, doc.RunAt); err != nil {
			return nil, nil, fmt.Errorf("history: the run's start is unknown: %w", err)
		}
	}
	runs := filepath.Join(dir, RunsDir)
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	var data bytes.Buffer
	if err := doc.Write(&data); err != nil {
		return nil, nil, err
	}
	// Entries sort by their start; a run id that already begins with it
	// (wasmeval's do) is not stamped twice.
	stamp := runAt.UTC().Format(stampLayout)
	base := stamp + "-" + safeName(runID)
	if strings.HasPrefix(runID, stamp+"-") {
		base = safeName(runID)
	}
	path, err := addEntry(runs, base, data.Bytes())
	if err != nil {
		return nil, nil, err
	}
	entry = &Entry{Path: path, Results: doc}
	if prev, err = previous(runs, filepath.Base(path)); err != nil {
		return entry, nil, err
	}
	if err := updateLatest(dir); err != nil {
		return entry, prev, err
	}
	return entry, prev, nil
}

// addEntry writes data under runs as base.json, or base-2.json, … when
// taken: through a synced temporary file linked to the name, so a name
// that exists is never replaced and a reader never sees half an entry.
func addEntry(runs, base string, data []byte) (string, error) {
	f, err := runfile.CreateTemp(runs, ".entry-*.tmp")
	if err != nil {
		return "", fmt.Errorf("history: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // once linked, the entry has its own name
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("history: write entry: %w", err)
	}
	for n := 1; n < 10000; n++ {
		name := base + ".json"
		if n > 1 {
			name = fmt.Sprintf("%s-%d.json", base, n)
		}
		path := filepath.Join(runs, name)
		err := os.Link(tmp, path)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			// A file system without hard links: create the name
			// exclusively and write it (a reader may then see it
			// before it is whole, never a replaced entry).
			err = writeExclusive(path, data)
			if errors.Is(err, fs.ErrExist) {
				continue
			}
		}
		if err != nil {
			return "", fmt.Errorf("history: add entry: %w", err)
		}
		syncDir(runs)
		return path, nil
	}
	return "", fmt.Errorf("history: no free name for %s in %s", base, runs)
}

func writeExclusive(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, runfile.Mode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// entries lists the entries' names, oldest first.
func entries(runs string) ([]string, error) {
	des, err := os.ReadDir(runs)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	var names []string
	for _, de := range des {
		n := de.Name()
		if !strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".json") && de.Type().IsRegular() {
			names = append(names, n)
		}
	}
	slices.SortFunc(names, compareNames)
	return names, nil
}

// compareNames orders entry names by run start, then as recorded: a
// name's suffix (-2, -3 for later records of the same run) sorts after
// the name without it.
func compareNames(a, b string) int {
	return strings.Compare(strings.TrimSuffix(a, ".json"), strings.TrimSuffix(b, ".json"))
}

// previous reads the entry just before name; nil when name is the first.
func previous(runs, name string) (*Entry, error) {
	names, err := entries(runs)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(names, func(n string) bool { return compareNames(n, name) >= 0 })
	if i < 0 {
		i = len(names)
	}
	if i == 0 {
		return nil, nil
	}
	return Read(filepath.Join(runs, names[i-1]))
}

// Read reads one entry.
func Read(path string) (*Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	doc, err := report.ReadEvalResults(f)
	if err != nil {
		return nil, fmt.Errorf("history: %s: %w", path, err)
	}
	return &Entry{Path: path, Results: doc}, nil
}

// Latest reads the history's newest entry; nil when it has none.
func Latest(dir string) (*Entry, error) {
	runs := filepath.Join(dir, RunsDir)
	names, err := entries(runs)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(names) == 0) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return Read(filepath.Join(runs, names[len(names)-1]))
}

// updateLatest makes latest.json a copy of the newest entry. Writers
// racing each other may rename in any order, so after its rename each
// looks again: if a newer entry appeared, it copies that one; the
// writer of the newest entry does the same after its own rename, so the
// last rename is always of the newest entry.
func updateLatest(dir string) error {
	runs := filepath.Join(dir, RunsDir)
	copied := ""
	for try := 0; try < 100; try++ {
		names, err := entries(runs)
		if err != nil {
			return err
		}
		if len(names) == 0 {
			return nil
		}
		newest := names[len(names)-1]
		if newest == copied {
			return nil
		}
		data, err := os.ReadFile(filepath.Join(runs, newest))
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		if err := runfile.WriteBytes(filepath.Join(dir, LatestName), data); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		syncDir(dir)
		copied = newest
	}
	return errors.New("history: latest.json: the history kept changing")
}

// syncDir makes a directory's new names durable; a file system that
// cannot sync directories loses nothing it promised.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// safeName keeps a run id usable in a file name on every system.
func safeName(id string) string {
	if id == "" {
		return "run"
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, id)
}

// Changes is how a run's cases changed since the run before it, by case
// id.
type Changes struct {
	// Regressions passed before and do not now; Fixes the reverse.
	Regressions []string `json:"regressions"`
	Fixes       []string `json:"fixes"`
	// New cases were not in the previous run; Removed ones are not in
	// this one.
	New       []string `json:"new"`
	Removed   []string `json:"removed"`
	Unchanged int      `json:"unchanged"`
}

// Compare lists what changed from prev to cur, by case id, each list in
// cur's order (Removed in prev's). A nil prev makes every case new.
func Compare(prev, cur *report.EvalResults) Changes {
	c := Changes{Regressions: []string{}, Fixes: []string{}, New: []string{}, Removed: []string{}}
	before := map[string]bool{}
	if prev != nil {
		for _, e := range prev.Results {
			before[e.ID] = e.Passed
		}
	}
	now := map[string]bool{}
	for _, e := range cur.Results {
		now[e.ID] = true
		was, ok := before[e.ID]
		switch {
		case !ok:
			c.New = append(c.New, e.ID)
		case was && !e.Passed:
			c.Regressions = append(c.Regressions, e.ID)
		case !was && e.Passed:
			c.Fixes = append(c.Fixes, e.ID)
		default:
			c.Unchanged++
		}
	}
	if prev != nil {
		for _, e := range prev.Results {
			if !now[e.ID] {
				c.Removed = append(c.Removed, e.ID)
			}
		}
	}
	return c
}

// Print writes the changes for a terminal: counts, then each list.
func (c Changes) Print(w io.Writer) {
	fmt.Fprintf(w, "since the previous run: %d regressions, %d fixes, %d new, %d removed, %d unchanged\n",
		len(c.Regressions), len(c.Fixes), len(c.New), len(c.Removed), c.Unchanged)
	for _, l := range []struct {
		title string
		ids   []string
	}{{"regressed", c.Regressions}, {"fixed", c.Fixes}, {"new", c.New}, {"removed", c.Removed}} {
		for _, id := range l.ids {
			fmt.Fprintf(w, "  %-9s %s\n", l.title, id)
		}
	}
}
