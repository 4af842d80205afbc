package html

import "html/template"

// Stylesheet is the CSS of wasmeval's HTML pages: a run's report and the
// pages that link to reports (a batch's leaderboard) look alike.
func Stylesheet() template.CSS { return template.CSS(stylesheet) }

const stylesheet = `body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1200px;color:#222;padding:0 1em}
h1{font-size:1.5em;margin-bottom:.2em}.meta{color:#555}.meta code{background:#f4f4f4;padding:0 .3em}
.pass{color:#2e7d32;font-weight:600}.fail{color:#c62828;font-weight:600}
.chart .label,.chart .value{font-size:12px;fill:#333}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ddd;padding:.25em .5em;text-align:left}
th{background:#fafafa;position:sticky;top:0}tr.failed td.status{color:#c62828}tr.passed td.status{color:#2e7d32}tr.error td.status,tr.error td.status a{color:#e65100}tr.unscored td.status{color:#757575}.inconclusive{color:#e65100;font-weight:600}
#controls{margin:.5em 0}#filter{width:24em;padding:.3em}#shown{margin-left:1em;color:#555}tr.failed td.status a{color:#c62828}
details.failure{border:1px solid #e0e0e0;border-radius:4px;margin:.5em 0;padding:.3em .6em}
details.failure summary{cursor:pointer;font-family:monospace}
pre{background:#f8f8f8;padding:.5em;overflow:auto;max-height:30em;white-space:pre-wrap}
.diff .add{color:#1b5e20;background:#e8f5e9;display:block}.diff .del{color:#b71c1c;background:#ffebee;display:block}
.attr h4{margin:.6em 0 .2em}
details.transcript{border:1px solid #d0d7de;border-radius:4px;margin:.5em 0;padding:.3em .6em}
details.transcript>summary{cursor:pointer;font-family:monospace}
.transcript .msg{border-left:4px solid #bbb;margin:.6em 0;padding:.2em .6em}
.transcript .role-user{border-color:#1565c0}.transcript .role-assistant{border-color:#2e7d32}.transcript .role-system{border-color:#6a1b9a}.transcript .role-tool,.transcript .role-function{border-color:#ef6c00}
.transcript .role{font-weight:600;font-size:.85em;text-transform:uppercase;color:#555}
.transcript .call{background:#f3f6fa;border:1px solid #dde3ea;border-radius:4px;margin:.4em 0;padding:.3em .5em}
.transcript .tool-result{border-top:1px dashed #ccc;margin-top:.3em;padding-top:.3em}
.transcript .tool-result.is-error{background:#ffebee}.transcript .is-error .label{color:#c62828;font-weight:600}
.transcript .warn{color:#e65100}.transcript .cut{color:#757575;font-style:italic}
.transcript details.thinking{color:#555}.transcript details.thinking summary{cursor:pointer}
.transcript ol.trace li{margin:.3em 0}
.shots{display:flex;flex-wrap:wrap;gap:.8em;margin:.5em 0}figure.shot{margin:0}figure.shot figcaption{font-size:12px;color:#555}
img.thumb{max-width:320px;max-height:200px;border:1px solid #ccc;cursor:zoom-in;display:block}
#lightbox{position:fixed;inset:0;background:rgba(0,0,0,.85);overflow:auto;z-index:10;cursor:zoom-out}#lightbox img{display:block;margin:1em auto;max-width:none;background:#fff}
details.mock-calls{border:1px solid #d0d7de;border-radius:4px;margin:.5em 0;padding:.3em .6em}details.mock-calls>summary{cursor:pointer;font-family:monospace}
table.calls td{vertical-align:top}table.calls pre{overflow-wrap:anywhere;max-height:20em}table.calls tr.unmatched{background:#fff3e0}table.calls tr.fault{background:#ffebee}
.flag{font-size:.8em;font-weight:600;text-transform:uppercase;border-radius:3px;padding:0 .3em}.flag.unmatched{color:#fff;background:#e65100}.flag.fault{color:#fff;background:#c62828}
details.request summary{cursor:pointer;color:#555}.body-note{margin:.3em 0 0;font-size:12px;color:#555}a.mock-link{font-size:12px}
.warn{color:#e65100}pre.log-tail{max-height:24em}section.server-logs h3{font-family:monospace;font-size:1em}
`
