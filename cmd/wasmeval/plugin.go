package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wasmeval/wasmeval/engine/plugincall"
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
)

func newPluginCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "Inspect, call, publish, sign and lock Wasm plugins",
	}
	cmd.AddCommand(newPluginInspectCmd(), newPluginCallCmd())
	cmd.AddCommand(newPluginShareCmds()...)
	cmd.AddCommand(newPluginSignCmds()...)
	cmd.AddCommand(newPluginLockCmd())
	cmd.AddCommand(newPluginNewCmd(), newPluginTestCmd())
	return cmd
}

func newPluginInspectCmd() *cobra.Command {
	var pf pluginFlags
	var sf shareFlags
	var offline bool
	cmd := &cobra.Command{
		Use:   "inspect FILE|REF",
		Short: "Show a plugin's digest, size, exports, kinds, ABI version and describe output",
		Long: `Show a plugin's digest, size, exports, kinds, ABI version and describe
output, and the provenance recorded beside it (FILE.provenance.json). Given a
reference (oci://HOST/REPO:TAG or @sha256:DIGEST; oci:// may be left out when
no file of that name exists), show the published artifact
instead: its digests, describe output, annotations (provenance among them) and
signatures; it is pulled into the plugin cache first, or read from there with
--offline.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if refArg(args[0]) {
				ref, err := parseRef(args[0])
				if err != nil {
					return err
				}
				return inspectRef(cmd, ref, sf, offline)
			}
			p, closeHost, err := pf.load(cmd, args[0])
			if err != nil {
				return err
			}
			defer closeHost()
			d := p.Describe()
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "file:     %s\n", p.File())
			fmt.Fprintf(w, "sha256:   %s\n", p.Digest())
			fmt.Fprintf(w, "size:     %d bytes\n", p.Size())
			fmt.Fprintf(w, "name:     %s %s\n", d.Name, d.Version)
			fmt.Fprintf(w, "abi:      %d\n", d.ABIVersion)
			fmt.Fprintf(w, "kinds:    %s\n", strings.Join(d.Kinds, ", "))
			transport := d.Transport
			if transport == "" {
				transport = abi.TransportExtism
			}
			fmt.Fprintf(w, "transport: %s\n", transport)
			if len(d.Batch) > 0 {
				fmt.Fprintf(w, "batches:  %s\n", strings.Join(d.Batch, ", "))
			}
			fmt.Fprintf(w, "exports:  %s\n", strings.Join(p.Exports(), ", "))
			if len(d.Functions) > 0 {
				fmt.Fprintf(w, "functions: %s\n", strings.Join(d.Functions, ", "))
			}
			desc, _ := json.MarshalIndent(d, "", "  ")
			fmt.Fprintf(w, "describe: %s\n", desc)
			return inspectProvenanceFile(w, args[0])
		},
	}
	pf.register(cmd.Flags())
	sf.register(cmd.Flags())
	cmd.Flags().BoolVar(&offline, "offline", false, "for a REF: read it from the plugin cache only")
	return cmd
}

func newPluginCallCmd() *cobra.Command {
	var pf pluginFlags
	var input, assets string
	cmd := &cobra.Command{
		Use:   "call FILE EXPORT",
		Short: "Call one export of a plugin with a JSON input and print its output",
		Long: `Call one export of a plugin with a JSON input (--input '{...}' or
--input @file.json) and print the output. The plugin runs in the same sandbox
as during an evaluation; --assets names the directory read_asset reads from.
Faults (trap, timeout, memory cap, invalid output) are reported as errors.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			data := []byte(input)
			if strings.HasPrefix(input, "@") {
				var err error
				if data, err = os.ReadFile(input[1:]); err != nil {
					return usageErr(fmt.Errorf("--input: %w", err))
				}
			}
			if input != "" && !json.Valid(data) {
				return usageErr(fmt.Errorf("--input is not valid JSON"))
			}
			p, closeHost, err := pf.load(cmd, args[0])
			if err != nil {
				return err
			}
			defer closeHost()
			if !slices.Contains(p.Exports(), args[1]) {
				return usageErr(fmt.Errorf("plugin %s has no export %q (its exports: %s)", p.Label(), args[1], strings.Join(p.Exports(), ", ")))
			}
			// Say (on stderr) when the input does not match the export's
			// envelope; it is sent anyway, since an author may be testing
			// how the plugin takes a bad one.
			inSchema, outSchema := host.EnvelopeSchemas(args[1])
			if inSchema != "" {
				if input == "" {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: no --input given; %s is called with an empty input\n", args[1])
				} else if err := host.ValidateEnvelope(inSchema, data); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: the input %v\n", err)
				}
			}
			if assets != "" {
				if assets, err = filepath.Abs(assets); err != nil {
					return usageErr(err)
				}
			}
			out, err := p.Call(cmd.Context(), args[1], data, host.CallOptions{Assets: plugincall.ProblemAssets(assets)})
			if err != nil {
				return &exitError{code: exitFail, err: err}
			}
			w := cmd.OutOrStdout()
			w.Write(out)
			if len(out) > 0 && out[len(out)-1] != '\n' {
				fmt.Fprintln(w)
			}
			// An output that does not match its envelope is the plugin's
			// fault, as it would be in an evaluation: it is printed for
			// the author to read, and the command fails.
			if outSchema != "" {
				if err := host.ValidateEnvelope(outSchema, out); err != nil {
					return &exitError{code: exitFail, err: fmt.Errorf("plugin %s: the %s output %v", p.Label(), args[1], err)}
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&input, "input", "", "input JSON, or @FILE")
	cmd.Flags().StringVar(&assets, "assets", "", "directory read_asset reads from (e.g. the problem directory)")
	pf.register(cmd.Flags())
	return cmd
}

// load starts a host and loads one plugin file for the plugin commands; a
// file that is not a usable plugin is a usage error. closeHost releases it.
func (f *pluginFlags) load(cmd *cobra.Command, file string) (p *host.Plugin, closeHost func(), err error) {
	h, err := f.newHost(cmd.ErrOrStderr())
	if err != nil {
		return nil, nil, err
	}
	if p, err = h.Load(cmd.Context(), file, ""); err != nil {
		h.Close()
		return nil, nil, usageErr(err)
	}
	return p, func() { h.Close() }, nil
}
