package manifest

import (
	"fmt"
	"maps"
	"slices"
)

// Changes lists, in words, what differs between the setup a run was started
// with (old) and the present one (cur) in ways that make its finished
// results incomparable with new ones: the problem, its config, its plugins
// or the submission. Host, flags and engine differences are not listed:
// they do not change what a case checks.
func Changes(old, cur *Manifest) []string {
	var out []string
	diff := func(what, a, b string) {
		if a != b {
			out = append(out, fmt.Sprintf("%s changed (was %s, now %s)", what, short(a), short(b)))
		}
	}
	if old.Problem.Name != cur.Problem.Name {
		out = append(out, fmt.Sprintf("problem changed (was %q, now %q)", old.Problem.Name, cur.Problem.Name))
	}
	diff("problem config digest", old.Problem.ConfigDigest, cur.Problem.ConfigDigest)
	diff("problem digest (cases, static assets, group files)", old.Problem.Digest, cur.Problem.Digest)
	for _, name := range slices.Sorted(maps.Keys(old.Plugins)) {
		now, ok := cur.Plugins[name]
		if !ok {
			out = append(out, fmt.Sprintf("plugin %s is no longer used", name))
			continue
		}
		diff("plugin "+name+" digest", old.Plugins[name], now)
	}
	// A plugin bound anew changes the problem's digest too (it covers every
	// config and case file), so with the digest unchanged an addition is a
	// plugin an older manifest did not list (one that only case files
	// bind): not a change.
	sameProblem := old.Problem.Digest != "" && old.Problem.Digest == cur.Problem.Digest && old.Problem.ConfigDigest == cur.Problem.ConfigDigest
	for _, name := range slices.Sorted(maps.Keys(cur.Plugins)) {
		if _, ok := old.Plugins[name]; !ok && !sameProblem {
			out = append(out, fmt.Sprintf("plugin %s was added", name))
		}
	}
	diff("submission digest", old.Submission.Digest, cur.Submission.Digest)
	// Epochs and their reducer decide how the journal's records count.
	if max(old.Flags.Epochs, 1) != max(cur.Flags.Epochs, 1) {
		out = append(out, fmt.Sprintf("--epochs changed (was %d, now %d)", max(old.Flags.Epochs, 1), max(cur.Flags.Epochs, 1)))
	}
	if old.Flags.Reducer != cur.Flags.Reducer && max(cur.Flags.Epochs, 1) > 1 {
		out = append(out, fmt.Sprintf("--epoch-reducer changed (was %s, now %s)", old.Flags.Reducer, cur.Flags.Reducer))
	}
	// The seed is part of every case's environment.
	if seedString(old.Flags.Seed) != seedString(cur.Flags.Seed) {
		out = append(out, fmt.Sprintf("--seed changed (was %s, now %s)", seedString(old.Flags.Seed), seedString(cur.Flags.Seed)))
	}
	if old.Runtime.Name != cur.Runtime.Name {
		out = append(out, fmt.Sprintf("runtime changed (was %s, now %s)", old.Runtime.Name, cur.Runtime.Name))
	}
	for _, ref := range slices.Sorted(maps.Keys(old.Runtime.Images)) {
		diff("image "+ref, old.Runtime.Images[ref], cur.Runtime.Images[ref])
	}
	return out
}

func short(d string) string {
	if len(d) > 12 {
		return d[:12]
	}
	if d == "" {
		return "none"
	}
	return d
}

func seedString(s *int64) string {
	if s == nil {
		return "none"
	}
	return fmt.Sprint(*s)
}
