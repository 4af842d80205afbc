package share

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/opencontainers/go-digest"
	"oras.land/oras-go/v2/registry"
)

// Scheme prefixes a reference in problem files and lock files.
const Scheme = "oci://"

// Ref names an artifact in a registry: oci://HOST[:PORT]/REPO[:TAG] or
// oci://HOST[:PORT]/REPO@sha256:DIGEST. Exactly one of Tag and Digest is
// set.
type Ref struct {
	// Host is the registry, host[:port].
	Host string
	// Repository is the path inside the registry, e.g. team/verifier.
	Repository string
	// Tag is the tag, e.g. 1.4; empty when the reference is by digest.
	Tag string
	// Digest is "sha256:<hex>" when the reference is by digest.
	Digest string
}

// ParseRef parses a reference with or without the oci:// scheme. A
// reference must name a tag or a digest: wasmeval never guesses "latest".
func ParseRef(s string) (Ref, error) {
	rest := strings.TrimPrefix(s, Scheme)
	if rest == "" {
		return Ref{}, fmt.Errorf("reference %q: empty; expected oci://HOST/REPO:TAG or oci://HOST/REPO@sha256:DIGEST", s)
	}
	if i := strings.Index(rest, "://"); i >= 0 {
		return Ref{}, fmt.Errorf("reference %q: scheme %q not supported; expected oci://HOST/REPO:TAG", s, rest[:i+3])
	}
	if strings.ContainsAny(rest, " \t\r\n") {
		return Ref{}, fmt.Errorf("reference %q: contains white space", s)
	}
	host, path, ok := strings.Cut(rest, "/")
	if at := strings.LastIndex(host, "@"); at >= 0 {
		// user:password@host: the message must not repeat the password,
		// since errors end up in logs and run manifests.
		shown := Scheme + "***@" + host[at+1:] + "/" + path
		return Ref{}, fmt.Errorf("reference %q: a reference holds no credentials; wasmeval reads them from the Docker config, as `docker login %s` writes them", shown, host[at+1:])
	}
	if !ok || host == "" || path == "" {
		return Ref{}, fmt.Errorf("reference %q: expected HOST/REPO after oci://, e.g. oci://registry.example.com/team/verifier:1.4", s)
	}
	var r Ref
	// Host names have no case; one spelling keeps the cache and locks to
	// one entry per registry.
	r.Host = strings.ToLower(host)
	if repo, dgst, ok := strings.Cut(path, "@"); ok {
		if strings.Contains(repo[strings.LastIndex(repo, "/")+1:], ":") {
			return Ref{}, fmt.Errorf("reference %q: names both a tag and a digest; name one", s)
		}
		r.Repository, r.Digest = repo, dgst
		d, err := digest.Parse(dgst)
		if err != nil || d.Algorithm() != digest.SHA256 {
			return Ref{}, fmt.Errorf("reference %q: digest %q: expected sha256: and 64 lowercase hex digits", s, dgst)
		}
	} else {
		// The tag follows the first colon after the last slash (a colon
		// in the host is its port), so that a second colon is reported
		// as part of a bad tag.
		slash := strings.LastIndex(path, "/")
		if c := strings.Index(path[slash+1:], ":"); c >= 0 {
			c += slash + 1
			r.Repository, r.Tag = path[:c], path[c+1:]
		} else {
			r.Repository = path
		}
		if r.Tag == "" {
			return Ref{}, fmt.Errorf("reference %q: names no tag or digest; add :TAG or @sha256:DIGEST", s)
		}
	}
	if err := r.oras().ValidateRegistry(); err != nil {
		return Ref{}, fmt.Errorf("reference %q: registry %q: expected HOST or HOST:PORT", s, r.Host)
	}
	if i := strings.LastIndex(r.Host, ":"); i > strings.LastIndex(r.Host, "]") {
		port := r.Host[i+1:]
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return Ref{}, fmt.Errorf("reference %q: port %q: expected 1 to 65535", s, port)
		}
	}
	if err := r.oras().ValidateRepository(); err != nil {
		return Ref{}, fmt.Errorf("reference %q: repository %q: expected lowercase path components of letters, digits and . _ -", s, r.Repository)
	}
	if r.Tag != "" {
		if err := r.oras().ValidateReferenceAsTag(); err != nil {
			return Ref{}, fmt.Errorf("reference %q: tag %q: expected up to 128 letters, digits and . _ -, not starting with . or -", s, r.Tag)
		}
	}
	return r, nil
}

// String is the canonical form, with the oci:// scheme.
func (r Ref) String() string { return Scheme + r.Name() }

// Name is the reference without the scheme: HOST/REPO:TAG or HOST/REPO@DIGEST.
func (r Ref) Name() string {
	if r.Digest != "" {
		return r.Host + "/" + r.Repository + "@" + r.Digest
	}
	return r.Host + "/" + r.Repository + ":" + r.Tag
}

// Reference is the tag or digest part.
func (r Ref) Reference() string {
	if r.Digest != "" {
		return r.Digest
	}
	return r.Tag
}

// AtDigest is the same repository pinned to a manifest digest.
func (r Ref) AtDigest(manifest string) Ref {
	return Ref{Host: r.Host, Repository: r.Repository, Digest: manifest}
}

func (r Ref) oras() registry.Reference {
	return registry.Reference{Registry: r.Host, Repository: r.Repository, Reference: r.Reference()}
}
