package abi

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
)

// AppendJSON appends the verify envelope as JSON: the bytes encoding/json
// gives for it (TestAppendJSONMatchesEncodingJSON holds the two together,
// field by field), written directly. The host encodes one per case, and
// encoding/json's reflection and its second pass over a Marshaler's output
// were most of the host's own time on a batch of verify calls.
func (in VerifyInput) AppendJSON(b []byte) ([]byte, error) {
	return in.AppendInput(b, false)
}

// AppendInput appends the verify envelope as AppendJSON does or, with raw,
// with its long strings — the actual output, and an expected output — as
// raw strings (AppendRaw), for a plugin whose describe says raw_strings.
// An output is most of a verify call's input, and as JSON text in JSON
// it has an escape every few bytes, which the host writes and the guest
// reads back.
func (in VerifyInput) AppendInput(b []byte, raw bool) ([]byte, error) {
	var err error
	b = append(b, `{"abi_version":`...)
	b = strconv.AppendInt(b, int64(in.ABIVersion), 10)
	b = append(b, `,"config":`...)
	if b, err = appendObject(b, in.Config); err != nil {
		return nil, err
	}
	b = append(b, `,"case":`...)
	if b, err = in.Case.AppendJSON(b); err != nil {
		return nil, err
	}
	b = append(b, `,"actual":`...)
	var start, end int
	if b, start, end, err = in.Actual.appendJSON(b, raw); err != nil {
		return nil, err
	}
	b = append(b, `,"expected":`...)
	if b, err = appendExpected(b, in.Expected, in.Actual.Output, b[start:end], raw); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// appendExpected appends the expected values as appendObject does, except
// that an expected output that is the actual output's text, as it is for
// every passing case, is copied from where the actual one was written
// (quoted, its JSON text) rather than escaped a second time: for a JSON
// output, quotes to escape come every few bytes.
func appendExpected(b []byte, m map[string]any, output string, quoted []byte, raw bool) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	s, ok := m["output"].(string)
	if !ok || s != output && !(raw && rawWorthy(s)) {
		return appendValue(b, m)
	}
	b = append(b, '{')
	var keys [smallMap]string
	for i, k := range sortedKeys(m, &keys) {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendQuoted(b, k)
		b = append(b, ':')
		if k == "output" {
			if s == output {
				b = append(b, quoted...)
			} else {
				b = AppendRaw(b, s)
			}
			continue
		}
		var err error
		if b, err = appendValue(b, m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// AppendJSON appends the case as encoding/json encodes it.
func (c Case) AppendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"id":`...)
	b = AppendQuoted(b, c.ID)
	if c.Checkpoint != "" {
		b = append(b, `,"checkpoint":`...)
		b = AppendQuoted(b, c.Checkpoint)
	}
	if c.Group != "" {
		b = append(b, `,"group":`...)
		b = AppendQuoted(b, c.Group)
	}
	if c.GroupType != "" {
		b = append(b, `,"group_type":`...)
		b = AppendQuoted(b, c.GroupType)
	}
	b = append(b, `,"arguments":`...)
	b = appendStrings(b, c.Arguments)
	if c.Stdin != nil {
		b = append(b, `,"stdin":`...)
		b = AppendQuoted(b, *c.Stdin)
	}
	if len(c.Env) > 0 {
		b = append(b, `,"env":`...)
		b = appendStringMap(b, c.Env)
	}
	if len(c.InputFiles) > 0 {
		b = append(b, `,"input_files":[`...)
		for i, f := range c.InputFiles {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"path":`...)
			b = AppendQuoted(b, f.Path)
			b = append(b, `,"content":`...)
			b = AppendQuoted(b, f.Content)
			if f.Encoding != "" {
				b = append(b, `,"encoding":`...)
				b = AppendQuoted(b, f.Encoding)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(c.TrackedFiles) > 0 {
		b = append(b, `,"tracked_files":`...)
		b = appendStrings(b, c.TrackedFiles)
	}
	if len(c.Expected) > 0 {
		b = append(b, `,"expected":`...)
		if b, err = appendObject(b, c.Expected); err != nil {
			return nil, err
		}
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
	if len(c.Extra) > 0 {
		b = append(b, `,"extra":`...)
		if b, err = appendObject(b, c.Extra); err != nil {
			return nil, err
		}
	}
	if len(c.Request) > 0 {
		b = append(b, `,"request":`...)
		if b, err = appendObject(b, c.Request); err != nil {
			return nil, err
		}
	}
	if len(c.Steps) > 0 {
		b = append(b, `,"steps":`...)
		if b, err = appendValue(b, c.Steps); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// AppendJSON appends the actual result as encoding/json encodes it: a file
// held as bytes in base64.
func (a Actual) AppendJSON(b []byte) ([]byte, error) {
	b, _, _, err := a.appendJSON(b, false)
	return b, err
}

// appendJSON is AppendJSON, also saying where in b the output's text is;
// with raw, a long output is a raw string.
func (a Actual) appendJSON(b []byte, raw bool) (_ []byte, start, end int, err error) {
	b = append(b, `{"status_code":`...)
	b = strconv.AppendInt(b, int64(a.StatusCode), 10)
	b = append(b, `,"output":`...)
	start = len(b)
	if raw && rawWorthy(a.Output) {
		b = AppendRaw(b, a.Output)
	} else {
		b = AppendQuoted(b, a.Output)
	}
	end = len(b)
	b = append(b, `,"stderr":`...)
	b = AppendQuoted(b, a.Stderr)
	if len(a.Files) > 0 {
		b = append(b, `,"files":{`...)
		var keys [smallMap]string
		for i, k := range sortedKeys(a.Files, &keys) {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendQuoted(b, k)
			b = append(b, ':')
			switch v := a.Files[k].(type) {
			case []byte:
				if v == nil {
					b = append(b, "null"...)
					continue
				}
				b = append(b, '"')
				b = base64.StdEncoding.AppendEncode(b, v)
				b = append(b, '"')
			default:
				if b, err = appendValue(b, v); err != nil {
					return nil, 0, 0, err
				}
			}
		}
		b = append(b, '}')
	}
	if len(a.Headers) > 0 {
		b = append(b, `,"headers":`...)
		b = appendStringMap(b, a.Headers)
	}
	b = append(b, `,"timed_out":`...)
	b = strconv.AppendBool(b, a.TimedOut)
	if len(a.MockCalls) > 0 {
		// Rare and nested: encoding/json writes it.
		j, err := json.Marshal(a.MockCalls)
		if err != nil {
			return nil, 0, 0, err
		}
		b = append(append(b, `,"mock_calls":`...), j...)
	}
	return append(b, '}'), start, end, nil
}

// appendObject appends a JSON object value; nil is null, as encoding/json
// writes a nil map.
func appendObject(b []byte, m map[string]any) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	return appendValue(b, m)
}

func appendStrings(b []byte, s []string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendQuoted(b, v)
	}
	return append(b, ']')
}

func appendStringMap(b []byte, m map[string]string) []byte {
	b = append(b, '{')
	var keys [smallMap]string
	for i, k := range sortedKeys(m, &keys) {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendQuoted(b, k)
		b = append(b, ':')
		b = AppendQuoted(b, m[k])
	}
	return append(b, '}')
}
