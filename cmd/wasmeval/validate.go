package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wasmeval/wasmeval/engine/envspec"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/run"
)

func newValidateCmd() *cobra.Command {
	var pf pluginFlags
	var rf refFlags
	var mountRoots []string
	cmd := &cobra.Command{
		Use:   "validate PROBLEM",
		Short: "Check a problem's configuration and every case file, reporting all problems at once",
		Long: `Check a problem's configuration and every case file without running
anything, reporting all problems at once: every group's cases are loaded,
loader plugins included, and checked against the adapter (an expected
value no attribute of the adapter produces is an error). On success it
lists, per group, how many cases were validated and which loader read
them.

Every path the problem names must stay inside the problem directory, also
after resolving symlinks, unless it lies under a directory given with
--mount-root (the same flag run takes).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			plugins, err := pf.newHost(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer plugins.Close()
			src, err := loadSource(args[0], sourceOptions{pluginDirs: pf.dirs, mountRoots: mountRoots, refs: rf.runRefs(cmd.Context(), args[0]), functions: functionsOf(cmd.Context(), plugins), setup: setupOf(cmd.Context(), plugins)})
			if err != nil {
				return usageErr(fmt.Errorf("invalid problem:\n%w", err))
			}
			p := src.problem
			if err := checkEnvironmentCommand(p, mountRoots); err != nil {
				return usageErr(fmt.Errorf("invalid problem:\n%w", err))
			}
			groups, err := run.ValidateGroups(run.WithWarnings(cmd.Context(), printWarning(cmd.ErrOrStderr())), p, src.loader, plugins)
			if err != nil {
				return usageErr(fmt.Errorf("invalid problem:\n%w", err))
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "%s: ok, %s (%d checkpoints, %d groups)\n", p.Name, src.format, len(p.Checkpoints), len(groups))
			for _, g := range groups {
				fmt.Fprintf(out, "  %s/%s: %d cases, %s\n", g.Checkpoint, g.Group, g.Cases, g.Loader)
				if g.Partial != "" {
					fmt.Fprintf(out, "    note: %s\n", g.Partial)
				}
			}
			return nil
		},
	}
	pf.register(cmd.Flags())
	rf.register(cmd.Flags())
	cmd.Flags().StringArrayVar(&mountRoots, "mount-root", nil, "host directory outside the problem that its paths may name (repeatable)")
	return cmd
}

// checkEnvironmentCommand checks the command template of the environment
// spec the problem names, as a run would before it starts: its
// placeholders must be ones the submission gets.
func checkEnvironmentCommand(p *problem.Problem, mountRoots []string) error {
	if p.Environment == "" {
		return nil
	}
	spec, err := envspec.Load(p.Environment, append([]string{p.Dir}, mountRoots...)...)
	if err != nil {
		return err
	}
	return run.CheckCommand(p, spec.Command, p.Environment+": command")
}
