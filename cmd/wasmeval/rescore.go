package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/report"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/run"
	"github.com/wasmeval/wasmeval/plugins/share"
)

type rescoreFlags struct {
	verifier   string
	out        string
	problem    string
	jobs       int
	policy     string
	errors     string
	progress   string
	mountRoots []string
	failures   int
	plugins    pluginFlags
	cache      cacheFlags
	refs       refFlags
}

func newRescoreCmd() *cobra.Command {
	var f rescoreFlags
	cmd := &cobra.Command{
		Use:   "rescore RUN_DIR [--verifier FILE|REF] [--out NEW_RUN_DIR]",
		Short: "Verify a run's recorded results again, without running the submission",
		Long: `Verify again every case recorded in the journal of the run in RUN_DIR
(finished, interrupted or salvaged) without running the submission: each
case's recorded status, output, stderr, files and headers are checked with
the problem's checks and plugins as they are now, or, with --verifier FILE
or --verifier oci://HOST/REPO:TAG, with that verifier plugin in place of
each group's own (a reference is fetched into the plugin cache and checked
against the trust policy, as a problem's own binding would be).

The new verdicts go to a new run directory (default RUN_DIR-rescore-N; an
existing, non-empty directory is refused), with a manifest that links
RUN_DIR, a journal, the checkpoint summaries, results.parquet and
report.html. Cases RUN_DIR has no result for are not run: they are
reported as missing, and their checkpoint as incomplete.
` + "`wasmeval report NEW_RUN_DIR --compare RUN_DIR`" + ` lists the cases whose verdict changed.

Exit codes: 0 every checkpoint passes its policy, 1 one does not, 2 usage
or configuration error, 130 interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRescore(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.verifier, "verifier", "", "verifier plugin used in place of each group's verifier plugin: a file (.wasm) or a registry reference (oci://HOST/REPO:TAG, checked against the trust policy)")
	fl.StringVarP(&f.out, "out", "o", "", "new run directory (default: RUN_DIR-rescore-N)")
	fl.StringVar(&f.problem, "problem", "", "problem directory (default: the one RUN_DIR's manifest records)")
	fl.IntVarP(&f.jobs, "jobs", "j", 1, "groups rescored concurrently")
	fl.StringVar(&f.policy, "pass-policy", "", "pass policy (default: the run's own)")
	fl.StringVar(&f.errors, "error-policy", "", "how errored cases count: inconclusive, fail, ignore (default: the run's own)")
	fl.StringVar(&f.progress, "progress", "auto", "progress display: auto (bars on a terminal, lines otherwise), bars, lines, none")
	fl.IntVar(&f.failures, "failures", report.DefaultConsoleFailures, failuresUsage)
	fl.StringArrayVar(&f.mountRoots, "mount-root", nil, "host directory outside the problem that its paths may name (repeatable)")
	f.plugins.register(fl)
	f.cache.register(fl)
	f.refs.register(fl)
	return cmd
}

func runRescore(cmd *cobra.Command, from string, f rescoreFlags) error {
	if f.jobs < 1 {
		return usageErr(fmt.Errorf("rescore: --jobs must be at least 1, got %d", f.jobs))
	}
	if f.failures < 0 {
		return usageErr(fmt.Errorf("rescore: --failures must be 0 (no list) or more, got %d", f.failures))
	}
	if _, err := os.Stat(filepath.Join(from, journal.FileName)); err != nil {
		return usageErr(fmt.Errorf("rescore: %s is not a run directory: no %s there (%v)", from, journal.FileName, pathErr(err)))
	}
	// A run still being written would be rescored half-way.
	if pid, active, _ := journal.Holder(from); active {
		who := "another process"
		if pid > 0 {
			who = "pid " + strconv.Itoa(pid)
		}
		return usageErr(fmt.Errorf("rescore: the run in %s is in progress (%s is writing it): rescore it once it has ended", from, who))
	}
	orig, err := manifest.Read(from)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if f.problem == "" {
			return usageErr(fmt.Errorf("rescore: %s has no %s (written by a wasmeval without manifests): give the problem with --problem DIR", from, manifest.FileName))
		}
		orig = nil
	case err != nil:
		return usageErr(fmt.Errorf("rescore: %w", err))
	}
	if orig != nil {
		takeLocating(cmd.Flags(), orig.Flags, &f.plugins.dirs, &f.mountRoots, &f.refs)
	}
	if orig != nil && orig.RescoredFrom == nil && orig.Status == manifest.StatusRunning {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: the run in %s stopped without ending (it was killed or crashed): its finished cases are rescored\n", from)
	}
	problemPath := f.problem
	if problemPath == "" {
		problemPath = orig.Problem.Path
		where := filepath.Join(from, manifest.FileName)
		if problemPath == "" {
			return usageErr(fmt.Errorf("rescore: %s: problem.path is empty: give the problem with --problem DIR", where))
		}
		if st, err := os.Stat(problemPath); err != nil || !st.IsDir() {
			why := "not a directory"
			if err != nil {
				why = pathErr(err).Error()
			}
			return usageErr(fmt.Errorf("rescore: %s: problem.path %s: %s (has the problem moved? give it with --problem DIR)", where, problemPath, why))
		}
	}
	refs := f.refs.runRefs(cmd.Context(), problemPath)
	p, err := run.LoadProblemWith(problemPath, run.LoadOptions{PluginDirs: f.plugins.dirs, MountRoots: f.mountRoots, Refs: refs})
	if err != nil {
		return usageErr(fmt.Errorf("rescore: invalid problem %s:\n%w", problemPath, err))
	}
	if orig != nil && orig.Problem.Name != "" && orig.Problem.Name != p.Name {
		return usageErr(fmt.Errorf("rescore: %s is a run of problem %q, but %s holds problem %q", from, orig.Problem.Name, problemPath, p.Name))
	}
	var checkpoints []string
	policyName := f.policy
	if orig != nil {
		checkpoints = orig.Flags.Checkpoints
		if policyName == "" {
			policyName = orig.Flags.PassPolicy
		}
	}
	if policyName == "" {
		policyName = string(result.DefaultPolicy)
	}
	errorName := f.errors
	if errorName == "" && orig != nil {
		errorName = orig.Flags.ErrorPolicy
	}
	if errorName == "" {
		errorName = string(result.DefaultErrorPolicy)
	}
	errPolicy, err := result.ParseErrorPolicy(errorName)
	if err != nil {
		if f.errors == "" {
			return usageErr(fmt.Errorf("rescore: %s: flags.error_policy: %w", filepath.Join(from, manifest.FileName), err))
		}
		return usageErr(fmt.Errorf("rescore: --error-policy: %w", err))
	}
	f.errors = string(errPolicy) // as the new run's manifest records it
	// The rescored run's epochs are rescored each, and reduced alike.
	var epochs int
	var reducer result.Reducer
	if orig != nil && orig.Flags.Epochs > 1 {
		epochs = orig.Flags.Epochs
		if reducer, err = result.ParseReducer(orig.Flags.Reducer, epochs); orig.Flags.Reducer != "" && err != nil {
			return usageErr(fmt.Errorf("rescore: %s: flags.reducer: %w", filepath.Join(from, manifest.FileName), err))
		}
	}
	policy, err := result.ParsePolicy(policyName)
	if err != nil {
		if f.policy == "" {
			return usageErr(fmt.Errorf("rescore: %s: flags.pass_policy: %w", filepath.Join(from, manifest.FileName), err))
		}
		return usageErr(fmt.Errorf("rescore: --pass-policy: %w", err))
	}
	if _, err := run.SelectCheckpoints(p, checkpoints); err != nil {
		return usageErr(fmt.Errorf("rescore: %s: flags.checkpoints: %w", filepath.Join(from, manifest.FileName), err))
	}
	var verifier *manifest.PluginFile
	var verifierPlugin *problem.PluginRef
	var sharedVerifier *manifest.SharedPlugin
	if f.verifier != "" {
		if verifierPlugin, verifier, sharedVerifier, err = verifierRef(cmd.Context(), f.verifier, &f.refs, problemDir(problemPath)); err != nil {
			return usageErr(fmt.Errorf("rescore: %w", err))
		}
	}

	ctx := cmd.Context()
	logw := &switchWriter{w: cmd.ErrOrStderr()}
	plugins, err := f.plugins.newHost(logw)
	if err != nil {
		return err
	}
	defer plugins.Close()

	// The problem's plugins and the run's journal are checked before
	// anything is written.
	rs, err := run.PrepareRescore(ctx, run.RescoreOptions{
		Problem: p, From: from, Checkpoints: checkpoints,
		Jobs: f.jobs, Policy: policy, ErrorPolicy: errPolicy, Epochs: epochs, Reducer: reducer, Loader: run.BuiltinLoader, Plugins: plugins, Verifier: verifierPlugin,
		VerdictCache: f.cache.open(cmd.ErrOrStderr()),
	})
	if err != nil {
		var corrupt *journal.Corruption
		if errors.As(err, &corrupt) {
			return usageErr(fmt.Errorf("rescore: %w\n`wasmeval report --salvage %s` sets these lines aside (in %s); rescore the run after that", err, from, journal.SetAsideName))
		}
		return usageErr(fmt.Errorf("rescore: %w", err))
	}

	out, err := claimOut(from, f.out)
	if err != nil {
		return usageErr(fmt.Errorf("rescore: %w", err))
	}
	lock, err := journal.LockDir(out)
	if err != nil {
		return usageErr(fmt.Errorf("rescore: %w", err))
	}
	defer lock.Unlock()
	// Checked again under the lock: another rescore into the same
	// directory may have started writing a moment earlier.
	if err := emptyRunDir(out); err != nil {
		return usageErr(fmt.Errorf("rescore: %w", err))
	}
	runLog, err := os.OpenFile(filepath.Join(out, "run.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open run log: %w", err)
	}
	defer runLog.Close()
	logw.set(runLog)

	man, err := rescoreManifest(orig, from, rs.Problem(), f, verifier, policy, checkpoints, givenArgs(cmd, from))
	if err == nil {
		man.Shared = refs.Shared()
		if sharedVerifier != nil {
			if man.Shared == nil {
				man.Shared = map[string]manifest.SharedPlugin{}
			}
			man.Shared[verifierPlugin.Ref] = *sharedVerifier
		}
	}
	if err != nil {
		return usageErr(fmt.Errorf("rescore: %w", err))
	}
	if err := manifest.Write(out, man); err != nil {
		return err
	}
	prog := newProgress(f.progress, cmd.ErrOrStderr())
	res, err := rs.Run(ctx, run.RescoreTarget{OutDir: out, RunID: man.RunID, Lock: lock, Progress: prog})
	prog.Stop()
	if err != nil {
		failRun(man, out)
		var je *run.JournalError
		if errors.As(err, &je) {
			return usageErr(fmt.Errorf("rescore: %w\nonce the journal can be written again (free space), rescore into a new directory", err))
		}
		return usageErr(fmt.Errorf("rescore: %w", err))
	}
	htmlPath, err := finishRun(man, out, &res.Outcome)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	fmt.Fprintln(w)
	report.PrintTable(w, res.Summaries)
	if err := report.PrintFailures(w, out, f.failures); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: list the failures: %v\n", err)
	}
	printRescore(w, cmd.ErrOrStderr(), from, out, res)
	printCache(w, res.VerdictCache)
	fmt.Fprintf(w, "\nresults: %s\nreport:  %s\ncompare: wasmeval report %s --compare %s\n", out, htmlPath, out, from)
	if res.Interrupted {
		return &exitError{code: exitInterrupted, err: errors.New("interrupted: rescored cases are in " + res.JournalPath)}
	}
	return verdictExit(res.Verdict, "a plugin fault among them is the verifier's to fix before rescoring again; other errors are the rescored run's, which `wasmeval run --resume "+from+" --retry-errors N` runs again")
}

// printRescore says what the rescore changed, and on stderr what it could
// not rescore.
func printRescore(w, warn io.Writer, from, out string, res *run.RescoreOutcome) {
	fmt.Fprintf(w, "\nrescored %d case(s) of %s: %d verdict(s) changed, %d score(s) changed\n", res.Rescored, from, res.VerdictsChanged, res.ScoresChanged)
	if res.NotRun > 0 {
		fmt.Fprintf(warn, "warning: %d case(s) of the problem have no result in %s (not run there): they are not in %s either, and their checkpoints are incomplete\n", res.NotRun, from, out)
	}
	if res.Unloadable > 0 {
		fmt.Fprintf(warn, "warning: %d recorded case(s) cannot be loaded from the problem now: they fail, with the loader's message\n", res.Unloadable)
	}
	if res.InputsDiffer > 0 {
		fmt.Fprintf(warn, "warning: %d case(s) now give the submission other arguments, stdin, environment or input files than when %s ran: their recorded results answer the old inputs\n", res.InputsDiffer, from)
	}
	if res.LeftOut > 0 {
		more := ""
		if res.LeftOut > len(res.LeftOutKeys) {
			more = ", …"
		}
		fmt.Fprintf(warn, "warning: %d record(s) of %s were not rescored: no case of the problem (or of its selected checkpoints) claims them, or their group could not be loaded: %s%s\n",
			res.LeftOut, filepath.Join(from, journal.FileName), strings.Join(res.LeftOutKeys, ", "), more)
	}
	if note := report.DuplicateNote(res.Duplicates); note != "" {
		fmt.Fprintf(warn, "note: %s: %s\n", filepath.Join(from, journal.FileName), note)
	}
}

// verifierRef resolves --verifier: a plugin file, pinned by the sha256 it
// has now, or a registry reference (oci://…), fetched into the plugin
// cache (found there alone with --offline), pinned by the digest of the
// module its manifest names and checked against the trust policy of the
// problem in dir.
func verifierRef(ctx context.Context, given string, rf *refFlags, dir string) (*problem.PluginRef, *manifest.PluginFile, *manifest.SharedPlugin, error) {
	if strings.HasPrefix(given, share.Scheme) {
		return verifierByRef(ctx, given, rf, dir)
	}
	abs, err := filepath.Abs(given)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--verifier %s: %w", given, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		if ref, perr := share.ParseRef(given); perr == nil && strings.ContainsAny(ref.Host, ".:") {
			// It reads as a reference written without its scheme.
			return nil, nil, nil, fmt.Errorf("--verifier %s: %v: for a registry reference write %s", given, pathErr(err), ref)
		}
		return nil, nil, nil, fmt.Errorf("--verifier %s: %v: give the path of a verifier plugin file (.wasm) or a registry reference (oci://HOST/REPO:TAG)", given, pathErr(err))
	}
	if !st.Mode().IsRegular() {
		return nil, nil, nil, fmt.Errorf("--verifier %s: not a file: give the path of a verifier plugin file (.wasm)", given)
	}
	file, err := os.Open(abs)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--verifier %s: %v", given, pathErr(err))
	}
	defer file.Close()
	h := sha256.New()
	if _, err := io.Copy(h, file); err != nil {
		return nil, nil, nil, fmt.Errorf("--verifier %s: %v", given, pathErr(err))
	}
	sum := hex.EncodeToString(h.Sum(nil))
	ref := &problem.PluginRef{Path: abs, SHA256: sum}
	return ref, &manifest.PluginFile{Path: abs, SHA256: sum}, nil, nil
}

// verifierByRef fetches --verifier oci://… into the plugin cache and
// checks it against the trust policy (--trust-policy, else the one next
// to the problem), as a problem binding it would be checked.
func verifierByRef(ctx context.Context, given string, rf *refFlags, dir string) (*problem.PluginRef, *manifest.PluginFile, *manifest.SharedPlugin, error) {
	ref, err := share.ParseRef(given)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--verifier: %w", err)
	}
	cache, err := rf.share.cache()
	if err != nil {
		return nil, nil, nil, err
	}
	policy, err := share.FindPolicy(rf.trustPolicy, dir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--verifier %s: %w", ref, err)
	}
	var got share.Resolved
	var signatures share.SignatureSource = cache
	if rf.offline {
		got, err = cache.Lookup(ctx, ref)
	} else {
		var remote *share.Remote
		if remote, err = rf.share.remote(); err != nil {
			return nil, nil, nil, err
		}
		got, err = share.Pull(ctx, remote, cache, ref)
		signatures = remote
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--verifier: %w", err)
	}
	shared := &manifest.SharedPlugin{Manifest: got.ManifestDigest, SHA256: got.WasmDigest}
	if policy != nil {
		signer, err := policy.Check(ctx, signatures, ref, got.ManifestDigest)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("--verifier: %w", err)
		}
		shared.Signer = signer.String()
	}
	// Pinned by reference, as a problem binding it would be: manifests
	// name the reference, not the cache's file.
	return &problem.PluginRef{Path: got.Path, Ref: ref.String(), SHA256: got.WasmDigest},
		&manifest.PluginFile{Path: ref.AtDigest(got.ManifestDigest).String(), SHA256: got.WasmDigest}, shared, nil
}

// pathErr drops the path an *fs.PathError repeats.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// claimOut creates the new run directory: out when given (it may exist
// if it is empty), else the first RUN_DIR-rescore-N that does not exist.
// Creating it is what claims it, so two rescores never pick the same one.
func claimOut(from, out string) (string, error) {
	if out != "" {
		if abs, err := filepath.Abs(out); err == nil {
			if absFrom, err := filepath.Abs(from); err == nil && abs == absFrom {
				return "", fmt.Errorf("--out %s is the run being rescored: a rescore writes a new run directory", out)
			}
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Clean(out)), 0o755); err != nil {
			return "", fmt.Errorf("create output directory: %w", err)
		}
		if err := os.Mkdir(out, 0o755); err != nil {
			if !errors.Is(err, fs.ErrExist) {
				return "", fmt.Errorf("create output directory: %w", err)
			}
			if err := emptyRunDir(out); err != nil {
				return "", err
			}
		}
		return out, nil
	}
	base := filepath.Clean(from) + "-rescore-"
	for n := 1; n < 10000; n++ {
		dir := base + strconv.Itoa(n)
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("create output directory %s: %w", dir, err)
		}
	}
	return "", fmt.Errorf("no free name %sN: choose one with --out", base)
}

// emptyRunDir refuses a directory that holds anything but a run
// directory's lock: a rescore never overwrites.
func emptyRunDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	for _, e := range entries {
		if e.Name() != journal.LockName {
			return fmt.Errorf("%s is not empty (it holds %s): a rescore does not overwrite; choose another --out", dir, e.Name())
		}
	}
	return nil
}

// rescoreManifest is the new run's manifest: the problem, plugins, engine
// and host are today's; the submission, runtime and command are those of
// the rescored run, whose outputs the new run holds, and rescored_from
// links it.
func rescoreManifest(orig *manifest.Manifest, from string, p *problem.Problem, f rescoreFlags, verifier *manifest.PluginFile,
	policy result.Policy, checkpoints []string, args []string) (*manifest.Manifest, error) {
	pd, err := manifest.ProblemDigest(p)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	hostname, _ := os.Hostname()
	m := &manifest.Manifest{
		Schema: manifest.SchemaVersion, RunID: manifest.NewRunID(now), Status: manifest.StatusRunning,
		Engine: manifest.EngineInfo(version, commit),
		Problem: manifest.Problem{Name: p.Name, Version: p.Version, Path: p.Dir, ConfigDigest: p.Digest, Digest: pd,
			Checkpoints: problemCheckpoints(p)},
		Plugins:   manifest.PluginDigests(p),
		Flags:     locatingFlags(f.plugins.dirs, f.mountRoots, f.refs, f.cache.off),
		Host:      manifest.Host{Hostname: hostname, OS: goruntime.GOOS, Arch: goruntime.GOARCH, CPUs: goruntime.NumCPU()},
		StartedAt: now.UTC(),
	}
	m.Flags.Args, m.Flags.Checkpoints, m.Flags.Jobs, m.Flags.PassPolicy, m.Flags.ErrorPolicy = args, checkpoints, f.jobs, string(policy), f.errors
	if abs, err := filepath.Abs(p.Dir); err == nil {
		m.Problem.Path = abs
	}
	link := &manifest.RescoredFrom{Path: from, Verifier: verifier}
	if abs, err := filepath.Abs(from); err == nil {
		link.Path = abs
	}
	if orig != nil {
		m.Submission, m.Runtime = orig.Submission, orig.Runtime
		m.Flags.Command = orig.Flags.Command
		m.Flags.Epochs, m.Flags.Reducer = orig.Flags.Epochs, orig.Flags.Reducer
		link.RunID, link.Status = orig.RunID, orig.Status
	}
	m.RescoredFrom = link
	return m, nil
}

func problemCheckpoints(p *problem.Problem) []string {
	var out []string
	for _, c := range p.Checkpoints {
		out = append(out, c.Name)
	}
	return out
}
