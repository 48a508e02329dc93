package promela

import (
	"slices"
	"strings"
	"testing"
)

// TestSelectModel checks which model a command's flags select, and what
// they may not combine.
func TestSelectModel(t *testing.T) {
	for _, c := range []struct {
		chosen, changed []string
		want            string // the model's Name, or the error
	}{
		{nil, nil, "machine"},
		{nil, []string{"semantics", "unroll", "max-inflight"}, "machine"},
		{[]string{"robustness"}, nil, "robustness"},
		{[]string{"robustness"}, []string{"max-counter"}, "robustness"},
		{nil, []string{"max-counter"}, "--max-counter does not apply to the machine export"},
		{[]string{"robustness"}, []string{"unroll"}, "--unroll does not apply to --robustness"},
		{[]string{"robustness"}, []string{"output"}, "robustness"}, // not a model option
	} {
		m, err := SelectModel(func(f string) bool { return slices.Contains(c.chosen, f) },
			func(n string) bool { return slices.Contains(c.changed, n) })
		got := m.Name()
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("chosen %v, changed %v: got %q, want %q", c.chosen, c.changed, got, c.want)
		}
	}
}

// TestModelOptions checks the bounds of the options and their values as a
// report shows them.
func TestModelOptions(t *testing.T) {
	ok := ModelOptions{Options: Options{MaxInflight: 8, Unroll: 2}, RobustOptions: RobustOptions{MaxCounter: 3}}
	for _, c := range []struct {
		o    ModelOptions
		want string
	}{
		{ok, ""},
		{ModelOptions{Options: Options{MaxInflight: 0}, RobustOptions: ok.RobustOptions}, "--max-inflight 0: want 1..250"},
		{ModelOptions{Options: Options{MaxInflight: 8, Unroll: 255}, RobustOptions: ok.RobustOptions}, "--unroll 255: want 0..254"},
		{ModelOptions{Options: ok.Options, RobustOptions: RobustOptions{MaxCounter: 0}}, "--max-counter 0: want 1..254"},
	} {
		err := c.o.CheckFlags()
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.o, err, c.want)
		}
	}
	for name, want := range map[string]any{"semantics": "rdma", "max-inflight": 8, "unroll": 2, "max-counter": 3, "other": nil} {
		if got := ok.Value(name); got != want {
			t.Errorf("Value(%q) = %v, want %v", name, got, want)
		}
	}
}
