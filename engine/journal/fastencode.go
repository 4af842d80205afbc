package journal

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/wasmeval/wasmeval/engine/verify"
)

// appendRecord appends what json.Marshal writes for s, byte for byte
// (fastencode_test.go holds it to that), without reflection: a record's
// fields are written in order, and values of any type the record's own
// types do not name (an attribute's actual value, say) go through
// json.Marshal. Its errors may be worded otherwise than json.Marshal's.
func appendRecord(b []byte, s *storedRecord) ([]byte, error) {
	r := s.CaseRecord
	var err error
	// Room for the strings that make most of a record, and its newline.
	size := 512 + len(r.Result.Output) + len(r.Result.Stderr)
	for _, a := range s.Attributes {
		for _, v := range []any{a.Actual, a.Expected} {
			if text, ok := v.(string); ok {
				size += len(text)
			}
		}
	}
	b = slices.Grow(b, size+size/8)
	b = append(b, `{"problem":`...)
	b = appendString(b, r.Problem)
	b = append(b, `,"problem_version":`...)
	b = strconv.AppendInt(b, int64(r.ProblemVersion), 10)
	b = append(b, `,"checkpoint":`...)
	b = appendString(b, r.Checkpoint)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, int64(r.Version), 10)
	b = append(b, `,"group":`...)
	b = appendString(b, r.Group)
	b = append(b, `,"group_type":`...)
	b = appendString(b, string(r.GroupType))
	b = append(b, `,"id":`...)
	b = appendString(b, r.ID)
	if r.Epoch != 0 {
		b = append(b, `,"epoch":`...)
		b = strconv.AppendInt(b, int64(r.Epoch), 10)
	}
	if r.Attempt != 0 {
		b = append(b, `,"attempt":`...)
		b = strconv.AppendInt(b, int64(r.Attempt), 10)
	}
	b = append(b, `,"index":`...)
	b = strconv.AppendInt(b, int64(r.Index), 10)
	if r.OriginalCheckpoint != "" {
		b = append(b, `,"original_checkpoint":`...)
		b = appendString(b, r.OriginalCheckpoint)
	}
	if r.OriginalGroup != "" {
		b = append(b, `,"original_group":`...)
		b = appendString(b, r.OriginalGroup)
	}
	b = append(b, `,"started_at":`...)
	t, err := r.StartedAt.MarshalJSON()
	if err != nil {
		return nil, err
	}
	b = append(b, t...)
	b = append(b, `,"duration_s":`...)
	if b, err = appendFloat(b, r.Duration); err != nil {
		return nil, err
	}
	if c := r.Case; c != nil {
		b = append(b, `,"case":{"arguments":`...)
		b = appendStrings(b, c.Arguments)
		if c.Stdin != nil {
			b = append(b, `,"stdin":`...)
			b = appendString(b, *c.Stdin)
		}
		if len(c.Env) > 0 {
			b = append(b, `,"env":`...)
			b = appendStringMap(b, c.Env)
		}
		if len(c.InputFiles) > 0 {
			b = append(b, `,"input_files":`...)
			b = appendStrings(b, c.InputFiles)
		}
		if c.TimeoutS != 0 {
			b = append(b, `,"timeout_s":`...)
			if b, err = appendFloat(b, c.TimeoutS); err != nil {
				return nil, err
			}
		}
		if c.Reset {
			b = append(b, `,"reset":true`...)
		}
		if c.Source != "" {
			b = append(b, `,"source":`...)
			b = appendString(b, c.Source)
		}
		if c.Instruction != "" {
			b = append(b, `,"instruction":`...)
			b = appendString(b, c.Instruction)
		}
		if c.Category != "" {
			b = append(b, `,"category":`...)
			b = appendString(b, c.Category)
		}
		if len(c.Tags) > 0 {
			b = append(b, `,"tags":`...)
			b = appendStrings(b, c.Tags)
		}
		if len(c.Apps) > 0 {
			b = append(b, `,"apps":`...)
			b = appendStrings(b, c.Apps)
		}
		b = append(b, '}')
	}
	o := &r.Result
	b = append(b, `,"result":{`...)
	if len(o.Command) > 0 {
		b = append(b, `"command":`...)
		b = appendStrings(b, o.Command)
		b = append(b, ',')
	}
	b = append(b, `"status_code":`...)
	b = strconv.AppendInt(b, int64(o.StatusCode), 10)
	b = append(b, `,"output":`...)
	b = appendString(b, o.Output)
	b = append(b, `,"stderr":`...)
	b = appendString(b, o.Stderr)
	if o.OutputDropped != 0 {
		b = append(b, `,"output_dropped":`...)
		b = strconv.AppendInt(b, o.OutputDropped, 10)
	}
	if o.StderrDropped != 0 {
		b = append(b, `,"stderr_dropped":`...)
		b = strconv.AppendInt(b, o.StderrDropped, 10)
	}
	b = append(b, `,"elapsed_s":`...)
	if b, err = appendFloat(b, o.Elapsed); err != nil {
		return nil, err
	}
	b = append(b, `,"timed_out":`...)
	b = strconv.AppendBool(b, o.TimedOut)
	if o.Signal != "" {
		b = append(b, `,"signal":`...)
		b = appendString(b, o.Signal)
	}
	if len(o.Files) > 0 {
		b = append(b, `,"files":`...)
		if b, err = appendValue(b, o.Files); err != nil {
			return nil, err
		}
	}
	if len(o.Headers) > 0 {
		b = append(b, `,"headers":`...)
		b = appendStringMap(b, o.Headers)
	}
	if len(o.Artifacts) > 0 {
		b = append(b, `,"artifacts":`...)
		b = appendStrings(b, o.Artifacts)
	}
	if o.ServerStartup != 0 {
		b = append(b, `,"server_startup_s":`...)
		if b, err = appendFloat(b, o.ServerStartup); err != nil {
			return nil, err
		}
	}
	if len(o.MockCalls) > 0 {
		// Rare and nested: encoding/json writes it, as it would the
		// whole record.
		j, err := json.Marshal(o.MockCalls)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"mock_calls":`...), j...)
	}
	if o.MockCallsDropped != 0 {
		b = append(b, `,"mock_calls_dropped":`...)
		b = strconv.AppendInt(b, int64(o.MockCallsDropped), 10)
	}
	if o.MockError != "" {
		b = append(b, `,"mock_error":`...)
		b = appendString(b, o.MockError)
	}
	b = append(b, `,"adapter_error":`...)
	b = strconv.AppendBool(b, o.AdapterError)
	if o.Error != "" {
		b = append(b, `,"error":`...)
		b = appendString(b, o.Error)
	}
	if o.PluginError != "" {
		b = append(b, `,"plugin_error":`...)
		b = appendString(b, o.PluginError)
	}
	if o.OOMKilled {
		b = append(b, `,"oom_killed":true`...)
	}
	if o.Agent {
		b = append(b, `,"agent":true`...)
	}
	b = append(b, `},"score":`...)
	if b, err = appendFloat(b, r.Score); err != nil {
		return nil, err
	}
	b = append(b, `,"passed":`...)
	b = strconv.AppendBool(b, r.Passed)
	if r.Outcome != "" {
		b = append(b, `,"outcome":`...)
		b = appendString(b, string(r.Outcome))
	}
	if r.ErrorKind != "" {
		b = append(b, `,"error_kind":`...)
		b = appendString(b, string(r.ErrorKind))
	}
	if r.Unscored != "" {
		b = append(b, `,"unscored":`...)
		b = appendString(b, r.Unscored)
	}
	b = append(b, `,"attributes":`...)
	if s.Attributes == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range s.Attributes {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendAttribute(b, &s.Attributes[i]); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

func appendAttribute(b []byte, a *storedAttribute) ([]byte, error) {
	var err error
	b = append(b, `{"attribute":`...)
	b = appendString(b, a.Attribute)
	b = append(b, `,"actual":`...)
	if b, err = appendValue(b, a.Actual); err != nil {
		return nil, err
	}
	b = append(b, `,"expected":`...)
	if b, err = appendValue(b, a.Expected); err != nil {
		return nil, err
	}
	if a.Diff != nil {
		b = append(b, `,"diff":`...)
		if b, err = appendDiff(b, a.Diff); err != nil {
			return nil, err
		}
	}
	b = append(b, `,"is_correct":`...)
	b = strconv.AppendBool(b, a.IsCorrect)
	b = append(b, `,"weight":`...)
	if b, err = appendFloat(b, a.Weight); err != nil {
		return nil, err
	}
	if a.Check != "" {
		b = append(b, `,"check":`...)
		b = appendString(b, a.Check)
	}
	if a.ActualFrom != "" {
		b = append(b, `,"actual_from":`...)
		b = appendString(b, a.ActualFrom)
	}
	return append(b, '}'), nil
}

func appendDiff(b []byte, d *verify.Diff) ([]byte, error) {
	var err error
	b = append(b, `{"summary":`...)
	b = appendString(b, d.Summary)
	if len(d.Entries) > 0 {
		b = append(b, `,"entries":[`...)
		for i, e := range d.Entries {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"path":`...)
			b = appendString(b, e.Path)
			b = append(b, `,"op":`...)
			b = appendString(b, e.Op)
			if e.Expected != nil {
				b = append(b, `,"expected":`...)
				if b, err = appendValue(b, e.Expected); err != nil {
					return nil, err
				}
			}
			if e.Actual != nil {
				b = append(b, `,"actual":`...)
				if b, err = appendValue(b, e.Actual); err != nil {
					return nil, err
				}
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if d.Unified != "" {
		b = append(b, `,"unified":`...)
		b = appendString(b, d.Unified)
	}
	if d.Truncated {
		b = append(b, `,"truncated":true`...)
	}
	return append(b, '}'), nil
}

// appendValue appends an any value: JSON's own types directly, others
// through json.Marshal.
func appendValue(b []byte, v any) ([]byte, error) {
	var err error
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendString(b, v), nil
	case float64:
		return appendFloat(b, v)
	case bool:
		return strconv.AppendBool(b, v), nil
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendValue(b, x); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		if v == nil {
			return append(b, "null"...), nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			if b, err = appendValue(b, v[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, data...), nil
}

func appendStrings(b []byte, list []string) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

func appendStringMap(b []byte, m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = appendString(b, m[k])
	}
	return append(b, '}')
}

// appendFloat appends a float64 as encoding/json does; NaN and the
// infinities are its error.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		_, err := json.Marshal(f)
		return nil, err
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

const hexDigits = "0123456789abcdef"

// safeByte: an ASCII byte appendString writes as it is.
var safeByte = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendString appends s quoted as encoding/json quotes it (HTML
// characters escaped, bytes that are not UTF-8 replaced).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if safeByte[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
