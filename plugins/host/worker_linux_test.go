package host

import (
	"bufio"
	"bytes"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// The module file workers map is sealed: nobody can change the bytes the
// parent checked, and a worker refuses a file that is not sealed.
func TestModuleFileIsSealed(t *testing.T) {
	data := []byte("\x00asm\x01\x00\x00\x00 module bytes")
	f, err := moduleFile(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte("X"), 0); err == nil {
		t.Error("wrote into a sealed module file")
	}
	if err := f.Truncate(1); err == nil {
		t.Error("shrank a sealed module file")
	}
	got, err := mapModule(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Errorf("mapped %q, want %q", got, data)
	}
	unix.Munmap(got)

	fd, err := unix.MemfdCreate("unsealed", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	unsealed := os.NewFile(uintptr(fd), "unsealed")
	defer unsealed.Close()
	unsealed.Write(data)
	if _, err := mapModule(int(unsealed.Fd())); err == nil {
		t.Error("mapped an unsealed module file")
	}
}

// A module sent over the pipe (where there is no sealed file) is hashed by
// the worker, which refuses bytes that are not the ones the parent checked.
func TestWorkerRefusesPipedModuleWithOtherDigest(t *testing.T) {
	var in, out bytes.Buffer
	w := bufio.NewWriter(&in)
	if err := writeFrame(w, struct{}{}, []byte("\x00asm\x01\x00\x00\x00")); err != nil {
		t.Fatal(err)
	}
	spec := workerSpec{File: "x.wasm", Digest: "0000000000000000000000000000000000000000000000000000000000000000", CacheDir: "-", MemoryBytes: 64 << 20}
	serveWorker(spec, &in, &out)
	var hi hello
	if _, err := readFrame(bufio.NewReader(&out), &hi); err != nil {
		t.Fatal(err)
	}
	if hi.Error == nil || hi.Error.Fault != FaultDigest {
		t.Fatalf("hello %+v, want a digest fault", hi)
	}
}

// Where there is no sealed file, the module goes over the pipe; the worker
// hashes it, loads it and serves calls.
func TestWorkerServesPipedModule(t *testing.T) {
	digest, data, err := Digest(plugins(t)["minimal"])
	if err != nil {
		t.Fatal(err)
	}
	var in, out bytes.Buffer
	w := bufio.NewWriter(&in)
	writeFrame(w, struct{}{}, data)
	writeFrame(w, request{Export: "describe"}, nil)
	spec := workerSpec{File: "minimal.wasm", Digest: digest, CacheDir: "-", MemoryBytes: 64 << 20}
	if code := serveWorker(spec, &in, &out); code != 0 {
		t.Fatalf("worker exited %d", code)
	}
	r := bufio.NewReader(&out)
	var hi hello
	if _, err := readFrame(r, &hi); err != nil || hi.Error != nil || hi.Describe.Name == "" {
		t.Fatalf("hello %+v, %v", hi, err)
	}
	var resp response
	output, err := readFrame(r, &resp)
	if err != nil || resp.Error != nil || !bytes.Contains(output, []byte(`"abi_version"`)) {
		t.Fatalf("describe: %+v %q %v", resp, output, err)
	}
}

// A worker with shared memory reads an input from it and writes its
// output there when they fit, and takes and gives through the pipe what
// does not fit; a request that claims more shared bytes than there are
// ends the worker.
func TestWorkerSharedMemory(t *testing.T) {
	digest, data, err := Digest(plugins(t)["native"])
	if err != nil {
		t.Fatal(err)
	}
	const half = 64
	sh, f, err := newShared(half)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	defer sh.unmap()
	spec := workerSpec{File: "native.wasm", Digest: digest, CacheDir: "-", MemoryBytes: 64 << 20, SharedFD: int(f.Fd()), SharedHalf: half}

	small, big := []byte("a short input"), bytes.Repeat([]byte("x"), 3*half)
	var in, out bytes.Buffer
	w := bufio.NewWriter(&in)
	writeFrame(w, struct{}{}, data)
	writeFrame(w, request{Export: "echo", Shared: sh.put((*shared).input, small)}, nil)
	writeFrame(w, request{Export: "echo"}, big)
	if code := serveWorker(spec, &in, &out); code != 0 {
		t.Fatalf("worker exited %d", code)
	}
	r := bufio.NewReader(&out)
	var hi hello
	if _, err := readFrame(r, &hi); err != nil || hi.Error != nil {
		t.Fatalf("hello %+v, %v", hi, err)
	}
	var resp response
	payload, err := readFrame(r, &resp)
	if err != nil || resp.Error != nil || len(payload) != 0 || resp.Shared != len(small) {
		t.Fatalf("small echo: %+v %q %v, want its %d bytes in shared memory", resp, payload, err, len(small))
	}
	if got := sh.output()[:resp.Shared]; !bytes.Equal(got, small) {
		t.Errorf("shared output %q, want %q", got, small)
	}
	resp = response{}
	payload, err = readFrame(r, &resp)
	if err != nil || resp.Error != nil || resp.Shared != 0 || !bytes.Equal(payload, big) {
		t.Fatalf("big echo: %+v, %d bytes, %v; want its %d bytes through the pipe", resp, len(payload), err, len(big))
	}

	in.Reset()
	out.Reset()
	w = bufio.NewWriter(&in)
	writeFrame(w, struct{}{}, data)
	writeFrame(w, request{Export: "echo", Shared: half + 1}, nil)
	if code := serveWorker(spec, &in, &out); code != 2 {
		t.Errorf("a request for %d shared bytes of %d: worker exited %d, want 2", half+1, half, code)
	}
}
