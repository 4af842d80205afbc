package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wasmeval/wasmeval/engine/manifest"
	"github.com/wasmeval/wasmeval/engine/run"
	"github.com/wasmeval/wasmeval/plugins/share"
)

// refFlags say how the commands that load a problem (run, validate,
// rescore, plugin lock) find the plugins it binds by reference.
type refFlags struct {
	share       shareFlags
	offline     bool
	trustPolicy string
}

func (f *refFlags) register(fl *pflag.FlagSet) {
	fl.BoolVar(&f.offline, "offline", false, "find plugins bound by reference in the lock file and the plugin cache only; never reach a registry")
	f.registerTrust(fl)
}

// registerTrust registers the flags plugin lock shares with runs.
func (f *refFlags) registerTrust(fl *pflag.FlagSet) {
	fl.StringVar(&f.trustPolicy, "trust-policy", "", "trust policy file: which keys must sign plugins of which repositories (default: "+share.DefaultPolicyName+" next to the problem, when present)")
	fl.StringVar(&f.share.registryCA, "registry-ca", "", "PEM file of a CA to trust for registries (a self-signed registry); the system's CAs stay trusted")
	fl.BoolVar(&f.share.plainHTTP, "plain-http", false, "talk plain HTTP to registries (without it, only a loopback registry that answers HTTP gets HTTP)")
}

// problemDir is the directory a problem path names: the lock file and
// the trust policy sit there.
func problemDir(path string) string {
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return filepath.Dir(path)
	}
	return path
}

// lockedRefs resolves a run's references through the problem's lock file
// and the plugin cache, fetching by the locked manifest digest what the
// cache lacks (unless offline), and checks each plugin against the trust
// policy. Nothing is opened until a binding names a reference, so a
// problem without any never touches the cache or the network.
type lockedRefs struct {
	ctx     context.Context
	flags   *refFlags
	problem string

	once     sync.Once
	err      error
	lockPath string
	noLock   bool // there is no lock file
	lock     *share.Lock
	cache    *share.Cache
	policy   *share.Policy
	remote   *share.Remote // nil when offline
	res      *share.Resolver

	mu     sync.Mutex
	used   map[string]share.LockEntry
	listed bool // alsoMissing has listed what the cache lacks
}

func (f *refFlags) runRefs(ctx context.Context, problemPath string) *lockedRefs {
	return &lockedRefs{ctx: ctx, flags: f, problem: problemPath, used: map[string]share.LockEntry{}}
}

func (r *lockedRefs) open() error {
	r.once.Do(func() {
		dir := problemDir(r.problem)
		r.lockPath = filepath.Join(dir, share.LockFileName)
		lock, err := share.ReadLock(r.lockPath)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			r.noLock = true
			lock = &share.Lock{Version: share.LockVersion}
		case err != nil:
			r.err = err
			return
		}
		r.lock = lock
		if r.cache, r.err = share.OpenCache(r.flags.share.cacheDir); r.err != nil {
			return
		}
		if r.policy, r.err = share.FindPolicy(r.flags.trustPolicy, dir); r.err != nil {
			return
		}
		if !r.flags.offline {
			if r.remote, r.err = r.flags.share.remote(); r.err != nil {
				return
			}
		}
		r.res, r.err = share.NewResolver(share.ResolverOptions{Context: r.ctx, Lock: lock, LockPath: r.lockPath,
			Problem: r.problem, Cache: r.cache, Remote: r.remote})
	})
	return r.err
}

// Resolve implements problem.RefResolver.
func (r *lockedRefs) Resolve(ref, sha256 string) (string, error) {
	if err := r.open(); err != nil {
		return "", err
	}
	if r.noLock {
		return "", fmt.Errorf("%s: there is no %s, and runs find plugins bound by reference only through it; run `wasmeval plugin lock %s`", ref, r.lockPath, r.problem)
	}
	path, err := r.res.Resolve(ref, sha256)
	if err != nil {
		return "", r.alsoMissing(err)
	}
	parsed, err := share.ParseRef(ref)
	if err != nil {
		return "", err
	}
	e, ok := r.lock.Find(parsed.String())
	if !ok {
		return "", fmt.Errorf("%s: not in %s", parsed, r.lockPath)
	}
	entry := *e
	if r.policy != nil {
		// The signatures were fetched into the cache with the module,
		// so this holds offline too; online, a signature missing from
		// the cache is fetched from the registry.
		signer, err := r.policy.Check(r.ctx, share.CachedSignatures{Cache: r.cache, Remote: r.remote}, parsed, e.Manifest)
		if err != nil {
			return "", err
		}
		entry.Signer = signer.String()
	}
	r.mu.Lock()
	r.used[entry.Ref] = entry
	r.mu.Unlock()
	return path, nil
}

// alsoMissing adds to the first failure of an offline run everything
// else the lock names that the cache lacks. Bindings in case files are
// resolved only when their cases load, after the problem's own have
// failed: without the list a user would learn of one reference per try.
func (r *lockedRefs) alsoMissing(err error) error {
	if r.remote != nil {
		return err
	}
	r.mu.Lock()
	first := !r.listed
	r.listed = true
	r.mu.Unlock()
	if !first {
		return err
	}
	missing := r.cache.Missing(r.ctx, r.lock)
	if len(missing) < 2 {
		return err
	}
	refs := make([]string, 0, len(missing))
	for _, e := range missing {
		if p, perr := share.ParseRef(e.Ref); perr == nil {
			refs = append(refs, p.AtDigest(e.Manifest).String())
		}
	}
	return fmt.Errorf("%w (the plugin cache lacks %d of the artifacts %s names: pull each of %s, or import an export of the problem's plugins)",
		err, len(missing), r.lockPath, strings.Join(refs, ", "))
}

// Shared lists the plugins resolved by reference, for the run manifest.
func (r *lockedRefs) Shared() map[string]manifest.SharedPlugin {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.used) == 0 {
		return nil
	}
	out := make(map[string]manifest.SharedPlugin, len(r.used))
	for ref, e := range r.used {
		out[ref] = manifest.SharedPlugin{Manifest: e.Manifest, SHA256: e.SHA256, Signer: e.Signer}
	}
	return out
}

// lockingRefs resolves references live for `plugin lock` and checks
// each against the trust policy as it is resolved, so that a refusal is
// reported on its binding (file, key) with every other problem found.
type lockingRefs struct {
	ctx    context.Context
	res    *share.Resolver
	policy *share.Policy
	remote *share.Remote

	mu      sync.Mutex
	signers map[string]string // canonical reference → signer
}

// Resolve implements problem.RefResolver.
func (r *lockingRefs) Resolve(ref, sha256 string) (string, error) {
	path, err := r.res.Resolve(ref, sha256)
	if err != nil || r.policy == nil {
		return path, err
	}
	parsed, err := share.ParseRef(ref)
	if err != nil {
		return "", err
	}
	e, ok := r.res.Recorded().Find(parsed.String())
	if !ok {
		return "", fmt.Errorf("%s: resolved but not recorded", parsed)
	}
	signer, err := r.policy.Check(r.ctx, r.remote, parsed, e.Manifest)
	if err != nil {
		return "", err
	}
	r.mu.Lock()
	r.signers[e.Ref] = signer.String()
	r.mu.Unlock()
	return path, nil
}

func newPluginLockCmd() *cobra.Command {
	var pf pluginFlags
	var rf refFlags
	cmd := &cobra.Command{
		Use:   "lock PROBLEM",
		Short: "Resolve the plugins a problem binds by reference and write " + share.LockFileName + " next to it",
		Long: `Resolve every plugin the problem binds by reference (ref: oci://…) in its
registry: the tag to a manifest digest, the module to its sha256, which must
be the pin the binding gives. The module and its signatures are fetched into
the plugin cache, each plugin is checked against the trust policy, and
` + share.LockFileName + ` is written next to the problem. Runs then resolve
references only through the lock, by digest, and can run offline.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			dir := problemDir(args[0])
			cache, err := rf.share.cache()
			if err != nil {
				return err
			}
			remote, err := rf.share.remote()
			if err != nil {
				return err
			}
			policy, err := share.FindPolicy(rf.trustPolicy, dir)
			if err != nil {
				return usageErr(err)
			}
			res, err := share.NewResolver(share.ResolverOptions{Context: ctx, Cache: cache, Remote: remote, Live: true, Problem: args[0]})
			if err != nil {
				return usageErr(err)
			}
			refs := &lockingRefs{ctx: ctx, res: res, policy: policy, remote: remote, signers: map[string]string{}}
			plugins, err := pf.newHost(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer plugins.Close()
			src, err := loadSource(args[0], sourceOptions{pluginDirs: pf.dirs, refs: refs,
				functions: functionsOf(ctx, plugins), setup: setupOf(ctx, plugins)})
			if err != nil {
				return usageErr(fmt.Errorf("invalid problem:\n%w", err))
			}
			// The cases too, as a run validates them: a case file may
			// bind a plugin by reference in its own checks.
			if _, err := run.ValidateGroups(run.WithWarnings(ctx, printWarning(cmd.ErrOrStderr())), src.problem, src.loader, plugins); err != nil {
				return usageErr(fmt.Errorf("invalid problem:\n%w", err))
			}
			lock := res.Recorded()
			w := cmd.OutOrStdout()
			if len(lock.Plugins) == 0 {
				fmt.Fprintf(w, "%s binds no plugin by reference; nothing to lock\n", args[0])
				return nil
			}
			for i := range lock.Plugins {
				lock.Plugins[i].Signer = refs.signers[lock.Plugins[i].Ref]
			}
			sort.Slice(lock.Plugins, func(i, j int) bool { return lock.Plugins[i].Ref < lock.Plugins[j].Ref })
			path := filepath.Join(dir, share.LockFileName)
			if err := share.WriteLock(path, lock); err != nil {
				return shareFailed(err)
			}
			for _, e := range lock.Plugins {
				signed := "not signature-checked (no trust policy)"
				if e.Signer != "" {
					signed = "signed by " + e.Signer
				} else if policy != nil {
					signed = "no signature required by " + policy.File
				}
				fmt.Fprintf(w, "locked %s\n  manifest %s\n  module   sha256:%s (%d bytes)\n  %s\n", e.Ref, e.Manifest, e.SHA256, e.Size, signed)
			}
			fmt.Fprintf(w, "wrote %s\n", path)
			return nil
		},
	}
	pf.register(cmd.Flags())
	rf.registerTrust(cmd.Flags())
	cmd.Flags().StringVar(&rf.share.cacheDir, "cache-dir", "", "plugin cache directory, an OCI image layout (default $"+share.CacheEnv+"/oci, else the user cache dir's wasmeval/oci)")
	return cmd
}
