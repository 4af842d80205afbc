// Package envspec loads environment specs: YAML files that say where and how
// a submission runs — on the host (runtime: local) or in a Docker container
// (image, user, mounts, network, resource limits) — plus the setup commands
// run once per group and the command template that starts the submission.
// Local and Docker specs share one schema; keys that only make sense in a
// container are refused for the local runtime rather than ignored.
package envspec

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wasmeval/wasmeval/engine/diag"
	"github.com/wasmeval/wasmeval/engine/strictyaml"
	"github.com/wasmeval/wasmeval/engine/workspace/confine"
)

// Runtimes a spec can select.
const (
	Local  = "local"
	Docker = "docker"
)

// Defaults of a Docker spec.
const (
	DefaultWorkdir = "/workspace"
	DefaultNetwork = "none"
	DefaultPids    = 512
)

// Spec is a loaded, validated environment spec.
type Spec struct {
	// File is the spec's path; Dir anchors relative mount sources.
	File, Dir string
	// Runtime is Local or Docker.
	Runtime string
	Image   string
	// Workdir is where the workspace is mounted in the container.
	Workdir string
	// User runs every process ("uid", "uid:gid" or a name the image knows).
	User string
	// Env is set for every process; it overrides the problem's env.
	Env    map[string]string
	Mounts []Mount
	// Network is "none" (default), "bridge", "host" or a network name.
	Network string
	// NanoCPUs is the CPU limit in billionths of a CPU (0: unlimited).
	NanoCPUs int64
	// Memory is the memory limit in bytes (0: unlimited); swap is not
	// added on top.
	Memory int64
	// Pids bounds the processes in one group's container.
	Pids int64
	// Setup commands run once per group, in the workspace, before its
	// first case (each through sh -c).
	Setup []string
	// Command is the submission's command template ("" keeps the problem's).
	Command string
}

// Mount is an extra host path visible in the container.
type Mount struct {
	Source, Target string
	Writable       bool
}

type rawSpec struct {
	Runtime string            `yaml:"runtime"`
	Image   string            `yaml:"image"`
	Workdir string            `yaml:"workdir"`
	User    string            `yaml:"user"`
	Env     map[string]string `yaml:"env"`
	Mounts  []rawMount        `yaml:"mounts"`
	Network string            `yaml:"network"`
	CPUs    *float64          `yaml:"cpus"`
	Memory  *scalar           `yaml:"memory"`
	Pids    *int64            `yaml:"pids"`
	Setup   []string          `yaml:"setup"`
	Command string            `yaml:"command"`
}

// scalar keeps a value's text whatever its YAML type (512MiB is a
// string, 1048576 an int).
type scalar struct {
	Value string
	ok    bool
}

func (s *scalar) DecodeNode(d *strictyaml.Decoder, n *yaml.Node, path string) {
	s.Value, s.ok = n.Value, n.Kind == yaml.ScalarNode
}

type rawMount struct {
	Source   string `yaml:"source"`
	Target   string `yaml:"target"`
	Writable bool   `yaml:"writable"`
}

// Load reads and validates a spec. Mount sources must lie inside the
// spec's own directory or one of allowedRoots, so a spec handed over with
// a problem cannot expose arbitrary host paths. Every problem is reported
// at once, each naming the file, the key and the line.
func Load(file string, allowedRoots ...string) (*Spec, error) {
	return LoadShipped(file, nil, allowedRoots...)
}

// LoadShipped is Load on a worker of a distributed run: shipped gives,
// by index in the spec's mounts, the local copy of a mount source the
// run's coordinator sent (it found the source outside the problem, on
// its machine). Such a mount's source is that copy, whatever the spec
// writes; the others are resolved and confined as Load does.
func LoadShipped(file string, shipped map[int]string, allowedRoots ...string) (*Spec, error) {
	var errs diag.List
	node, ok := strictyaml.ParseFile(file, &errs)
	if !ok {
		return nil, errs
	}
	var raw rawSpec
	d := &strictyaml.Decoder{File: file, Errs: &errs}
	d.Decode(node, "", &raw)
	if len(errs) > 0 {
		return nil, errs
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	s := &Spec{File: file, Dir: filepath.Dir(abs), Env: raw.Env, Setup: raw.Setup, Command: raw.Command}
	v := validator{d: d, keys: keyLines(node), shipped: shipped}
	s.resolve(&raw, &v, allowedRoots)
	if len(errs) > 0 {
		return nil, errs
	}
	return s, nil
}

// validator records problems at the line of the offending key.
type validator struct {
	d    *strictyaml.Decoder
	keys map[string]*yaml.Node
	// shipped are the mount sources sent with a distributed run's job
	// (LoadShipped).
	shipped map[int]string
}

func (v *validator) errorf(key, format string, args ...any) {
	v.d.Errorf(v.keys[key], key, format, args...)
}

func (s *Spec) resolve(raw *rawSpec, v *validator, allowedRoots []string) {
	switch raw.Runtime {
	case "":
		s.Runtime = Docker
		if raw.Image == "" {
			s.Runtime = Local
		}
	case Local, Docker:
		s.Runtime = raw.Runtime
	default:
		v.errorf("runtime", "unknown runtime %q; expected %q or %q", raw.Runtime, Local, Docker)
		return
	}
	for k := range s.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			v.errorf("env", "variable name %q is not valid", k)
		}
	}
	for i, c := range s.Setup {
		if strings.TrimSpace(c) == "" {
			v.errorf(fmt.Sprintf("setup[%d]", i), "empty setup command")
		}
	}
	if raw.Memory != nil {
		// A container's limit for all its processes; on the local runtime,
		// each process's own (RLIMIT_DATA).
		n, err := ParseBytes(raw.Memory.Value)
		if err != nil || !raw.Memory.ok {
			v.errorf("memory", "expected a size such as 512MiB, 2GiB or a byte count, got %q", raw.Memory.Value)
		} else if n < 6<<20 {
			v.errorf("memory", "expected at least 6MiB (less cannot start a container or an interpreter), got %q", raw.Memory.Value)
		}
		s.Memory = n
	}
	if s.Runtime == Local {
		// Container-only keys would silently do nothing on the host.
		for key, set := range map[string]bool{
			"image": raw.Image != "", "workdir": raw.Workdir != "", "user": raw.User != "",
			"mounts": len(raw.Mounts) > 0, "network": raw.Network != "", "cpus": raw.CPUs != nil,
			"pids": raw.Pids != nil,
		} {
			if set {
				v.errorf(key, "only applies to the docker runtime (this spec uses runtime: local)")
			}
		}
		return
	}
	if raw.Image == "" {
		v.errorf("image", "required for the docker runtime: the image every group's container runs")
	}
	s.Image = raw.Image
	s.Workdir = raw.Workdir
	if s.Workdir == "" {
		s.Workdir = DefaultWorkdir
	}
	if !path.IsAbs(s.Workdir) || path.Clean(s.Workdir) == "/" || reservedTarget(s.Workdir) {
		v.errorf("workdir", "expected an absolute container path other than / and outside /static and /.wasmeval, got %q", raw.Workdir)
	}
	s.Workdir = path.Clean(s.Workdir)
	if raw.User != "" && !userPattern.MatchString(raw.User) {
		v.errorf("user", "expected a user name or uid, optionally with :group, got %q", raw.User)
	}
	s.User = raw.User
	s.Network = raw.Network
	if s.Network == "" {
		s.Network = DefaultNetwork
	}
	if s.Network == "container" || strings.HasPrefix(s.Network, "container:") {
		v.errorf("network", "sharing another container's network is not supported; use none, bridge, host or a network name")
	}
	if raw.CPUs != nil {
		if *raw.CPUs <= 0 || *raw.CPUs > 1024 {
			v.errorf("cpus", "expected a positive number of CPUs (e.g. 1.5), got %v", *raw.CPUs)
		}
		s.NanoCPUs = int64(*raw.CPUs * 1e9)
	}
	s.Pids = DefaultPids
	if raw.Pids != nil {
		if *raw.Pids < 8 {
			v.errorf("pids", "expected a limit of at least 8 processes, got %d", *raw.Pids)
		}
		s.Pids = *raw.Pids
	}
	roots := append([]string{s.Dir}, allowedRoots...)
	targets := map[string]bool{s.Workdir: true}
	for i, m := range raw.Mounts {
		key := fmt.Sprintf("mounts[%d]", i)
		if m.Source == "" || m.Target == "" {
			v.errorf(key, "a mount needs both source (a host path) and target (a container path)")
			continue
		}
		src := m.Source
		if !filepath.IsAbs(src) {
			src = filepath.Join(s.Dir, src)
		}
		src = filepath.Clean(src)
		mountRoots := roots
		if local, ok := v.shipped[i]; ok {
			src, mountRoots = local, []string{local}
		}
		real, err := filepath.EvalSymlinks(src)
		if err != nil {
			v.errorf(key+".source", "%s: %v", m.Source, diag.UnwrapPathError(err))
			continue
		}
		if !confine.InsideAny(real, mountRoots) {
			v.errorf(key+".source", "%s is outside the allowed mount roots (%s)", m.Source, strings.Join(roots, ", "))
			continue
		}
		t := path.Clean(m.Target)
		if !path.IsAbs(m.Target) || t == "/" || reservedTarget(t) || targets[t] {
			v.errorf(key+".target", "expected an absolute container path, not /, not the workdir, not under /static or /.wasmeval and not mounted twice, got %q", m.Target)
			continue
		}
		targets[t] = true
		s.Mounts = append(s.Mounts, Mount{Source: real, Target: t, Writable: m.Writable})
	}
}

var userPattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+(:[A-Za-z0-9_.-]+)?$`)

// reservedTarget reports container paths the runtime itself mounts.
func reservedTarget(p string) bool {
	p = path.Clean(p)
	for _, r := range []string{"/static", "/.wasmeval", "/proc", "/sys", "/dev"} {
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

// keyLines maps each top-level key (and mounts[i], setup[i] and their
// fields) to its node, for errors found after decoding.
func keyLines(n *yaml.Node) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	for _, kv := range strictyaml.MappingPairs(n) {
		out[kv[0].Value] = kv[0]
		if kv[1].Kind == yaml.SequenceNode {
			for i, item := range kv[1].Content {
				key := fmt.Sprintf("%s[%d]", kv[0].Value, i)
				out[key] = item
				for _, f := range strictyaml.MappingPairs(item) {
					out[key+"."+f[0].Value] = f[0]
				}
			}
		}
	}
	return out
}

var sizePattern = regexp.MustCompile(`^(\d+(?:\.\d+)?)\s*([KMGT]i?B?|[kmgt]|B)?$`)

// ParseBytes reads a size: a byte count or a number with a unit (k/K/KB
// and KiB are all 1024; so are M, G and T).
func ParseBytes(s string) (int64, error) {
	m := sizePattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, fmt.Errorf("not a size: %q", s)
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, err
	}
	mult := float64(1)
	if m[2] != "" && m[2] != "B" {
		mult = float64(int64(1) << (10 * (strings.Index("KMGT", strings.ToUpper(m[2][:1])) + 1)))
	}
	return int64(f * mult), nil
}
