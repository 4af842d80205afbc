package problem

import (
	"bytes"
	"fmt"
	"path"
	"strings"
)

// wasmMagic starts every WebAssembly binary module.
var wasmMagic = []byte("\x00asm")

// scriptLanguages names the languages of files a problem written for
// another evaluation system may name as its loader or verifier.
var scriptLanguages = map[string]string{
	".py": "Python", ".pyc": "Python", ".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript",
	".ts": "TypeScript", ".sh": "shell", ".bash": "shell", ".rb": "Ruby", ".pl": "Perl",
	".lua": "Lua", ".r": "R", ".php": "PHP", ".go": "Go source", ".rs": "Rust source",
	".jar": "Java", ".java": "Java", ".wat": "WebAssembly text",
}

// portingHelp says where to read how to port a loader or verifier.
const portingHelp = "port it to a plugin (docs/porting.md; the SDKs: docs/sdk-go.md, docs/sdk-rust.md, docs/sdk-assemblyscript.md) and bind the built .wasm by its path and sha256 (as a verifier or loader: {type: plugin, path: ..., sha256: ...})"

// looksLikeFile says whether a loader or verifier name is a file name
// rather than a built-in's (built-in names have no extension).
func looksLikeFile(name string) bool {
	return strings.ContainsAny(name, "/\\") || path.Ext(name) != ""
}

// nonWasm is the message for a loader or verifier (what) named by a file
// that is not a WebAssembly module. wasmeval never substitutes a built-in
// for it: the problem would validate and then score every case wrong.
func nonWasm(what, name string, builtin string) string {
	lang, ok := scriptLanguages[strings.ToLower(path.Ext(name))]
	if !ok {
		lang = "not WebAssembly"
	} else {
		lang = "a " + lang + " file"
	}
	msg := fmt.Sprintf("%s %s is %s: wasmeval does not run it, it runs %ss only as WebAssembly plugins; %s", what, name, lang, what, portingHelp)
	if builtin != "" {
		msg += "; " + builtin
	}
	return msg
}

// isWasm says whether data starts as a WebAssembly binary module.
func isWasm(data []byte) bool { return bytes.HasPrefix(data, wasmMagic) }
