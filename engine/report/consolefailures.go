package report

import (
	"fmt"
	"io"

	"github.com/wasmeval/wasmeval/engine/result"
)

// DefaultConsoleFailures is how many failing cases the console lists
// after a run's table unless told otherwise (--failures).
const DefaultConsoleFailures = 10

// consoleLineBytes caps one line of the failure list: the list is read
// in a terminal, and a case's whole story is in the reports.
const consoleLineBytes = 200

// PrintFailures writes the short failure list the console shows after a
// run's table, as pytest's "short test summary info" does: each case
// that failed or ended in an error, one line each — its status, its key
// and why (its first diff line or its error's message) — in journal
// order, the first limit of them, then how many more were not shown.
// Cases whose lines would say the same after their key (a plugin that
// traps on every case, a submission that crashes the same way) share
// the first one's line, which counts them, so a list of limit lines
// shows limit different reasons. limit 0 prints nothing. The journal
// is streamed: nothing but the shown lines and the counts is kept.
func PrintFailures(w io.Writer, dir string, limit int) error {
	if limit <= 0 {
		return nil
	}
	type line struct {
		head, why string
		same      int // more cases with this status and why
	}
	var lines []*line
	byWhy := map[string]*line{}
	n := 0
	err := EachCase(dir, func(r *result.CaseRecord) error {
		if o := result.OutcomeOf(r); o != result.OutcomeFailed && o != result.OutcomeError {
			return nil
		}
		n++
		status, key, why := consoleFailure(r)
		if l := byWhy[status+why]; l != nil {
			l.same++
			return nil
		}
		if len(lines) < limit {
			l := &line{head: status + " " + key, why: why}
			lines = append(lines, l)
			byWhy[status+why] = l
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	shown := 0
	for _, l := range lines {
		shown += 1 + l.same
	}
	if n > shown {
		fmt.Fprintf(w, "\nfailures: %d (%d shown)\n", n, shown)
	} else {
		fmt.Fprintf(w, "\nfailures: %d\n", n)
	}
	for _, l := range lines {
		head := l.head
		if l.same > 0 {
			head += fmt.Sprintf(" (and %d more like it)", l.same)
		}
		fmt.Fprintln(w, consoleLine(head, l.why))
	}
	if more := n - shown; more > 0 {
		fmt.Fprintf(w, "… and %d more not shown (--failures N lists more; the HTML report details every one)\n", more)
	}
	return nil
}

// ConsoleFailure is a failing case's line in the console's failure list:
// "FAILED  checkpoint/group/id - why", at most consoleLineBytes long.
func ConsoleFailure(r *result.CaseRecord) string {
	status, key, why := consoleFailure(r)
	return consoleLine(status+" "+key, why)
}

// consoleLine is a failure line of head ("FAILED  key") and why, cut to
// consoleLineBytes.
func consoleLine(head, why string) string {
	head += " - "
	return head + OneLine(why, max(consoleLineBytes-len(head), 40))
}

// consoleFailure is a failing case's status (padded to seven columns),
// printable key and why, as its console line shows them.
func consoleFailure(r *result.CaseRecord) (status, key, why string) {
	status, why = "FAILED ", Reason(r, 0)
	switch {
	case result.OutcomeOf(r) == result.OutcomeError:
		status = "ERROR  "
		// The kind says it was the harness; the message says what broke.
		why = string(result.ErrorKindOf(r)) + ": "
		switch x := r.Result; {
		case result.ErrorKindOf(r) == result.ErrorMock:
			// "mock payments: …" names the part already.
			why = MockProblem(r)
		case x.PluginError != "":
			why += x.PluginError
		case x.TimedOut:
			why += RunProblem(r)
		case x.Error != "":
			why += x.Error
		default:
			why = Reason(r, 0)
		}
	case r.Result.TimedOut:
		status = "TIMEOUT"
	case r.Result.OOMKilled:
		status = "OOM    "
	}
	return status, Printable(EpochName(r.Key(), r.Epoch), 100), why
}
