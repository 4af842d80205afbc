package host

import (
	"context"
	"fmt"

	extism "github.com/extism/go-sdk"
)

type assetRootKey struct{}

type assetScope struct {
	assets Assets
	max    int64
	plugin *Plugin
}

// hostFunctions are the functions a plugin may import besides Extism's own
// (namespace extism:host/user):
//
//	read_asset(path: ptr) -> ptr   bytes of a problem file, 0 on refusal
//
// read_asset reads a file through the call's Assets (the engine's: the
// problem directory, read-only, refusing absolute paths, escapes and files
// over the size cap); the reason for a refusal goes to the run log.
func (h *Host) hostFunctions() []extism.HostFunction {
	readAsset := extism.NewHostFunctionWithStack("read_asset",
		func(ctx context.Context, cp *extism.CurrentPlugin, stack []uint64) {
			scope, _ := ctx.Value(assetRootKey{}).(assetScope)
			rel, err := cp.ReadString(stack[0])
			if err == nil {
				var data []byte
				data, err = readAsset(scope, rel)
				if err == nil {
					var off uint64
					if off, err = cp.WriteBytes(data); err == nil {
						stack[0] = off
						return
					}
				}
			}
			if h.opts.Log != nil && scope.plugin != nil {
				h.opts.Log(scope.plugin.Label(), "warn", fmt.Sprintf("read_asset %q refused: %v", rel, err))
			}
			stack[0] = 0
		},
		[]extism.ValueType{extism.ValueTypePTR}, []extism.ValueType{extism.ValueTypePTR})
	readAsset.SetNamespace("extism:host/user")
	return []extism.HostFunction{readAsset}
}

func readAsset(scope assetScope, rel string) ([]byte, error) {
	if scope.assets == nil {
		return nil, fmt.Errorf("no problem directory is in scope for this call")
	}
	return scope.assets.ReadAsset(rel, scope.max)
}
