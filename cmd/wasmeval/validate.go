package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wasmeval/wasmeval/engine/run"
)

func newValidateCmd() *cobra.Command {
	var pf pluginFlags
	cmd := &cobra.Command{
		Use:   "validate PROBLEM",
		Short: "Check a problem's configuration and every case file, reporting all problems at once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := run.LoadProblem(args[0], pf.dirs...)
			if err != nil {
				return usageErr(fmt.Errorf("invalid problem:\n%w", err))
			}
			plugins, err := pf.newHost(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer plugins.Close()
			if err := run.Validate(cmd.Context(), p, run.BuiltinLoader, plugins); err != nil {
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
	pf.register(cmd.Flags())
	return cmd
}
