//go:build !race

package run

const raceBuild = false
