package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wasmeval/wasmeval/engine/run"
)

func newValidateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate PROBLEM",
		Short: "Check a problem's configuration and every case file, reporting all problems at once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := run.LoadProblem(args[0])
			if err != nil {
				return usageErr(fmt.Errorf("invalid problem:\n%w", err))
			}
			if err := run.Validate(cmd.Context(), p, run.BuiltinLoader); err != nil {
				return usageErr(fmt.Errorf("invalid problem:\n%w", err))
			}
			n := 0
			for _, cp := range p.Checkpoints {
				n += len(cp.Groups)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: ok (%d checkpoints, %d groups)\n", p.Name, len(p.Checkpoints), n)
			return nil
		},
	}
}
