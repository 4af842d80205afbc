// Command wasmeval evaluates submissions against problems described as
// data. See `wasmeval --help`.
//
// Exit codes: 0 when every evaluated checkpoint passes its policy, 1 when
// one does not, 2 for usage or configuration errors, 130 when interrupted.
package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/wasmeval/wasmeval/plugins/host"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	exitPass  = 0
	exitFail  = 1
	exitUsage = 2
	// exitInconclusive: no checkpoint failed, but errors of the harness
	// decide one's verdict.
	exitInconclusive = 3
	exitInterrupted  = 130
)

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func usageErr(err error) error { return &exitError{code: exitUsage, err: err} }

func main() {
	// A plugin worker is this binary started by the plugin host; it serves
	// plugin calls and never returns from here.
	host.ServeWorker()
	os.Exit(execute(os.Args[1:]))
}

func execute(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRoot()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitPass
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(os.Stderr, "wasmeval:", ee.err)
		}
		return ee.code
	}
	// Flag parsing and unknown commands.
	fmt.Fprintln(os.Stderr, "wasmeval:", err)
	return exitUsage
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "wasmeval",
		Short: "Evaluate submissions against checkpointed problems",
		Long: `wasmeval runs every case of a problem against a submission, checks each
result and writes reports.

Exit codes: 0 pass, 1 fail, 2 usage or configuration error, 130 interrupted.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
	}
	root.AddCommand(newRunCmd(), newRescoreCmd(), newValidateCmd(), newPluginCmd(), newReportCmd(), newEnvCmd(), newBatchCmd(), newWorkerCmd())
	return root
}

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// commit is set at build time with -ldflags "-X main.commit=$(git rev-parse HEAD)"
// (Go's own VCS stamp is used when it is empty); run manifests record it.
var commit = ""
