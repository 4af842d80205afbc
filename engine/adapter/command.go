package adapter

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/placeholder"
	"github.com/wasmeval/wasmeval/engine/shellwords"
)

// EntryCommand resolves how a submission is started: the command template
// (e.g. "python3 {entry_file}") with {entry_file} substituted, split into
// argv shell-style.
//
// entryFile may name the file exactly or without its extension, as
// SlopCodeBench problems do ("solution" finds "solution.py"). When template
// is empty it is inferred from the entry file's extension.
func EntryCommand(submission, entryFile, template string) ([]string, error) {
	st, err := os.Stat(submission)
	if err != nil {
		return nil, fmt.Errorf("submission %s: %w", submission, diag.UnwrapPathError(err))
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("submission %s is not a directory", submission)
	}
	entry := ""
	if entryFile != "" {
		entry, err = findEntry(submission, entryFile)
		if err != nil {
			return nil, err
		}
	}
	if template == "" {
		template = defaultTemplate(entry)
	}
	argv, err := shellwords.Split(template)
	if err != nil {
		return nil, fmt.Errorf("command template %q: %w", template, err)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("command template %q is empty", template)
	}
	if strings.Contains(template, placeholder.EntryFile) && entry == "" {
		return nil, fmt.Errorf("command template %q uses %s but the problem sets no entry_file", template, placeholder.EntryFile)
	}
	for i, a := range argv {
		argv[i] = placeholder.Expand(a, map[string]string{placeholder.EntryFile: entry})
	}
	return argv, nil
}

func findEntry(submission, entryFile string) (string, error) {
	if !filepath.IsLocal(filepath.FromSlash(entryFile)) {
		return "", fmt.Errorf("entry_file %q must be a path inside the submission", entryFile)
	}
	if st, err := os.Stat(filepath.Join(submission, entryFile)); err == nil && !st.IsDir() {
		return entryFile, nil
	}
	matches, _ := filepath.Glob(filepath.Join(submission, globEscape(entryFile)+".*"))
	sort.Strings(matches)
	var files []string
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil && !st.IsDir() {
			files = append(files, m)
		}
	}
	switch len(files) {
	case 0:
		return "", fmt.Errorf("entry file %q not found in submission %s", entryFile, submission)
	case 1:
		rel, _ := filepath.Rel(submission, files[0])
		return filepath.ToSlash(rel), nil
	default:
		return "", fmt.Errorf("entry file %q is ambiguous in submission %s (found %d candidates); set a `command` template", entryFile, submission, len(files))
	}
}

func defaultTemplate(entry string) string {
	switch strings.ToLower(filepath.Ext(entry)) {
	case ".py":
		return "python3 {entry_file}"
	case ".js", ".mjs", ".cjs":
		return "node {entry_file}"
	case ".sh":
		return "sh {entry_file}"
	case ".rb":
		return "ruby {entry_file}"
	case ".pl":
		return "perl {entry_file}"
	}
	return "./{entry_file}"
}

func globEscape(s string) string {
	r := strings.NewReplacer("*", `\*`, "?", `\?`, "[", `\[`)
	return r.Replace(s)
}
