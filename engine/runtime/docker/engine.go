package docker

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
)

// pingTimeout bounds how long an unreachable engine can delay a run.
const pingTimeout = 10 * time.Second

// Ping checks that the engine answers and returns its version.
func Ping(ctx context.Context, cli *client.Client) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	if _, err := cli.Ping(ctx); err != nil {
		return "", fmt.Errorf("docker engine at %s is not reachable: %w (is dockerd running? set DOCKER_HOST to reach another engine)", cli.DaemonHost(), err)
	}
	v, err := cli.ServerVersion(ctx)
	if err != nil {
		return "", fmt.Errorf("docker engine at %s: version: %w", cli.DaemonHost(), err)
	}
	return fmt.Sprintf("%s (API %s)", v.Version, v.APIVersion), nil
}

// Check reports whether the engine is reachable, its version and, when
// image is set, whether the image exists.
type Check struct {
	Host, Version string
	Image         string
	ImageFound    bool
	Helper        string
	// Executor says how cases run: through each container's executor, or
	// through an exec each and why.
	Executor string
}

// RunCheck performs the checks behind `wasmeval env check`. The error
// says what is wrong and how to fix it; the Check holds what was learned.
func RunCheck(ctx context.Context, cli *client.Client, image string) (Check, error) {
	c := Check{Host: cli.DaemonHost(), Image: image}
	v, err := Ping(ctx, cli)
	if err != nil {
		return c, err
	}
	c.Version = v
	if image != "" {
		if _, err := cli.ImageInspect(ctx, image); err != nil {
			if client.IsErrNotFound(err) {
				return c, fmt.Errorf("image %q does not exist in the engine (images are never pulled: build or load it first)", image)
			}
			return c, fmt.Errorf("image %q: %w", image, err)
		}
		c.ImageFound = true
	}
	if c.Helper, err = FindBusybox(); err != nil {
		return c, err
	}
	c.Executor = "this binary, as each container's PID 1"
	if os.Getenv(ExecPerCaseEnv) == "exec" {
		c.Executor = "none: every case runs through an exec (" + ExecPerCaseEnv + "=exec)"
	} else if v, err := cli.ServerVersion(ctx); err == nil {
		if _, err := findExecutor(v.Arch); err != nil {
			c.Executor = "none: every case runs through an exec: " + err.Error()
		}
	}
	return c, nil
}

// BusyboxEnv overrides where the static busybox is found.
const BusyboxEnv = "WASMEVAL_BUSYBOX"

// FindBusybox locates a statically linked busybox on the host. It is
// mounted read-only into every container: the case wrapper, the
// process-tree killer and the port forwarder need a shell and a few tools
// whatever the image holds, and a static binary runs in any image.
func FindBusybox() (string, error) {
	cands := []string{os.Getenv(BusyboxEnv)}
	if p, err := exec.LookPath("busybox"); err == nil {
		cands = append(cands, p)
	}
	cands = append(cands, "/bin/busybox", "/usr/bin/busybox")
	for _, c := range cands {
		if c == "" {
			continue
		}
		if static, err := isStatic(c); err == nil && static {
			return c, nil
		}
	}
	return "", errors.New("docker runtime: no statically linked busybox found on this host (install it: apt-get install busybox-static, or set " + BusyboxEnv + ")")
}

func isStatic(p string) (bool, error) {
	f, err := elf.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return false, nil
		}
	}
	return true, nil
}

// Leftover is a container or network left by an earlier run.
type Leftover struct {
	Kind, ID, Name, Run string
}

// removeLabelled force-removes every container and network carrying the
// label filter (key=value).
func removeLabelled(ctx context.Context, cli *client.Client, label string) ([]Leftover, error) {
	f := filters.NewArgs(filters.Arg("label", label))
	var removed []Leftover
	var errs []error
	cs, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: f})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	for _, c := range cs {
		name := c.ID[:12]
		if len(c.Names) > 0 {
			name = c.Names[0]
		}
		if err := cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}); err != nil && !client.IsErrNotFound(err) {
			errs = append(errs, fmt.Errorf("remove container %s: %w", name, err))
			continue
		}
		removed = append(removed, Leftover{Kind: "container", ID: c.ID, Name: name, Run: c.Labels[LabelRun]})
	}
	ns, err := cli.NetworkList(ctx, network.ListOptions{Filters: f})
	if err != nil {
		return removed, errors.Join(append(errs, fmt.Errorf("list networks: %w", err))...)
	}
	for _, n := range ns {
		if err := cli.NetworkRemove(ctx, n.ID); err != nil && !client.IsErrNotFound(err) {
			errs = append(errs, fmt.Errorf("remove network %s: %w", n.Name, err))
			continue
		}
		removed = append(removed, Leftover{Kind: "network", ID: n.ID, Name: n.Name, Run: n.Labels[LabelRun]})
	}
	return removed, errors.Join(errs...)
}

// CleanLeftovers removes containers and networks of earlier runs. Unless
// all is set, those of a run still alive on this host (its process exists)
// are kept, so cleaning never breaks a run in progress.
func CleanLeftovers(ctx context.Context, cli *client.Client, all bool) ([]Leftover, error) {
	cs, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", LabelManaged+"=true"))})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	runs := map[string]bool{}
	for _, c := range cs {
		if all || !runAlive(c.Labels) {
			runs[c.Labels[LabelRun]] = true
		}
	}
	ns, err := cli.NetworkList(ctx, network.ListOptions{Filters: filters.NewArgs(filters.Arg("label", LabelManaged+"=true"))})
	if err != nil {
		return nil, fmt.Errorf("list networks: %w", err)
	}
	for _, n := range ns {
		if all || !runAlive(n.Labels) {
			runs[n.Labels[LabelRun]] = true
		}
	}
	var out []Leftover
	var errs []error
	for run := range runs {
		removed, err := removeLabelled(ctx, cli, LabelRun+"="+run)
		out = append(out, removed...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

// runAlive reports whether the process that created a labelled object
// still runs on this host.
func runAlive(labels map[string]string) bool {
	host, _ := os.Hostname()
	if labels[LabelHost] != host {
		return false
	}
	pid, err := strconv.Atoi(labels[LabelPID])
	if err != nil || pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return true
	}
	_, err = os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}
