// Package sharetest starts a real OCI registry — the CNCF distribution
// registry Debian packages as docker-registry — for tests of plugin
// sharing: on a free loopback port, with a temporary storage directory,
// optionally behind basic auth (htpasswd) and TLS (a self-signed
// certificate made for the test).
package sharetest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Binary is where Debian's docker-registry package installs the registry.
const Binary = "/usr/bin/docker-registry"

// Test credentials of a registry started with Auth. The htpasswd entry is
// this password's bcrypt hash (cost 4), computed once: the registry only
// takes bcrypt, and a fixed loopback-only test password does not need a
// hashing library in the module.
const (
	Username   = "wasmeval"
	Password   = "wasmeval-registry-test"
	bcryptHash = "$2a$04$SVkXKwckTZ.sdQkpuDFtIOWSqvI2MEegj0nNGyoNvdQtdZhImUsA2"
)

// RegistryOptions choose what the registry asks of clients.
type RegistryOptions struct {
	// Auth puts the registry behind basic auth (Username, Password).
	Auth bool
	// TLS serves HTTPS with a self-signed certificate (CAFile).
	TLS bool
}

// Registry is a running registry process.
type Registry struct {
	// Host is 127.0.0.1:PORT.
	Host string
	// Username and Password are set when the registry asks for them.
	Username, Password string
	// CAFile is the PEM certificate clients must trust (TLS only).
	CAFile string
	// StorageDir is the registry's filesystem storage, for tests that
	// tamper with what it serves.
	StorageDir string

	cmd      *exec.Cmd
	log      *bytes.Buffer
	done     chan struct{}
	stopOnce sync.Once
}

// StartRegistry starts a registry and stops it when the test ends. Without
// the binary, the test fails under CI=true and is skipped otherwise.
func StartRegistry(t testing.TB, opts RegistryOptions) *Registry {
	t.Helper()
	if _, err := os.Stat(Binary); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing (apt-get install docker-registry): the sharing tests need a real registry", Binary)
		}
		t.Skipf("%s is missing (apt-get install docker-registry)", Binary)
	}
	dir := t.TempDir()
	port := freePort(t)
	r := &Registry{Host: "127.0.0.1:" + strconv.Itoa(port), StorageDir: filepath.Join(dir, "storage"), log: &bytes.Buffer{}, done: make(chan struct{})}
	cfg := fmt.Sprintf(`version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %s
  delete:
    enabled: true
http:
  addr: %s
  secret: wasmeval-test
`, r.StorageDir, r.Host)
	if opts.TLS {
		cert, key := selfSigned(t, dir)
		cfg += fmt.Sprintf("  tls:\n    certificate: %s\n    key: %s\n", cert, key)
		r.CAFile = cert
	}
	if opts.Auth {
		htpasswd := filepath.Join(dir, "htpasswd")
		if err := os.WriteFile(htpasswd, []byte(Username+":"+bcryptHash+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg += fmt.Sprintf("auth:\n  htpasswd:\n    realm: wasmeval-test\n    path: %s\n", htpasswd)
		r.Username, r.Password = Username, Password
	}
	cfgPath := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r.cmd = exec.Command(Binary, "serve", cfgPath)
	r.cmd.Stdout, r.cmd.Stderr = r.log, r.log
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", Binary, err)
	}
	go func() { r.cmd.Wait(); close(r.done) }()
	t.Cleanup(r.Stop)
	if err := r.waitReady(2 * time.Minute); err != nil {
		r.Stop()
		t.Fatalf("registry at %s: %v\n%s", r.Host, err, r.log.String())
	}
	return r
}

// waitReady waits until GET /v2/ answers (200, or 401 behind auth).
func (r *Registry) waitReady(limit time.Duration) error {
	scheme := "http"
	tr := &http.Transport{}
	if r.CAFile != "" {
		scheme = "https"
		pem, _ := os.ReadFile(r.CAFile)
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	deadline := time.Now().Add(limit)
	for {
		select {
		case <-r.done:
			return fmt.Errorf("exited before answering")
		default:
		}
		resp, err := client.Get(scheme + "://" + r.Host + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusUnauthorized {
				return nil
			}
			err = fmt.Errorf("GET /v2/: %s", resp.Status)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %v: %v", limit, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop stops the registry (again: nothing). Its storage stays until the
// test ends, but nothing can reach it.
func (r *Registry) Stop() {
	r.stopOnce.Do(func() {
		if r.cmd.Process != nil {
			r.cmd.Process.Kill()
		}
		<-r.done
	})
}

// BlobFile is where the registry stores the blob of digest
// ("sha256:<hex>"), distribution's filesystem layout.
func (r *Registry) BlobFile(digest string) string {
	hex := strings.TrimPrefix(digest, "sha256:")
	return filepath.Join(r.StorageDir, "docker", "registry", "v2", "blobs", "sha256", hex[:2], hex, "data")
}

// Log is what the registry wrote, for failure messages.
func (r *Registry) Log() string { return r.log.String() }

// WriteDockerConfig writes a Docker config.json holding username and
// password for host into a temporary directory and points DOCKER_CONFIG at
// it for the rest of the test; it returns the directory.
func WriteDockerConfig(t testing.TB, host, username, password string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := map[string]any{"auths": map[string]any{
		host: map[string]string{"auth": base64.StdEncoding.EncodeToString([]byte(username + ":" + password))},
	}}
	data, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", dir)
	return dir
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// ClosedPort is a loopback host:port nothing listens on, for tests of an
// unreachable registry.
func ClosedPort(t testing.TB) string {
	return "127.0.0.1:" + strconv.Itoa(freePort(t))
}

// selfSigned writes a self-signed certificate for 127.0.0.1, ::1 and
// localhost, its own CA, and its key.
func selfSigned(t testing.TB, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "wasmeval test registry"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1"), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}
