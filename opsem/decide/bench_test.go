package decide

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"rdmasim/corpus/bench/scaled"
	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

// family returns the scaled program F(n) of corpus/bench/scaled: n threads
// on node A, each putting the shared x to its own z_i on node B, polling,
// then writing x. It is robust for every n.
func family(n int) *prog.Program { return mustParse("family", scaled.F(n)) }

// rounds returns the scaled program MP(n) of corpus/bench/scaled: n rounds
// of message passing with polls, a producer P putting data D then flag F
// (each put polled), a consumer C on the owner of D and F checking, per
// round, F then D. It is robust for every n. Enumeration needs 2n+1
// operations in flight: a polled put's remote write may still be on its
// way to memory.
func rounds(n int) *prog.Program { return mustParse("rounds", scaled.MP(n)) }

func mustParse(name, src string) *prog.Program {
	p, err := parse.Parse(name, []byte(src))
	if err != nil {
		panic(err)
	}
	return p
}

// BenchmarkRounds compares the decider with enumeration on the machine on
// MP(n), n = 1..8 (go test -run '^$' -bench Rounds -benchtime 1x
// ./opsem/decide/).
func BenchmarkRounds(b *testing.B) {
	ctx := context.Background()
	for n := 1; n <= 8; n++ {
		p := rounds(n)
		b.Run(fmt.Sprintf("n=%d/decide", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				r, err := Decide(ctx, p, Options{NoWitness: true})
				if err != nil || !r.Robust || !r.Complete {
					b.Fatalf("%v %+v", err, r)
				}
				b.ReportMetric(float64(r.Search.States), "states")
			}
		})
		b.Run(fmt.Sprintf("n=%d/enum-machine", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				r, err := verdict.RobustMachine(ctx, p, verdict.Options{Machine: machine.Options{MaxInflight: 2*n + 1}})
				if err != nil || !r.Robust || !r.Complete {
					b.Fatalf("%v %+v", err, r)
				}
				b.ReportMetric(float64(r.Search.States), "states")
			}
		})
	}
}

// BenchmarkFamily compares the decider with enumeration on the machine on
// the scaled family F(n) (go test -run '^$' -bench Family ./opsem/decide/).
func BenchmarkFamily(b *testing.B) {
	ctx := context.Background()
	for n := 1; n <= 5; n++ {
		p := family(n)
		// The decider needs about 13 s at n = 4 and grows about 35-fold per
		// thread on this family (enumeration about 37-fold).
		if n <= 4 {
			b.Run(fmt.Sprintf("n=%d/decide", n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					r, err := Decide(ctx, p, Options{})
					if err != nil || !r.Robust || !r.Complete {
						b.Fatalf("%v %+v", err, r)
					}
					b.ReportMetric(float64(r.Search.States), "states")
				}
			})
		}
		b.Run(fmt.Sprintf("n=%d/enum-machine", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				r, err := verdict.RobustMachine(ctx, p, verdict.Options{Machine: machine.DefaultOptions()})
				if err != nil || !r.Robust || !r.Complete {
					b.Fatalf("%v %+v", err, r)
				}
				b.ReportMetric(float64(r.Search.States), "states")
			}
		})
	}
}

// BenchmarkCorpus decides every corpus program once per iteration; the
// target is under a second for each (see the per-file sub-benchmarks).
func BenchmarkCorpus(b *testing.B) {
	files, _ := filepath.Glob("../../corpus/litmus/*.rdma")
	ctx := context.Background()
	for _, f := range files {
		p, err := parse.File(f)
		if err != nil {
			b.Fatal(err)
		}
		if prog.HasAtomics(p) {
			continue // refused (TestRefusesAtomics)
		}
		b.Run(p.Name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Decide(ctx, p, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSearches compares the decider's two searches on finite
// instrumented machines, MP(6), MP(7) and F(4): the Karp–Miller
// construction (in memory, one core) and explore's breadth-first search
// with one and two workers (go test -run '^$' -bench Searches -benchtime 1x
// ./opsem/decide/). It reports states per second.
func BenchmarkSearches(b *testing.B) {
	ctx := context.Background()
	for _, pc := range []struct {
		name string
		p    *prog.Program
	}{{"MP(6)", rounds(6)}, {"MP(7)", rounds(7)}, {"F(4)", family(4)}} {
		for _, sc := range []struct {
			name string
			opt  Options
		}{
			{"karp-miller", Options{KarpMiller: true}},
			{"explore-w1", Options{Settings: explore.Settings{Workers: 1}}},
			{"explore-w2", Options{Settings: explore.Settings{Workers: 2}}},
		} {
			b.Run(pc.name+"/"+sc.name, func(b *testing.B) {
				var states uint64
				opt := sc.opt
				opt.NoWitness = true
				for b.Loop() {
					r, err := Decide(ctx, pc.p, opt)
					if err != nil || !r.Robust || !r.Complete {
						b.Fatalf("%v %+v", err, r)
					}
					states += r.Search.States
				}
				b.ReportMetric(float64(states)/b.Elapsed().Seconds(), "states/s")
			})
		}
	}
}

// BenchmarkUserProtocols decides the protocols of corpus/protocols written as
// users write them (spin loops, counters, default ranges) at the sizes where
// the instrumented machine's state count is the cost: user-herd-rpc with two
// clients and one or two requests each, user-pilaf with two clients (go
// test -run '^$' -bench UserProtocols -benchtime 1x ./opsem/decide/). It
// reports states and states per second.
func BenchmarkUserProtocols(b *testing.B) {
	ctx := context.Background()
	for _, pc := range []struct {
		file   string
		params map[string]int
	}{
		{"user-herd-rpc", map[string]int{"N": 2, "R": 1}},
		{"user-herd-rpc", map[string]int{"N": 2, "R": 2}},
		{"user-pilaf", map[string]int{"N": 2}},
	} {
		p, err := parse.FileOptions(filepath.Join("../../corpus/protocols", pc.file+".rdma"), parse.Options{Params: pc.params})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%s/%v", pc.file, pc.params), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				r, err := Decide(ctx, p, Options{NoWitness: true})
				if err != nil || !r.Robust || !r.Complete {
					b.Fatalf("%v %+v", err, r)
				}
				b.ReportMetric(float64(r.Search.States), "states")
				b.ReportMetric(float64(r.Search.States)/b.Elapsed().Seconds()*float64(i+1), "states/s")
			}
		})
	}
}
