//go:build unix

package confine

import "syscall"

// OpenFlags make opening a name swapped for a FIFO or a terminal harmless:
// the open does not block and takes no controlling terminal.
const OpenFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
