package machine

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"rdmasim/opsem/parse"
)

// BenchmarkSuccessors measures the next-state function alone: every
// reachable configuration of a bench program is expanded once per
// iteration, with and without the partial-order reduction (whose layer,
// reduce.go, settles each successor), reporting nanoseconds per
// configuration expanded.
func BenchmarkSuccessors(b *testing.B) {
	for _, name := range []string{"mp3", "sb5"} {
		src, err := os.ReadFile(filepath.Join("..", "..", "corpus", "bench", name+".rdma"))
		if err != nil {
			b.Fatal(err)
		}
		p, err := parse.Parse(name+".rdma", src)
		if err != nil {
			b.Fatal(err)
		}
		for _, reduce := range []bool{false, true} {
			m, err := NewRDMA(p, Options{MaxInflight: 8, Reduce: reduce})
			if err != nil {
				b.Fatal(err)
			}
			states := reachable(b, m, 300_000)
			label := name + "/full"
			if reduce {
				label = name + "/reduced"
			}
			b.Run(label, func(b *testing.B) {
				n := 0
				for b.Loop() {
					for _, s := range states {
						m.Successors(s, func(uint64, []byte) {})
					}
					n += len(states)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/conf")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// reachable returns up to limit reachable configurations of m, breadth
// first.
func reachable(b *testing.B, m *Machine, limit int) [][]byte {
	seen := map[string]bool{}
	queue := [][]byte{m.Initial(nil)}
	seen[string(queue[0])] = true
	for i := 0; i < len(queue) && len(queue) < limit; i++ {
		m.Successors(queue[i], func(_ uint64, next []byte) {
			if !seen[string(next)] {
				seen[string(next)] = true
				queue = append(queue, bytes.Clone(next))
			}
		})
	}
	b.Logf("%s: %d configurations", m.p.Name, len(queue))
	return queue
}
