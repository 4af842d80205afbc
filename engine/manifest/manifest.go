// Package manifest records what produced a run: the engine's version and
// commit, digests of the problem, its config, its plugins and the
// submission, the flags, the host and the start and end times. It is
// written as <run>/manifest.json when the run starts (so an interrupted run
// still has one) and rewritten when it ends; every report links to it, and
// `run --resume` compares it with the present to refuse a changed setup.
package manifest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/wasmeval/wasmeval/engine/report/runfile"
)

// FileName is the manifest's name inside a run directory.
const FileName = "manifest.json"

// SchemaVersion changes when a field changes meaning.
const SchemaVersion = 1

// Status values.
const (
	StatusRunning     = "running"
	StatusComplete    = "complete"
	StatusInterrupted = "interrupted"
	// StatusFailed: the run stopped on an error of its own (not a case's).
	StatusFailed = "failed"
)

// Manifest describes one run.
type Manifest struct {
	Schema int    `json:"schema"`
	RunID  string `json:"run_id"`
	// Status is running until the run ends (complete, interrupted or
	// failed); a manifest still saying running belongs to a run that
	// crashed.
	Status string `json:"status"`

	Engine     Engine     `json:"engine"`
	Problem    Problem    `json:"problem"`
	Submission Submission `json:"submission"`
	// Plugins maps each plugin file the problem binds (relative to the
	// problem directory when inside it) to its sha256.
	Plugins map[string]string `json:"plugins"`
	// Shared maps each plugin bound by reference (oci://…) to what the
	// problem's lock file resolved it to: the manifest digest the module
	// was fetched by, the module's sha256 and, when a trust policy asked
	// for signatures, the key that signed it.
	Shared  map[string]SharedPlugin `json:"shared_plugins,omitempty"`
	Runtime Runtime                 `json:"runtime"`
	Flags   Flags                   `json:"flags"`
	Host    Host                    `json:"host"`

	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at,omitzero"`
	// Resumes lists when the run was resumed, oldest first.
	Resumes []time.Time `json:"resumes,omitempty"`
	// RescoredFrom is set on a run made by `wasmeval rescore`: the run
	// whose results it verified again.
	RescoredFrom *RescoredFrom `json:"rescored_from,omitempty"`
	// VerdictCache counts the run's plugin calls answered from the
	// verdict cache and those made; absent when the run had no cache
	// (--no-cache).
	VerdictCache *VerdictCache `json:"verdict_cache,omitempty"`
	// Workers lists, for a distributed run (run --queue, --workers), the
	// workers that sent each group's records, by checkpoint/group/epoch.
	Workers map[string][]string `json:"workers,omitempty"`
}

// VerdictCache counts plugin calls (verifiers, evaluator and test
// functions): Hits were answered from the verdict cache, Misses made.
type VerdictCache struct {
	Hits   int64 `json:"hits"`
	Misses int64 `json:"misses"`
}

// SharedPlugin is a plugin a run fetched by reference.
type SharedPlugin struct {
	Manifest string `json:"manifest"`
	SHA256   string `json:"sha256"`
	Signer   string `json:"signer,omitempty"`
}

// Engine identifies the wasmeval build.
type Engine struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go_version"`
}

// Problem identifies the problem definition.
type Problem struct {
	Name    string `json:"name"`
	Version int    `json:"version"`
	Path    string `json:"path"`
	// ConfigDigest covers every config file read (config.yaml of the
	// problem and its checkpoints).
	ConfigDigest string `json:"config_digest"`
	// Digest covers the config digest plus every file of the checkpoint
	// directories, the static assets and the group files: whatever a case
	// can be built from.
	Digest      string   `json:"digest"`
	Checkpoints []string `json:"checkpoints"`
}

// Submission identifies what was evaluated.
type Submission struct {
	Path   string `json:"path"`
	Digest string `json:"digest"`
	Files  int    `json:"files"`
}

// Runtime describes where cases ran. Runtimes fill it in: Images maps an
// image reference to the digest it resolved to when containers ran.
type Runtime struct {
	Name   string            `json:"name"`
	Images map[string]string `json:"images,omitempty"`
	// Isolation says how the local runtime contained the cases'
	// processes ("namespaces" or "process").
	Isolation string `json:"isolation,omitempty"`
}

// Flags are the run's settings as given.
type Flags struct {
	Args        []string `json:"args,omitempty"`
	Checkpoints []string `json:"checkpoints"`
	Jobs        int      `json:"jobs"`
	PassPolicy  string   `json:"pass_policy"`
	// ErrorPolicy is how errored cases count toward a checkpoint's
	// verdict (--error-policy); empty in runs that predate it, which
	// means the default.
	ErrorPolicy string `json:"error_policy,omitempty"`
	// Epochs is how many times each case ran (--epochs; omitted for 1),
	// and Reducer how a case's epochs reduce (--epoch-reducer).
	Epochs  int    `json:"epochs,omitempty"`
	Reducer string `json:"reducer,omitempty"`
	Command string `json:"command,omitempty"`
	// Results is the directory of recorded agent results the run scored
	// (--results); the submission then names the same directory.
	Results string `json:"results,omitempty"`
	// Tags and Apps are the task-spec filters (--tag, --app).
	Tags []string `json:"tags,omitempty"`
	Apps []string `json:"apps,omitempty"`
	// Seed is --seed, given to submissions as $WASMEVAL_SEED (absent
	// without one).
	Seed *int64 `json:"seed,omitempty"`
	// ResumeArgs are the command lines of the run's resumes, in order
	// (Args stays the first run's).
	ResumeArgs [][]string `json:"resume_args,omitempty"`
	// Where the run found what the problem names, and how it ran its
	// plugins, so `run --resume` goes on the same way without being told
	// again: --plugin-dir and --mount-root (absolute), --env (absolute),
	// --runtime, --plugin-timeout, --plugin-memory (MiB),
	// --plugin-isolation, --no-cache, --offline and --trust-policy
	// (absolute). Absent in runs that predate them.
	PluginDirs      []string `json:"plugin_dirs,omitempty"`
	MountRoots      []string `json:"mount_roots,omitempty"`
	Env             string   `json:"env,omitempty"`
	Runtime         string   `json:"runtime,omitempty"`
	PluginTimeout   string   `json:"plugin_timeout,omitempty"`
	PluginMemoryMB  int      `json:"plugin_memory_mb,omitempty"`
	PluginIsolation string   `json:"plugin_isolation,omitempty"`
	NoCache         bool     `json:"no_cache,omitempty"`
	Offline         bool     `json:"offline,omitempty"`
	TrustPolicy     string   `json:"trust_policy,omitempty"`
}

// Host describes the machine.
type Host struct {
	Hostname string `json:"hostname"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	CPUs     int    `json:"cpus"`
}

// Write stores m as <dir>/manifest.json atomically (see runfile: written
// beside it, synced, renamed into place, with the run directory's file
// mode), so a crash never leaves half a manifest.
func Write(dir string, m *Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest: %w", err)
	}
	if err := runfile.WriteBytes(filepath.Join(dir, FileName), append(data, '\n')); err != nil {
		return fmt.Errorf("write manifest: %w", err)
	}
	return nil
}

// Read loads <dir>/manifest.json.
func Read(dir string) (*Manifest, error) {
	path := filepath.Join(dir, FileName)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read run manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: not a run manifest: %w", path, err)
	}
	if m.Schema != SchemaVersion {
		return nil, fmt.Errorf("%s: schema: expected %d, found %d", path, SchemaVersion, m.Schema)
	}
	return &m, nil
}
