package stress

import (
	"math"
	"testing"
)

// TestCheckFlags checks the error of each number out of its range.
func TestCheckFlags(t *testing.T) {
	for _, c := range []struct {
		set  func(o *Options) // changes valid options
		want string
	}{
		{func(*Options) {}, ""},
		{func(o *Options) { o.Walks = 0 }, "--walks 0: want at least 1"},
		{func(o *Options) { o.Depth = 0 }, "--depth 0: want at least 1"},
		{func(o *Options) { o.Bias = math.NaN() }, "--bias NaN: want a probability in 0..1"},
		{func(o *Options) { o.Bias = 1.5 }, "--bias 1.5: want a probability in 0..1"},
		{func(o *Options) { o.Machine.Unroll = 255 }, "--unroll 255: want 0..254"},
		{func(o *Options) { o.Machine.MaxInflight = 0 }, "--max-inflight 0: want 1..250"},
	} {
		o := Options{Walks: 1, Depth: 1, Bias: 0.5}
		o.Machine.MaxInflight = 8
		c.set(&o)
		if err := o.CheckFlags(); (err == nil) != (c.want == "") || err != nil && err.Error() != c.want {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
