// Package share publishes and fetches wasmeval plugins as OCI artifacts,
// so that teams share a verifier through the registries they already run
// and every machine still runs exactly the module a problem pins.
//
// An artifact follows the CNCF Wasm OCI layout: an image manifest whose
// config has the media type application/vnd.wasm.config.v0+json and whose
// one layer, application/wasm, is the module itself — so the layer digest
// is the plugin's sha256 pin. The plugin's describe output travels as
// manifest annotations.
//
// The pieces, one per file:
//
//   - ref.go: references, oci://HOST[:PORT]/REPO[:TAG|@sha256:DIGEST].
//   - artifact.go: media types, annotations and the size limits of what is
//     read.
//   - remote.go: registry access (Docker credentials, TLS, the plain-HTTP
//     rule for loopback registries) and one-line errors naming the reference.
//   - push.go, pull.go: publishing a module, fetching one into the cache.
//   - cache.go: the local content-addressed cache, an OCI image layout.
//   - lock.go: wasmeval.lock, the resolved digests next to a problem.
//   - resolve.go: the resolver runs load plugins through (lock and cache only)
//     and the one `plugin lock` uses (live tags, recording the lock).
//   - transfer.go: export and import of artifacts for air-gapped machines.
//   - sign.go: ed25519 keys, signing a manifest (a referrer artifact) and
//     checking the signatures a registry or the cache holds.
//   - policy.go: the trust policy, which keys may sign which repositories.
//   - provenance.go: a module's build provenance as manifest annotations.
//   - inspect.go: a cached plugin looked up by reference.
//   - sharetest: a real registry process for tests.
//
// Everything a registry, a cache directory or a lock file holds is treated
// as untrusted: sizes are capped before anything is read, every blob is
// checked against its digest, and the module's digest is checked again
// before a path to it is handed out. RATIONALE.md says why it is built this
// way.
package share
