package cluster

import (
	"bytes"
	"os"
	"testing"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/verdict"
)

// TestMachine checks that a worker's machine, built from a payload, is the
// one verdict.Compute explores: the same initial state and the same
// successors of it, under both semantics and other bounds.
func TestMachine(t *testing.T) {
	file := "../../corpus/litmus/SB-PUT.rdma"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p, err := parse.Parse(file, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, sem := range []machine.Semantics{machine.RDMA, machine.SC} {
		for _, opt := range []machine.Options{{MaxInflight: 8, Reduce: true}, {MaxInflight: 1, Unroll: 2}} {
			want, err := verdict.OutcomeMachine(p, sem, opt)
			if err != nil {
				t.Fatal(err)
			}
			payload, err := Encode(file, src, nil, sem, opt)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Machine(payload)
			if err != nil {
				t.Fatal(err)
			}
			wi, gi := want.Initial(nil), got.Initial(nil)
			if !bytes.Equal(wi, gi) {
				t.Errorf("%v %+v: initial state %x, want %x", sem, opt, gi, wi)
			}
			succs := func(m explore.Machine) (out []string) {
				m.Successors(wi, func(l explore.Label, next []byte) { out = append(out, string(next)) })
				return out
			}
			if w, g := succs(want), succs(got); len(w) == 0 || len(w) != len(g) {
				t.Errorf("%v %+v: %d successors, want %d", sem, opt, len(g), len(w))
			}
		}
	}
	for _, bad := range []string{"", "{", `{"semantics":"tso"}`, `{"semantics":"rdma","source":"bm9uc2Vuc2U="}`} {
		if _, err := Machine([]byte(bad)); err == nil {
			t.Errorf("payload %q: no error", bad)
		}
	}
}
