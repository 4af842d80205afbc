package wasmeval

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The decoder is hand-written: every field of the group a loader is given,
// the regression group's origin and directory included, comes through as
// the host encodes it.
func TestDecodeLoadInputGroup(t *testing.T) {
	g := GroupInfo{Checkpoint: "c2", Group: "c1_core", GroupType: "Regression", CaseGroup: "core",
		CaseOrder: []string{"b", "a"}, TimeoutS: 2.5, OriginCheckpoint: "c1", OriginGroup: "core", Dir: "first/core"}
	v := reflect.ValueOf(g)
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).IsZero() {
			t.Fatalf("set GroupInfo.%s in this test", v.Type().Field(i).Name)
		}
	}
	data, err := json.Marshal(LoadInput{ABIVersion: 1, Config: map[string]any{}, Group: g, History: []Outcome{}})
	if err != nil {
		t.Fatal(err)
	}
	in, err := DecodeLoadInput(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in.Group, g) {
		t.Fatalf("decoded %+v\nwant    %+v", in.Group, g)
	}

	// A host that sends no origin leaves the fields empty; one of the wrong
	// type is named.
	in, err = DecodeLoadInput([]byte(`{"abi_version":1,"config":{},"group":{"checkpoint":"c","group":"g"},"history":[]}`))
	if err != nil || in.Group.OriginCheckpoint != "" || in.Group.OriginGroup != "" || in.Group.Dir != "" {
		t.Fatalf("got %+v, %v", in, err)
	}
	_, err = DecodeLoadInput([]byte(`{"group":{"checkpoint":"c","group":"g","dir":["c1"]}}`))
	if err == nil || err.Error() != "$.group.dir is an array, expected a string" {
		t.Fatalf("got %v", err)
	}
}
