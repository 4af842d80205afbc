package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmeval/wasmeval/engine/agent"
	"github.com/wasmeval/wasmeval/plugins/abi"
	"github.com/wasmeval/wasmeval/plugins/host"
)

// decode reads JSON as engine/agent does: numbers as json.Number.
func decode(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestEngineFindsTheVectorsAnswers holds the engine and the SDKs to one
// answer rule: on every test vector's run, engine/agent's FindAnswer
// finds the answer — value and rule — that the reference plugins report
// in their details (which TestConformance holds every SDK to, byte for
// byte). A vector whose run carries the host's answer is left out: the
// SDKs use that answer as it is, whatever the fields say.
func TestEngineFindsTheVectorsAnswers(t *testing.T) {
	vectors, err := LoadVectors("vectors")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, v := range vectors {
		if v.Export != "test" || v.Output == nil {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			in, err := v.input()
			if err != nil {
				t.Fatal(err)
			}
			run := decode(t, in).(map[string]any)["result"].(map[string]any)
			var out struct {
				Details struct {
					Rule  string          `json:"rule"`
					Value json.RawMessage `json:"value"`
				} `json:"details"`
			}
			if err := json.Unmarshal([]byte(*v.Output), &out); err != nil || out.Details.Rule == "" {
				t.Fatalf("output without details.rule (%v): %s", err, *v.Output)
			}
			want := agent.Answer{Value: decode(t, out.Details.Value), Rule: agent.AnswerRule(out.Details.Rule)}
			if _, ok := run["answer"]; ok {
				host := decode(t, mustJSON(t, run["answer"])).(map[string]any)
				if got := (agent.Answer{Value: host["value"], Rule: agent.AnswerRule(host["rule"].(string))}); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: the SDKs report %#v, not the host's answer %#v", v.Description, want, got)
				}
				return
			}
			check := func(what string, result []byte) *agent.Result {
				t.Helper()
				r, err := agent.Parse(result, agent.Options{})
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				got := agent.FindAnswer(r.TaskResult, r.Conversation)
				got.Message = 0 // the SDKs do not say which message
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %s: engine %#v, SDKs %#v", v.Description, what, got, want)
				}
				return r
			}
			check("the vector's run", mustJSON(t, run))
			if v.AgentResult != nil {
				// The run is exactly what the engine sends for the agent's
				// result (less the answer, which the SDKs then find
				// themselves), and both give the same answer.
				r := check("the agent's result", v.AgentResult)
				rendered := r.AgentRun()
				if rendered.Answer == nil || string(rendered.Answer.Rule) != out.Details.Rule {
					t.Errorf("the engine sends answer %+v", rendered.Answer)
				}
				rendered.Answer = nil
				if got := decode(t, mustJSON(t, rendered)); !reflect.DeepEqual(got, run) {
					t.Errorf("the vector's run is not the engine's rendering of agent_result:\n%s\nwant\n%s", mustJSON(t, got), mustJSON(t, run))
				}
			}
		})
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d test vectors checked", checked)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return []byte(strings.TrimSuffix(buf.String(), "\n"))
}

// TestHostSendsTheWholeRun: what the engine renders for an agent's result
// reaches every SDK's test function through the host, alone and in a
// batch: the tool results, usage, timing and the engine's answer.
func TestHostSendsTheWholeRun(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("vectors", "test_answer_anthropic.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v Vector
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	r, err := agent.Parse(v.AgentResult, agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	run := r.AgentRun()
	// The host's answer is not what the fields give, so a plugin that
	// reports it has read it rather than found its own.
	run.Answer = &abi.Answer{Value: "from the host", Rule: abi.RuleFinalReply}
	config := map[string]any{"expected": "from the host"}
	for _, lang := range Languages {
		if lang.Transport != abi.TransportNative {
			continue
		}
		t.Run(lang.Name, func(t *testing.T) {
			h := newHost(t)
			p, err := h.Load(context.Background(), Reference(t, lang), "")
			if err != nil {
				t.Fatal(err)
			}
			check := func(how string, out abi.TestOutput) {
				t.Helper()
				d, _ := out.Details.(map[string]any)
				if !out.Passed || d["rule"] != abi.RuleFinalReply || d["value"] != "from the host" || d["task_name"] != "count-python-files" ||
					d["tool_results"] != float64(3) || d["tokens"] != float64(2391) || d["elapsed_seconds"] != 3.25 || d["messages"] != float64(6) {
					t.Errorf("%s: %+v", how, out)
				}
			}
			out, err := p.Test(context.Background(), run, config, host.CallOptions{})
			if err != nil {
				t.Fatal(err)
			}
			check("alone", out)
			outs, errs := p.TestBatch(context.Background(), []abi.TestInput{{Config: config, Result: run}, {Config: config, Result: run}}, host.CallOptions{})
			for i := range outs {
				if errs[i] != nil {
					t.Fatal(errs[i])
				}
				check("in a batch", outs[i])
			}
		})
	}
}
