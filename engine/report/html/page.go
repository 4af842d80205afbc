package html

import "html/template"

// The page is written in three parts so the case table and the failure
// details can be streamed between them.

var funcs = template.FuncMap{
	"style": Stylesheet,
	"pct": func(p, t int) string {
		if t == 0 {
			return "-"
		}
		return template.HTMLEscapeString(fmtPct(p, t))
	},
}

var head = template.Must(template.New("head").Funcs(funcs).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Run.Problem}} — wasmeval report</title>
<style>
{{style}}</style></head><body>
<h1>{{.Run.Problem}}</h1>
<p class="meta">run <code>{{.Run.RunID}}</code>{{if .Run.Status}} · {{.Run.Status}}{{end}} ·
<span id="total">{{.Passed}}/{{.Counted}} cases passed ({{pct .Passed .Counted}})</span>{{if .Errored}} · <span id="errored" class="inconclusive">{{.Errored}} errors (not judged)</span>{{end}}{{if .Unscored}} · <span id="unscored">{{.Unscored}} unscored</span>{{end}} ·
<a id="manifest-link" href="{{.Run.ManifestLink}}">manifest</a>{{if .Engine}} · wasmeval {{.Engine}}{{end}}</p>
{{with .DuplicateNote}}<p class="meta" id="duplicates">Note: {{.}}.</p>
{{end}}<h2>Checkpoints</h2>
<div id="chart-checkpoints">{{.CheckpointChart}}</div>
<ul>{{range .Checkpoints}}<li>{{.Name}}: <span class="{{if .Passed}}pass{{else if eq (print .Verdict) "inconclusive"}}inconclusive{{else}}fail{{end}}">{{.VerdictLine}}</span> (policy {{.Policy}}){{if .CasesFlaky}}<br><span class="flaky">flaky:{{range $name, $g := .GroupOutcomes}}{{range $g.Flaky}} <code>{{$name}}/{{.}}</code>{{end}}{{end}}</span>{{end}}</li>{{end}}</ul>
{{range .Groups}}<h2>{{.Name}}: groups</h2>
<div class="group-chart" data-checkpoint="{{.Name}}">{{.Chart}}</div>
{{end}}
<h2>Cases</h2>
<div id="controls"><input id="filter" type="search" placeholder="filter cases (id, group, checkpoint, status)" autocomplete="off">
<label><input id="failing-only" type="checkbox"> failing only</label> <span id="shown"></span></div>
<table id="cases"><thead><tr><th>checkpoint</th><th>group</th><th>type</th><th>case</th><th>score</th><th>status</th><th>duration</th></tr></thead><tbody>
`))

// mockCount says how many calls a case's mocks received and how many
// went wrong: "3 mock calls, 1 unmatched".
const mockCount = `{{define "mockCount"}}{{.Received}} mock call{{if ne .Received 1}}s{{end}}{{if .Unmatched}}, {{.Unmatched}} unmatched{{end}}{{if .Faulted}}, {{.Faulted}} faulted{{end}}{{end}}`

var row = template.Must(template.New("row").Parse(mockCount + `<tr class="{{.Class}}" data-key="{{.Key}}"><td>{{.Checkpoint}}</td><td>{{.Group}}</td><td>{{.Type}}</td><td>{{.Name}}{{if .Transcript}} <a class="transcript-link" href="#{{.Transcript}}">transcript</a>{{end}}{{with .Mocks}}{{if .Anchor}} <a class="mock-link{{if or .Unmatched .Faulted}} warn{{end}}" href="#{{.Anchor}}">{{template "mockCount" .}}</a>{{end}}{{end}}</td><td>{{printf "%.2f" .Score}}</td><td class="status"{{if .Reason}} title="{{.Reason}}"{{end}}>{{if eq .Status "pass" "unscored"}}{{.Status}}{{else}}<a href="#{{.Anchor}}">{{.Status}}</a>{{end}}{{if gt .Attempt 1}} (attempt {{.Attempt}}){{end}}</td><td>{{printf "%.3fs" .Duration}}</td></tr>
`))

var mid = template.Must(template.New("mid").Parse(`</tbody></table>
<h2>Failing and errored cases</h2>
<div id="failures">
`))

var failure = template.Must(template.New("failure").Parse(mockCount + `<details class="failure" id="{{.Anchor}}" data-key="{{.Key}}"><summary>{{.Key}} — score {{printf "%.2f" .Score}}{{if .Problem}} — <span class="problem">{{.Problem}}</span>{{end}}</summary>
{{if .ProblemText}}<pre class="problem-text">{{.ProblemText}}</pre>
{{end}}{{if .Shots}}<div class="shots">{{range .Shots}}{{if .Src}}<figure class="shot"><a class="shot" href="{{if .Link}}{{.Link}}{{else}}{{.Src}}{{end}}" data-name="{{.Name}}"><img class="thumb" src="{{.Src}}" alt="screenshot {{.Name}}"></a><figcaption>{{.Name}} · {{.Size}}{{if .Note}} · {{.Note}}{{end}}</figcaption></figure>{{else}}<p class="warn artifact-note">screenshot {{.Name}}: {{.Note}}</p>{{end}}{{end}}</div>
{{end}}{{if .Logs}}<p class="logs-link"><a href="#{{.Logs}}">server logs</a></p>
{{end}}{{with .Mocks}}<p class="mock-summary{{if or .Unmatched .Faulted}} warn{{end}}">{{if .Anchor}}<a href="#{{.Anchor}}">{{template "mockCount" .}}</a>{{else}}{{template "mockCount" .}} (not listed on this page){{end}}</p>
{{end}}{{range .Attrs}}<div class="attr" data-attribute="{{.Name}}"><h4>{{.Name}}{{if .Summary}}: {{.Summary}}{{end}}</h4>
{{if .Unified}}<pre class="diff">{{range .Lines}}<span class="{{.Class}}">{{.Text}}</span>
{{end}}</pre>{{end}}{{if .Entries}}<table class="entries"><tr><th>where</th><th>what</th><th>expected</th><th>actual</th></tr>{{range .Entries}}<tr><td>{{.Path}}</td><td>{{.Op}}</td><td><code>{{.Expected}}</code></td><td><code>{{.Actual}}</code></td></tr>{{end}}</table>{{end}}
{{if .ShowValues}}<p>expected</p><pre class="expected">{{.Expected}}</pre><p>actual</p><pre class="actual">{{.Actual}}</pre>{{end}}</div>
{{end}}</details>
`))

var afterFailures = template.Must(template.New("afterFailures").Parse(`</div>{{if .More}}<p id="more-failures">{{.More}} more failing cases are not detailed here; results.parquet has every diff.</p>{{end}}
`))

// serverLogs lists each group's server logs: a link to the file and its
// last lines, as text (the template escapes them; report.ReadLogTail has
// replaced control characters).
var serverLogs = template.Must(template.New("serverLogs").Parse(`<h2>Server logs</h2>
<div id="server-logs">
{{range .Groups}}<section class="server-logs" id="{{.Anchor}}" data-group="{{.Key}}"><h3>{{.Key}}</h3>{{if .Startup}}<p class="startup">the server answered its health check {{printf "%.2f" .Startup}}s after it started</p>{{end}}
{{range .Logs}}<div class="log" data-log="{{.Name}}"><p>{{if .Link}}<a class="log-link" href="{{.Link}}">{{.Name}}</a> · {{.Size}}{{if .Cut}} · its last {{.Lines}} lines{{end}}{{else}}{{.Name}}{{end}}</p>
{{if .Note}}<p class="warn artifact-note">{{.Note}}</p>{{else if .Text}}<pre class="log-tail">{{.Text}}</pre>{{else}}<p class="cut">(empty)</p>{{end}}</div>
{{end}}{{if .More}}<p class="cut">{{.More}} more logs of this group not listed.</p>{{end}}</section>
{{end}}</div>{{if .MoreGroups}}<p class="cut">{{.MoreGroups}} more groups' logs are not listed here; their records name them.</p>{{end}}
`))

var mockCallsHead = template.Must(template.New("mockCallsHead").Parse(`<h2>Mock calls</h2>
<div id="mock-calls">
`))

var mockCallsTail = template.Must(template.New("mockCallsTail").Parse(`</div>{{if .More}}<p id="more-mock-cases">{{.More}} more cases' mock calls are not shown here; results.jsonl and results.parquet hold every case's calls.</p>{{end}}
`))

// mockCalls is one case's calls to its mock services. Every value is the
// submission's request: the template escapes it, none of it goes in a
// script or a URL.
var mockCalls = template.Must(template.New("mockCalls").Parse(mockCount + `<details class="mock-calls" id="{{.Anchor}}" data-key="{{.Key}}"><summary>{{.Key}} — {{.Received}} call{{if ne .Received 1}}s{{end}}{{if .Unmatched}} · <span class="flag unmatched">{{.Unmatched}} unmatched</span>{{end}}{{if .Faulted}} · <span class="flag fault">{{.Faulted}} faulted</span>{{end}}</summary>
<table class="calls"><thead><tr><th>#</th><th>mock</th><th>method</th><th>path</th><th>status</th><th></th><th>request</th></tr></thead><tbody>
{{range .Calls}}<tr class="{{.Class}}" data-index="{{.N}}"><td>{{.N}}</td><td class="mock">{{.Mock}}</td><td class="method">{{.Method}}</td><td class="path"><code>{{.Path}}</code></td><td class="status">{{.Status}}</td><td class="flags">{{if .Unmatched}}<span class="flag unmatched" title="no route of the mock matches this request: it was answered 501">unmatched</span>{{end}}{{if .Fault}}<span class="flag fault">fault</span> <span class="fault-text">{{.Fault}}</span>{{end}}</td><td>{{if or .Headers .Body .OverTheLimit}}<details class="request"><summary>{{len .Headers}}{{if .MoreHeaders}}+{{end}} header{{if ne (len .Headers) 1}}s{{end}}{{if .NoBody}}, no body{{else}}, body{{end}}</summary>{{if .Headers}}<pre class="headers">{{range .Headers}}{{.Name}}: {{.Value}}
{{end}}</pre>{{end}}{{if .MoreHeaders}}<p class="cut">{{.MoreHeaders}} more header lines not shown</p>{{end}}{{if .Body}}<p class="body-note">body ({{.BodyNote}})</p><pre class="body">{{.Body}}</pre>{{end}}{{if .OverTheLimit}}<p class="cut">the rest of this request is not shown: this case's calls are over the page's size limit</p>{{end}}</details>{{else}}<span class="cut">no headers, no body</span>{{end}}</td></tr>
{{end}}</tbody></table>{{if .More}}<p class="cut more-calls">… and {{.More}} more call{{if ne .More 1}}s{{end}}{{if .Hidden}}: {{.Hidden}} not listed here (results.jsonl has them){{end}}{{if .Dropped}}{{if .Hidden}};{{else}}:{{end}} {{.Dropped}} received but not kept (a case keeps its first calls){{end}}</p>{{end}}
</details>
`))

var transcriptsHead = template.Must(template.New("transcriptsHead").Parse(`<h2>Agent transcripts</h2>
<div id="transcripts">
`))

var transcriptsTail = template.Must(template.New("transcriptsTail").Parse(`</div>{{if .More}}<p id="more-transcripts">{{.More}} more agent transcripts are not shown here; results.jsonl holds every agent's result.</p>{{end}}
`))

// transcript is one agent case's conversation. Every value is the
// agent's text: the template escapes it, and none of it is ever put in a
// script or a URL.
var transcript = template.Must(template.New("transcript").Parse(`<details class="transcript" id="{{.Anchor}}" data-key="{{.Key}}"><summary>{{.Key}} — {{len .Messages}} messages{{if .Status}} · {{.Status}}{{end}}</summary>
{{if .Instruction}}<h4>Instruction</h4><pre class="instruction">{{.Instruction}}</pre>{{end}}
{{if .ParseError}}<p class="warn parse-error">The output is not an agent result: {{.ParseError}}</p><p>It begins:</p><pre class="raw">{{.Raw}}</pre>{{else}}
<p class="summary">{{if .Rule}}answer found by rule <code class="rule">{{.Rule}}</code>{{if ge .AnswerMessage 0}} (message {{.AnswerMessage}}){{end}}{{end}}{{if .Iterations}} · {{.Iterations}} iterations{{end}}{{if .Usage}} · <span class="usage">{{.Usage}}</span>{{end}}{{if .Elapsed}} · <span class="elapsed">{{.Elapsed}}</span>{{end}}</p>
{{if .Answer}}<h4>Answer</h4><pre class="answer">{{.Answer}}</pre>{{end}}
{{if .Warnings}}<ul class="warnings">{{range .Warnings}}<li class="warn">{{.}}</li>{{end}}</ul>{{end}}
<h4>Conversation</h4>
<div class="conversation">{{range .Messages}}<div class="msg {{.RoleClass}}" id="{{.Anchor}}" data-index="{{.Index}}" data-role="{{.Role}}"><div class="role">{{.Role}}{{if .Name}} ({{.Name}}){{end}}</div>
{{if .Thinking}}<details class="thinking"><summary>thinking</summary><pre>{{.Thinking}}</pre></details>{{end}}
{{if .Text}}<pre class="text">{{.Text}}</pre>{{end}}
{{range .Calls}}<div class="call" id="{{.Anchor}}" data-call-id="{{.ID}}" data-tool="{{.Name}}"><div>tool call <code class="tool-name">{{.Name}}</code>{{if .ID}} <code class="call-id">{{.ID}}</code>{{end}}</div>
{{if .ArgsError}}<p class="warn args-error">arguments are not JSON ({{.ArgsError}}); as written:</p><pre class="args raw">{{.Args}}</pre>{{else}}<pre class="args">{{.Args}}</pre>{{end}}
{{with .Result}}<div class="tool-result{{if .IsError}} is-error{{end}}" data-call-id="{{.CallID}}"><span class="label">{{if .IsError}}result (error){{else}}result{{end}}</span><pre class="content">{{.Content}}</pre></div>{{else}}<p class="warn no-result">no result answers this call</p>{{end}}
</div>
{{end}}{{range .Results}}{{if .Shown}}<p class="result-ref">result of <a href="#{{.CallAnchor}}">{{.Name}}{{if .CallID}} ({{.CallID}}){{end}}</a>, shown under the call{{if .IsError}} (error){{end}}</p>{{else}}<div class="tool-result{{if .IsError}} is-error{{end}}" data-call-id="{{.CallID}}">{{if .Unlinked}}<p class="warn">a tool result that answers no call{{if .CallID}} (id {{.CallID}}){{end}}</p>{{else}}<p class="warn">another result for <a href="#{{.CallAnchor}}">{{.Name}}</a>{{if .CallID}} ({{.CallID}}){{end}}</p>{{end}}<span class="label">{{if .IsError}}result (error){{else}}result{{end}}</span><pre class="content">{{.Content}}</pre></div>{{end}}
{{end}}{{if .OtherBlocks}}<p class="cut">{{.OtherBlocks}} other content blocks (images, documents, …) not shown</p>{{end}}{{if .NoTextNoCallsNoBlock}}<p class="cut">(empty)</p>{{end}}</div>
{{end}}</div>{{if .MoreMessages}}<p class="cut more-messages">{{.MoreMessages}} more messages not shown: the transcript is over its size limit; results.jsonl holds the whole result.</p>{{end}}
{{if .Trace}}<h4>Execution trace</h4><ol class="trace">{{range .Trace}}<li><div>action</div><pre class="action">{{.Action}}</pre><div>feedback</div><pre class="feedback">{{.Feedback}}</pre></li>{{end}}</ol>{{if .MoreTrace}}<p class="cut">{{.MoreTrace}} more trace steps not shown.</p>{{end}}{{end}}
{{end}}</details>
`))

var tail = template.Must(template.New("tail").Parse(`<div id="lightbox" hidden><img id="lightbox-img" alt="full-size screenshot"></div>
<script>
(function(){
  var input=document.getElementById('filter'), only=document.getElementById('failing-only'),
      rows=document.querySelectorAll('#cases tbody tr'), shown=document.getElementById('shown');
  function apply(){
    var q=input.value.toLowerCase(), n=0;
    for(var i=0;i<rows.length;i++){
      var r=rows[i], ok=(!q||r.textContent.toLowerCase().indexOf(q)>=0)&&(!only.checked||r.classList.contains('failed'));
      r.style.display=ok?'':'none'; if(ok)n++;
    }
    shown.textContent=n+' of '+rows.length+' cases shown';
  }
  input.addEventListener('input',apply); only.addEventListener('change',apply); apply();
  // A link from the table opens the failing case's details.
  function openTarget(){
    var id=decodeURIComponent(location.hash.slice(1)), d=id&&document.getElementById(id);
    if(d&&d.tagName==='DETAILS'){d.open=true;d.scrollIntoView();}
  }
  window.addEventListener('hashchange',openTarget); openTarget();
  // A screenshot's thumbnail opens full size over the page (an embedded
  // image cannot be opened as a page of its own); a click or Escape
  // closes it.
  var box=document.getElementById('lightbox'), big=document.getElementById('lightbox-img');
  document.addEventListener('click',function(e){
    var a=e.target.closest&&e.target.closest('a.shot');
    if(a){e.preventDefault();big.src=a.querySelector('img').src;box.hidden=false;return;}
    if(!box.hidden&&box.contains(e.target)){box.hidden=true;}
  });
  document.addEventListener('keydown',function(e){if(e.key==='Escape')box.hidden=true;});
})();
</script>
</body></html>
`))
