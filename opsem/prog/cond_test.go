package prog

import "testing"

// TestFailCond checks FailCond on programs built by hand: the threads with
// an assertion or a write out of a location's Range are named, in thread
// order and grouped to the left; no condition when no thread can fail.
func TestFailCond(t *testing.T) {
	plain := Thread{Name: "P", Code: []Instr{{Op: OpEnd}}}
	assert := Thread{Name: "A", Code: []Instr{{Op: OpFail}, {Op: OpEnd}}}
	for _, tc := range []struct {
		name    string
		threads []Thread
		writers []int // threads that may write out of x's Range
		want    string
	}{
		{"no thread fails", []Thread{plain, plain}, nil, "true"},
		{"an assertion", []Thread{plain, assert}, nil, "T1@fail"},
		{"a range writer", []Thread{plain, plain}, []int{0}, "T0@fail"},
		{"three, grouped left", []Thread{assert, plain, assert, plain}, []int{3}, "((T0@fail \\/ T2@fail) \\/ T3@fail)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Program{Locs: []Loc{{Name: "x"}}}
			for i, th := range tc.threads {
				th.Name = "T" + string(rune('0'+i))
				p.Threads = append(p.Threads, th)
			}
			if tc.writers != nil {
				p.Locs[0].Check = &Range{Hi: 1}
				for _, w := range tc.writers {
					p.Locs[0].Check.Writers = append(p.Locs[0].Check.Writers, Writer{Thread: w})
				}
			}
			if got := p.CondString(p.FailCond()); got != tc.want {
				t.Errorf("FailCond = %s, want %s", got, tc.want)
			}
		})
	}
}
