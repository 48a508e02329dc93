package machine

import (
	"bytes"
	"path/filepath"
	"rdmasim/opsem/prog"
	"testing"

	"rdmasim/opsem/parse"
)

// TestSuccessorsIncremental checks, on the litmus corpus, the protocols (whose reads are switches) and every machine
// mode, that Successors (which rewrites only the bytes a transition changes,
// or under Options.Graph restores and re-encodes only what it may touch)
// emits exactly what a full copy, apply and encode of the parent gives, and
// that Encoded, FinalEncoded and StuckEncoded read states as decoding them
// does.
func TestSuccessorsIncremental(t *testing.T) {
	files, err := filepath.Glob("../../corpus/litmus/*.rdma")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	// The protocols: their reads are switches.
	protocols, err := filepath.Glob("../../corpus/protocols/*.rdma")
	if err != nil || len(protocols) == 0 {
		t.Fatalf("no protocols: %v", err)
	}
	files = append(files, protocols...)
	for _, f := range files {
		p, err := parse.File(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		checkIncremental(t, f, p, Options{MaxInflight: 2, Unroll: 2})
	}
}

// checkIncremental is TestSuccessorsIncremental on program p (named f in
// messages), on the RDMA machine, the SC machine and the RDMA machine with
// event graphs, each with the options opt, over at most 3000 states.
func checkIncremental(t *testing.T, f string, p *prog.Program, opt0 Options) {
	t.Helper()
	const maxStates = 3000
	{
		for mode := 0; mode < 3; mode++ {
			opt := opt0
			var m *Machine
			var err error
			switch mode {
			case 0:
				m, err = NewRDMA(p, opt)
			case 1:
				m, err = NewSC(p, opt)
			case 2:
				opt.Graph = true
				m, err = NewRDMA(p, opt)
			}
			if err != nil {
				t.Fatalf("%s mode %d: %v", f, mode, err)
			}
			ref := m.newState()
			pre := m.newState()
			seen := map[string]bool{}
			queue := [][]byte{m.Initial(nil)}
			seen[string(queue[0])] = true
			for len(queue) > 0 && len(seen) < maxStates {
				s := queue[0]
				queue = queue[1:]
				m.decode(s, pre)
				if got, want := m.FinalEncoded(s), m.Final(pre); got != want {
					t.Fatalf("%s mode %d: %s: FinalEncoded = %v, Final = %v", f, mode, m.Format(s), got, want)
				}
				c := m.Encoded(s)
				for l := range p.Locs {
					if c.Mem(l) != pre.Mem(l) {
						t.Fatalf("%s mode %d: %s: Encoded.Mem(%d) = %d, want %d", f, mode, m.Format(s), l, c.Mem(l), pre.Mem(l))
					}
				}
				for th := range p.Threads {
					gpc, gmid := c.PC(th)
					wpc, wmid := pre.PC(th)
					if gpc != wpc || gmid != wmid {
						t.Fatalf("%s mode %d: %s: Encoded.PC(%d) = %d %v, want %d %v", f, mode, m.Format(s), th, gpc, gmid, wpc, wmid)
					}
				}
				labels, pruned := m.enabled(pre, nil)
				// StuckEncoded's fast path answers as decoding and
				// looking at every transition does.
				wantStuck := NotStuck
				if len(labels) == 0 && pruned == 0 && !m.Final(pre) {
					wantStuck = Deadlock
					for th := range p.Threads {
						if op := p.Threads[th].Code[pre.pc[th]].Op; op == prog.OpAssumeEq || op == prog.OpAssumeNe || op == prog.OpSwitch {
							wantStuck = Filtered
						}
					}
					for th := range p.Threads {
						if p.Threads[th].Code[pre.pc[th]].Op == prog.OpFail {
							wantStuck = Failed
						}
					}
				}
				if got := m.StuckEncoded(s); got != wantStuck {
					t.Fatalf("%s mode %d: %s: StuckEncoded = %v, want %v", f, mode, m.Format(s), got, wantStuck)
				}
				k := 0
				m.Successors(s, func(l uint64, next []byte) {
					if k >= len(labels) || labels[k] != l {
						t.Fatalf("%s mode %d: label %d: got %x", f, mode, k, l)
					}
					ref.copyFrom(pre)
					m.apply(ref, l)
					want := m.encode(nil, ref)
					if !bytes.Equal(want, next) {
						t.Fatalf("%s mode %d: %s from %x:\n got %x\nwant %x", f, mode, m.Format(s), l, next, want)
					}
					k++
					if !seen[string(next)] {
						seen[string(next)] = true
						queue = append(queue, bytes.Clone(next))
					}
				})
				if k != len(labels) {
					t.Fatalf("%s mode %d: %d successors, want %d", f, mode, k, len(labels))
				}
			}
		}
	}
}
