package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wasmeval/wasmeval/plugins/provenance"
	"github.com/wasmeval/wasmeval/plugins/share"
)

// newPluginSignCmds are the commands of signatures and trust.
func newPluginSignCmds() []*cobra.Command {
	return []*cobra.Command{newPluginKeygenCmd(), newPluginSignCmd(), newPluginVerifyCmd()}
}

func newPluginKeygenCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "keygen NAME",
		Short: "Make an ed25519 signing key: NAME.key (private, mode 0600) and NAME.pub",
		Long: `Make an ed25519 key pair for signing plugins: NAME.key, the private key
(PEM PKCS#8, readable only by you; keep it secret), and NAME.pub, the public
key (PEM PKIX) that trust policies name. Existing files are never
overwritten. The key id printed, ed25519: and 16 hex digits of the sha256 of
the public key, is how signatures and lock files name the key.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := share.GenerateKey(args[0])
			if err != nil {
				return usageErr(err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "private key: %s.key (keep it secret)\n", args[0])
			fmt.Fprintf(w, "public key:  %s.pub\n", args[0])
			fmt.Fprintf(w, "key id:      %s\n", id)
			return nil
		},
	}
}

func newPluginSignCmd() *cobra.Command {
	var sf shareFlags
	var keyFile string
	cmd := &cobra.Command{
		Use:   "sign REF --key NAME.key",
		Short: "Sign a published plugin; the signature is pushed as a referrer of its manifest",
		Long: `Resolve REF (oci://HOST/REPO:TAG or @sha256:DIGEST) to its manifest digest,
sign with the ed25519 key the payload

  {"type":"wasmeval plugin signature v1","manifest":"sha256:…","repository":"HOST/REPO"}

and push the signature as an artifact that refers to the manifest
(artifactType application/vnd.wasmeval.signature.v1+json). Registries
without the referrers API get the referrers tag (sha256-<hex>) instead.
The signature covers the manifest, which pins the module by digest; moving
the tag later does not carry the signature along.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			if keyFile == "" {
				return usageErr(errors.New("sign: name the private key with --key NAME.key"))
			}
			key, err := share.LoadPrivateKey(keyFile)
			if err != nil {
				return usageErr(err)
			}
			r, err := sf.remote()
			if err != nil {
				return err
			}
			s, err := share.Sign(cmd.Context(), r, ref, key)
			if err != nil {
				return shareFailed(err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "signed:    %s\n", s.Ref)
			fmt.Fprintf(w, "manifest:  %s\n", s.ManifestDigest)
			fmt.Fprintf(w, "key id:    %s\n", s.KeyID)
			fmt.Fprintf(w, "signature: %s\n", s.SignatureDigest)
			return nil
		},
	}
	cmd.Flags().StringVar(&keyFile, "key", "", "the private key to sign with (NAME.key from `wasmeval plugin keygen`)")
	sf.register(cmd.Flags())
	return cmd
}

// trustFlags choose the trust policy of verify and inspect.
type trustFlags struct {
	policy string
	keys   []string
}

func (f *trustFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.policy, "trust-policy", "", "trust policy file (default: "+share.DefaultPolicyName+" in the current directory, when present)")
	cmd.Flags().StringArrayVar(&f.keys, "key", nil, "trust this public key (NAME.pub) for every repository, instead of a policy file (repeatable)")
}

// load returns the policy the flags name; nil when none is named and no
// default file exists.
func (f *trustFlags) load() (*share.Policy, error) {
	if f.policy != "" && len(f.keys) > 0 {
		return nil, usageErr(errors.New("give --trust-policy or --key, not both"))
	}
	if len(f.keys) > 0 {
		p, err := share.PolicyForKeys(f.keys)
		if err != nil {
			return nil, usageErr(err)
		}
		return p, nil
	}
	p, err := share.FindPolicy(f.policy, ".")
	if err != nil {
		return nil, usageErr(err)
	}
	return p, nil
}

func newPluginVerifyCmd() *cobra.Command {
	var sf shareFlags
	var tf trustFlags
	var offline bool
	cmd := &cobra.Command{
		Use:   "verify REF",
		Short: "Check a plugin's signatures against a trust policy and print who signed it",
		Long: `Fetch the signatures that refer to REF's manifest and check each: its
payload names this manifest and this repository, its ed25519 signature
verifies over exactly those bytes, and the trust policy (--trust-policy
FILE, else ` + share.DefaultPolicyName + ` in the current directory; or --key
NAME.pub) trusts its key for the repository. Prints the signer; exits 1 with
one line naming the reference when the plugin is unsigned, signed only by
untrusted keys, or its signatures are invalid or tampered.

With --offline the plugin cache is used instead of the registry: the
signatures pulled (or imported) with the plugin are kept beside it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			pol, err := tf.load()
			if err != nil {
				return err
			}
			if pol == nil {
				return usageErr(fmt.Errorf("verify %s: no trust policy: give --trust-policy FILE or --key NAME.pub (or put %s in the current directory)", ref, share.DefaultPolicyName))
			}
			src, manifest, err := signatureSource(cmd.Context(), sf, ref, offline)
			if err != nil {
				return err
			}
			if rule := pol.RuleFor(ref.Host + "/" + ref.Repository); rule != nil && len(rule.SignedBy) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "%s: trust policy %s (policies[%d]) requires no signature for %s/%s\n", ref, pol.File, rule.Index, ref.Host, ref.Repository)
				printSignatures(cmd.Context(), cmd.OutOrStdout(), src, ref, manifest)
				return nil
			}
			who, err := pol.Check(cmd.Context(), src, ref, manifest)
			if err != nil {
				return shareFailed(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "verified: %s (manifest %s) signed by %s\n", ref, manifest, who)
			return nil
		},
	}
	cmd.Flags().BoolVar(&offline, "offline", false, "verify from the plugin cache only; never reach a registry")
	tf.register(cmd)
	sf.register(cmd.Flags())
	return cmd
}

// signatureSource is where REF's signatures are read: the registry, or
// the cache when offline. It resolves REF to its manifest digest there.
func signatureSource(ctx context.Context, sf shareFlags, ref share.Ref, offline bool) (share.SignatureSource, string, error) {
	if offline {
		c, err := sf.cache()
		if err != nil {
			return nil, "", err
		}
		m, err := c.ResolveManifest(ctx, ref)
		if err != nil {
			return nil, "", shareFailed(err)
		}
		// Offline: a missing signature is missing from the cache, which
		// does not make the plugin unsigned.
		return share.CachedSignatures{Cache: c}, m, nil
	}
	r, err := sf.remote()
	if err != nil {
		return nil, "", err
	}
	m, err := r.ResolveManifest(ctx, ref)
	if err != nil {
		return nil, "", shareFailed(err)
	}
	return r, m, nil
}

// printSignatures lists the signatures of a manifest, valid or not.
func printSignatures(ctx context.Context, w io.Writer, src share.SignatureSource, ref share.Ref, manifest string) {
	sigs, err := src.Signatures(ctx, ref, manifest)
	if err != nil {
		fmt.Fprintf(w, "signatures: cannot list them: %v\n", err)
		return
	}
	if len(sigs) == 0 {
		fmt.Fprintf(w, "signatures: none\n")
		return
	}
	for _, s := range sigs {
		if s.Err != nil {
			fmt.Fprintf(w, "signature: %s INVALID: %v\n", s.Digest, s.Err)
		} else {
			fmt.Fprintf(w, "signature: %s by %s (valid; trust is the policy's to decide)\n", s.Digest, s.KeyID)
		}
	}
}

// inspectRef shows a published plugin: digests, describe output,
// annotations (provenance among them) and signatures. Online it is pulled
// into the cache first (with its signatures); offline it is read from the
// cache.
func inspectRef(cmd *cobra.Command, ref share.Ref, sf shareFlags, offline bool) error {
	ctx := cmd.Context()
	c, err := sf.cache()
	if err != nil {
		return err
	}
	var got share.Resolved
	if offline {
		got, err = c.Lookup(ctx, ref)
	} else {
		var r *share.Remote
		if r, err = sf.remote(); err != nil {
			return err
		}
		got, err = share.Pull(ctx, r, c, ref)
	}
	if err != nil {
		return shareFailed(err)
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "ref:      %s\n", ref)
	fmt.Fprintf(w, "manifest: %s\n", got.ManifestDigest)
	fmt.Fprintf(w, "sha256:   %s\n", got.WasmDigest)
	fmt.Fprintf(w, "size:     %d bytes\n", got.Size)
	if got.Name != "" {
		fmt.Fprintf(w, "name:     %s %s\n", got.Name, got.Version)
	}
	fmt.Fprintf(w, "abi:      %d\n", got.ABIVersion)
	fmt.Fprintf(w, "kinds:    %s\n", strings.Join(got.Kinds, ", "))
	if p, ok := provenance.FromAnnotations(got.Annotations); ok {
		printProvenance(w, p)
	}
	keys := make([]string, 0, len(got.Annotations))
	for k := range got.Annotations {
		if k != share.AnnotationDescribe {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if len(keys) > 0 {
		fmt.Fprintln(w, "annotations:")
		for _, k := range keys {
			fmt.Fprintf(w, "  %s: %s\n", k, got.Annotations[k])
		}
	}
	printSignatures(ctx, w, c, ref, got.ManifestDigest)
	return nil
}

// printProvenance shows how a module was built.
func printProvenance(w io.Writer, p provenance.Provenance) {
	fmt.Fprintln(w, "provenance:")
	if p.Source != "" {
		fmt.Fprintf(w, "  source:    %s\n", p.Source)
	}
	if p.Repository != "" {
		fmt.Fprintf(w, "  repository: %s\n", p.Repository)
	}
	if p.Commit != "" {
		dirty := ""
		if p.Dirty {
			dirty = " (uncommitted changes)"
		}
		fmt.Fprintf(w, "  commit:    %s%s\n", p.Commit, dirty)
	}
	if p.Toolchain != "" {
		fmt.Fprintf(w, "  toolchain: %s\n", p.Toolchain)
	}
	if p.ToolchainPath != "" {
		fmt.Fprintf(w, "  compiler:  %s\n", p.ToolchainPath)
	}
	if p.SDK != "" || p.SDKVersion != "" {
		fmt.Fprintf(w, "  sdk:       %s %s\n", p.SDK, p.SDKVersion)
	}
}

// inspectProvenanceFile shows the provenance recorded beside a module
// file, when there is one.
func inspectProvenanceFile(w io.Writer, file string) error {
	p, err := provenance.Read(provenance.FileFor(file))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return usageErr(err)
	}
	printProvenance(w, p)
	return nil
}
