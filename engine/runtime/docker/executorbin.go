package docker

import (
	"bufio"
	"debug/elf"
	"fmt"
	"os"
	"path"
	"path/filepath"
	goruntime "runtime"
	"strings"

	"github.com/docker/docker/api/types/mount"

	"github.com/wasmeval/wasmeval/engine/runtime/docker/executor"
)

// Container paths of the executor.
const (
	executorPath = "/.wasmeval/executor"
	executorLibs = "/.wasmeval/lib"
	controlDir   = "/.wasmeval/ctl"
	controlSock  = "exec.sock"
)

// ExecPerCaseEnv set to "exec" makes the runtime run every case through
// an exec into the group's container, as it did before the executor.
const ExecPerCaseEnv = "WASMEVAL_DOCKER_CASES"

// executorBin is how the running binary serves as the executor inside a
// container: the binary itself, bind-mounted read-only, and, when it is
// dynamically linked, its program interpreter and the shared libraries it
// has loaded, so it needs nothing from the image.
type executorBin struct {
	mounts []mount.Mount
	// entry is the container's entrypoint up to the socket argument.
	entry []string
}

// findExecutor plans the executor for a daemon of architecture arch
// (GOARCH spelling). When the running binary cannot serve there, it says
// why, and the runtime runs every case through an exec instead.
func findExecutor(arch string) (*executorBin, error) {
	if arch != "" && arch != goruntime.GOARCH {
		return nil, fmt.Errorf("the Docker daemon runs on %s and this wasmeval is built for %s", arch, goruntime.GOARCH)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this wasmeval binary: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return nil, fmt.Errorf("find this wasmeval binary: %w", err)
	}
	f, err := elf.Open(exe)
	if err != nil {
		return nil, fmt.Errorf("read this wasmeval binary %s: %w", exe, err)
	}
	defer f.Close()
	b := &executorBin{
		mounts: []mount.Mount{{Type: mount.TypeBind, Source: exe, Target: executorPath, ReadOnly: true}},
		entry:  []string{executorPath, executor.Arg},
	}
	interp := ""
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			data := make([]byte, p.Filesz)
			if _, err := p.ReadAt(data, 0); err != nil {
				return nil, fmt.Errorf("read the interpreter of %s: %w", exe, err)
			}
			interp = strings.TrimRight(string(data), "\x00")
		}
	}
	if interp == "" {
		return b, nil // static: runs in any image as it is
	}
	// Dynamically linked (cgo, the race detector): the libraries this
	// process has loaded are exactly the ones it needs, found in its own
	// memory map, mounted under their sonames beside its interpreter, which
	// is started with that directory as the only library path.
	libs, err := loadedLibraries()
	if err != nil {
		return nil, err
	}
	needed, err := f.ImportedLibraries()
	if err != nil {
		return nil, fmt.Errorf("read the libraries of %s: %w", exe, err)
	}
	for _, n := range needed {
		if _, ok := libs[n]; !ok {
			return nil, fmt.Errorf("this wasmeval binary is dynamically linked and its library %s is not among those loaded", n)
		}
	}
	realInterp, err := filepath.EvalSymlinks(interp)
	if err != nil {
		return nil, fmt.Errorf("this wasmeval binary is dynamically linked and its interpreter %s cannot be found: %w", interp, err)
	}
	loader := path.Join(executorLibs, path.Base(interp))
	b.mounts = append(b.mounts, mount.Mount{Type: mount.TypeBind, Source: realInterp, Target: loader, ReadOnly: true})
	for soname, file := range libs {
		if soname == path.Base(interp) {
			continue
		}
		b.mounts = append(b.mounts, mount.Mount{Type: mount.TypeBind, Source: file, Target: path.Join(executorLibs, soname), ReadOnly: true})
	}
	b.entry = append([]string{loader, "--library-path", executorLibs}, b.entry...)
	return b, nil
}

// loadedLibraries maps the soname of every shared library this process
// has mapped to its file.
func loadedLibraries() (map[string]string, error) {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return nil, fmt.Errorf("list the libraries this wasmeval binary loaded: %w", err)
	}
	defer f.Close()
	out := map[string]string{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || !strings.HasPrefix(fields[5], "/") || seen[fields[5]] {
			continue
		}
		file := fields[5]
		seen[file] = true
		if !strings.Contains(path.Base(file), ".so") {
			continue
		}
		lib, err := elf.Open(file)
		if err != nil {
			continue
		}
		names, _ := lib.DynString(elf.DT_SONAME)
		lib.Close()
		name := path.Base(file)
		if len(names) > 0 {
			name = names[0]
		}
		out[name] = file
	}
	return out, sc.Err()
}
