package share

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// DefaultPolicyName is the trust policy file a run uses when it sits next
// to the problem and no --trust-policy is given.
const DefaultPolicyName = "wasmeval.trust.yaml"

// Policy is a trust policy: which keys may sign which repositories.
//
//	version: 1
//	keys:
//	  team-a: keys/team-a.pub        # relative to the policy file
//	policies:
//	  - repositories: ["localhost:5000/team-a/*"]
//	    signed_by: [team-a]
//	  - repositories: ["*"]
//	    signed_by: []                # no signature required
//
// The first policy whose repositories match HOST/REPOSITORY decides. A
// repository no policy matches is refused: a policy file states what is
// trusted, and a repository it does not mention is not.
type Policy struct {
	// File is the policy file (absolute).
	File string
	// Keys are the trusted keys by name.
	Keys map[string]TrustedKey
	// Rules are the policies, in order.
	Rules []Rule
	// keyFiles are the --key files of a policy made by PolicyForKeys
	// (nil for a policy file): errors then speak of those keys, not of
	// a file and a rule the user never wrote.
	keyFiles []string
}

// TrustedKey is a public key a policy names.
type TrustedKey struct {
	Name string
	File string
	ID   string
	Key  ed25519.PublicKey
}

// Rule is one entry of policies.
type Rule struct {
	// Index is its position in policies.
	Index int
	// Repositories are globs on HOST/REPOSITORY: * matches any run of
	// characters (slashes included), ? one character.
	Repositories []string
	// SignedBy are key names; a plugin needs a valid signature by any one
	// of them. Empty: no signature required.
	SignedBy []string
}

// LoadPolicy reads and checks a trust policy file. Errors name the file,
// the key path and what was expected.
func LoadPolicy(path string) (*Policy, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("trust policy: %w", err)
	}
	if len(data) > 1<<20 {
		return nil, fmt.Errorf("trust policy %s: larger than 1 MiB", path)
	}
	p := &Policy{File: abs, Keys: map[string]TrustedKey{}}
	perr := func(key, format string, a ...any) error {
		return fmt.Errorf("trust policy %s: %s: %s", path, key, fmt.Sprintf(format, a...))
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("trust policy %s: the file is empty; expected version: 1, keys and policies", path)
		}
		return nil, fmt.Errorf("trust policy %s: not valid YAML: %v", path, oneLine(err))
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("trust policy %s: expected a mapping with version, keys and policies", path)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, fmt.Errorf("trust policy %s: more than one YAML document", path)
	}
	fields, err := mappingFields(doc.Content[0], "", []string{"version", "keys", "policies"})
	if err != nil {
		return nil, perr(err.(*fieldError).key, "%s", err.(*fieldError).msg)
	}
	v, ok := fields["version"]
	if !ok {
		return nil, perr("version", "missing; expected version: 1")
	}
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Value != "1" {
		return nil, perr("version", "line %d: %q; expected 1", v.Line, v.Value)
	}
	if k, ok := fields["keys"]; ok {
		if k.Kind != yaml.MappingNode {
			return nil, perr("keys", "line %d: expected a mapping of key name to public key file", k.Line)
		}
		for i := 0; i+1 < len(k.Content); i += 2 {
			name, file := k.Content[i].Value, k.Content[i+1]
			key := "keys." + name
			if !validKeyName(name) {
				return nil, perr(key, "line %d: key name %q: expected letters, digits and . _ -", k.Content[i].Line, name)
			}
			if _, dup := p.Keys[name]; dup {
				return nil, perr(key, "line %d: defined twice", k.Content[i].Line)
			}
			if file.Kind != yaml.ScalarNode || file.Tag != "!!str" || file.Value == "" {
				return nil, perr(key, "line %d: expected the path of a PEM public key file (relative to the policy file)", file.Line)
			}
			kf := file.Value
			if !filepath.IsAbs(kf) {
				kf = filepath.Join(filepath.Dir(abs), kf)
			}
			pub, err := LoadPublicKey(kf)
			if err != nil {
				return nil, perr(key, "%v", err)
			}
			p.Keys[name] = TrustedKey{Name: name, File: kf, ID: KeyID(pub), Key: pub}
		}
	}
	pol, ok := fields["policies"]
	if !ok {
		return nil, perr("policies", "missing; expected a list of {repositories, signed_by}")
	}
	if pol.Kind != yaml.SequenceNode {
		return nil, perr("policies", "line %d: expected a list of {repositories, signed_by}", pol.Line)
	}
	for i, n := range pol.Content {
		at := fmt.Sprintf("policies[%d]", i)
		f, err := mappingFields(n, at, []string{"repositories", "signed_by"})
		if err != nil {
			return nil, perr(err.(*fieldError).key, "%s", err.(*fieldError).msg)
		}
		r := Rule{Index: i}
		repos, ok := f["repositories"]
		if !ok {
			return nil, perr(at+".repositories", "missing; expected a list of HOST/REPOSITORY globs")
		}
		if r.Repositories, err = stringList(repos, at+".repositories"); err != nil {
			return nil, perr(err.(*fieldError).key, "%s", err.(*fieldError).msg)
		}
		if len(r.Repositories) == 0 {
			return nil, perr(at+".repositories", "line %d: empty; expected at least one HOST/REPOSITORY glob", repos.Line)
		}
		for j, g := range r.Repositories {
			if err := checkGlob(g); err != nil {
				return nil, perr(fmt.Sprintf("%s.repositories[%d]", at, j), "%q: %v", g, err)
			}
			r.Repositories[j] = strings.TrimPrefix(g, Scheme)
		}
		sb, ok := f["signed_by"]
		if !ok {
			return nil, perr(at+".signed_by", "missing; expected a list of key names ([] for no signature required)")
		}
		if r.SignedBy, err = stringList(sb, at+".signed_by"); err != nil {
			return nil, perr(err.(*fieldError).key, "%s", err.(*fieldError).msg)
		}
		for j, name := range r.SignedBy {
			if _, ok := p.Keys[name]; !ok {
				return nil, perr(fmt.Sprintf("%s.signed_by[%d]", at, j), "key %q is not defined under keys (defined: %s)", name, p.keyNames())
			}
		}
		p.Rules = append(p.Rules, r)
	}
	return p, nil
}

type fieldError struct{ key, msg string }

func (e *fieldError) Error() string { return e.key + ": " + e.msg }

// mappingFields returns the fields of mapping n, refusing unknown ones.
func mappingFields(n *yaml.Node, at string, known []string) (map[string]*yaml.Node, error) {
	join := func(k string) string {
		if at == "" {
			return k
		}
		return at + "." + k
	}
	if n.Kind != yaml.MappingNode {
		key := at
		if key == "" {
			key = "(top level)"
		}
		return nil, &fieldError{key, fmt.Sprintf("line %d: expected a mapping with %s", n.Line, strings.Join(known, ", "))}
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if !slices.Contains(known, k) {
			return nil, &fieldError{join(k), fmt.Sprintf("line %d: unknown field; expected one of %s", n.Content[i].Line, strings.Join(known, ", "))}
		}
		if _, dup := out[k]; dup {
			return nil, &fieldError{join(k), fmt.Sprintf("line %d: given twice", n.Content[i].Line)}
		}
		out[k] = n.Content[i+1]
	}
	return out, nil
}

// stringList reads a YAML list of strings.
func stringList(n *yaml.Node, at string) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, &fieldError{at, fmt.Sprintf("line %d: expected a list of strings", n.Line)}
	}
	out := []string{}
	for i, e := range n.Content {
		if e.Kind != yaml.ScalarNode || e.Tag != "!!str" || e.Value == "" {
			return nil, &fieldError{fmt.Sprintf("%s[%d]", at, i), fmt.Sprintf("line %d: expected a non-empty string", e.Line)}
		}
		out = append(out, e.Value)
	}
	return out, nil
}

func validKeyName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// checkGlob accepts a glob on HOST/REPOSITORY: the characters of
// registry hosts and repositories, with * and ? as wildcards. Brackets
// are literal (an IPv6 host, [::1]:5000), not character classes.
func checkGlob(g string) error {
	g = strings.TrimPrefix(g, Scheme)
	if g == "" {
		return errors.New("empty; expected a HOST/REPOSITORY glob such as registry.example.com/team/*")
	}
	if strings.ContainsAny(g, "@") || strings.Contains(g, "//") {
		return errors.New("expected HOST/REPOSITORY with * and ? as wildcards, no tag or digest")
	}
	for _, c := range g {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.ContainsRune("._-/:[]*?", c):
		default:
			return fmt.Errorf("character %q; expected HOST/REPOSITORY with * and ? as wildcards", c)
		}
	}
	// The host may be written in any case and carry a port; the
	// repository has no tag and is lowercase, so a glob breaking either
	// rule would silently match nothing.
	if _, repo, ok := strings.Cut(g, "/"); ok {
		if strings.Contains(repo, ":") {
			return errors.New("a repository has no tag; expected HOST/REPOSITORY with * and ? as wildcards, no tag or digest")
		}
		if repo != strings.ToLower(repo) {
			return errors.New("repositories are lowercase; write the repository part in lowercase")
		}
	}
	return nil
}

// globMatch matches s against g: * any run of characters, ? one.
// Host names compare case-insensitively (repositories are lowercase).
func globMatch(g, s string) bool {
	g, s = strings.ToLower(g), strings.ToLower(s)
	// Iterative matching with one backtrack point (the last *).
	gi, si, star, mark := 0, 0, -1, 0
	for si < len(s) {
		switch {
		case gi < len(g) && (g[gi] == '?' || g[gi] == s[si]):
			gi++
			si++
		case gi < len(g) && g[gi] == '*':
			star, mark = gi, si
			gi++
		case star >= 0:
			gi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for gi < len(g) && g[gi] == '*' {
		gi++
	}
	return gi == len(g)
}

func (p *Policy) keyNames() string {
	names := make([]string, 0, len(p.Keys))
	for n := range p.Keys {
		names = append(names, n)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// RuleFor is the first rule matching HOST/REPOSITORY, or nil.
func (p *Policy) RuleFor(repository string) *Rule {
	for i := range p.Rules {
		for _, g := range p.Rules[i].Repositories {
			if globMatch(g, repository) {
				return &p.Rules[i]
			}
		}
	}
	return nil
}

// Requires reports whether the policy asks for a signature on plugins of
// ref's repository (a repository no rule matches is refused by Check, so
// it counts as requiring one).
func (p *Policy) Requires(ref Ref) bool {
	r := p.RuleFor(ref.Host + "/" + ref.Repository)
	return r == nil || len(r.SignedBy) > 0
}

// Signer is who signed a plugin, as a trust policy accepted it.
type Signer struct {
	// Name is the key's name in the policy.
	Name string
	// KeyID is the key's id ("ed25519:<16 hex>").
	KeyID string
}

// String is "name (key id)", the form the lock records.
func (s Signer) String() string {
	if s.KeyID == "" {
		return ""
	}
	return s.Name + " (" + s.KeyID + ")"
}

// Check decides whether the plugin ref, whose manifest is manifestDigest,
// may be used: the first rule matching its repository says which keys may
// sign it. It returns the accepting signer (the zero Signer when the rule
// requires no signature; src is not consulted then) or an *Error of kind
// ErrSignature naming the reference, one line. src is the registry when
// locking and the cache when running from a lock.
func (p *Policy) Check(ctx context.Context, src SignatureSource, ref Ref, manifestDigest string) (Signer, error) {
	at := ref.AtDigest(manifestDigest)
	if ref.Tag != "" {
		at = ref // name the reference as the user wrote it
	}
	repository := ref.Host + "/" + ref.Repository
	r := p.RuleFor(repository)
	if r == nil {
		return Signer{}, &Error{Ref: at.String(), Kind: ErrSignature,
			Msg: fmt.Sprintf("repository %s matches no policy in trust policy %s; refused (add a policy for it, e.g. repositories: [%q] with signed_by: [] to require no signature)", repository, p.File, repository)}
	}
	if len(r.SignedBy) == 0 {
		return Signer{}, nil
	}
	sigs, err := src.Signatures(ctx, ref, manifestDigest)
	if err != nil {
		return Signer{}, err
	}
	var problems []string
	for _, s := range sigs {
		if s.Err != nil {
			problems = append(problems, s.Err.Error())
			continue
		}
		for _, name := range r.SignedBy {
			k := p.Keys[name]
			if k.ID == s.KeyID && k.Key.Equal(s.PublicKey) {
				return Signer{Name: name, KeyID: k.ID}, nil
			}
		}
		if p.keyFiles != nil {
			problems = append(problems, fmt.Sprintf("signed by %s, not one of the keys given with --key", s.KeyID))
		} else {
			problems = append(problems, fmt.Sprintf("signed by %s, a key policies[%d] does not trust", s.KeyID, r.Index))
		}
	}
	wants := fmt.Sprintf("trust policy %s (policies[%d]) requires a signature by %s", p.File, r.Index, strings.Join(r.SignedBy, " or "))
	if p.keyFiles != nil {
		wants = fmt.Sprintf("a signature by one of the keys given with --key (%s) is required", strings.Join(p.keyFiles, ", "))
	}
	if len(sigs) == 0 && noCachedSignature(src) {
		return Signer{}, &Error{Ref: at.String(), Kind: ErrSignature, Msg: fmt.Sprintf("the plugin cache holds no signature for manifest %s (offline, the registry was not asked); %s: run `wasmeval plugin pull %s` when online", manifestDigest, wants, ref.AtDigest(manifestDigest))}
	}
	if len(sigs) == 0 {
		hint := ""
		if reg := remoteOf(src); reg != nil {
			hint = p.signedTwin(ctx, reg, ref, manifestDigest, r)
		}
		return Signer{}, &Error{Ref: at.String(), Kind: ErrSignature, Msg: "unsigned" + hint + "; " + wants}
	}
	return Signer{}, &Error{Ref: at.String(), Kind: ErrSignature, Msg: fmt.Sprintf("no trusted signature (%s); %s", strings.Join(problems, "; "), wants)}
}

// FindPolicy loads the trust policy flag names, else DefaultPolicyName in
// dir when present; nil (no policy: nothing required) when neither is.
func FindPolicy(flag, dir string) (*Policy, error) {
	if flag != "" {
		return LoadPolicy(flag)
	}
	p := filepath.Join(dir, DefaultPolicyName)
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("trust policy: %w", err)
	}
	return LoadPolicy(p)
}

// PolicyForKeys is a policy that trusts the public key files given, each
// for every repository (`wasmeval plugin verify --key`): keys are named
// by their file's base name.
func PolicyForKeys(files []string) (*Policy, error) {
	p := &Policy{File: "(--key " + strings.Join(files, ", ") + ")", Keys: map[string]TrustedKey{}, keyFiles: append([]string{}, files...)}
	r := Rule{Repositories: []string{"*"}}
	for _, f := range files {
		pub, err := LoadPublicKey(f)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		if _, dup := p.Keys[name]; dup {
			name = f
		}
		p.Keys[name] = TrustedKey{Name: name, File: f, ID: KeyID(pub), Key: pub}
		r.SignedBy = append(r.SignedBy, name)
	}
	p.Rules = []Rule{r}
	return p, nil
}

// SignerOf is what a lock records as the signer of the plugin ref (its
// manifest manifestDigest) under policy p: "name (ed25519:…)" when the
// policy's rule asks for a signature and a trusted one is found, "" when it
// asks for none or there is no policy (p nil). It errs, naming the
// reference, when the plugin may not be used.
func (p *Policy) SignerOf(ctx context.Context, src SignatureSource, ref Ref, manifestDigest string) (string, error) {
	if p == nil {
		return "", nil
	}
	s, err := p.Check(ctx, src, ref, manifestDigest)
	return s.String(), err
}
