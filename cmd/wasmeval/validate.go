package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wasmeval/wasmeval/engine/run"
)

func newValidateCmd() *cobra.Command {
	var pf pluginFlags
	var mountRoots []string
	cmd := &cobra.Command{
		Use:   "validate PROBLEM",
		Short: "Check a problem's configuration and every case file, reporting all problems at once",
		Long: `Check a problem's configuration and every case file without running
anything, reporting all problems at once.

Every path the problem names must stay inside the problem directory, also
after resolving symlinks, unless it lies under a directory given with
--mount-root (the same flag run takes).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := run.LoadProblemWith(args[0], run.LoadOptions{PluginDirs: pf.dirs, MountRoots: mountRoots})
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
	cmd.Flags().StringArrayVar(&mountRoots, "mount-root", nil, "host directory outside the problem that its paths may name (repeatable)")
	return cmd
}
