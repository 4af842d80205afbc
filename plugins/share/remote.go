package share

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/errcode"
	"oras.land/oras-go/v2/registry/remote/retry"
)

// RemoteOptions say how registries are reached.
type RemoteOptions struct {
	// CAFile is a PEM file of certificate authorities trusted besides the
	// system's (which already include $SSL_CERT_FILE and $SSL_CERT_DIR),
	// for registries with a self-signed certificate.
	CAFile string
	// PlainHTTP talks HTTP, not HTTPS, to every registry. Without it,
	// HTTP is used only for a loopback registry that answers HTTP to an
	// HTTPS request, as docker does.
	PlainHTTP bool
	// Credentials overrides the Docker config as the source of
	// credentials (nil: read the Docker config, as docker and oras do).
	Credentials auth.CredentialFunc
}

// Remote reaches registries: one HTTP client, the credentials of the
// Docker config and a token cache shared by every repository it opens.
type Remote struct {
	opts   RemoteOptions
	client *auth.Client
	// plain records, per loopback host, whether it was found to speak
	// HTTP only.
	plain sync.Map
}

// NewRemote prepares registry access. Credentials come from the Docker
// config ($DOCKER_CONFIG/config.json, else ~/.docker/config.json),
// including its credential helpers, read when a registry asks for them.
func NewRemote(opts RemoteOptions) (*Remote, error) {
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if opts.CAFile != "" {
		pem, err := os.ReadFile(opts.CAFile)
		if err != nil {
			return nil, fmt.Errorf("registry CA file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("registry CA file %s: no PEM certificate in it", opts.CAFile)
		}
		tlsConf.RootCAs = pool
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.TLSClientConfig = tlsConf
	// A registry that accepts a connection and then never answers must not
	// hang a run; bodies are bounded by their descriptors' sizes.
	base.ResponseHeaderTimeout = 2 * time.Minute
	cred := opts.Credentials
	if cred == nil {
		cred = dockerCredentials()
	}
	client := &auth.Client{
		// Retries transient failures (5xx, 429, resets); a refused
		// connection or a 4xx is final at once.
		Client:     &http.Client{Transport: retry.NewTransport(base)},
		Credential: cred,
		Cache:      auth.NewCache(),
		Header:     http.Header{"User-Agent": {"wasmeval"}},
	}
	return &Remote{opts: opts, client: client}, nil
}

// repository opens the repository of ref.
func (r *Remote) repository(ctx context.Context, ref Ref) (*remote.Repository, error) {
	repo := &remote.Repository{
		Client:    r.client,
		Reference: ref.oras(),
		PlainHTTP: r.opts.PlainHTTP || r.speaksHTTP(ctx, ref.Host),
		// Tag and referrer listings are bounded: a registry cannot keep
		// a client paging forever.
		TagListMaxPages:      100,
		ReferrerListMaxPages: 100,
	}
	return repo, nil
}

// speaksHTTP reports whether host is a loopback registry that answers
// plain HTTP. Docker's rule: HTTPS first; HTTP only on a loopback address
// and only when the server answered an HTTPS request with HTTP. Anything
// else (a refused connection, a certificate problem) keeps HTTPS, and the
// real request reports it.
func (r *Remote) speaksHTTP(ctx context.Context, host string) bool {
	if !IsLoopback(host) {
		return false
	}
	if v, ok := r.plain.Load(host); ok {
		return v.(bool)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+host+"/v2/", nil)
	if err != nil {
		return false
	}
	resp, err := r.client.Client.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	plain := err != nil && strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
	if err == nil || plain {
		r.plain.Store(host, plain)
	}
	return plain
}

// IsLoopback reports whether host (host[:port]) is localhost or a
// loopback address (127.0.0.0/8, ::1): the only registries wasmeval
// talks plain HTTP to without being told.
func IsLoopback(host string) bool {
	h := host
	if sh, _, err := net.SplitHostPort(host); err == nil {
		h = sh
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// ErrorKind classifies a registry failure.
type ErrorKind int

// The kinds of failure.
const (
	ErrOther ErrorKind = iota
	// ErrUnreachable: the registry could not be reached (unknown host,
	// refused connection, timeout).
	ErrUnreachable
	// ErrAuth: the registry refused the credentials (401, 403).
	ErrAuth
	// ErrNotFound: no such tag, digest or repository (404).
	ErrNotFound
	// ErrTLS: the registry's certificate is not trusted.
	ErrTLS
	// ErrIntegrity: content does not match its digest or size, or the
	// artifact is not a wasmeval plugin.
	ErrIntegrity
)

// Error is a registry or artifact failure, one line naming the reference.
type Error struct {
	Ref  string
	Kind ErrorKind
	Msg  string
	Err  error
}

func (e *Error) Error() string { return e.Ref + ": " + e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// IsKind reports whether err is a share *Error of kind k.
func IsKind(err error, k ErrorKind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}

// remoteErr turns what oras and net/http return into a one-line *Error.
func remoteErr(ref Ref, what string, err error) error {
	if err == nil {
		return nil
	}
	var se *Error
	if errors.As(err, &se) {
		return err
	}
	e := &Error{Ref: ref.String(), Err: err}
	var resp *errcode.ErrorResponse
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var certErr *tls.CertificateVerificationError
	switch {
	case errors.Is(err, auth.ErrBasicCredentialNotFound) || strings.Contains(err.Error(), "missing username or password"):
		e.Kind = ErrAuth
		e.Msg = fmt.Sprintf("%s: registry %s asks for credentials and the Docker config ($DOCKER_CONFIG or ~/.docker/config.json) has none for it; run `docker login %s`",
			what, ref.Host, ref.Host)
	case errors.As(err, &resp) && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden):
		e.Kind = ErrAuth
		e.Msg = fmt.Sprintf("%s: registry %s refused the credentials (%d %s); check them with `docker login %s` (wasmeval reads the Docker config: $DOCKER_CONFIG or ~/.docker/config.json)",
			what, ref.Host, resp.StatusCode, http.StatusText(resp.StatusCode), ref.Host)
	case errors.Is(err, errdef.ErrNotFound) || errors.As(err, &resp) && resp.StatusCode == http.StatusNotFound:
		e.Kind = ErrNotFound
		e.Msg = fmt.Sprintf("%s: not found in registry %s (no such repository, tag or digest)", what, ref.Host)
	case errors.As(err, &unknownCA) || errors.As(err, &hostErr) || errors.As(err, &certErr):
		e.Kind = ErrTLS
		e.Msg = fmt.Sprintf("%s: the TLS certificate of registry %s is not trusted (%s); name its CA with --registry-ca FILE", what, ref.Host, oneLine(err))
	case errors.As(err, &dnsErr):
		e.Kind = ErrUnreachable
		e.Msg = fmt.Sprintf("%s: unknown registry %s (%s)", what, ref.Host, oneLine(dnsErr))
	case errors.As(err, &opErr) || errors.Is(err, context.DeadlineExceeded):
		e.Kind = ErrUnreachable
		e.Msg = fmt.Sprintf("%s: cannot reach registry %s (%s)", what, ref.Host, oneLine(err))
	case errors.As(err, &resp):
		e.Msg = fmt.Sprintf("%s: registry %s answered %d %s", what, ref.Host, resp.StatusCode, http.StatusText(resp.StatusCode))
	default:
		e.Msg = fmt.Sprintf("%s: %s", what, oneLine(err))
	}
	return e
}

// integrityErr is an *Error of kind ErrIntegrity.
func integrityErr(ref Ref, format string, a ...any) error {
	return &Error{Ref: ref.String(), Kind: ErrIntegrity, Msg: fmt.Sprintf(format, a...)}
}

// oneLine keeps an error's text on one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// dockerCredentials reads the Docker config the first time a registry asks
// for credentials, not before: a run whose plugins are all cached needs no
// registry, and a broken config must not stop it. The error names the file.
func dockerCredentials() auth.CredentialFunc {
	var once sync.Once
	var cred auth.CredentialFunc
	var loadErr error
	return func(ctx context.Context, hostport string) (auth.Credential, error) {
		once.Do(func() {
			store, err := credentials.NewStoreFromDocker(credentials.StoreOptions{})
			if err != nil {
				loadErr = inputErr(fmt.Errorf("read the Docker config %s for registry credentials: %v", dockerConfigPath(), oneLine(err)))
				return
			}
			cred = credentials.Credential(store)
		})
		if loadErr != nil {
			return auth.EmptyCredential, loadErr
		}
		c, err := cred(ctx, hostport)
		if err != nil {
			return c, inputErr(fmt.Errorf("credentials for %s in the Docker config %s: %v", hostport, dockerConfigPath(), oneLine(err)))
		}
		return c, nil
	}
}

// dockerConfigPath is where Docker (and oras) read their config.
func dockerConfigPath() string {
	if dir := os.Getenv("DOCKER_CONFIG"); dir != "" {
		return filepath.Join(dir, "config.json")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "~/.docker/config.json"
	}
	return filepath.Join(home, ".docker", "config.json")
}
