//go:build wasip1

// Command minimal is the smallest verifier standard Go makes: Extism's PDK
// and nothing else, a fixed verdict. It is the floor the first-call
// benchmark compares real verifiers with: what loading and starting any Go
// plugin costs before its own code and imports.
package main

import pdk "github.com/extism/go-pdk"

func main() {}

//go:wasmexport describe
func describe() int32 {
	pdk.OutputString(`{"abi_version":1,"name":"minimal","version":"1.0.0","kinds":["verifier"]}`)
	return 0
}

//go:wasmexport verify
func verify() int32 {
	_ = pdk.Input()
	pdk.OutputString(`{"attributes":[{"attribute":"status_code","actual":0,"expected":0,"is_correct":true,"weight":1},` +
		`{"attribute":"output","actual":null,"expected":null,"is_correct":true,"weight":1}]}`)
	return 0
}
