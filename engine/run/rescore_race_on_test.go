//go:build race

package run

// raceBuild: the race detector makes a rescore several times slower and
// changes what it allocates, so heap and time measurements are skipped.
const raceBuild = true
