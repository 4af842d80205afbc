package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/report/rundir"
	"github.com/wasmeval/wasmeval/engine/run"
)

// resumeDefaults fills what --resume DIR implies from the run's manifest:
// the problem, the submission, the output directory and the flags the run
// was started with (a flag given now wins, but the digests must match).
func resumeDefaults(cmd *cobra.Command, args []string, f *runFlags) (string, error) {
	m, err := manifest.Read(f.resume)
	if errors.Is(err, fs.ErrNotExist) {
		return "", usageErr(fmt.Errorf("run --resume %s: no %s there: not a run directory, or written by a wasmeval without manifests", f.resume, manifest.FileName))
	}
	if err != nil {
		return "", usageErr(fmt.Errorf("run --resume: %w", err))
	}
	if m.RescoredFrom != nil {
		return "", usageErr(fmt.Errorf("run --resume %s: this directory holds a rescore of %s, not a run of the submission: rescore that run again instead", f.resume, m.RescoredFrom.Path))
	}
	if _, err := os.Stat(filepath.Join(f.resume, journal.FileName)); err != nil {
		return "", usageErr(fmt.Errorf("run --resume %s: no results journal: %w", f.resume, err))
	}
	if f.out != "" && filepath.Clean(f.out) != filepath.Clean(f.resume) {
		return "", usageErr(fmt.Errorf("run --resume %s: --out %s differs; a resumed run continues in its own directory", f.resume, f.out))
	}
	f.out = f.resume
	problemPath := m.Problem.Path
	if len(args) == 1 {
		problemPath = args[0]
	}
	fl := cmd.Flags()
	if f.results == "" && f.submission == "" && m.Flags.Results != "" {
		f.results = m.Flags.Results
	}
	if f.submission == "" && f.results == "" {
		f.submission = m.Submission.Path
	}
	if !fl.Changed("checkpoint") {
		f.checkpoints = m.Flags.Checkpoints
	}
	if !fl.Changed("jobs") && m.Flags.Jobs > 0 {
		f.jobs = m.Flags.Jobs
	}
	if !fl.Changed("pass-policy") && m.Flags.PassPolicy != "" {
		f.policy = m.Flags.PassPolicy
	}
	if !fl.Changed("epochs") && m.Flags.Epochs > 0 {
		f.epochs = m.Flags.Epochs
	}
	if !fl.Changed("epoch-reducer") && m.Flags.Reducer != "" {
		f.reducer = m.Flags.Reducer
	}
	if !fl.Changed("error-policy") && m.Flags.ErrorPolicy != "" {
		f.errorPolicy = m.Flags.ErrorPolicy
	}
	if !fl.Changed("command") {
		f.command = m.Flags.Command
	}
	if !fl.Changed("seed") && m.Flags.Seed != nil {
		f.seed.set(*m.Flags.Seed)
	}
	if !fl.Changed("tag") && !fl.Changed("app") {
		f.tags, f.apps = m.Flags.Tags, m.Flags.Apps
	}
	if err := resumeSetup(fl, m.Flags, f); err != nil {
		return "", usageErr(fmt.Errorf("run --resume %s: the manifest's flags: %w", f.resume, err))
	}
	f.previous = m
	return problemPath, nil
}

// resumeSetup takes from a resumed run's manifest where the run found what
// its problem names and how it ran its plugins, for each flag not given
// again: without them a resume could not find a plugin bound by name, a
// path under a mount root or the environment spec, or would run plugins
// under other limits than the results already in the journal.
func resumeSetup(fl *pflag.FlagSet, was manifest.Flags, f *runFlags) error {
	keep := func(name string) bool { return !fl.Changed(name) }
	takeLocating(fl, was, &f.plugins.dirs, &f.env.mountRoots, &f.refs)
	if keep("env") && was.Env != "" {
		f.env.env = was.Env
	}
	if keep("runtime") && was.Runtime != "" {
		f.env.runtime = was.Runtime
	}
	if keep("plugin-timeout") && was.PluginTimeout != "" {
		d, err := time.ParseDuration(was.PluginTimeout)
		if err != nil {
			return fmt.Errorf("plugin_timeout: %w", err)
		}
		f.plugins.timeout = d
	}
	if keep("plugin-memory") && was.PluginMemoryMB > 0 {
		f.plugins.memoryMB = was.PluginMemoryMB
	}
	if keep("plugin-isolation") && was.PluginIsolation != "" {
		f.plugins.isolation = was.PluginIsolation
	}
	if keep("no-cache") && was.NoCache {
		f.cache.off = true
	}
	return nil
}

// takeLocating takes from a run's manifest where the run found what its
// problem names (--plugin-dir, --mount-root, --offline, --trust-policy),
// for each of those flags not given again: a resume and a rescore need
// them alike.
func takeLocating(fl *pflag.FlagSet, was manifest.Flags, dirs, roots *[]string, refs *refFlags) {
	keep := func(name string) bool { return !fl.Changed(name) }
	if keep("plugin-dir") && len(was.PluginDirs) > 0 {
		*dirs = was.PluginDirs
	}
	if keep("mount-root") && len(was.MountRoots) > 0 {
		*roots = was.MountRoots
	}
	if keep("offline") && was.Offline {
		refs.offline = true
	}
	if keep("trust-policy") && was.TrustPolicy != "" {
		refs.trustPolicy = was.TrustPolicy
	}
}

// locatingFlags are the manifest's record of what takeLocating takes, and
// of --no-cache, paths made absolute so a resume or a rescore from
// another directory finds them.
func locatingFlags(dirs, roots []string, refs refFlags, noCache bool) manifest.Flags {
	return manifest.Flags{PluginDirs: absPaths(dirs), MountRoots: absPaths(roots), Offline: refs.offline,
		TrustPolicy: absPath(refs.trustPolicy), NoCache: noCache}
}

// setupFlags are the manifest's record of resumeSetup's flags.
func setupFlags(f runFlags) manifest.Flags {
	fl := locatingFlags(f.plugins.dirs, f.env.mountRoots, f.refs, f.cache.off)
	fl.Env, fl.Runtime = absPath(f.env.env), f.env.runtime
	fl.PluginTimeout, fl.PluginMemoryMB, fl.PluginIsolation = f.plugins.timeout.String(), f.plugins.memoryMB, f.plugins.isolation
	return fl
}

// absPath is p made absolute (p itself if it cannot be: it is only a
// record, and the run already used p as it is).
func absPath(p string) string {
	if p == "" {
		return p
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func absPaths(ps []string) []string {
	var out []string
	for _, p := range ps {
		out = append(out, absPath(p))
	}
	return out
}

// givenArgs is the command line as given (flags explicitly set), for the
// manifest.
func givenArgs(cmd *cobra.Command, problemPath string) []string {
	args := []string{cmd.Name(), problemPath}
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+fl.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+fl.Name+"="+fl.Value.String())
	})
	return args
}

// startManifest writes the run's manifest before any case runs, so even a
// crashed run says what produced it. A resumed run keeps its id and start
// time, and is refused when what its results depend on has changed.
func startManifest(p *problem.Problem, f runFlags, env *environment, out string, args []string, checked []run.GroupCheck, warn io.Writer) (*manifest.Manifest, *run.Finished, error) {
	var casePlugins []*problem.PluginRef
	for _, gc := range checked {
		casePlugins = append(casePlugins, gc.Plugins...)
	}
	flags := setupFlags(f)
	flags.Args, flags.Checkpoints, flags.Jobs, flags.PassPolicy, flags.ErrorPolicy = args, f.checkpoints, f.jobs, f.policy, f.errorPolicy
	flags.Command, flags.Results, flags.Tags, flags.Apps, flags.Seed = f.command, f.results, f.tags, f.apps, f.seed.value()
	flags.Epochs, flags.Reducer = epochsFlag(f.epochs), reducerFlag(f.epochs, f.reducer)
	m, err := manifest.New(manifest.Input{Problem: p, Submission: f.submission, EngineVersion: version, EngineCommit: commit,
		Flags: flags, RuntimeName: env.rt.Name(), Images: env.images, Isolation: env.isolation, Start: time.Now(), CasePlugins: casePlugins})
	if err != nil {
		return nil, nil, usageErr(err)
	}
	var finished *run.Finished
	if prev := f.previous; prev != nil {
		if changes := manifest.Changes(prev, m); len(changes) > 0 {
			return nil, nil, usageErr(fmt.Errorf("run --resume %s: refusing to resume: results already in the journal would not be comparable with new ones:\n  %s\nstart a new run instead",
				out, strings.Join(changes, "\n  ")))
		}
		var corrupt *journal.Corruption
		finished, corrupt, err = run.LoadFinishedSalvaging(filepath.Join(out, journal.FileName))
		if err != nil {
			return nil, nil, usageErr(fmt.Errorf("run --resume: %w", err))
		}
		if corrupt != nil {
			fmt.Fprintf(warn, "warning: run --resume: %v\nthey are set aside in %s, and their cases run again\n",
				corrupt, filepath.Join(out, journal.SetAsideName))
		}
		m.RunID, m.StartedAt = prev.RunID, prev.StartedAt
		// The first run's command line stays; each resume's is added.
		m.Flags.Args, m.Flags.ResumeArgs = prev.Flags.Args, append(prev.Flags.ResumeArgs, args)
		m.VerdictCache = prev.VerdictCache
		m.Resumes = append(prev.Resumes, time.Now().UTC())
	}
	if err := manifest.Write(out, m); err != nil {
		return nil, nil, err
	}
	return m, finished, nil
}

// finishRun records the run's end in the manifest and writes the reports
// derived from the journal (Parquet, HTML) — also for an interrupted run,
// covering what finished.
func finishRun(m *manifest.Manifest, out string, res *run.Outcome) (string, error) {
	m.EndedAt = time.Now().UTC()
	m.Status = manifest.StatusComplete
	if res != nil {
		recordCache(m, res.VerdictCache)
	}
	if res == nil || res.Interrupted {
		m.Status = manifest.StatusInterrupted
	}
	if err := manifest.Write(out, m); err != nil {
		return "", err
	}
	rd, err := rundir.Open(out, "", "")
	if err != nil {
		return "", err
	}
	if err := rd.WriteFiles(); err != nil {
		return "", err
	}
	return filepath.Join(out, "report.html"), nil
}

// failRun records in the manifest that the run stopped on its own error.
func failRun(m *manifest.Manifest, out string) {
	m.EndedAt = time.Now().UTC()
	m.Status = manifest.StatusFailed
	_ = manifest.Write(out, m) // the run's own error is the one to report
}

// checkFreshOut refuses to start a new run in a directory that holds an
// earlier run's results: appending would mix two runs in one journal, and
// replacing would lose results.
func checkFreshOut(out string, f runFlags) error {
	if f.resume != "" {
		return nil
	}
	st, err := os.Stat(filepath.Join(out, journal.FileName))
	if err != nil || st.Size() == 0 {
		return nil
	}
	if pid, active, _ := journal.Holder(out); active {
		return usageErr(fmt.Errorf("run: %w", &journal.LockedError{Dir: out, PID: pid}))
	}
	return usageErr(fmt.Errorf("run: %s already holds the results of a run; continue it with --resume %s, or choose another --out", out, out))
}

// epochsFlag and reducerFlag are what the manifest records of --epochs
// and --epoch-reducer: nothing for a run of one epoch.
func epochsFlag(n int) int {
	if n <= 1 {
		return 0
	}
	return n
}

func reducerFlag(epochs int, r string) string {
	if epochs <= 1 {
		return ""
	}
	return r
}
