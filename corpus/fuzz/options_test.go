package fuzz

import (
	"math"
	"testing"
	"time"
)

// TestOptionsCheck checks the errors of Options.Check, each naming its
// flag.
func TestOptionsCheck(t *testing.T) {
	for _, c := range []struct {
		set  func(o *Options) // changes a valid Options
		want string
	}{
		{func(*Options) {}, ""},
		{func(o *Options) { o.Count, o.Duration = 0, time.Minute }, ""},
		{func(o *Options) { o.Count, o.ProgramSeeds = 0, []uint64{1} }, ""},
		{func(o *Options) { o.Count = -1 }, "--count -1: want at least 0"},
		{func(o *Options) { o.Duration = -time.Second }, "--time -1s: want a positive duration"},
		{func(o *Options) { o.Workers = 0 }, "--workers 0: want 1..256"},
		{func(o *Options) { o.Differ.MaxInflight = 251 }, "--max-inflight 251: want 1..250"},
		{func(o *Options) { o.SpinEvery = -1 }, "--spin-every -1: want at least 0"},
		{func(o *Options) { o.Differ.MaxModelCost = math.NaN() }, "--max-model-cost NaN: want at least 0"},
		{func(o *Options) { o.Count = 0 }, "--count 0 needs --time (or Ctrl-C would be the only way out)"},
	} {
		o := Options{Count: 10, Workers: 1}
		o.Differ.MaxInflight = 8
		c.set(&o)
		got := ""
		if err := o.Check(); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%+v: got %q, want %q", o, got, c.want)
		}
	}
}
