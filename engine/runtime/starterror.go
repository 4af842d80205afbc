package runtime

import (
	"errors"
	"fmt"
	"syscall"
)

// StartError is the error of a program name that could not be started.
// The kernel's "exec format error" is what a script without a #! line
// gets (a shell would run it with sh, exec does not), and it says
// nothing of that; the message says what to add.
func StartError(name string, err error) error {
	if errors.Is(err, syscall.ENOEXEC) {
		return fmt.Errorf("start %s: not a program this system can run (%w): a script needs a first line naming its interpreter, such as #!/bin/sh", name, err)
	}
	return fmt.Errorf("start %s: %w", name, err)
}
