package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/spf13/cobra"

	"github.com/wasmeval/wasmeval/engine/plugincall"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// inputExports are the exports an input file's name can start with, the
// longest first so verify_batch.json is a batch call, not a verify one.
var inputExports = []string{"verify_batch", "evaluate_batch", "test_batch", "load_cases", "describe", "evaluate", "verify", "setup", "mock", "test"}

// exportOf infers the export an input file is for from its name: the
// export its name starts with, followed by the end, '_', '-' or '.'
// (verify.json, verify_wrong.json, test-unicode.json).
func exportOf(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), ".json")
	for _, e := range inputExports {
		if rest, ok := strings.CutPrefix(base, e); ok && (rest == "" || strings.ContainsAny(rest[:1], "_-.")) {
			return e
		}
	}
	return ""
}

func newPluginTestCmd() *cobra.Command {
	var pf pluginFlags
	var export, assets string
	cmd := &cobra.Command{
		Use:   "test INPUTS_DIR PLUGIN.wasm [OTHER.wasm...]",
		Short: "Run every input of a directory through one or more plugins and diff their outputs",
		Long: `Run every input of INPUTS_DIR (its *.json files, not those ending in
.expected.json) through each plugin, and compare the outputs as canonical
JSON (keys sorted, no spaces, numbers as written): with NAME.expected.json
beside the input when there is one, else with the first plugin's output.
This is how a port of a plugin to another language, or a new version, is
checked against the old one.

The export called is --export, else the one the file's name starts with,
followed by the end, '_', '-' or '.': verify.json and verify_wrong.json
call verify, evaluate-long.json evaluate, load_cases.json load_cases,
test_unicode.json test (also describe, setup, mock and the _batch forms).

Each input is listed with ok or DIFF per plugin, and a unified diff of
each difference (indented JSON, expected or first plugin first). The exit
status is 1 on any difference or failed call, 0 when all agree.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			inputs, err := inputFiles(args[0])
			if err != nil {
				return usageErr(err)
			}
			if assets != "" {
				if assets, err = filepath.Abs(assets); err != nil {
					return usageErr(err)
				}
			}
			h, err := pf.newHost(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer h.Close()
			var plugins []*host.Plugin
			for _, file := range args[1:] {
				p, err := h.Load(cmd.Context(), file, "")
				if err != nil {
					return usageErr(err)
				}
				plugins = append(plugins, p)
			}
			w := cmd.OutOrStdout()
			failed := 0
			for _, in := range inputs {
				ex := export
				if ex == "" {
					if ex = exportOf(in); ex == "" {
						return usageErr(fmt.Errorf("%s: cannot tell the export to call from the file's name (expected it to start with one of %s); give --export", in, strings.Join(inputExports, ", ")))
					}
				}
				n, err := testOneInput(cmd, w, in, ex, args[1:], plugins, assets)
				if err != nil {
					return usageErr(err)
				}
				failed += n
			}
			if failed > 0 {
				return &exitError{code: exitFail, err: fmt.Errorf("%d of %d outputs differ or failed", failed, len(inputs)*len(plugins))}
			}
			fmt.Fprintf(w, "all %d outputs agree\n", len(inputs)*len(plugins))
			return nil
		},
	}
	cmd.Flags().StringVar(&export, "export", "", "export to call with every input (default: from each file's name)")
	cmd.Flags().StringVar(&assets, "assets", "", "directory read_asset reads from (e.g. the problem directory)")
	pf.register(cmd.Flags())
	return cmd
}

// inputFiles lists dir's inputs, sorted by name.
func inputFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("inputs: %w", err)
	}
	var files []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".expected.json") {
			continue
		}
		files = append(files, filepath.Join(dir, name))
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("inputs: %s holds no *.json input", dir)
	}
	sort.Strings(files)
	return files, nil
}

// testOneInput calls every plugin with one input and reports each output;
// it returns how many differ or failed. An error is a bad input file.
func testOneInput(cmd *cobra.Command, w io.Writer, in, export string, names []string, plugins []*host.Plugin, assets string) (int, error) {
	data, err := os.ReadFile(in)
	if err != nil {
		return 0, err
	}
	if !json.Valid(data) {
		return 0, fmt.Errorf("%s: not valid JSON", in)
	}
	// The reference: the expected output beside the input, else the first
	// plugin's.
	var ref []byte
	refName := ""
	expFile := strings.TrimSuffix(in, ".json") + ".expected.json"
	if exp, err := os.ReadFile(expFile); err == nil {
		if ref, err = canonicalOutput(exp); err != nil {
			return 0, fmt.Errorf("%s: %v", expFile, err)
		}
		refName = filepath.Base(expFile)
	} else if !os.IsNotExist(err) {
		return 0, err
	}
	fmt.Fprintf(w, "%s [%s]\n", filepath.Base(in), export)
	failed := 0
	for i, p := range plugins {
		if !slices.Contains(p.Exports(), export) {
			fmt.Fprintf(w, "  FAIL  %s: no export %q\n", names[i], export)
			failed++
			continue
		}
		out, err := p.Call(cmd.Context(), export, data, host.CallOptions{Assets: plugincall.ProblemAssets(assets)})
		if err != nil {
			fmt.Fprintf(w, "  FAIL  %s: %v\n", names[i], err)
			failed++
			continue
		}
		got, err := canonicalOutput(out)
		if err != nil {
			fmt.Fprintf(w, "  FAIL  %s: the output is not JSON: %v\n", names[i], err)
			failed++
			continue
		}
		if ref == nil {
			ref, refName = got, names[i]
			fmt.Fprintf(w, "  ok    %s\n", names[i])
			continue
		}
		if bytes.Equal(got, ref) {
			fmt.Fprintf(w, "  ok    %s\n", names[i])
			continue
		}
		failed++
		fmt.Fprintf(w, "  DIFF  %s: differs from %s\n", names[i], refName)
		fmt.Fprint(w, indentDiff(udiff.Unified(refName, names[i], indentedJSON(ref), indentedJSON(got)), maxDiffLines))
	}
	return failed, nil
}

// maxDiffLines caps each diff shown: the first differences are what an
// author looks at.
const maxDiffLines = 40

// canonicalOutput writes a JSON document with its keys sorted, no spaces
// and numbers as written (1.0 stays 1.0: the SDKs write numbers in one
// form, which a port must match).
func canonicalOutput(data []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the JSON document")
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func indentedJSON(canonical []byte) string {
	var b bytes.Buffer
	if json.Indent(&b, canonical, "", "  ") != nil {
		return string(canonical) + "\n"
	}
	return b.String() + "\n"
}

// indentDiff indents a diff under its plugin's line, at most max lines.
func indentDiff(s string, max int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == max {
			fmt.Fprintf(&b, "        … %d more lines\n", len(lines)-max)
			break
		}
		b.WriteString("        " + l + "\n")
	}
	return b.String()
}
