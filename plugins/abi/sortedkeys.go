package abi

import "slices"

// smallMap is how many keys sortedKeys sorts in its caller's array.
const smallMap = 8

// sortedKeys returns m's keys in order, in keys when they fit there. The
// maps an envelope carries (a binding's config, a case's expected values
// and env) have a few keys each, and every call encodes them:
// slices.Sorted(maps.Keys(m)) allocated an iterator and a slice each time.
func sortedKeys[V any](m map[string]V, keys *[smallMap]string) []string {
	var ks []string
	if len(m) <= smallMap {
		ks = keys[:0]
	} else {
		ks = make([]string, 0, len(m))
	}
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
