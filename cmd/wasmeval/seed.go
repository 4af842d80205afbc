package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/wasmeval/wasmeval/engine/problem"
)

// seedEnv is the environment variable that gives submissions --seed.
const seedEnv = "WASMEVAL_SEED"

// maxSeed bounds --seed (2^53).
const maxSeed = 1 << 53

// seedFlag is run's --seed: unset by default, so a run without one records
// none and sets no variable.
type seedFlag struct{ v *int64 }

func (s *seedFlag) register(fl *pflag.FlagSet) {
	fl.Var(s, "seed", "seed for the submission: every case's environment gets $"+seedEnv+"=N (recorded in the manifest)")
}

func (s *seedFlag) String() string {
	if s.v == nil {
		return ""
	}
	return strconv.FormatInt(*s.v, 10)
}

func (s *seedFlag) Set(v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return err
	}
	// Loader plugins get it as a JSON number, which every SDK reads
	// exactly only within ±2^53.
	if n > maxSeed || n < -maxSeed {
		return fmt.Errorf("%d is out of range: a seed is an integer between -2^53 and 2^53", n)
	}
	s.set(n)
	return nil
}

func (s *seedFlag) Type() string { return "N" }

func (s *seedFlag) set(n int64) { s.v = &n }

func (s *seedFlag) value() *int64 { return s.v }

// apply gives p the seed, for loader plugins, and puts it into the
// environment of every group of p, which every case inherits (a case that
// sets the variable itself keeps its own).
func (s *seedFlag) apply(p *problem.Problem) {
	if s.v == nil {
		return
	}
	p.Seed = s.v
	v := strconv.FormatInt(*s.v, 10)
	for _, cp := range p.Checkpoints {
		for _, g := range cp.Groups {
			g.Env = problem.MergeEnv(g.Env, map[string]string{seedEnv: v})
		}
	}
}
