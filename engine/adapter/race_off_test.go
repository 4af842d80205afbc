//go:build !race

package adapter_test

const raceBuild = false
