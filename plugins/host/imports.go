package host

import (
	"fmt"
	"strings"

	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// The modules a plugin may import from, by transport. Anything else fails
// at instantiation with the runtime's "module[env] not instantiated",
// which names neither the import nor what to do about it; checking first
// lets the message say both.
var (
	extismImportModules = []string{wasi_snapshot_preview1.ModuleName, "extism:host/env", "extism:host/user"}
	nativeImportModules = []string{wasi_snapshot_preview1.ModuleName, nativeHostModule}
)

// checkImports says which imports of the module no host module provides.
func (mi moduleInterface) checkImports() error {
	provided := extismImportModules
	if mi.isNative() {
		provided = nativeImportModules
	}
	var unknown []string
	abort := false
	for _, imp := range mi.imports {
		ok := false
		for _, m := range provided {
			ok = ok || imp[0] == m
		}
		if !ok {
			unknown = append(unknown, imp[0]+"."+imp[1])
			abort = abort || imp == [2]string{"env", "abort"}
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s; wasmeval provides the modules %s only", strings.Join(unknown, ", "), strings.Join(provided, ", "))
	if abort {
		msg += "; env.abort is AssemblyScript's runtime error handler: build with the SDK's, " +
			"--use abort=~lib/@wasmeval/sdk/assembly/abort/abort/wasmevalAbort, as docs/sdk-assemblyscript.md says"
	}
	return fmt.Errorf("%s", msg)
}
