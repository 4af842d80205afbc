package problem

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const mocksProblem = `name: shop
entry_file: main.py
adapter: {type: cli}
command: "python3 {entry_file} --pay {{mock.payments}}"
mocks:
  payments:
    routes:
      - method: POST
        path: /v1/charges
        body: {currency: EUR}
        responses:
          - status: 201
            body: {id: ch_1}
          - status: 402
            headers: {Content-Type: text/plain}
            body: declined
            delay_ms: 5
  rates:
    routes:
      - path: /v1/rates
        responses: [{body_file: responses/rates.json}]
checkpoints:
  c1:
    mocks:
      rates:
        routes:
          - path: /v2/rates
            query: {from: EUR}
            headers: {X-Key: k}
            responses: [{status: 200, body: [1, 2]}]
    groups:
      core: {type: Core}
      own:
        mocks:
          extra:
            routes: [{path: "/x/*", responses: [{status: 204}]}]
  c2:
    groups:
      core: {type: Core}
`

// Mocks are inherited problem → checkpoint → group, a lower level
// replacing a service of the same name, and resolved into what engine/mock
// runs: JSON bodies encoded (with their content type), files read.
func TestMocksInheritAndResolve(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml":          mocksProblem,
		"responses/rates.json": `{"EUR":{"USD":1.1}}`,
		"c1/x":                 "", "c2/x": "",
	})
	p, err := Load(dir, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string]*Group{}
	for _, cp := range p.Checkpoints {
		for _, g := range cp.Groups {
			groups[cp.Name+"/"+g.Name] = g
		}
	}
	names := func(g *Group) string { return strings.Join(MockNames(g.Mocks), ",") }
	if got := names(groups["c1/core"]); got != "payments,rates" {
		t.Errorf("c1/core mocks = %s", got)
	}
	if got := names(groups["c1/own"]); got != "extra,payments,rates" {
		t.Errorf("c1/own mocks = %s", got)
	}
	if got := names(groups["c2/core"]); got != "payments,rates" {
		t.Errorf("c2/core mocks = %s", got)
	}
	find := func(g *Group, name string) Mock {
		for _, m := range g.Mocks {
			if m.Name == name {
				return m
			}
		}
		t.Fatalf("no mock %s", name)
		return Mock{}
	}
	// The checkpoint's rates replaces the problem's; c2 keeps the problem's.
	if r := find(groups["c1/core"], "rates").Routes[0]; r.Path != "/v2/rates" || r.Query["from"] != "EUR" || r.Headers["X-Key"] != "k" ||
		string(r.Responses[0].Body) != "[1,2]" || r.Responses[0].Headers["Content-Type"] != "application/json" {
		t.Errorf("c1 rates route = %+v", r)
	}
	if r := find(groups["c2/core"], "rates").Routes[0]; string(r.Responses[0].Body) != `{"EUR":{"USD":1.1}}` || r.Responses[0].Status != 200 {
		t.Errorf("c2 rates route = %+v (body %q)", r, r.Responses[0].Body)
	}
	pay := find(groups["c2/core"], "payments")
	r := pay.Routes[0]
	if r.Method != "POST" || r.Body.(map[string]any)["currency"] != "EUR" || len(r.Responses) != 2 {
		t.Fatalf("payments route = %+v", r)
	}
	if string(r.Responses[0].Body) != `{"id":"ch_1"}` || r.Responses[0].Status != 201 {
		t.Errorf("first response = %+v (%q)", r.Responses[0], r.Responses[0].Body)
	}
	if second := r.Responses[1]; string(second.Body) != "declined" || second.Headers["Content-Type"] != "text/plain" || second.DelayMS != 5 || second.Status != 402 {
		t.Errorf("second response = %+v (%q)", second, second.Body)
	}
	if pay.File == "" || pay.Key != "mocks.payments" {
		t.Errorf("payments declared at %s %s", pay.File, pay.Key)
	}
	if got := strings.Join(p.MockNames(), ","); got != "extra,payments,rates" {
		t.Errorf("problem mock names = %s", got)
	}
}

// Every mistake is reported at its file and key path, with what was
// expected.
func TestMockErrorsNameFileAndKey(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml": `name: shop
entry_file: main.py
command: "python3 {entry_file} {{mock.payments}} {{mock.paymnts}}"
mocks:
  payments:
    routes: [{path: /v1/charges, responses: [{status: 201}]}]
  nopath:
    routes:
      - path: v1/charges
        responses: [{status: 201}]
  both:
    routes: [{path: /, responses: [{status: 200}]}]
    plugin: {path: m.wasm, sha256: "00"}
  empty: {}
  bad-name:
    routes: [{path: /, responses: [{status: 200}]}]
  files:
    routes:
      - path: /
        body: "just text"
        responses:
          - {status: 200}
          - {body: x, body_file: a.json}
          - {body_file: missing.json}
  typo:
    routes: [{path: /, respones: []}]
  status:
    routes: [{path: /, responses: [{status: 99}]}]
checkpoints:
  c1:
    groups:
      core:
        mocks: [not, a, mapping]
`,
		"c1/x": "",
	})
	text := loadErr(t, dir, testOpts)
	wantAll(t, text,
		`mocks.nopath: mock "nopath": routes[0]: path "v1/charges": expected a path starting with /`,
		`mocks.status: mock "status": routes[0]: responses[0].status 99: expected an HTTP status from 100 to 599`,
		"mocks.both: a mock has routes or a plugin, not both",
		`mocks.empty: mock "empty": no routes and no plugin`,
		`mocks.bad-name: mock "bad-name": expected a name of letters, digits and _`,
		"mocks.files.routes[0].body: expected a mapping or a list",
		"mocks.files.routes[0].responses[1]: give body or body_file, not both",
		"mocks.files.routes[0].responses[2].body_file:",
		"mocks.typo.routes[0]",
		"respones",
		"checkpoints.c1.groups.core.mocks: expected a mapping of mock service name",
		"config.yaml",
	)
	if !strings.Contains(text, "{{mock.paymnts}}") || !strings.Contains(text, "did you mean {{mock.payments}}") {
		t.Errorf("the misspelt placeholder is not refused with a suggestion:\n%s", text)
	}
}

// A response's body_file is a problem file: a path leading out of the
// problem, an absolute one and a symlink out are refused, and a file
// over the size limit too.
func TestMockBodyFileStaysInsideTheProblem(t *testing.T) {
	_, dir, secret := hostileBase(t)
	files := map[string]string{
		"config.yaml": `name: shop
entry_file: main.py
mocks:
  out:
    routes:
      - path: /a
        responses:
          - {body_file: ../secret/shadow}
          - {body_file: ` + filepath.Join(secret, "shadow") + `}
          - {body_file: link/shadow}
          - {body_file: big.bin}
checkpoints:
  c1:
    groups: {core: {type: Core}}
`,
		"c1/x": "",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link(t, secret, filepath.Join(dir, "link"))
	big, err := os.Create(filepath.Join(dir, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	big.Truncate(MaxMockBodyFile + 1)
	big.Close()
	text := loadErr(t, dir, testOpts)
	for i := 0; i < 4; i++ {
		wantAll(t, text, "mocks.out.routes[0].responses["+string(rune('0'+i))+"].body_file")
	}
	wantAll(t, text, "a mock's response body is at most")
	if strings.Contains(text, "root:x") {
		t.Errorf("the secret's content leaked into the message:\n%s", text)
	}
}

// A {{mock.NAME}} placeholder must name a mock of every group: one that
// a group lacks is refused, naming the group.
func TestMockPlaceholderNeedsTheMockInEveryGroup(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml": `name: shop
entry_file: main.py
command: "python3 {entry_file} {{mock.payments}}"
checkpoints:
  c1:
    groups:
      with:
        mocks: {payments: {routes: [{path: /, responses: [{status: 200}]}]}}
      without: {type: Core}
`,
		"c1/x": "",
	})
	text := loadErr(t, dir, testOpts)
	wantAll(t, text, `command: {{mock.payments}}: group without of checkpoint c1 declares no mock "payments"`)
}

// The env a problem, a checkpoint or a group gives its processes is held
// to the placeholders they would get filled in: {{mock.NAME}} of a mock
// every group it applies to has, {{host}} and {{port}} only for a server,
// {{static:NAME}}; anything else in double braces used to reach the
// submission as written.
func TestEnvPlaceholders(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"config.yaml": `name: shop
entry_file: main.py
env:
  FINE: "{{static:data}} {asctime}"
  URL: "http://{{host}}:{{port}}/"
  TYPO: "{{mock.paymnets}}"
  BAD=NAME: x
static_assets: {data: {path: data.txt}}
checkpoints:
  c1:
    env: {PAY: "{{mock.payments}}"}
    groups:
      with:
        env: {PAY2: "{{mock.payments}}", OK: "{{mock.payments}}"}
        mocks: {payments: {routes: [{path: /, responses: [{status: 200}]}]}}
      without:
        type: Core
        env: {PAY3: "{{mock.payments}}", ODD: "{entry-file}"}
`,
		"data.txt": "x",
		"c1/x":     "",
	})
	text := loadErr(t, dir, testOpts)
	wantAll(t, text,
		`config.yaml:5: env.URL: {{host}} is filled in only where the submission is a server`,
		`config.yaml:5: env.URL: {{port}} is filled in only where the submission is a server`,
		`config.yaml:6: env.TYPO: unknown placeholder {{mock.paymnets}} (known here: {{mock.payments}}; did you mean {{mock.payments}}?)`,
		`config.yaml:7: env.BAD=NAME: an environment variable's name cannot hold = or a NUL byte, got "BAD=NAME"`,
		`config.yaml:11: checkpoints.c1.env.PAY: {{mock.payments}}: group without declares no mock "payments" (declared there: none)`,
		`config.yaml:18: checkpoints.c1.groups.without.env.ODD: unknown placeholder {entry-file}`,
		`config.yaml:18: checkpoints.c1.groups.without.env.PAY3: {{mock.payments}}: group without declares no mock "payments"`,
	)
	for _, fine := range []string{"env.FINE", "groups.with.env"} {
		if strings.Contains(text, fine) {
			t.Errorf("%s refused:\n%s", fine, text)
		}
	}
}
