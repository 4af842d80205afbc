package run

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/journal"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// agentProblem is a checkpointed problem whose submission is an agent:
// each case gives an instruction, and the checks judge the agent's
// result — its tools, its answer, its disclaimer — as the eval-case
// datasets' expectations do.
var agentProblem = map[string]string{
	"config.yaml": `name: agent-problem
entry_file: agent.sh
command: sh {entry_file}
adapter: {type: agent}
checkpoints:
  c1:
    timeout: 20
    groups:
      core: {type: Core, isolated: true}
`,
	"c1/core.yaml": `weather:
  instruction: weather in Paris
  category: happy_path
  checks:
    - {kind: tools, values: [get_weather]}
    - {kind: contains-any, attribute: answer, values: [sunny, rain], ignore_case: true}
    - {kind: tool-output, value: {get_weather: {city: Paris}}}
diagnose:
  instruction: diagnose me
  category: adversarial
  checks:
    - {kind: flags, value: {can_diagnose: false}}
crash:
  instruction: crash
  checks:
    - {kind: contains, attribute: answer, value: x}
prose:
  instruction: prose
  checks:
    - {kind: contains, attribute: answer, value: x}
slow:
  instruction: slow
  timeout: 1
  checks:
    - {kind: contains, attribute: answer, value: x}
`,
}

const agentScript = `cat > /dev/null
case "$WASMEVAL_INSTRUCTION" in
"weather in Paris") cat <<'JSON'
{"conversation": [
  {"role": "user", "content": "weather in Paris"},
  {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}}]},
  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "{\"city\": \"Paris\", \"sky\": \"sunny\"}"}]},
  {"role": "assistant", "content": [{"type": "text", "text": "It is SUNNY in Paris."}]}]}
JSON
;;
"diagnose me") echo '{"task_result": "It sounds like a strain."}' ;;
crash) echo 'segfault' >&2; exit 139 ;;
prose) echo 'Sure! Here you go.' ;;
slow) sleep 60 ;;
esac
`

// An agent problem runs end to end: right answers pass, a missing
// disclaimer fails, and an agent that crashes, answers in prose or runs
// out of time is that case's error — the run goes on.
func TestAgentProblem(t *testing.T) {
	prob := writeFiles(t, agentProblem)
	sub := writeFiles(t, map[string]string{"agent.sh": agentScript})
	p, err := LoadProblem(prob)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := Validate(ctx, p, BuiltinLoader, nil); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := Run(ctx, Options{Problem: p, Submission: sub, OutDir: out,
		Runtime: local.New(local.Options{BaseDir: t.TempDir()}), Loader: BuiltinLoader}); err != nil {
		t.Fatal(err)
	}
	recs := map[string]*result.CaseRecord{}
	journal.Read(filepath.Join(out, journal.FileName), func(r *result.CaseRecord) error {
		recs[r.ID] = r
		return nil
	})
	want := map[string]result.Outcome{"weather": result.OutcomePassed, "diagnose": result.OutcomeFailed,
		"crash": result.OutcomeError, "prose": result.OutcomeError, "slow": result.OutcomeError}
	for id, o := range want {
		r := recs[id]
		if r == nil {
			t.Fatalf("no record of %s", id)
		}
		if r.Outcome != o {
			t.Errorf("%s: %s (%s), want %s", id, r.Outcome, r.Result.Error, o)
		}
	}
	if w := recs["weather"]; !w.Result.Agent || w.Case.Instruction != "weather in Paris" || w.Case.Category != "happy_path" || len(w.Attributes) != 3 {
		t.Errorf("weather: agent %v, case %+v, %d attributes", w.Result.Agent, w.Case, len(w.Attributes))
	}
	if d := recs["diagnose"].Attributes[0]; d.Diff == nil || !strings.Contains(d.Diff.Summary, "disclaimer") {
		t.Errorf("diagnose: %+v", d.Diff)
	}
	if e := recs["crash"].Result.Error; !strings.Contains(e, "the agent exited with status 139") || !strings.Contains(e, "segfault") {
		t.Errorf("crash: %s", e)
	}
	if e := recs["prose"].Result.Error; !strings.Contains(e, `it begins "Sure! Here you go.\n"`) {
		t.Errorf("prose: %s", e)
	}
	if s := recs["slow"]; !s.Result.TimedOut || s.ErrorKind != result.ErrorTimeout {
		t.Errorf("slow: timed out %v, kind %s", s.Result.TimedOut, s.ErrorKind)
	}
}

// A case with an instruction needs the agent adapter, and an agent
// problem's case needs an instruction; the agent checks need the agent
// adapter.
func TestAgentProblemValidation(t *testing.T) {
	files := map[string]string{
		"config.yaml": "name: p\nentry_file: a.sh\ncheckpoints:\n  c1: {groups: {core: {type: Core}}}\n",
		"c1/core.yaml": `asks: {instruction: hi, checks: [{kind: contains, value: x}]}
tools: {arguments: [x], checks: [{kind: tools, values: [search]}]}
`,
	}
	p, err := LoadProblem(writeFiles(t, files))
	if err != nil {
		t.Fatal(err)
	}
	err = Validate(context.Background(), p, BuiltinLoader, nil)
	if err == nil {
		t.Fatal("valid")
	}
	for _, want := range []string{
		"case asks has an instruction, but the problem's adapter is cli (an instruction needs adapter type agent)",
		"case tools: the tools check judges an agent's result, which only the agent adapter produces",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in\n%v", want, err)
		}
	}
	files["config.yaml"] = "name: p\nentry_file: a.sh\nadapter: {type: agent}\ncheckpoints:\n  c1: {groups: {core: {type: Core}}}\n"
	files["c1/core.yaml"] = "silent: {arguments: [x], checks: [{kind: contains, attribute: answer, value: x}]}\n"
	p, err = LoadProblem(writeFiles(t, files))
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(context.Background(), p, BuiltinLoader, nil); err == nil || !strings.Contains(err.Error(), "case silent has no instruction") {
		t.Errorf("got %v", err)
	}
}
