package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wasmeval/wasmeval/plugins/share"
)

// shareFlags are the settings of the commands that reach registries or
// the plugin cache.
type shareFlags struct {
	registryCA string
	plainHTTP  bool
	cacheDir   string
}

func (f *shareFlags) register(fl *pflag.FlagSet) {
	f.registerRegistry(fl)
	f.registerCache(fl)
}

// registerRegistry adds the flags of registry access, for the commands
// that reach a registry.
func (f *shareFlags) registerRegistry(fl *pflag.FlagSet) {
	fl.StringVar(&f.registryCA, "registry-ca", "", "PEM file of a CA to trust for registries (a self-signed registry); the system's CAs, $SSL_CERT_FILE included, stay trusted")
	fl.BoolVar(&f.plainHTTP, "plain-http", false, "talk plain HTTP to the registry (without it, only a loopback registry that answers HTTP gets HTTP)")
}

// registerCache adds --cache-dir alone, for the commands that use only
// the cache (ls, prune, import).
func (f *shareFlags) registerCache(fl *pflag.FlagSet) {
	fl.StringVar(&f.cacheDir, "cache-dir", "", "plugin cache directory, an OCI image layout (default $"+share.CacheEnv+"/oci, else the user cache dir's wasmeval/oci)")
}

// remote prepares registry access; credentials come from the Docker
// config, as docker and oras read it.
func (f *shareFlags) remote() (*share.Remote, error) {
	r, err := share.NewRemote(share.RemoteOptions{CAFile: f.registryCA, PlainHTTP: f.plainHTTP})
	if err != nil {
		return nil, usageErr(err)
	}
	return r, nil
}

// cache opens the plugin cache.
func (f *shareFlags) cache() (*share.Cache, error) {
	c, err := share.OpenCache(f.cacheDir)
	if err != nil {
		return nil, usageErr(err)
	}
	return c, nil
}

// parseRef parses a reference argument (the oci:// scheme is optional).
func parseRef(s string) (share.Ref, error) {
	r, err := share.ParseRef(s)
	if err != nil {
		return share.Ref{}, usageErr(err)
	}
	return r, nil
}

// refArg says whether an argument that may be a file or a reference is a
// reference: it has the oci:// scheme, or no file of that name exists and
// it parses as one (oci:// is optional on the command line).
func refArg(arg string) bool {
	if strings.HasPrefix(arg, share.Scheme) {
		return true
	}
	if _, err := os.Stat(arg); err == nil {
		return false
	}
	_, err := share.ParseRef(arg)
	return err == nil
}

// shareFailed is a failure of a registry, the cache or an artifact.
// A mistake in the user's input (share.InputError) is a usage error.
func shareFailed(err error) error {
	if share.IsInput(err) {
		return usageErr(err)
	}
	return &exitError{code: exitFail, err: err}
}

// readLockArg reads the lock a PROBLEM_OR_LOCK argument names; a missing
// one is an error saying how to make it.
func readLockArg(arg string) (*share.Lock, error) {
	p := lockPathOf(arg)
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		if p == arg {
			return nil, usageErr(fmt.Errorf("%s: no such problem directory or lock file", arg))
		}
		return nil, usageErr(fmt.Errorf("%s: the problem has no lock file; run `wasmeval plugin lock %s` to write it", p, arg))
	}
	l, err := share.ReadLock(p)
	if err != nil {
		return nil, usageErr(err)
	}
	return l, nil
}

func newPluginShareCmds() []*cobra.Command {
	return []*cobra.Command{newPluginPushCmd(), newPluginPullCmd(), newPluginCacheCmd(), newPluginExportCmd(), newPluginImportCmd()}
}

func newPluginPushCmd() *cobra.Command {
	var pf pluginFlags
	var sf shareFlags
	var annotations []string
	var provenanceFile string
	cmd := &cobra.Command{
		Use:   "push FILE REF",
		Short: "Publish a plugin to an OCI registry (oci://HOST/REPO:TAG)",
		Long: `Publish a plugin as a CNCF Wasm OCI artifact: one application/wasm layer,
whose digest is the plugin's sha256 pin, and its describe output (name,
version, kinds, ABI version, transport, config schema) as annotations. The
plugin is loaded first, so a module that is not a working plugin is never
published. Credentials come from the Docker config ($DOCKER_CONFIG or
~/.docker/config.json, credential helpers included). The manifest carries no
creation time (org.opencontainers.image.created) unless $SOURCE_DATE_EPOCH is
set, so pushing the same module, describe output and provenance again gives
the same manifest digest, and its signatures still apply.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRef(args[1])
			if err != nil {
				return err
			}
			extra := map[string]string{}
			for _, a := range annotations {
				k, v, ok := strings.Cut(a, "=")
				if !ok || k == "" {
					return usageErr(fmt.Errorf("--annotation %q: expected KEY=VALUE", a))
				}
				extra[k] = v
			}
			var created time.Time // none: identical inputs, identical manifest
			if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
				sec, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					return usageErr(fmt.Errorf("SOURCE_DATE_EPOCH %q: expected seconds since 1970", s))
				}
				created = time.Unix(sec, 0)
			}
			p, closeHost, err := pf.load(cmd, args[0])
			if err != nil {
				return err
			}
			d := p.Describe()
			closeHost()
			r, err := sf.remote()
			if err != nil {
				return err
			}
			pushed, err := share.Push(cmd.Context(), args[0], ref, share.PushOptions{Remote: r, Describe: d, Annotations: extra, Created: created, Provenance: provenanceFile})
			if err != nil {
				return shareFailed(err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "pushed:   %s\n", pushed.Ref)
			fmt.Fprintf(w, "manifest: %s\n", pushed.ManifestDigest)
			fmt.Fprintf(w, "sha256:   %s\n", pushed.WasmDigest)
			fmt.Fprintf(w, "size:     %d bytes\n", pushed.Size)
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&annotations, "annotation", nil, "extra manifest annotation KEY=VALUE (repeatable)")
	cmd.Flags().StringVar(&provenanceFile, "provenance", "", "provenance file to publish as annotations (default: FILE.provenance.json, written by the plugin build, when present)")
	pf.register(cmd.Flags())
	sf.register(cmd.Flags())
	return cmd
}

func newPluginPullCmd() *cobra.Command {
	var sf shareFlags
	cmd := &cobra.Command{
		Use:   "pull REF",
		Short: "Fetch a plugin from an OCI registry into the plugin cache",
		Long: `Fetch a plugin artifact (oci://HOST/REPO:TAG or @sha256:DIGEST) into the
plugin cache, with its referrers (signatures, provenance), checking every
blob against its digest, and print its digests and the cached module's path.
Artifacts with the older layer type application/vnd.wasm.content.layer.v1+wasm
are accepted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			r, err := sf.remote()
			if err != nil {
				return err
			}
			c, err := sf.cache()
			if err != nil {
				return err
			}
			got, err := share.Pull(cmd.Context(), r, c, ref)
			if err != nil {
				return shareFailed(err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "pulled:   %s\n", got.Ref)
			fmt.Fprintf(w, "manifest: %s\n", got.ManifestDigest)
			fmt.Fprintf(w, "sha256:   %s\n", got.WasmDigest)
			fmt.Fprintf(w, "size:     %d bytes\n", got.Size)
			if got.Name != "" {
				fmt.Fprintf(w, "name:     %s %s\n", got.Name, got.Version)
			}
			if len(got.Kinds) > 0 {
				fmt.Fprintf(w, "kinds:    %s\n", strings.Join(got.Kinds, ", "))
				fmt.Fprintf(w, "abi:      %d\n", got.ABIVersion)
			}
			fmt.Fprintf(w, "path:     %s\n", got.Path)
			return nil
		},
	}
	sf.register(cmd.Flags())
	return cmd
}

func newPluginCacheCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "List or prune the plugin cache",
	}
	var lsFlags shareFlags
	ls := &cobra.Command{
		Use:   "ls",
		Short: "List the plugins in the cache: references, digests, sizes, last use",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := lsFlags.cache()
			if err != nil {
				return err
			}
			entries, err := c.List(cmd.Context())
			if err != nil {
				return shareFailed(err)
			}
			if len(entries) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "plugin cache %s: empty\n", c.Dir())
				return nil
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "REF\tSHA256\tSIZE\tLAST USED\tNAME")
			for _, e := range entries {
				refs := e.Refs
				if len(refs) == 0 {
					refs = []string{"(by digest) " + e.ManifestDigest}
				}
				used := "-"
				if !e.LastUsed.IsZero() {
					used = e.LastUsed.UTC().Format(time.RFC3339)
				}
				name := strings.TrimSpace(e.Name + " " + e.Version)
				if e.Corrupt {
					name += " CORRUPT: " + e.Problem + " (run `wasmeval plugin cache prune --corrupt`)"
				}
				digest := e.WasmDigest
				if digest == "" {
					digest = "-"
				}
				if len(e.LockedAs) > 0 {
					name = strings.TrimSpace(name + " (locked as " + strings.Join(e.LockedAs, ", ") + ")")
				}
				for _, ref := range refs {
					fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", ref, digest, e.Size, used, strings.TrimSpace(name))
				}
			}
			return tw.Flush()
		},
	}
	lsFlags.registerCache(ls.Flags())

	var pruneFlags shareFlags
	var olderThanArg string
	var keepLocks []string
	var corruptOnly bool
	prune := &cobra.Command{
		Use:   "prune",
		Short: "Remove plugins from the cache (all, or those unused for a while), and every corrupt entry",
		Long: `Remove plugins from the cache, with their referrers and the blobs nothing
else uses. Without flags, everything goes (the cache refills from the
registry or an import). --older-than keeps what was used recently; --keep
keeps what a lock file (or a problem's wasmeval.lock) names. --corrupt
removes only the corrupt entries, keeping everything else (what an offline
machine should do). Corrupt entries are always removed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			olderThan, err := parseAge(olderThanArg)
			if err != nil {
				return usageErr(fmt.Errorf("--older-than: %w", err))
			}
			if corruptOnly && (olderThan > 0 || len(keepLocks) > 0) {
				return usageErr(fmt.Errorf("--corrupt keeps every entry that is not corrupt; it takes neither --older-than nor --keep"))
			}
			c, err := pruneFlags.cache()
			if err != nil {
				return err
			}
			keepDigests := map[string]bool{}
			for _, p := range keepLocks {
				l, err := readLockArg(p)
				if err != nil {
					return usageErr(fmt.Errorf("--keep: %w", err))
				}
				for _, e := range l.Plugins {
					keepDigests[e.Manifest] = true
				}
			}
			now := time.Now()
			removed, inUse, err := c.Prune(cmd.Context(), func(e share.CacheEntry) bool {
				if corruptOnly || keepDigests[e.ManifestDigest] {
					return true
				}
				return olderThan > 0 && now.Sub(e.LastUsed) < olderThan
			})
			for _, e := range removed {
				what := "removed " + strings.Join(append(e.Refs, e.ManifestDigest), " ")
				if e.WasmDigest != "" {
					what += " sha256:" + e.WasmDigest
				}
				if e.Corrupt {
					what += " (corrupt: " + e.Problem + ")"
				}
				fmt.Fprintln(cmd.OutOrStdout(), what)
			}
			for _, e := range inUse {
				fmt.Fprintf(cmd.OutOrStdout(), "kept %s sha256:%s: in use by a running wasmeval\n", strings.Join(append(e.Refs, e.ManifestDigest), " "), e.WasmDigest)
			}
			if err != nil {
				return shareFailed(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d removed\n", len(removed))
			return nil
		},
	}
	prune.Flags().StringVar(&olderThanArg, "older-than", "", "remove only plugins unused for at least this long: a positive duration, e.g. 30d or 720h")
	prune.Flags().StringArrayVar(&keepLocks, "keep", nil, "keep the plugins this lock file or problem directory names (repeatable)")
	prune.Flags().BoolVar(&corruptOnly, "corrupt", false, "remove only the corrupt entries")
	pruneFlags.registerCache(prune.Flags())
	cmd.AddCommand(ls, prune)
	return cmd
}

// parseAge parses --older-than: a Go duration (720h) or a whole number of
// days (30d), positive; "" is no age limit. A negative age would make
// every entry old enough.
func parseAge(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseUint(days, 10, 32)
		if err != nil {
			return 0, fmt.Errorf("%q: expected a whole number of days (30d) or a duration such as 720h", s)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("%q: expected a duration such as 720h or a number of days such as 30d", s)
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q: expected a positive age, e.g. 30d or 720h", s)
	}
	return d, nil
}

// lockPathOf is the lock file a PROBLEM_OR_LOCK argument names: the
// file itself, or a problem directory's wasmeval.lock.
func lockPathOf(arg string) string {
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		return filepath.Join(arg, share.LockFileName)
	}
	return arg
}

func newPluginExportCmd() *cobra.Command {
	var sf shareFlags
	var offline, force bool
	cmd := &cobra.Command{
		Use:   "export PROBLEM_OR_LOCK DEST",
		Short: "Write the plugins a lock names as an OCI layout directory, or a tarball when DEST ends in .tar",
		Long: `Write every plugin a problem's wasmeval.lock names — manifest, config,
module and referrers such as signatures — as an OCI image layout at DEST (a
tarball when DEST ends in .tar; compressed archives are not written, and an
existing tarball is replaced only with --force), for machines without access to the
registry: there, ` + "`wasmeval plugin import DEST`" + ` fills the plugin cache and
runs work offline. What the cache lacks is pulled by manifest digest, unless
--offline.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := readLockArg(args[0])
			if err != nil {
				return err
			}
			if err := share.CheckExportDest(args[1], force); err != nil {
				return usageErr(err)
			}
			c, err := sf.cache()
			if err != nil {
				return err
			}
			var r *share.Remote
			if !offline {
				if r, err = sf.remote(); err != nil {
					return err
				}
			}
			if err := share.ExportTo(cmd.Context(), c, r, l.Plugins, args[1], force); err != nil {
				return shareFailed(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "exported %s to %s\n", plural(len(l.Plugins), "plugin"), args[1])
			return nil
		},
	}
	cmd.Flags().BoolVar(&offline, "offline", false, "use the plugin cache only; never reach a registry")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing tarball at DEST")
	sf.register(cmd.Flags())
	return cmd
}

func newPluginImportCmd() *cobra.Command {
	var sf shareFlags
	cmd := &cobra.Command{
		Use:   "import SRC",
		Short: "Copy the plugins of an exported OCI layout (directory or .tar) into the plugin cache",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := sf.cache()
			if err != nil {
				return err
			}
			got, err := share.Import(cmd.Context(), c, args[0])
			if err != nil {
				return shareFailed(err)
			}
			for _, g := range got {
				fmt.Fprintf(cmd.OutOrStdout(), "imported %s sha256:%s\n", g.Ref, g.WasmDigest)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d imported into %s\n", len(got), c.Dir())
			return nil
		},
	}
	sf.registerCache(cmd.Flags())
	return cmd
}

// plural is "1 plugin", "2 plugins".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
