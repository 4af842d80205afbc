package manifest

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/wasmeval/wasmeval/engine/problem"
)

// Input is what a manifest is built from.
type Input struct {
	Problem    *problem.Problem
	Submission string
	// EngineVersion and EngineCommit are the binary's version and commit
	// as set at build time; the commit Go stamps into binaries built in a
	// git checkout is used when EngineCommit is empty.
	EngineVersion, EngineCommit string
	Flags                       Flags
	RuntimeName                 string
	// Images maps each container image reference to its digest.
	Images map[string]string
	// Isolation is how the local runtime contained processes.
	Isolation string
	Start     time.Time
	// CasePlugins are the plugins the cases bind themselves, in their case
	// files, as validation resolved them: recorded with the problem's.
	CasePlugins []*problem.PluginRef
}

// New builds a manifest for a run that starts now: it hashes the problem
// and the submission, so it reads every file of both once.
func New(in Input) (*Manifest, error) {
	p := in.Problem
	pd, err := ProblemDigest(p)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(in.Submission); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("submission %s: %w", in.Submission, err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("submission %s is not a directory", in.Submission)
	}
	sd, files, err := TreeDigest(in.Submission)
	if err != nil {
		return nil, fmt.Errorf("submission: %w", err)
	}
	host, _ := os.Hostname()
	m := &Manifest{
		Schema: SchemaVersion, RunID: NewRunID(in.Start), Status: StatusRunning,
		Engine: EngineInfo(in.EngineVersion, in.EngineCommit),
		Problem: Problem{Name: p.Name, Version: p.Version, Path: cmp.Or(p.Path, p.Dir), ConfigDigest: p.Digest, Digest: pd,
			Checkpoints: checkpointNames(p)},
		Submission: Submission{Path: in.Submission, Digest: sd, Files: files},
		Plugins:    PluginDigests(p, in.CasePlugins...),
		Runtime:    Runtime{Name: in.RuntimeName, Images: in.Images, Isolation: in.Isolation},
		Flags:      in.Flags,
		Host:       Host{Hostname: host, OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU()},
		StartedAt:  in.Start.UTC(),
	}
	if abs, err := filepath.Abs(in.Submission); err == nil {
		m.Submission.Path = abs
	}
	if abs, err := filepath.Abs(m.Problem.Path); err == nil {
		m.Problem.Path = abs
	}
	return m, nil
}

// NewRunID is a sortable, unique run id: the start time plus random bits.
func NewRunID(t time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return t.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// EngineInfo reads the commit the binary was built from (Go stamps it
// into binaries built inside a git checkout).
func EngineInfo(version, commit string) Engine {
	e := Engine{Version: version, Commit: commit, GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if e.Commit == "" {
					e.Commit = s.Value
				}
			case "vcs.modified":
				e.Modified = s.Value == "true"
			}
		}
		if e.Version == "" {
			e.Version = bi.Main.Version
		}
	}
	return e
}

func checkpointNames(p *problem.Problem) []string {
	var out []string
	for _, c := range p.Checkpoints {
		out = append(out, c.Name)
	}
	return out
}

// ProblemDigest covers what cases are built from: the config digest, every
// checkpoint directory, the static assets and the group files. Plugins are
// pinned (and recorded) separately; submissions kept next to the problem
// are not part of it.
func ProblemDigest(p *problem.Problem) (string, error) {
	var paths []string
	for _, c := range p.Checkpoints {
		if c.Dir != "" {
			paths = append(paths, c.Dir)
		}
		for _, g := range c.Groups {
			for _, f := range g.GroupFiles {
				// Files inside the checkpoint directory are hashed with it.
				if rel, err := filepath.Rel(c.Dir, f); c.Dir == "" || err != nil || !filepath.IsLocal(rel) {
					paths = append(paths, f)
				}
			}
		}
	}
	for _, a := range p.StaticAssets {
		paths = append(paths, a.Path)
	}
	d, err := PathsDigest(paths, p.Digest)
	if err != nil {
		return "", fmt.Errorf("problem %s: %w", p.Name, err)
	}
	return d, nil
}

// PluginDigests lists every plugin the problem binds, and those in more,
// with its pinned (and, at load, verified) sha256, by file, or by
// reference for plugins bound by one.
func PluginDigests(p *problem.Problem, more ...*problem.PluginRef) map[string]string {
	out := map[string]string{}
	add := func(ref *problem.PluginRef) {
		name := ref.Path
		if rel, err := filepath.Rel(p.Dir, ref.Path); err == nil && !strings.HasPrefix(rel, "..") {
			name = filepath.ToSlash(rel)
		}
		if ref.Ref != "" {
			// The cached file's path differs from machine to machine;
			// the reference and its pin do not.
			name = ref.Ref
		}
		out[name] = strings.ToLower(ref.SHA256)
	}
	p.PluginRefs(add)
	for _, ref := range more {
		add(ref)
	}
	return out
}
