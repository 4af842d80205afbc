package placeholder

import (
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	for text, want := range map[string]string{
		"python3 {entry_file} --port {{port}}": "{entry_file} {{port}}",
		"--host={host}":                        "{host}",
		"{{entry_file}}":                       "{{entry_file}}",
		"{{static:logo}} {x-y.z}":              "{{static:logo}} {x-y.z}",
		"sh -c 'exec app --port ${PORT}'":      "",
		"echo {a,b} '{\"k\": 1}' {1}":          "",
		"{{port}":                              "{port}",
		"{ port }":                             "",
	} {
		if got := strings.Join(Find(text), " "); got != want {
			t.Errorf("Find(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		text  string
		known []string
		want  string // "" for no error
	}{
		{"python3 {entry_file} --host {{host}} --port {{port}}", Command(true), ""},
		{"python3 {entry_file}", Command(false), ""},
		{"python3 {entry_file} --port {port}", Command(true), "unknown placeholder {port} (known here: {entry_file}, {{host}}, {{port}}; did you mean {{port}}?)"},
		{"--host {host}", Server, "unknown placeholder {host} (known here: {{host}}, {{port}}; did you mean {{host}}?)"},
		{"python3 {{entry_file}}", Command(false), "unknown placeholder {{entry_file}} (known here: {entry_file}; did you mean {entry_file}?)"},
		{"python3 {entry_file} --port {{port}}", Command(false), "unknown placeholder {{port}} (known here: {entry_file})"},
		{"x {{bogus}}", Command(true), "unknown placeholder {{bogus}} (known here: {entry_file}, {{host}}, {{port}})"},
		{"x {bogus}", Server, ""}, // single braces: not a placeholder unless it nearly names one
		{"python3 {entry-file}", Command(false), "unknown placeholder {entry-file} (known here: {entry_file}; did you mean {entry_file}?)"},
		{"python3 {entryfile}", Command(false), "unknown placeholder {entryfile} (known here: {entry_file}; did you mean {entry_file}?)"},
		{"app --port {prot}", Command(true), "unknown placeholder {prot} (known here: {entry_file}, {{host}}, {{port}}; did you mean {{port}}?)"},
		{`sh -c "awk '{print}' in.txt | jq '{name}'"`, Command(true), ""},
		{`python3 -c "x=1; print(f'{x}')" {entry_file}`, Command(false), ""},
		{"sh -c 'app --port $PORT --host ${HOST}'", Command(false), ""},
	} {
		err := Check(tc.text, tc.known)
		if got := errText(err); got != tc.want {
			t.Errorf("Check(%q):\n got %q\nwant %q", tc.text, got, tc.want)
		}
	}
}

// In an environment value only the double-brace spelling is a
// placeholder: single-brace text passes unless it misspells a known one.
func TestCheckEnv(t *testing.T) {
	for text, want := range map[string]string{
		"{asctime} {levelname} {message}": "",
		"http://{{host}}:{{port}}/":       "",
		"{port}":                          "unknown placeholder {port} (known here: {{host}}, {{port}}; did you mean {{port}}?)",
		"{{bogus}}":                       "unknown placeholder {{bogus}} (known here: {{host}}, {{port}})",
	} {
		if got := errText(CheckEnv(text, Server)); got != want {
			t.Errorf("CheckEnv(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestExpand(t *testing.T) {
	values := map[string]string{Host: "127.0.0.1", Port: "8080"}
	if got := Expand("--bind {{host}}:{{port}} {entry_file} ${PORT}", values); got != "--bind 127.0.0.1:8080 {entry_file} ${PORT}" {
		t.Errorf("Expand: %q", got)
	}
	if got := Expand("python3 {entry_file}", map[string]string{EntryFile: "main.py"}); got != "python3 main.py" {
		t.Errorf("Expand: %q", got)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
