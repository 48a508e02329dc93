package robust

import (
	"strings"
	"testing"

	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// TestCheckpointable checks which methods refuse checkpoints on which
// programs.
func TestCheckpointable(t *testing.T) {
	read := func(name string) *prog.Program {
		p, err := parse.File("../../corpus/litmus/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	finite, pollLoop := read("PUT-LW.rdma"), read("paper-vass-loop.rdma")
	for _, c := range []struct {
		method string
		p      *prog.Program
		want   string // in the error, "" for none
	}{
		{"auto", finite, ""},
		{"decide", finite, ""},
		{"enum-machine", pollLoop, ""},
		{"all", pollLoop, ""},
		{"decide", nil, ""},
		{"enum-axiom", finite, "which --method enum-axiom does not run"},
		{"enum-axiom", nil, "which --method enum-axiom does not run"},
		{"decide", pollLoop, "a poll on a loop"},
		{"auto", pollLoop, "a poll on a loop"},
	} {
		err := Checkpointable(c.method, c.p)
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s on %v: got %v, want %q", c.method, c.p != nil, err, c.want)
		}
	}
}
