//go:build linux

package local

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"golang.org/x/sys/unix"
)

// The engine and a launcher talk over a Unix stream socket: each message is
// a 4-byte big-endian length and a JSON body, sent in one sendmsg with the
// file descriptors it carries (a program's stdin, stdout and stderr).

// launchFD is the launcher's end of the socket.
const launchFD = 3

// maxMessage bounds a message: a program's argv and environment together
// stay far below it (the kernel's own limit for both is a few MiB).
const maxMessage = 64 << 20

// request is what the engine asks of a launcher.
type request struct {
	// Op is "setup" (the first message), "run" or "kill".
	Op    string       `json:"op"`
	Setup *launchSetup `json:"setup,omitempty"`
	Run   *programSpec `json:"run,omitempty"`
}

// launchSetup is how the launcher contains what it runs, for its life.
type launchSetup struct {
	// Namespaces says the launcher is the first process of fresh PID and
	// mount namespaces: it mounts a /proc of its own, the binds and the
	// covers. Otherwise it is a child subreaper in the host's.
	Namespaces bool `json:"namespaces,omitempty"`
	// Binds are read-only bind mounts made before the covers (static
	// assets, seen at a path inside the session directory).
	Binds []bindMount `json:"binds,omitempty"`
	// Hide are directories covered with an empty read-only tmpfs: the
	// problem and run directories (expected outputs, the journal).
	Hide []string `json:"hide,omitempty"`
	// Guard is the session directory: with namespaces it is made
	// read-only, and each program's directory (the workspace, which
	// resets swap for a fresh copy) is bound writable inside it, so a
	// program can change its workspace but not what surrounds it — the
	// spare copy being prepared, the workspace's own name.
	Guard string `json:"guard,omitempty"`
	// Siblings is the directory holding every session of the runtime,
	// Guard among them: it is covered with an empty read-only tmpfs in
	// which Guard alone is bound back, so a group's processes cannot
	// reach another group's workspace (agents of two groups running at
	// once would otherwise read and write each other's sandboxes).
	Siblings string `json:"siblings,omitempty"`
	// Uid and Gid are the engine's. With namespaces each program runs in
	// a user namespace of its own below the launcher's, as Uid and Gid
	// again: it has no capability over the mount namespace, so even a
	// program running as root cannot unmount the covers.
	Uid int `json:"uid"`
	Gid int `json:"gid"`
	// Probe asks the launcher to set up and exit, running nothing.
	Probe bool `json:"probe,omitempty"`
}

type bindMount struct {
	Source string `json:"source"`
	Target string `json:"target"`
}

// programSpec is one program to run. Its stdout and stderr (then stdin,
// when Stdin is set) come with the message.
type programSpec struct {
	Path  string   `json:"path"`
	Argv  []string `json:"argv"`
	Env   []string `json:"env"`
	Dir   string   `json:"dir"`
	Stdin bool     `json:"stdin,omitempty"`
	// Workspace counts the fresh copies put in place of the workspace (at
	// Dir): the launcher binds it again when the count changed.
	Workspace int `json:"workspace,omitempty"`
	// MemoryBytes is RLIMIT_DATA for the program and everything it starts,
	// set before its first instruction; 0 means none.
	MemoryBytes int64 `json:"memory_bytes,omitempty"`
}

// reply is what a launcher answers.
type reply struct {
	// Op is "ready" (setup done); then for each run request "exited" or,
	// when the program could not start, "error".
	Op     string `json:"op"`
	Code   int    `json:"code,omitempty"`
	Signal int    `json:"signal,omitempty"`
	Error  string `json:"error,omitempty"`
}

// sendMessage writes v as one message, with files attached.
func sendMessage(fd int, v any, files ...int) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	msg := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(body)), uint32(len(body)))
	msg = append(msg, body...)
	var oob []byte
	if len(files) > 0 {
		oob = unix.UnixRights(files...)
	}
	n, err := unix.SendmsgN(fd, msg, oob, nil, 0)
	for errors.Is(err, unix.EINTR) {
		n, err = unix.SendmsgN(fd, msg, oob, nil, 0)
	}
	for err == nil && n < len(msg) {
		// The rest of a long message goes without the files, which went
		// with its first bytes.
		var m int
		m, err = unix.Write(fd, msg[n:])
		if errors.Is(err, unix.EINTR) {
			err = nil
			continue
		}
		n += m
	}
	return err
}

// recvMessage reads one message into v and returns the files that came
// with it. io.EOF means the other end closed the socket.
func recvMessage(fd int, v any) ([]int, error) {
	head := make([]byte, 4)
	oob := make([]byte, unix.CmsgSpace(4*4))
	var n, oobn int
	var err error
	for {
		n, oobn, _, _, err = unix.Recvmsg(fd, head, oob, unix.MSG_CMSG_CLOEXEC)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	var files []int
	if oobn > 0 {
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err == nil {
			for _, m := range msgs {
				if fds, err := unix.ParseUnixRights(&m); err == nil {
					files = append(files, fds...)
				}
			}
		}
	}
	if n == 0 {
		closeAll(files)
		return nil, io.EOF
	}
	if err := readFull(fd, head[n:]); err != nil {
		closeAll(files)
		return nil, err
	}
	size := binary.BigEndian.Uint32(head)
	if size > maxMessage {
		closeAll(files)
		return nil, fmt.Errorf("launcher message of %d bytes", size)
	}
	body := make([]byte, size)
	if err := readFull(fd, body); err != nil {
		closeAll(files)
		return nil, err
	}
	if err := json.Unmarshal(body, v); err != nil {
		closeAll(files)
		return nil, fmt.Errorf("decode launcher message: %w", err)
	}
	return files, nil
}

func readFull(fd int, buf []byte) error {
	for len(buf) > 0 {
		n, err := unix.Read(fd, buf)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return err
		case n == 0:
			return io.ErrUnexpectedEOF
		}
		buf = buf[n:]
	}
	return nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}
