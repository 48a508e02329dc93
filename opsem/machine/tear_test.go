package machine

import (
	"bytes"
	"fmt"
	"testing"
)

// TestTearSteps: on wordsPrograms (the programs TestWordsIncremental
// compares byte-level and decoded steps on), the RDMA machine under each
// placement reaches the states of torn reads (tear.go): a put that has read
// some of its source words and not others (PUTP entries in B2), a put whose
// first read is not its first word, and a get's group with an unread word
// before a read one. In every state reached, each N1 or N6 step makes one
// event, and the encoding decodes and encodes back to itself (canonical
// by construction: the words read are kept in word order). The counts are
// boxed from below so that a generator or machine that stops making these
// states fails here rather than leaving the incremental test blind.
func TestTearSteps(t *testing.T) {
	n := 60
	if raceOn {
		n = 6
	}
	for _, pl := range []Placement{PlaceAny, PlaceInOrder} {
		var partialPuts, laterFirst, partialGets int
		for i, p := range wordsPrograms(t, n) {
			m, err := NewRDMA(p, Options{MaxInflight: 1 + i%3, Unroll: 1, Placement: pl})
			if err != nil {
				t.Fatal(err)
			}
			st, next := m.newState(), m.newState()
			seen := map[string]bool{}
			queue := [][]byte{m.Initial(nil)}
			seen[string(queue[0])] = true
			for len(queue) > 0 && len(seen) < 3000 {
				s := queue[0]
				queue = queue[1:]
				m.decode(s, st)
				if back := m.encode(nil, st); !bytes.Equal(back, s) {
					t.Fatalf("%s: encoding %v decodes and encodes to %v", p.Name, s, back)
				}
				for qi := range st.q {
					q := &st.q[qi]
					b2, b3 := q.buf[bufB2], q.buf[bufB3]
					if partialPut(b2) < len(b2) {
						partialPuts++
					}
					if len(b3) > 0 && b3[0].kind == kGroup && !groupRead(b3) {
						for j := 2; j <= int(b3[0].a); j++ {
							if b3[j].kind == kGetRV && b3[j-1].kind == kGetR {
								partialGets++
							}
						}
					}
				}
				labels, _ := m.enabled(st, nil)
				for _, l := range labels {
					next.copyFrom(st)
					step := m.apply(next, l)
					_, rule, qi, arg := unlabel(l)
					if (rule == RuleN1 || rule == RuleN6) && len(step.Words) > 0 {
						t.Fatalf("%s: %s makes %d events", p.Name, m.Format(s), 1+len(step.Words))
					}
					if rule == RuleN1 && arg > 0 && partialPut(st.q[qi].buf[bufB2]) == len(st.q[qi].buf[bufB2]) {
						laterFirst++ // a put's first read, of a later word
					}
					enc := m.encode(nil, next)
					if !seen[string(enc)] {
						seen[string(enc)] = true
						queue = append(queue, enc)
					}
				}
			}
		}
		t.Logf("placement %v: %d states with a put partly read, %d first reads of a later word, %d gets torn out of word order", pl, partialPuts, laterFirst, partialGets)
		if partialPuts < n || laterFirst < n || partialGets < n/4 {
			t.Errorf("placement %v: too few torn states on %d programs: %d partly read puts, %d later first words, %d gets read out of order", pl, n, partialPuts, laterFirst, partialGets)
		}
	}
}

// TestTearLabels: the N1 labels of a put at the head of B1 name exactly
// its unread words, whatever order the others were read in.
func TestTearLabels(t *testing.T) {
	for _, tc := range []struct {
		k    int
		read []int // words already read, in the order read
		want string
	}{
		{1, nil, "[0]"},
		{2, nil, "[0 1]"},
		{2, []int{1}, "[0]"},
		{3, []int{2}, "[0 1]"},
		{3, []int{2, 0}, "[1]"},
		{4, []int{3, 1}, "[0 2]"},
	} {
		q := &qstate{}
		e := entry{kind: kPut, a: 10, b: 20, v: uint8(tc.k-1) << 1}
		q.buf[bufB1] = []entry{e}
		q.buf[bufB2] = []entry{{kind: kPutV, a: 9}}
		for _, i := range tc.read {
			w := entry{kind: kPutP, a: e.a + uint8(i), b: uint8(tc.k - 1 - i)}
			j := partialPut(q.buf[bufB2])
			for j < len(q.buf[bufB2]) && q.buf[bufB2][j].a < w.a {
				j++
			}
			q.buf[bufB2] = append(q.buf[bufB2][:j], append([]entry{w}, q.buf[bufB2][j:]...)...)
		}
		var args []int
		for _, l := range enabledN1(q, e, 0, 0, nil) {
			_, _, _, a := unlabel(l)
			args = append(args, a)
		}
		if got := fmt.Sprint(args); got != tc.want {
			t.Errorf("%d words, read %v: N1 args %s, want %s", tc.k, tc.read, got, tc.want)
		}
	}
}
