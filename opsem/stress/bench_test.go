package stress

import (
	"context"
	"testing"

	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
)

// BenchmarkStress runs stress tests on the paper's section 5.1 program
// (corpus/litmus/paper-5.1.rdma), 10,000 walks per iteration, uniform and
// biased, and reports the transitions taken per second (steps/s) and the
// bytes allocated per step.
func BenchmarkStress(b *testing.B) {
	p, err := parse.File("../../corpus/litmus/paper-5.1.rdma")
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		bias float64
	}{{"paper-5.1", 0}, {"paper-5.1/bias=0.5", 0.5}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var steps uint64
			seed := uint64(0)
			for b.Loop() {
				seed++
				r, err := Run(context.Background(), p, Options{Machine: machine.DefaultOptions(), Walks: 10000, Bias: bc.bias, Seed: seed})
				if err != nil {
					b.Fatal(err)
				}
				steps += r.Steps
			}
			b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}
