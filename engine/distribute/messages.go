// Package distribute spreads one run's group jobs over worker processes
// through NATS JetStream: a work-queue stream holds one message per job,
// an object store the problem and the submission by sha256, and a
// results stream each case record as it finishes. The coordinator (a
// run.Executor) is the only writer of the run's journal; see
// RATIONALE.md for the choices.
package distribute

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run"
)

// Names of the streams, the consumers and the subjects.
const (
	WorkStream    = "WASMEVAL_WORK"
	ResultsStream = "WASMEVAL_RESULTS"
	// AdvisoryStream keeps the server's announcements of work messages
	// whose deliveries ran out, so a coordinator that was not connected
	// when one was made still learns of it.
	AdvisoryStream       = "WASMEVAL_ADVISORIES"
	maxDeliveriesSubject = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + WorkStream + ".*"
	workPrefix           = "wasmeval.work"
	resultsPrefix        = "wasmeval.results"
)

// Capability is what a worker offers and a job needs: the runtime
// (local, docker) and the machine's architecture.
type Capability struct {
	Runtime string `json:"runtime"`
	Arch    string `json:"arch"`
}

// HostCapability is this machine's with runtime rt.
func HostCapability(rt string) Capability { return Capability{Runtime: rt, Arch: runtime.GOARCH} }

// subject is where jobs needing c are published.
func (c Capability) subject() string { return workPrefix + "." + c.Runtime + "." + c.Arch }

// consumer is the durable consumer every worker with c binds.
func (c Capability) consumer() string { return "work-" + c.Runtime + "-" + c.Arch }

func (c Capability) String() string { return c.Runtime + "/" + c.Arch }

// validToken says whether s can be one token of a subject or part of a
// consumer's name.
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func (c Capability) check() error {
	if !validToken(c.Runtime) || !validToken(c.Arch) {
		return fmt.Errorf("capability %q: runtime and architecture must be letters, digits, - or _", c.String())
	}
	return nil
}

// Job is one work message: one group's epoch of one run, with what a
// worker needs to run it faithfully.
type Job struct {
	RunID      string `json:"run_id"`
	Checkpoint string `json:"checkpoint"`
	Group      string `json:"group"`
	Epoch      int    `json:"epoch,omitempty"`
	// Version and ABI are the coordinator's wasmeval version and plugin
	// ABI version: a worker whose differ refuses the job.
	Version string `json:"version"`
	ABI     int    `json:"abi"`
	// Problem and Submission are sha256 digests (hex) of the artifacts
	// in the object store.
	Problem    string     `json:"problem"`
	Submission string     `json:"submission"`
	Needs      Capability `json:"needs"`
	// Settings are the run's flags that change how a group runs.
	Settings Settings `json:"settings"`
	// Plugins are the plugins the problem binds from outside its
	// directory (by name from a plugin directory, or by reference
	// through the lock file), each in the object store by its sha256.
	Plugins []PluginArtifact `json:"plugins,omitempty"`
	// EnvSpec is the environment spec the run uses; nil: the problem's
	// own (which travels with it), or none.
	EnvSpec *EnvSpecArtifact `json:"env_spec,omitempty"`
	// Finished are the ids of the group's cases a resumed run's journal
	// holds already: the worker treats them as a resumed run does (an
	// isolated group skips them). Left out when they would make the
	// message too large (MaxFinishedBytes): the group then runs whole,
	// and the coordinator drops the records it has.
	Finished []string `json:"finished,omitempty"`
	// Mounts are the sources of the environment spec's mounts, each in
	// the object store by its sha256: the worker mounts its copy.
	Mounts []MountArtifact `json:"mounts,omitempty"`
	// Origin is the problem directory on the coordinator's machine, and
	// Paths what the problem named outside it there (under a
	// --mount-root: a static asset, a checkpoint directory, a case's
	// file, ...), each in the object store by its sha256: the worker
	// loads the problem with those paths leading to its copies.
	Origin string         `json:"origin,omitempty"`
	Paths  []PathArtifact `json:"paths,omitempty"`
}

// PathArtifact is a path the problem named outside its directory on the
// coordinator's machine (absolute, clean, as named) and its content, a
// directory (packed as a tar) or a file.
type PathArtifact struct {
	Path   string `json:"path"`
	Dir    bool   `json:"dir,omitempty"`
	SHA256 string `json:"sha256"`
}

// MountArtifact is the source of the environment spec's mount Index (its
// place in the spec's mounts), a directory (packed as a tar) or a file.
type MountArtifact struct {
	Index  int    `json:"index"`
	Dir    bool   `json:"dir,omitempty"`
	SHA256 string `json:"sha256"`
}

// PluginArtifact is a plugin a job needs that is not in the problem
// directory: bound by Name (the worker finds <name>.wasm first in a
// directory of the job's plugins), by Ref (the worker resolves the
// reference to the fetched file) or by path outside the problem, by the
// problem or a case (File, the file's base name: the worker loads the
// fetched file for a binding by path outside the problem that pins its
// digest), with the sha256 the binding pins.
type PluginArtifact struct {
	Name   string `json:"name,omitempty"`
	Ref    string `json:"ref,omitempty"`
	File   string `json:"file,omitempty"`
	SHA256 string `json:"sha256"`
}

// EnvSpecArtifact is the run's environment spec: a file of the problem
// (Path, relative to it), or a file of its own in the object store
// (Name, its base name, and SHA256).
type EnvSpecArtifact struct {
	Path   string `json:"path,omitempty"`
	Name   string `json:"name,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
}

// Settings are the run's flags a worker applies to every group of it.
type Settings struct {
	Command      string  `json:"command,omitempty"`
	RetryErrors  int     `json:"retry_errors,omitempty"`
	RetryBackoff float64 `json:"retry_backoff_s,omitempty"`
	Browser      string  `json:"browser,omitempty"`
	NoCache      bool    `json:"no_cache,omitempty"`
	// Seed is run --seed (nil: none), given to loader plugins and to
	// every case's environment as on one machine.
	Seed *int64 `json:"seed,omitempty"`
}

// MaxFinishedBytes bounds the finished case ids a work message carries
// (their bytes together), well under a NATS server's default maximum
// payload (1 MiB).
const MaxFinishedBytes = 256 << 10

// finishedFits is ids, or nil when they would make a work message too
// large.
func finishedFits(ids []string) []string {
	n := 0
	for _, id := range ids {
		n += len(id) + 3 // quotes and comma
		if n > MaxFinishedBytes {
			return nil
		}
	}
	return ids
}

// Key names the job among its run's: checkpoint, group and epoch.
func (j *Job) Key() string { return jobKey(j.Checkpoint, j.Group, j.Epoch) }

func jobKey(checkpoint, group string, epoch int) string {
	return fmt.Sprintf("%s/%s/%d", checkpoint, group, epoch)
}

// msgID is the job's Nats-Msg-Id: publishing it again (a coordinator that
// restarted) is dropped by the stream as a duplicate.
func (j *Job) msgID() string { return "wasmeval-job:" + j.RunID + ":" + j.Key() }

// Kinds of result messages.
const (
	KindRecord  = "record"  // a case's record
	KindDone    = "done"    // the job's last message
	KindError   = "error"   // the group stopped early (then done)
	KindRefused = "refused" // the worker cannot run the job faithfully; it is terminated
)

// Result is one result message, on resultsPrefix.<run id>.
type Result struct {
	Kind   string `json:"kind"`
	Job    string `json:"job"` // Job.Key
	Worker string `json:"worker"`
	// Delivery is which delivery of the work message this is from.
	Delivery uint64             `json:"delivery"`
	Record   *result.CaseRecord `json:"record,omitempty"`
	Retried  bool               `json:"retried,omitempty"`
	// ProblemSource says the record's case.source is relative to the
	// problem directory (slash-separated): the worker's copy of the
	// problem is gone once it ends, so the coordinator names the file
	// in its own (relativeSource, absoluteSource).
	ProblemSource bool   `json:"problem_source,omitempty"`
	Message       string `json:"message,omitempty"`
	// VerdictCache, on a done message, says how the job's plugin calls
	// were answered (a runner that counts them: CountingRunner).
	VerdictCache *run.CacheCounts `json:"verdict_cache,omitempty"`
}

func resultsSubject(runID string) string { return resultsPrefix + "." + runID }

// relativeSource makes the record's case.source relative to dir, the
// worker's copy of the problem, when it lies there. The record itself
// is the runner's and is left as it is.
func (r *Result) relativeSource(dir string) {
	if r.Record == nil || r.Record.Case == nil || dir == "" || !filepath.IsAbs(r.Record.Case.Source) {
		return
	}
	rel, err := filepath.Rel(dir, r.Record.Case.Source)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return
	}
	rec, info := *r.Record, *r.Record.Case
	info.Source = filepath.ToSlash(rel)
	rec.Case = &info
	r.Record, r.ProblemSource = &rec, true
}

// absoluteSource names a record's case.source the worker gave relative
// to the problem (ProblemSource) in dir, the coordinator's problem
// directory: as a run on one machine names it.
func (r *Result) absoluteSource(dir string) {
	if !r.ProblemSource || r.Record == nil || r.Record.Case == nil {
		return
	}
	r.Record.Case.Source = filepath.Join(dir, filepath.FromSlash(r.Record.Case.Source))
	r.ProblemSource = false
}

// decodeResult decodes a result message. Its record is decoded as the
// journal decodes its lines, so a value's numbers keep their text: what
// the coordinator writes is what a run on one machine writes.
func decodeResult(data []byte) (*Result, error) {
	var wire struct {
		Result
		Record json.RawMessage `json:"record,omitempty"`
	}
	if err := json.Unmarshal(data, &wire); err != nil {
		return nil, err
	}
	r := wire.Result
	if len(wire.Record) > 0 && string(wire.Record) != "null" {
		rec, err := journal.DecodeRecord(wire.Record)
		if err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
		r.Record = rec
	}
	return &r, nil
}

func decodeJob(data []byte) (*Job, error) {
	var j Job
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("work message: %w", err)
	}
	switch {
	case !validToken(j.RunID):
		return nil, fmt.Errorf("work message: run_id %q: want letters, digits, - or _", j.RunID)
	case j.Checkpoint == "" || j.Group == "" || j.Epoch < 0:
		return nil, fmt.Errorf("work message: checkpoint, group and epoch (>= 0) are required")
	}
	return &j, nil
}
