//go:build linux

package executor

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pair is an engine-side Conn talking to an in-process executor.
func pair(t *testing.T) *Conn {
	t.Helper()
	a, b := net.Pipe()
	go Serve(b)
	x, err := Handshake(a, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// A peer that speaks another version is refused, on either side, with a
// message that names both versions.
func TestHandshakeRefusesAnotherVersion(t *testing.T) {
	t.Run("executor", func(t *testing.T) {
		a, b := net.Pipe()
		go func() {
			writeJSON(b, Hello{Protocol: Protocol, Version: Version + 1})
			io.Copy(io.Discard, b)
		}()
		_, err := Handshake(a, time.Now().Add(time.Minute))
		var ve *VersionError
		if !errors.As(err, &ve) || ve.Got != Version+1 || !strings.Contains(err.Error(), "speaks protocol version 2, this side speaks 1") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("not an executor", func(t *testing.T) {
		a, b := net.Pipe()
		go func() {
			writeFrame(b, kindJSON, []byte(`{"hello":"world"}`))
			io.Copy(io.Discard, b)
		}()
		_, err := Handshake(a, time.Now().Add(time.Minute))
		if err == nil || !strings.Contains(err.Error(), "did not open with a wasmeval-docker-executor hello") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("engine", func(t *testing.T) {
		a, b := net.Pipe()
		done := make(chan error, 1)
		go func() { done <- Serve(b) }()
		if _, _, err := readFrame(a); err != nil {
			t.Fatal(err)
		}
		writeJSON(a, Hello{Protocol: Protocol, Version: 7})
		kind, payload, err := readFrame(a)
		if err != nil || kind != kindJSON || !strings.Contains(string(payload), "the engine speaks protocol version 7, this side speaks 1") {
			t.Fatalf("executor answered %q %q %v", kind, payload, err)
		}
		if err := <-done; err == nil {
			t.Error("the executor served a peer of another version")
		}
	})
}

func TestFramesAreBounded(t *testing.T) {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, uint32(maxFrame+1))
	if _, _, err := readFrame(&b); err == nil || !strings.Contains(err.Error(), "frame of") {
		t.Errorf("oversized frame: %v", err)
	}
	b.Reset()
	binary.Write(&b, binary.BigEndian, uint32(0))
	if _, _, err := readFrame(&b); err == nil {
		t.Error("empty frame accepted")
	}
	b.Reset()
	binary.Write(&b, binary.BigEndian, uint32(10))
	b.WriteString("J{")
	if _, _, err := readFrame(&b); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("torn frame: %v", err)
	}
	if err := writeFrame(io.Discard, kindStdout, make([]byte, maxFrame)); err == nil {
		t.Error("oversized frame written")
	}
}

func TestRunCase(t *testing.T) {
	x := pair(t)
	dir := t.TempDir()
	var out, errb bytes.Buffer
	rep, err := x.Run(context.Background(), Request{
		Argv: []string{"sh", "-c", `cat; echo "$A" >&2; pwd; exit 3`}, Env: []string{"A=1", "PATH=/usr/bin:/bin"}, Dir: dir,
		TimeoutMS: 60_000,
	}, []byte("in\n"), &out, &errb, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Op != "exited" || rep.Code != 3 || out.String() != "in\n"+dir+"\n" || errb.String() != "1\n" || rep.Usage == nil {
		t.Fatalf("%+v %q %q", rep, out.String(), errb.String())
	}
}

func TestRunCapsOutputAndTimesOut(t *testing.T) {
	x := pair(t)
	var out, errb bytes.Buffer
	rep, err := x.Run(context.Background(), Request{
		Argv: []string{"sh", "-c", `head -c 300000 /dev/zero; sleep 600 & sleep 600`}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: t.TempDir(),
		TimeoutMS: 500, OutputCap: 1000,
	}, nil, &out, &errb, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Timed || rep.Signal != 9 || rep.Code != 137 || out.Len() != 1000 || rep.StdoutDropped != 299000 || rep.Left != 0 {
		t.Fatalf("%+v len %d", rep, out.Len())
	}
}

func TestRunStartErrors(t *testing.T) {
	x := pair(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "data.txt"), []byte("x"), 0o644)
	for argv, want := range map[string]string{"no-such-program-xyz": "start no-such-program-xyz: not found in PATH (/bin)", "./missing.sh": "no such file", "./data.txt": "not an executable"} {
		rep, err := x.Run(context.Background(), Request{Argv: []string{argv}, Env: []string{"PATH=/bin"}, Dir: dir}, []byte("ignored"), io.Discard, io.Discard, time.Minute)
		if err != nil || rep.Op != "error" || !strings.Contains(rep.Error, want) {
			t.Errorf("%s: %+v %v", argv, rep, err)
		}
	}
}

func TestCanceledRunIsKilled(t *testing.T) {
	x := pair(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	rep, err := x.Run(ctx, Request{Argv: []string{"sleep", "600"}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: t.TempDir()}, nil, io.Discard, io.Discard, time.Minute)
	if err != nil || rep.Code != 137 {
		t.Fatalf("%+v %v", rep, err)
	}
}

func TestEmptyDoesNotFollowLinks(t *testing.T) {
	x := pair(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "keep"), []byte("k"), 0o644)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a/b"), 0o755)
	os.WriteFile(filepath.Join(dir, "a/b/f"), []byte("f"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "link"))
	rep, err := x.Call(Request{Op: "empty", Dir: dir}, time.Minute)
	if err != nil || rep.Op != "emptied" || rep.Error != "" {
		t.Fatalf("%+v %v", rep, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %v", ents)
	}
	if _, err := os.Stat(filepath.Join(outside, "keep")); err != nil {
		t.Errorf("followed the link: %v", err)
	}
}

// A stream that ends mid-case is a LostError.
func TestLostExecutor(t *testing.T) {
	a, b := net.Pipe()
	go func() {
		writeJSON(b, Hello{Protocol: Protocol, Version: Version})
		readFrame(b)
		writeJSON(b, Reply{Op: "ready"})
		readFrame(b)
		b.Close()
	}()
	x, err := Handshake(a, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	_, err = x.Run(context.Background(), Request{Argv: []string{"true"}}, nil, io.Discard, io.Discard, time.Minute)
	var le *LostError
	if !errors.As(err, &le) {
		t.Fatalf("got %v", err)
	}
}
