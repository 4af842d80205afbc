package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/wasmeval/wasmeval/plugins/host"
)

// pluginFlags are the plugin settings shared by run, validate and plugin.
type pluginFlags struct {
	dirs      []string
	timeout   time.Duration
	memoryMB  int
	cacheDir  string
	isolation string
}

func (f *pluginFlags) register(fl *pflag.FlagSet) {
	fl.StringArrayVar(&f.dirs, "plugin-dir", nil, "directory searched for plugins named by name (repeatable; also $WASMEVAL_PLUGIN_PATH)")
	fl.DurationVar(&f.timeout, "plugin-timeout", host.DefaultTimeout, "time limit of one plugin call")
	fl.IntVar(&f.memoryMB, "plugin-memory", host.DefaultMemoryBytes>>20, "memory cap of a plugin instance, in MiB")
	fl.StringVar(&f.cacheDir, "plugin-cache", "", `compilation cache directory (default: the user cache dir; "-" disables it)`)
	fl.StringVar(&f.isolation, "plugin-isolation", host.Auto, `where plugin code runs: "auto" (each plugin in process when it can be stopped cheaply there, else in worker processes), "process" (worker processes, killed at the timeout) or "inprocess" (in wasmeval)`)
}

// newHost starts a plugin host whose plugin logs go to logw.
func (f *pluginFlags) newHost(logw io.Writer) (*host.Host, error) {
	if f.timeout < host.MinTimeout {
		return nil, usageErr(fmt.Errorf("--plugin-timeout %v: expected at least %v", f.timeout, host.MinTimeout))
	}
	if f.isolation != host.Auto && f.isolation != host.Process && f.isolation != host.InProcess {
		return nil, usageErr(fmt.Errorf("--plugin-isolation %q: expected %s, %s or %s", f.isolation, host.Auto, host.Process, host.InProcess))
	}
	if max := host.MaxMemoryBytes >> 20; f.memoryMB < 1 || f.memoryMB > max {
		return nil, usageErr(fmt.Errorf("--plugin-memory %d: expected from 1 to %d MiB (a 32-bit Wasm memory's limit)", f.memoryMB, max))
	}
	// A directory given that is not one is a mistake (a typo, a path
	// relative to another directory): said now, rather than the plugins
	// it should hold reported missing. ($WASMEVAL_PLUGIN_PATH, like PATH,
	// may name directories that do not exist.)
	for _, d := range f.dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			why := "not a directory"
			if err != nil {
				why = pathErr(err).Error()
			}
			return nil, usageErr(fmt.Errorf("--plugin-dir %s: %s", d, why))
		}
	}
	var mu sync.Mutex
	h, err := host.New(host.Options{
		CacheDir: f.cacheDir, Timeout: f.timeout, MemoryBytes: uint64(f.memoryMB) << 20, Isolation: f.isolation,
		Log: func(plugin, level, msg string) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(logw, "%s plugin %s %s: %s\n", time.Now().UTC().Format(time.RFC3339), plugin, level, msg)
		},
	})
	if err != nil {
		return nil, usageErr(err)
	}
	return h, nil
}

// switchWriter is a writer whose destination can change (safely while
// plugins log from other goroutines).
type switchWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *switchWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

func (s *switchWriter) set(w io.Writer) {
	s.mu.Lock()
	s.w = w
	s.mu.Unlock()
}
