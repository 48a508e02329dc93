package fuzz

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"rdmasim/corpus/differ"
)

// TestWriteDisagreement: a disagreement prints its kind, seed, problems,
// how to rerun it, the minimised program and where it was written.
func TestWriteDisagreement(t *testing.T) {
	p, _ := Generate(7)
	small := p
	d := &Disagreement{Index: 4, Seed: 7, Config: "cfg", Program: p, Kind: differ.OutcomesRDMA,
		Problems:        []differ.Problem{{Kind: differ.OutcomesRDMA, Detail: "rdma outcomes: only machine [[1]], only model []"}},
		Minimal:         small,
		MinimalProblems: []differ.Problem{{Kind: differ.OutcomesRDMA, Detail: "rdma outcomes: only machine [[2]], only model []\nmore"}},
		Minimized:       MinimizeStats{Before: 9, After: 2, Checks: 40, Exhausted: true},
		File:            "corpus/regress/x.rdma"}
	var b bytes.Buffer
	WriteDisagreement(&b, d)
	want := "DISAGREEMENT in program 4 (program seed 0x7): outcomes-rdma\n" +
		"  config: cfg\n" +
		"  outcomes-rdma: rdma outcomes: only machine [[1]], only model []\n" +
		"  rerun: rdmasim fuzz --program-seed 0x7\n" +
		"  minimised from 9 to 2 instructions (40 candidates tested, stopped by the minimisation bounds):\n" +
		"  outcomes-rdma: rdma outcomes: only machine [[2]], only model [] ...\n" +
		"  | litmus fuzz-0000000000000007\n"
	if got := b.String(); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "  written to corpus/regress/x.rdma\n\n") {
		t.Errorf("got\n%s\nwant prefix\n%s", got, want)
	}
}

// TestWriteSummary: the summary and its JSON count the same programs and
// comparisons.
func TestWriteSummary(t *testing.T) {
	opt := Options{Seed: 1, Count: 2, Workers: 1, Differ: differ.Options{MaxStates: 10000}, RegressDir: ""}
	s, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	WriteSummary(&b, s, opt, "off")
	j := s.JSON(opt, "off")
	if !strings.HasPrefix(b.String(), "Fuzz seed 1: 2 programs in ") || !strings.Contains(b.String(), "Compared: outcomes-rdma ") ||
		j.Programs != 2 || j.Spin != "off" || len(j.PPO) != NumClasses*NumClasses || j.Compared["outcomes-rdma"] != s.Compared["outcomes-rdma"] {
		t.Errorf("JSON %+v\n%s", j, b.String())
	}
}
