package wasmeval

import (
	"errors"
	"strings"
	"testing"
)

var setupFns = map[string]SetupFunction{
	"prepare": func(in *SetupInput) (*SetupOutput, error) {
		return &SetupOutput{Actions: []SetupAction{
			WriteFile("notes/"+in.Task.ID+".txt", strings.Join(in.Task.Files, ",")),
			WriteFile("empty.txt", ""),
			WriteBytes("blob.bin", []byte{0, 0xff}),
			RunCommand("sh", "-c", in.Arguments["line"].(string)),
		}}, nil
	},
	"nothing": func(*SetupInput) (*SetupOutput, error) { return nil, nil },
	"broken":  func(*SetupInput) (*SetupOutput, error) { return nil, errors.New("broken on purpose") },
	"unused":  nil,
}

func TestHandleSetupDispatchesByName(t *testing.T) {
	for _, tc := range []struct{ name, input, want, err string }{
		{"prepare",
			`{"abi_version":1,"config":{},"function":"prepare","arguments":{"line":"echo hi"},"task":{"id":"t1","instruction":"do it","files":["a.txt","b/c.csv"]}}`,
			`{"actions":[{"write":{"content":"a.txt,b/c.csv","path":"notes/t1.txt"}},{"write":{"content":"","path":"empty.txt"}},{"write":{"content_base64":"AP8=","path":"blob.bin"}},{"run":{"command":["sh","-c","echo hi"]}}]}`, ""},
		{"nil output is no actions",
			`{"abi_version":1,"config":{},"function":"nothing","arguments":{},"task":{"id":"t","instruction":"","files":[]}}`,
			`{"actions":[]}`, ""},
		{"unknown function",
			`{"abi_version":1,"config":{},"function":"nope \"x\"","arguments":{},"task":{"id":"t","instruction":"","files":[]}}`,
			`{"actions":[],"error":"unknown setup function \"nope \\\"x\\\"\" (functions: broken, nothing, prepare)"}`, ""},
		{"an error fails the call",
			`{"abi_version":1,"config":{},"function":"broken","arguments":{},"task":{"id":"t","instruction":"","files":[]}}`,
			"", "broken on purpose"},
		{"wrong shape",
			`{"abi_version":1,"config":{},"function":"prepare","arguments":{},"task":{"id":"t","instruction":"","files":"a.txt"}}`,
			"", "invalid input: $.task.files is a string, expected an array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := HandleSetup([]byte(tc.input), setupFns)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("got %v (output %s), want error %q", err, out, tc.err)
				}
				return
			}
			if err != nil || string(out) != tc.want {
				t.Fatalf("got %s %v\nwant %s", out, err, tc.want)
			}
		})
	}
}

func TestSetupOutputEncodes(t *testing.T) {
	out, err := EncodeJSON(&SetupOutput{Error: "no seed file"})
	if err != nil || string(out) != `{"actions":[],"error":"no seed file"}` {
		t.Fatalf("got %s %v", out, err)
	}
}
