package batch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/wasmeval/wasmeval/engine/report/runfile"
)

// FileName is the batch's record inside its directory.
const FileName = "batch.json"

// SchemaVersion changes when a field of batch.json changes meaning.
const SchemaVersion = 1

// File is batch.json: what the batch evaluates and how (enough for
// `batch --resume` to go on with no other argument), and the leaderboard as
// of its last update — each pair's status and results, and totals per
// submission.
type File struct {
	Schema    int       `json:"schema"`
	Status    string    `json:"status"`
	StartedAt time.Time `json:"started_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Seed is --seed, given to every pair (absent without one).
	Seed *int64 `json:"seed,omitempty"`
	// Jobs, PassPolicy and RunArgs are the settings every pair runs
	// with; RunArgs are further `wasmeval run` flags as given.
	Jobs        int      `json:"jobs"`
	PassPolicy  string   `json:"pass_policy"`
	ErrorPolicy string   `json:"error_policy,omitempty"`
	RunArgs     []string `json:"run_args,omitempty"`
	Plan        Plan     `json:"plan"`
	// Pairs are every submission × problem, in plan order.
	Pairs []PairResult `json:"pairs"`
	// Totals are per submission, over its pairs that ran.
	Totals []Total `json:"totals"`
}

// Batch statuses.
const (
	StatusRunning     = "running"
	StatusComplete    = "complete"
	StatusInterrupted = "interrupted"
)

// WriteFile stores f as dir/batch.json atomically (runfile: written beside
// it, synced and renamed), so a batch killed while writing it keeps the
// previous one.
func WriteFile(dir string, f *File) error {
	f.Schema = SchemaVersion
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", FileName, err)
	}
	if err := runfile.WriteBytes(filepath.Join(dir, FileName), append(data, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", FileName, err)
	}
	return nil
}

// ReadFile loads dir/batch.json.
func ReadFile(dir string) (*File, error) {
	path := filepath.Join(dir, FileName)
	data, err := os.ReadFile(path)
	if err != nil {
		if errNotExist(err) {
			return nil, fmt.Errorf("%s is not a batch directory (no %s)", dir, FileName)
		}
		return nil, err
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: not a batch record: %w", path, err)
	}
	if f.Schema != SchemaVersion {
		return nil, fmt.Errorf("%s: schema %d, this wasmeval reads schema %d", path, f.Schema, SchemaVersion)
	}
	if err := CheckPlan(&f.Plan, false); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &f, nil
}
