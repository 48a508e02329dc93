package dist

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"rdmasim/explore"
	"rdmasim/store"
)

// grid is a test machine: states (a, b, c) of bytes, modulo its sizes, with
// successors that merge often (so that a state has many discoverers at the
// same depth), a repeated successor, and a bound that prunes.
type grid struct {
	a, b, c byte
	delay   time.Duration // per expansion, to make a run last
}

func (g grid) Initial(dst []byte) []byte { return append(dst, 0, 0, 0) }

func (g grid) Successors(s []byte, emit func(explore.Label, []byte)) explore.Pruned {
	if g.delay > 0 {
		time.Sleep(g.delay)
	}
	a, b, c := s[0], s[1], s[2]
	var buf [3]byte
	put := func(l explore.Label, x, y, z byte) {
		buf = [3]byte{x % g.a, y % g.b, z % g.c}
		emit(l, buf[:])
	}
	put(1, a+1, b, c)
	put(2, a, b+a+1, c)
	if c < g.c-1 {
		put(3, a, b, c+b%3)
	}
	put(4, a+1, b, c) // again: a state may emit a successor twice
	if a == g.a-1 {
		return 1
	}
	return 0
}

// memRemote is a Remote that runs partitions in this process and moves their
// records as the workers would: the reference of what the workers do, with
// no transport.
type memRemote struct {
	parts []*partition
	first uint64
}

func newMemRemote(m explore.Machine, n int) *memRemote {
	r := &memRemote{}
	for k := range n {
		r.parts = append(r.parts, newPartition(k, n, m, store.NewMem(0)))
	}
	return r
}

func (r *memRemote) Start(_ context.Context, initial []byte) error {
	fp := store.Of(initial)
	k := Owner(fp, len(r.parts))
	r.parts[k].set.Insert(fp)
	return r.parts[k].setLevel(appendState(nil, 0, 0, initial), []uint64{0})
}

func (r *memRemote) Expand(_ context.Context, depth int, commit func(*explore.Expansion) bool, _ func()) error {
	n := len(r.parts)
	exps := make([][]byte, n)
	out := make([][]byte, n)
	// Expand in reverse: partitions run in any order.
	for k := n - 1; k >= 0; k-- {
		err := r.parts[k].expand(func(to int, parent uint64, ord uint32, enc []byte) error {
			out[to] = appendState(out[to], parent, ord, enc)
			return nil
		}, func(id uint64, succs uint32, pruned explore.Pruned) error {
			exps[k] = appendExp(exps[k], id, succs, pruned)
			return nil
		})
		if err != nil {
			return err
		}
	}
	news := make([][]byte, n)
	for k, p := range r.parts {
		// Twice: receiving is idempotent.
		if err := p.receive(out[k]); err != nil {
			return err
		}
		if err := p.receive(out[k]); err != nil {
			return err
		}
		news[k] = p.next()
	}
	first := r.first
	if depth == 0 {
		first = 1
	}
	// In messages of a few records, as the workers send them.
	ids, halted, err := merge(split(exps, expSize*3), splitStates(news), first, commit)
	if err != nil || halted {
		return err
	}
	for k, p := range r.parts {
		if err := p.setLevel(news[k], ids[k]); err != nil {
			return err
		}
		r.first += uint64(len(ids[k]))
	}
	if depth == 0 {
		r.first++
	}
	return nil
}

// split cuts each of bs into messages of n bytes.
func split(bs [][]byte, n int) [][][]byte {
	out := make([][][]byte, len(bs))
	for k, b := range bs {
		for len(b) > n {
			out[k] = append(out[k], b[:n])
			b = b[n:]
		}
		out[k] = append(out[k], b)
	}
	return out
}

// splitStates cuts each of bs into messages of two state records or fewer
// (and an empty one).
func splitStates(bs [][]byte) [][][]byte {
	out := make([][][]byte, len(bs))
	for k, b := range bs {
		out[k] = append(out[k], nil)
		for len(b) > 0 {
			n := 0
			for i, rest := 0, b; i < 2 && len(rest) > 0; i++ {
				_, _, _, r, _ := nextState(rest)
				n += len(rest) - len(r)
				rest = r
			}
			out[k] = append(out[k], b[:n])
			b = b[n:]
		}
	}
	return out
}

func (r *memRemote) Stats() explore.RemoteStats { return explore.RemoteStats{Workers: len(r.parts)} }

// visits records a search's visits.
type visits struct{ buf bytes.Buffer }

func (v *visits) visit(id uint64, s []byte, depth int) bool {
	fmt.Fprintf(&v.buf, "%d %x %d\n", id, s, depth)
	return true
}

// TestPartitionsEqualSequential checks that partitions merged in order make
// the sequential breadth-first search: the same visits (ids, states,
// depths), counts, stops, pruned bounds and runs, also when the state limit
// cuts a level.
func TestPartitionsEqualSequential(t *testing.T) {
	for _, g := range []grid{{5, 7, 4, 0}, {9, 11, 6, 0}, {1, 1, 1, 0}} {
		for _, max := range []uint64{0, 1, 2, 3, 10, 57, 200} {
			var want visits
			ws := explore.New(g, explore.Options{MaxStates: max, Trace: true, Visit: want.visit})
			wr, err := ws.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []int{1, 2, 3, 5} {
				name := fmt.Sprintf("%v/max=%d/n=%d", g, max, n)
				var got visits
				gs := explore.New(g, explore.Options{MaxStates: max, Trace: true, Visit: got.visit, Remote: newMemRemote(g, n)})
				gr, err := gs.Run(context.Background())
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if gr.States != wr.States || gr.Transitions != wr.Transitions || gr.MaxDepth != wr.MaxDepth || gr.Stop != wr.Stop || gr.Pruned != wr.Pruned || gr.Frontier != wr.Frontier {
					t.Errorf("%s: got %+v, want %+v", name, gr, wr)
				}
				if got.buf.String() != want.buf.String() {
					t.Errorf("%s: the visits differ:\n%s\nwant\n%s", name, got.buf.String(), want.buf.String())
				}
				last := gr.States - 1
				gp, err1 := gs.Path(last)
				wp, err2 := ws.Path(last)
				if err1 != nil || err2 != nil || fmt.Sprint(gp) != fmt.Sprint(wp) {
					t.Errorf("%s: path to %d: %v %v, want %v %v", name, last, gp, err1, wp, err2)
				}
			}
		}
	}
}
