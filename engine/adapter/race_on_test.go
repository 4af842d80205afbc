//go:build race

package adapter_test

// raceBuild: the race detector's builds do not fuse bytes.Buffer's
// make-and-append when it grows, so growing the runtime's 64 MiB output
// buffer holds one more copy of it for a moment.
const raceBuild = true
