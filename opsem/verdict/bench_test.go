package verdict

import (
	"context"
	"fmt"
	"testing"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/store"
)

// BenchmarkHotPath explores the RDMA machine of a mid-size program with no
// visitor (every interleaving, then with the partial-order reduction), and
// its SC machine: successor generation, encoding, fingerprinting and
// visited-set insertion only; with one worker, then (-w2) with two. It
// reports distinct states per second, the visited set's bytes per state and
// the average encoded state size.
func BenchmarkHotPath(b *testing.B) {
	for _, bc := range []struct {
		sem     machine.Semantics
		reduce  bool
		workers int
	}{{machine.RDMA, false, 1}, {machine.RDMA, true, 1}, {machine.SC, false, 1}, {machine.RDMA, false, 2}, {machine.RDMA, true, 2}} {
		sem := bc.sem
		name := sem.String()
		if bc.reduce {
			name += "-reduce"
		}
		if bc.workers > 1 {
			name += fmt.Sprintf("-w%d", bc.workers)
		}
		b.Run(name, func(b *testing.B) {
			p, err := parse.File("../../corpus/bench/mp3.rdma")
			if err != nil {
				b.Fatal(err)
			}
			var states, storeBytes uint64
			var encBytes int
			opt := machine.DefaultOptions()
			// As Compute sets them for mp3's final query.
			opt.Reduce, opt.ControlHidden = bc.reduce, bc.reduce
			for b.Loop() {
				m, err := machine.New(p, sem, opt)
				if err != nil {
					b.Fatal(err)
				}
				encBytes = len(m.Initial(nil))
				r, err := explore.New(explore.Cloning(m), explore.Options{Workers: bc.workers}).Run(context.Background())
				if r.Workers != bc.workers {
					b.Fatalf("%d workers searched, want %d (%s)", r.Workers, bc.workers, r.Fallback)
				}
				if err != nil {
					b.Fatal(err)
				}
				states += r.States
				storeBytes = r.StoreBytes / r.States
			}
			b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
			b.ReportMetric(float64(storeBytes), "set-bytes/state")
			b.ReportMetric(float64(encBytes), "encoded-bytes")
		})
	}
}

// BenchmarkCheck is a whole verdict computation (exploration plus the
// query's visitor) on the same program.
func BenchmarkCheck(b *testing.B) {
	p, err := parse.File("../../corpus/bench/mp3.rdma")
	if err != nil {
		b.Fatal(err)
	}
	var states uint64
	for b.Loop() {
		r, err := Compute(context.Background(), p, machine.RDMA, Options{Machine: machine.DefaultOptions()})
		if err != nil {
			b.Fatal(err)
		}
		states += r.Search.States
	}
	b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
}

// BenchmarkSuccessorsOnly generates the successors of a sample of mp3's RDMA
// configurations (the first 200,000 a search visits, every interleaving)
// with an emit that does nothing: the machine's share of the hot path, the
// floor under any visited set and fingerprint. It reports nanoseconds per
// configuration expanded and successors per configuration.
func BenchmarkSuccessorsOnly(b *testing.B) {
	p, err := parse.File("../../corpus/bench/mp3.rdma")
	if err != nil {
		b.Fatal(err)
	}
	for _, reduce := range []bool{false, true} {
		name := "rdma"
		if reduce {
			name += "-reduce"
		}
		b.Run(name, func(b *testing.B) {
			opt := machine.DefaultOptions()
			opt.Reduce, opt.ControlHidden = reduce, reduce
			m, sample := sampleConfigs(b, p, opt)
			var succs, expanded uint64
			emit := func(uint64, []byte) { succs++ }
			for b.Loop() {
				for _, s := range sample {
					m.Successors(s, emit)
				}
				expanded += uint64(len(sample))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(expanded), "ns/config")
			b.ReportMetric(float64(succs)/float64(expanded), "succs/config")
		})
	}
}

// BenchmarkSetFloor fingerprints and inserts the successors of a sample of
// mp3's RDMA configurations (the first 200,000 a search visits, every
// interleaving, and the successors the machine emits for each) into a fresh
// in-memory visited set, one batch per configuration as the search does, with
// no machine at all: the fingerprint's and the set's share of the hot path.
// It reports nanoseconds per configuration for fingerprinting alone
// (fingerprint) and for fingerprinting and inserting (insert). With the
// machine's share (BenchmarkSuccessorsOnly) it bounds the configurations per
// second any search over these encodings can reach on one core.
func BenchmarkSetFloor(b *testing.B) {
	p, err := parse.File("../../corpus/bench/mp3.rdma")
	if err != nil {
		b.Fatal(err)
	}
	m, sample := sampleConfigs(b, p, machine.DefaultOptions())
	// succ[i] holds the successors of sample[i], end[i] where each ends.
	succ := make([][]byte, len(sample))
	end := make([][]int, len(sample))
	nsucc := 0
	for i, s := range sample {
		m.Successors(s, func(_ uint64, next []byte) {
			succ[i] = append(succ[i], next...)
			end[i] = append(end[i], len(succ[i]))
			nsucc++
		})
	}
	for _, insert := range []bool{false, true} {
		name := "fingerprint"
		if insert {
			name = "insert"
		}
		b.Run(name, func(b *testing.B) {
			fps := make([]store.Fingerprint, 0, 64)
			added := make([]bool, 64)
			var expanded uint64
			for b.Loop() {
				set := store.NewMem(0)
				for i := range sample {
					fps = fps[:0]
					start := 0
					for _, e := range end[i] {
						fps = append(fps, store.Of(succ[i][start:e]))
						start = e
					}
					if insert {
						if err := set.InsertBatch(fps, added[:len(fps)]); err != nil {
							b.Fatal(err)
						}
					}
				}
				expanded += uint64(len(sample))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(expanded), "ns/config")
			b.ReportMetric(float64(nsucc)/float64(len(sample)), "succs/config")
		})
	}
}

// sampleConfigs returns the RDMA machine of p under opt and the first 200,000
// configurations a search of it visits.
func sampleConfigs(b *testing.B, p *prog.Program, opt machine.Options) (*machine.Machine, [][]byte) {
	b.Helper()
	m, err := machine.New(p, machine.RDMA, opt)
	if err != nil {
		b.Fatal(err)
	}
	var sample [][]byte
	_, err = explore.New(m, explore.Options{MaxStates: 200_000, Visit: func(_ uint64, s []byte, _ int) bool {
		sample = append(sample, append([]byte(nil), s...))
		return true
	}}).Run(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return m, sample
}
