package adapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmeval/wasmeval/engine/adapter"
	"github.com/wasmeval/wasmeval/engine/cases"
	"github.com/wasmeval/wasmeval/engine/problem"
	"github.com/wasmeval/wasmeval/engine/result"
	"github.com/wasmeval/wasmeval/engine/runtime"
	"github.com/wasmeval/wasmeval/engine/runtime/local"
)

// agentServerEnv makes this test binary serve as an agent over HTTP: it
// answers each request with a result built from it, or misbehaves as the
// instruction says.
const agentServerEnv = "WASMEVAL_AGENT_SERVER"

func serveAgent() {
	l, err := net.Listen("tcp", net.JoinHostPort(os.Getenv("HOST"), os.Getenv("PORT")))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/run" {
			io.WriteString(w, "up")
			return
		}
		var req adapter.AgentRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.Method != http.MethodPost {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		switch req.Instruction {
		case "fail":
			http.Error(w, "internal trouble", http.StatusInternalServerError)
		case "prose":
			io.WriteString(w, "<html>not a result</html>")
		case "slow":
			time.Sleep(time.Minute)
		default:
			cwd, _ := os.Getwd()
			json.NewEncoder(w).Encode(map[string]any{"task_name": req.TaskName, "task_result": "did: " + req.Instruction,
				"sandbox": map[string]any{"dir": cwd}, "elapsed_seconds": 0.5})
		}
	}))
}

// agentSession opens a local session whose submission holds agent.sh.
func agentSession(t *testing.T, script string) runtime.Session {
	t.Helper()
	sub := t.TempDir()
	if err := os.WriteFile(filepath.Join(sub, "agent.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	rt := local.New(local.Options{BaseDir: t.TempDir()})
	sess, err := rt.Open(context.Background(), runtime.SessionSpec{Submission: sub, Label: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

func agentCase(id, instruction string) *cases.Case {
	return &cases.Case{ID: id, Timeout: time.Minute, Task: &cases.Task{Name: id, Instruction: instruction, Metadata: map[string]any{"level": 2}}}
}

// A command agent gets the request on stdin and its task in the
// environment, runs in its sandbox, and its result JSON is taken; a
// crash, output that is not a result, no output and a timeout are each
// the case's error, saying why.
func TestAgentCommand(t *testing.T) {
	const script = `req=$(cat)
case "$WASMEVAL_INSTRUCTION" in
echo) printf '{"task_result": %s, "sandbox": {"dir": "%s", "env_name": "%s"}}' "$req" "$WASMEVAL_SANDBOX" "$WASMEVAL_TASK_NAME" ;;
write) echo hello > made.txt; echo '{"task_result": "wrote it"}' ;;
crash) echo 'Traceback: boom' >&2; exit 3 ;;
prose) echo 'I am done, the answer is 42.' ;;
silent) exit 0 ;;
late) echo '{"task_result": "found it"}'; exit 1 ;;
slow) sleep 30 ;;
esac
`
	sess := agentSession(t, script)
	a := &adapter.AgentCommand{Command: []string{"sh", "agent.sh"}}
	ctx := context.Background()

	out, err := a.Run(ctx, sess, agentCase("echo-task", "echo"))
	if err != nil || out.AdapterError || !out.Agent {
		t.Fatalf("echo: %+v %v", out, err)
	}
	var got struct {
		TaskResult adapter.AgentRequest `json:"task_result"`
		Sandbox    struct{ Dir, EnvName string }
	}
	if err := json.Unmarshal([]byte(out.Output), &got); err != nil {
		t.Fatalf("%v: %s", err, out.Output)
	}
	if r := got.TaskResult; r.Protocol != adapter.AgentProtocol || r.TaskName != "echo-task" || r.Instruction != "echo" || r.Metadata["level"] != 2.0 || r.TimeoutS != 60 {
		t.Errorf("request as the agent read it: %+v", r)
	}
	if got.Sandbox.Dir != sess.Workdir() {
		t.Errorf("WASMEVAL_SANDBOX = %q, want the workspace %q", got.Sandbox.Dir, sess.Workdir())
	}

	if out, _ := a.Run(ctx, sess, agentCase("write", "write")); !out.Agent {
		t.Fatalf("write: %+v", out)
	}
	if data, err := os.ReadFile(filepath.Join(sess.Workdir(), "made.txt")); err != nil || string(data) != "hello\n" {
		t.Errorf("the file the agent wrote in its sandbox: %q %v", data, err)
	}

	for _, tc := range []struct{ instruction, want string }{
		{"crash", `the agent exited with status 3; the agent's stdout: the agent returned no result; its stderr ends: "Traceback: boom\n"`},
		{"prose", `the agent's stdout: not JSON: invalid character 'I' looking for beginning of value (at byte 1); it begins "I am done, the answer is 42.\n"`},
		{"silent", "the agent's stdout: the agent returned no result"},
	} {
		out, err := a.Run(ctx, sess, agentCase(tc.instruction, tc.instruction))
		if err != nil || !out.AdapterError || out.Agent || out.Error != tc.want {
			t.Errorf("%s: adapter error %v, agent %v, error\n%s\nwant\n%s", tc.instruction, out.AdapterError, out.Agent, out.Error, tc.want)
		}
	}

	// A result is judged whatever the exit status, which is recorded.
	if out, _ := a.Run(ctx, sess, agentCase("late", "late")); !out.Agent || out.AdapterError || out.StatusCode != 1 {
		t.Errorf("late: %+v", out)
	}

	slow := agentCase("slow", "slow")
	slow.Timeout = 500 * time.Millisecond
	if out, _ := a.Run(ctx, sess, slow); !out.TimedOut || out.Agent {
		t.Errorf("slow: timed out %v, agent %v", out.TimedOut, out.Agent)
	}

	if out, _ := a.Run(ctx, sess, &cases.Case{ID: "none"}); !out.AdapterError || !strings.Contains(out.Error, "has no instruction") {
		t.Errorf("no task: %+v", out)
	}
}

// An agent server gets each request as a POST to its endpoint, and
// answers with the result; any other status, a body that is not a
// result and no answer within the case's time are errors.
func TestAgentServer(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rt := local.New(local.Options{BaseDir: t.TempDir()})
	sess, err := rt.Open(context.Background(), runtime.SessionSpec{Submission: t.TempDir(), Label: "agent-server"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	a := adapter.NewAgentServer(adapter.Server{Command: []string{exe}, Config: problem.Server{
		Env:    map[string]string{agentServerEnv: "1"},
		Health: problem.HealthCheck{Path: "/", Delay: 50 * time.Millisecond, StartupTimeout: time.Minute},
	}}, "/run")
	ctx := context.Background()
	if err := a.Begin(ctx, sess); err != nil {
		t.Fatal(err)
	}
	defer a.End()
	if down := a.ServerDown(); down != "" {
		t.Fatal(down)
	}
	out, err := a.Run(ctx, sess, agentCase("hello", "say hi"))
	if err != nil || !out.Agent || out.AdapterError || out.StatusCode != 200 {
		t.Fatalf("%+v %v", out, err)
	}
	var got struct {
		TaskName   string `json:"task_name"`
		TaskResult string `json:"task_result"`
		Sandbox    struct{ Dir string }
	}
	if err := json.Unmarshal([]byte(out.Output), &got); err != nil || got.TaskName != "hello" || got.TaskResult != "did: say hi" {
		t.Errorf("result %s (%v)", out.Output, err)
	}
	if real, _ := filepath.EvalSymlinks(sess.Workdir()); got.Sandbox.Dir != sess.Workdir() && got.Sandbox.Dir != real {
		t.Errorf("the server runs in %q, want the workspace %q", got.Sandbox.Dir, sess.Workdir())
	}
	for _, tc := range []struct{ instruction, want string }{
		{"fail", `the agent answered HTTP 500, not a result; its body begins "internal trouble\n"`},
		{"prose", `the agent's response: not JSON: invalid character '<' looking for beginning of value (at byte 1); it begins "<html>not a result</html>"`},
	} {
		out, err := a.Run(ctx, sess, agentCase(tc.instruction, tc.instruction))
		if err != nil || !out.AdapterError || out.Agent || out.Error != tc.want {
			t.Errorf("%s: adapter error %v, agent %v, error\n%s\nwant\n%s", tc.instruction, out.AdapterError, out.Agent, out.Error, tc.want)
		}
	}
	slow := agentCase("slow", "slow")
	slow.Timeout = 500 * time.Millisecond
	if out, _ := a.Run(ctx, sess, slow); !out.TimedOut || out.Agent {
		t.Errorf("slow: %+v", out)
	}
}

// Recorded results are read by task name, in either layout; a missing
// one is the case's error naming where it was looked for, and files no
// task claims are listed.
func TestRecorded(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("flat.json", `{"task_result": "a", "elapsed_seconds": 2.5}`)
	write("nested/result.json", `{"task_result": "b"}`)
	write("broken.json", `{"task_result": "c"`)
	write("stray.json", `{}`)
	write("other/result.json", `{}`)
	write("notes.txt", "not a result")
	a := &adapter.Recorded{Dir: dir}
	ctx := context.Background()
	out, _ := a.Run(ctx, nil, agentCase("flat", "x"))
	if !out.Agent || out.AdapterError || out.Elapsed != 2.5 {
		t.Errorf("flat: %+v", out)
	}
	write("nested/sandbox/report.txt", "total 42\n")
	nested := agentCase("nested", "x")
	nested.TrackedFiles = []string{"report.txt", "absent.txt"}
	if out, _ := a.Run(ctx, nil, nested); !out.Agent || out.Output != `{"task_result": "b"}` || out.Files["report.txt"] != "total 42\n" || len(out.Files) != 1 {
		t.Errorf("nested: %+v", out)
	}
	if box := a.Sandbox(nested); box != filepath.Join(dir, "nested", "sandbox") {
		t.Errorf("sandbox %q", box)
	}
	if box := a.Sandbox(agentCase("flat", "x")); box != "" {
		t.Errorf("flat has no sandbox, got %q", box)
	}
	if out, _ := a.Run(ctx, nil, agentCase("broken", "x")); !out.AdapterError || !strings.Contains(out.Error, "broken.json: not JSON: it ends before the JSON value does") {
		t.Errorf("broken: %+v", out)
	}
	out, _ = a.Run(ctx, nil, agentCase("gone", "x"))
	want := fmt.Sprintf("missing: no recorded result for task gone (looked for %s and %s)", filepath.Join(dir, "gone.json"), filepath.Join(dir, "gone", "result.json"))
	if !out.AdapterError || out.Error != want {
		t.Errorf("gone: %q\nwant %q", out.Error, want)
	}
	if out, _ := a.Run(ctx, nil, agentCase("../flat", "x")); !out.AdapterError || !strings.Contains(out.Error, "cannot name a result file") {
		t.Errorf("escape: %+v", out)
	}
	write("both.json", `{"task_result": "right"}`)
	write("both/result.json", `{"task_result": "Lyon"}`)
	if out, _ := a.Run(ctx, nil, agentCase("both", "x")); !out.AdapterError || !strings.Contains(out.Error, "two recorded results for task both: "+filepath.Join(dir, "both.json")+" and "+filepath.Join(dir, "both", "result.json")+"; keep one") {
		t.Errorf("two results for one task: %+v", out)
	}
	long := strings.Repeat("M", 255)
	write(long+"/result.json", `{"task_result": "long"}`)
	if out, _ := a.Run(ctx, nil, agentCase(long, "x")); out.AdapterError || !strings.Contains(out.Output, `"long"`) {
		t.Errorf("a task named with 255 bytes: %+v", out)
	}
	unclaimed, err := adapter.RecordedFiles(dir, []string{"flat", "nested", "broken", "gone", "both", long})
	if err != nil || strings.Join(unclaimed, " ") != "other/result.json stray.json" {
		t.Errorf("unclaimed %q %v", unclaimed, err)
	}
}

// What a results directory holds is untrusted: a FIFO in place of a
// result file is refused without being opened (it would block the run
// for good), and a result file or a sandbox that is a symlink out of the
// directory is refused without its target being read into the case.
func TestRecordedRefusesWhatLeadsOut(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte(`{"task_result": "SECRET-7731"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "box"), 0o755)
	os.WriteFile(filepath.Join(dir, "box", "result.json"), []byte(`{"task_result": "ok"}`), 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, "box", "sandbox")); err != nil {
		t.Fatal(err)
	}
	a := &adapter.Recorded{Dir: dir}
	done := make(chan result.Execution)
	go func() {
		out, _ := a.Run(context.Background(), nil, agentCase("fifo", "x"))
		done <- out
	}()
	select {
	case out := <-done:
		if !out.AdapterError || !strings.Contains(out.Error, "not a regular file") {
			t.Errorf("fifo: %+v", out)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("reading a FIFO in place of a result file blocked")
	}
	out, _ := a.Run(context.Background(), nil, agentCase("link", "x"))
	if !out.AdapterError || !strings.Contains(out.Error, "a symlink that leads out of the results directory") || strings.Contains(out.Error+out.Output, "SECRET") {
		t.Errorf("link: %+v", out)
	}
	box := agentCase("box", "x")
	box.TrackedFiles = []string{"secret.txt"}
	out, _ = a.Run(context.Background(), nil, box)
	if a.Sandbox(box) != "" || len(out.Files) != 0 {
		t.Errorf("a sandbox linked out of the results directory was read: %q, %+v", a.Sandbox(box), out.Files)
	}
}

// A task's setup runs in the sandbox before the agent (files written,
// then commands), its post-setup after; what the checks read back is
// the sandbox after both. A failing step is the case's error and the
// agent does not run.
func TestAgentSetup(t *testing.T) {
	const script = `cat > /dev/null
if [ -f prepared.txt ]; then echo ran >> log.txt; echo "{\"task_result\": \"$(cat prepared.txt)\"}"; else echo '{"task_result": "unprepared"}'; fi
`
	sess := agentSession(t, script)
	a := &adapter.AgentCommand{Command: []string{"sh", "agent.sh"}}
	c := agentCase("setup", "go")
	c.Task.Setup = []cases.SetupStep{
		{Name: "config[0] upload_file_to_vm", Files: []cases.InputFile{{Path: "data/in.txt", Content: []byte("seed")}}},
		{Name: "config[1] execute", Command: []string{"sh", "-c", "cp data/in.txt prepared.txt"}},
	}
	c.Task.PostSetup = []cases.SetupStep{{Name: "postconfig[0] execute", Command: []string{"sh", "-c", "echo post >> log.txt"}}}
	c.TrackedFiles = []string{"log.txt"}
	out, err := a.Run(context.Background(), sess, c)
	if err != nil || out.AdapterError || !out.Agent {
		t.Fatalf("%+v %v", out, err)
	}
	if !strings.Contains(out.Output, `"task_result": "seed"`) {
		t.Errorf("the agent did not see the prepared sandbox: %s", out.Output)
	}
	if got := out.Files["log.txt"]; got != "ran\npost\n" {
		t.Errorf("tracked file after the post-setup: %q", got)
	}

	bad := agentCase("bad-setup", "go")
	bad.Task.Setup = []cases.SetupStep{{Name: "config[0] execute", Command: []string{"sh", "-c", "echo no fixture >&2; exit 4"}}}
	out, err = a.Run(context.Background(), sess, bad)
	if err != nil || !out.AdapterError || out.Agent || !strings.Contains(out.Error, `setup config[0] execute: "sh" exited with status 4; its stderr ends: "no fixture\n"`) {
		t.Errorf("failing setup: %+v %v", out, err)
	}
	post := agentCase("bad-post", "go")
	post.Task.PostSetup = []cases.SetupStep{{Name: "postconfig[0] execute", Command: []string{"false"}}}
	if out, _ := a.Run(context.Background(), sess, post); !out.AdapterError || !strings.HasPrefix(out.Error, `post-setup postconfig[0] execute: "false" exited with status 1`) {
		t.Errorf("failing post-setup: %+v", out)
	}
}

// An agent case's input files are written as any case's are: their
// {{static:NAME}} references resolved first, an unknown one the case's
// error before the agent starts.
func TestAgentInputFilesResolveStatic(t *testing.T) {
	sess := agentSession(t, "cat > /dev/null; echo '{\"task_result\": \"ran\"}'\n")
	a := &adapter.AgentCommand{Command: []string{"sh", "agent.sh"}}
	c := agentCase("static", "go")
	c.InputFiles = []cases.InputFile{{Path: "where.txt", Content: []byte("{{static:nope}}")}}
	out, err := a.Run(context.Background(), sess, c)
	if err != nil || !out.AdapterError || out.Agent || !strings.Contains(out.Error, "nope") {
		t.Errorf("%+v %v", out, err)
	}
}

// An instruction with a NUL byte, which no environment variable can
// hold, reaches a command agent in its request only: the agent starts.
func TestInstructionWithNULIsTheRequestsOnly(t *testing.T) {
	const script = `cat > /dev/null
if [ -n "${WASMEVAL_INSTRUCTION+x}" ]; then e=set; else e=unset; fi
printf '{"task_result": "%s"}' "$e"
`
	sess := agentSession(t, script)
	a := &adapter.AgentCommand{Command: []string{"sh", "agent.sh"}}
	out, err := a.Run(context.Background(), sess, agentCase("nul", "hi \x00 x"))
	if err != nil || out.AdapterError || !strings.Contains(out.Output, `"unset"`) {
		t.Errorf("an instruction with a NUL: %v, %+v", err, out)
	}
}

// A setup or post-setup step (a getter's command) is bounded by the
// task's timeout when it is shorter than SetupStepTimeout.
func TestSetupStepsAreBoundedByTheTasksTimeout(t *testing.T) {
	sess := agentSession(t, "cat > /dev/null\necho '{\"task_result\": \"done\"}'\n")
	a := &adapter.AgentCommand{Command: []string{"sh", "agent.sh"}}
	c := agentCase("slow-getter", "go")
	c.Timeout = 5 * time.Second // the agent's own start, on a busy machine, stays well within it
	c.Task.PostSetup = []cases.SetupStep{{Name: "evaluation.result vm_command_line", Command: []string{"sleep", "1000"}}}
	out, err := a.Run(context.Background(), sess, c)
	if err != nil || !out.AdapterError || !strings.Contains(out.Error, `"sleep" did not finish within 5s`) {
		t.Errorf("a post-setup step past the task's timeout: %v, %+v", err, out)
	}
}
