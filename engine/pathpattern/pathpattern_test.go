package pathpattern

import "testing"

func TestMatch(t *testing.T) {
	for _, tt := range []struct {
		pattern, path string
		want          bool
	}{
		{"/v1/charges", "/v1/charges", true},
		{"/v1/charges", "/v1/charges/", false},
		{"/v1/charges", "/v1/refunds", false},
		{"/v1/charges/{id}", "/v1/charges/ch_1", true},
		{"/v1/charges/{id}", "/v1/charges/", false},
		{"/v1/charges/{id}", "/v1/charges", false},
		{"/v1/charges/{id}", "/v1/charges/ch_1/capture", false},
		{"/v1/{x}/capture", "/v1/ch_1/capture", true},
		{"/v1/*", "/v1/charges", true},
		{"/v1/*", "/v1/charges/ch_1", true},
		{"/v1/*", "/v1", false},
		{"/v1/*", "/v1/", false},
		{"/{}", "/x", false}, // {} is not a placeholder, only itself
		{"/{}", "/{}", true},
		{"/", "/", true},
	} {
		if got := Match(tt.pattern, tt.path); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, ok := range []string{"/", "/v1/charges", "/v1/{id}", "/v1/*"} {
		if err := Check(ok); err != nil {
			t.Errorf("Check(%q): %v", ok, err)
		}
	}
	for p, want := range map[string]string{
		"v1/charges": `path "v1/charges": expected a path starting with /`,
		"":           `path "": expected a path starting with /`,
		"/v1/*/x":    `path "/v1/*/x": * is only taken as the last segment, /*`,
		"/v1/a*":     `path "/v1/a*": * is only taken as the last segment, /*`,
	} {
		if err := Check(p); err == nil || err.Error() != want {
			t.Errorf("Check(%q) = %v, want %s", p, err, want)
		}
	}
}
