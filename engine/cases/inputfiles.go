package cases

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dsnet/compress/bzip2"
	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/strictyaml"
)

// FileTypes are the input file types the built-in loaders write. Content
// given as a YAML structure is serialised as the type says; content given as
// a string is written as is (binary: base64-decoded).
var FileTypes = []string{"text", "binary", "json", "jsonl", "yaml", "csv", "tsv"}

// Compressions are the compressions applied after serialising.
var Compressions = []string{"none", "gzip", "bzip2"}

// rawInputFiles is `input_files`: a list of {path, content, file_type,
// compression} or a mapping path → content.
type rawInputFiles struct {
	files []rawInputFile
	path  string
}

type rawInputFile struct {
	Path        string      `yaml:"path"`
	Content     contentNode `yaml:"content"`
	FileType    string      `yaml:"file_type"`
	Compression string      `yaml:"compression"`
	node        *yaml.Node
	keyPath     string
}

// contentNode keeps the content's YAML node so structured content can be
// serialised with the author's key order.
type contentNode struct{ node *yaml.Node }

func (c *contentNode) DecodeNode(_ *strictyaml.Decoder, n *yaml.Node, _ string) { c.node = n }

func (f *rawInputFiles) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, p string) {
	f.path = p
	switch n.Kind {
	case yaml.SequenceNode:
		for i, item := range strictyaml.Items(n) {
			var rf rawInputFile
			ip := indexPath(p, i)
			d.StructValue(item, ip, reflectValue(&rf))
			rf.node, rf.keyPath = item, ip
			f.files = append(f.files, rf)
		}
	case yaml.MappingNode:
		for _, kv := range strictyaml.MappingPairs(n) {
			f.files = append(f.files, rawInputFile{Path: kv[0].Value, Content: contentNode{kv[1]}, node: kv[0], keyPath: p + "." + kv[0].Value})
		}
	default:
		d.Errorf(n, p, "expected a list of {path, content, file_type, compression} or a mapping path → content, got %s", strictyaml.Describe(n))
	}
}

// materialise turns every entry into the bytes to write, reporting bad
// entries on d.
func (f *rawInputFiles) materialise(d *strictyaml.Decoder) []InputFile {
	var out []InputFile
	seen := map[string]bool{}
	for _, rf := range f.files {
		in, ok := rf.materialise(d)
		if !ok {
			continue
		}
		if seen[in.Path] {
			d.Errorf(rf.node, rf.keyPath, "input file %q is given twice", in.Path)
			continue
		}
		seen[in.Path] = true
		out = append(out, in)
	}
	return out
}

func (rf *rawInputFile) materialise(d *strictyaml.Decoder) (InputFile, bool) {
	pathKey := rf.keyPath + ".path"
	if strings.HasSuffix(rf.keyPath, "."+rf.Path) { // mapping form: the key is the path
		pathKey = rf.keyPath
	}
	if rf.Path == "" {
		d.Errorf(rf.node, pathKey, "missing: every input file needs a path")
		return InputFile{}, false
	}
	if err := CheckRelPath(rf.Path); err != nil {
		d.Errorf(rf.node, pathKey, "%v", err)
		return InputFile{}, false
	}
	ft := rf.FileType
	if ft == "" {
		ft = inferType(rf.Path, rf.Content.node)
	}
	if !slices.Contains(FileTypes, ft) {
		d.Errorf(rf.node, rf.keyPath+".file_type", "unsupported file_type %q (expected one of %s)", ft, strings.Join(FileTypes, ", "))
		return InputFile{}, false
	}
	comp := rf.Compression
	if comp == "" {
		comp = "none"
	}
	if !slices.Contains(Compressions, comp) {
		d.Errorf(rf.node, rf.keyPath+".compression", "unsupported compression %q (expected one of %s)", comp, strings.Join(Compressions, ", "))
		return InputFile{}, false
	}
	data, err := serialise(rf.Content.node, ft)
	if err != nil {
		d.Errorf(rf.Content.node, rf.keyPath+".content", "%s content: %v", ft, err)
		return InputFile{}, false
	}
	if data, err = compress(data, comp); err != nil {
		d.Errorf(rf.node, rf.keyPath+".compression", "%v", err)
		return InputFile{}, false
	}
	return InputFile{Path: rf.Path, Content: data}, true
}

// CheckRelPath refuses paths that would land outside the workspace.
//
// A path is also written plainly, as the file it names is found and
// reported: a/../b, ./a and a/ name files the engine would look for under
// another name (a tracked ./a was never "produced"), and writing one
// failed every run.
func CheckRelPath(p string) error {
	switch {
	case strings.ContainsRune(p, 0):
		return fmt.Errorf("path %q holds a NUL byte", p)
	case p == "" || !filepath.IsLocal(filepath.FromSlash(p)):
		return fmt.Errorf("path %q escapes the workspace (it must be relative and stay inside it)", p)
	case path.Clean(p) == ".":
		return fmt.Errorf("path %q names the workspace itself, not a file in it", p)
	case path.Clean(p) != p:
		return fmt.Errorf("path %q is not written plainly: write %q", p, path.Clean(p))
	}
	return nil
}

// checkInputPaths refuses input files that cannot all be written: one
// inside another (a and a/b: a cannot be a file and a directory). The
// same path twice is the later one replacing the earlier (a case's own
// file replaces one of its directory's), reported by the list that
// declares both.
func checkInputPaths(files []InputFile) error {
	paths := map[string]bool{}
	for _, f := range files {
		paths[f.Path] = true
	}
	for _, f := range files {
		for dir := path.Dir(f.Path); dir != "."; dir = path.Dir(dir) {
			if paths[dir] {
				return fmt.Errorf("input file %q is inside %q, which is an input file too: a path cannot be a file and a directory", f.Path, dir)
			}
		}
	}
	return nil
}

// inferType picks the file type when none is given: text for string
// content, else by extension (JSON when the extension says nothing).
func inferType(p string, n *yaml.Node) string {
	if n == nil || n.Kind == yaml.ScalarNode {
		return "text"
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".jsonl", ".ndjson":
		return "jsonl"
	case ".yaml", ".yml":
		return "yaml"
	case ".csv":
		return "csv"
	case ".tsv":
		return "tsv"
	}
	return "json"
}

func serialise(n *yaml.Node, fileType string) ([]byte, error) {
	if n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return nil, nil
	}
	if n.Kind == yaml.ScalarNode {
		if fileType == "binary" {
			data, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(n.Value), ""))
			if err != nil {
				return nil, fmt.Errorf("binary content must be base64: %v", err)
			}
			return data, nil
		}
		return []byte(n.Value), nil
	}
	switch fileType {
	case "json":
		var buf bytes.Buffer
		if err := writeJSON(&buf, n); err != nil {
			return nil, err
		}
		buf.WriteByte('\n')
		return buf.Bytes(), nil
	case "jsonl":
		if n.Kind != yaml.SequenceNode {
			return nil, fmt.Errorf("expected a list of records, got %s", strictyaml.Describe(n))
		}
		var buf bytes.Buffer
		for _, item := range strictyaml.Items(n) {
			if err := writeJSON(&buf, item); err != nil {
				return nil, err
			}
			buf.WriteByte('\n')
		}
		return buf.Bytes(), nil
	case "yaml":
		budget := strictyaml.AliasBudget(n)
		plain, err := plainYAML(n, &budget)
		if err != nil {
			return nil, err
		}
		return yaml.Marshal(plain)
	case "csv", "tsv":
		return writeTable(n, fileType == "tsv")
	}
	return nil, fmt.Errorf("structured content needs file_type json, jsonl, yaml, csv or tsv, not %s", fileType)
}

// plainYAML returns a copy of n to write as a YAML file of its own: in
// block style, so content written inline in a case file ({a: 1}) is
// still an ordinary YAML file, and with its aliases expanded and merges
// applied (within budget, as for JSON), since the anchors they name may
// lie outside the content: `settings: *cfg` alone is not YAML.
func plainYAML(n *yaml.Node, budget *int) (*yaml.Node, error) {
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("line %d: the content expands its aliases into too many values", n.Line)
	}
	n = strictyaml.Resolve(n)
	c := *n
	c.Anchor = ""
	c.Style &^= yaml.FlowStyle
	var children []*yaml.Node
	switch n.Kind {
	case yaml.MappingNode:
		pairs, err := strictyaml.UniquePairs(n)
		if err != nil {
			return nil, err
		}
		for _, kv := range pairs {
			children = append(children, kv[0], kv[1])
		}
	case yaml.SequenceNode:
		children = strictyaml.Items(n)
	}
	c.Content = make([]*yaml.Node, len(children))
	for i, child := range children {
		var err error
		if c.Content[i], err = plainYAML(child, budget); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

// writeJSON renders a YAML node as JSON keeping mapping key order.
// Aliases are expanded within strictyaml's budget: a few lines of
// anchors must not write gigabytes into a workspace.
func writeJSON(buf *bytes.Buffer, n *yaml.Node) error {
	w := newJSONWriter(buf)
	w.budget = strictyaml.AliasBudget(n)
	return w.node(n)
}

// writeJSONText appends v as JSON, with <, > and & as they are:
// encoding/json's \u003c escapes are for HTML pages, and the text is
// meant to be what the author wrote, as other JSON writers write it.
func writeJSONText(buf *bytes.Buffer, v any) error {
	return newJSONWriter(buf).value(v)
}

// jsonWriter writes JSON into buf: a node tree, its aliases expanded
// within budget, or values, through one encoder for all its scalars.
type jsonWriter struct {
	buf    *bytes.Buffer
	enc    *json.Encoder
	budget int
}

func newJSONWriter(buf *bytes.Buffer) *jsonWriter {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return &jsonWriter{buf: buf, enc: enc}
}

func (w *jsonWriter) value(v any) error {
	if err := w.enc.Encode(v); err != nil {
		return err
	}
	w.buf.Truncate(w.buf.Len() - 1) // Encode's newline
	return nil
}

func (w *jsonWriter) node(n *yaml.Node) error {
	if w.budget--; w.budget < 0 {
		return fmt.Errorf("line %d: the content expands its aliases into too many values", n.Line)
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		pairs, err := strictyaml.UniquePairs(n)
		if err != nil {
			return err
		}
		w.buf.WriteByte('{')
		for i, kv := range pairs {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			if err := w.value(kv[0].Value); err != nil {
				return err
			}
			w.buf.WriteByte(':')
			if err := w.node(kv[1]); err != nil {
				return err
			}
		}
		w.buf.WriteByte('}')
	case yaml.SequenceNode:
		w.buf.WriteByte('[')
		for i, item := range strictyaml.Items(n) {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			if err := w.node(item); err != nil {
				return err
			}
		}
		w.buf.WriteByte(']')
	default:
		v, err := strictyaml.JSONValue(n)
		if err != nil {
			return err
		}
		return w.value(v)
	}
	return nil
}

// writeTable renders a list of rows (lists) or records (mappings; the header
// is every key in first-seen order) as CSV or TSV.
func writeTable(n *yaml.Node, tabs bool) ([]byte, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("expected a list of rows, got %s", strictyaml.Describe(n))
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if tabs {
		w.Comma = '\t'
	}
	var header []string
	records := false
	for i, row := range strictyaml.Items(n) {
		if row.Kind == yaml.MappingNode {
			records = true
			pairs, err := strictyaml.UniquePairs(row)
			if err != nil {
				return nil, fmt.Errorf("row %d: %w", i, err)
			}
			for _, kv := range pairs {
				if !slices.Contains(header, kv[0].Value) {
					header = append(header, kv[0].Value)
				}
			}
		}
	}
	if records {
		if err := w.Write(header); err != nil {
			return nil, err
		}
	}
	for i, row := range strictyaml.Items(n) {
		var cells []string
		switch row.Kind {
		case yaml.SequenceNode:
			if records {
				return nil, fmt.Errorf("row %d: mixes lists and mappings", i)
			}
			for _, c := range strictyaml.Items(row) {
				cells = append(cells, c.Value)
			}
		case yaml.MappingNode:
			vals := map[string]string{}
			for _, kv := range strictyaml.MappingPairs(row) {
				vals[kv[0].Value] = kv[1].Value
			}
			for _, h := range header {
				cells = append(cells, vals[h])
			}
		default:
			return nil, fmt.Errorf("row %d: expected a list or a mapping, got %s", i, strictyaml.Describe(row))
		}
		if err := w.Write(cells); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// compress applies a compression deterministically (no timestamps or
// names in the gzip header), so the same case always writes the same bytes.
func compress(data []byte, how string) ([]byte, error) {
	var buf bytes.Buffer
	switch how {
	case "none":
		return data, nil
	case "gzip":
		w := gzip.NewWriter(&buf)
		w.Write(data)
		if err := w.Close(); err != nil {
			return nil, err
		}
	case "bzip2":
		w, err := bzip2.NewWriter(&buf, &bzip2.WriterConfig{Level: bzip2.DefaultCompression})
		if err != nil {
			return nil, err
		}
		w.Write(data)
		if err := w.Close(); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}
