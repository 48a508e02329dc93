package job_test

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"rdmasim/explore"
	"rdmasim/opsem/decide"
	"rdmasim/opsem/instr"
	"rdmasim/opsem/job"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
	"rdmasim/opsem/verdict"
)

const litmus = "../../corpus/litmus/"

// jobs are canonical jobs of every kind, each different from the others.
var jobs = []job.Job{
	{Kind: job.Outcomes, File: "a.rdma", Source: []byte("text"), Semantics: machine.RDMA, Machine: job.MachineOptions{MaxInflight: 8, Reduce: true}},
	{Kind: job.Outcomes, File: "a.rdma", Source: []byte("text"), Semantics: machine.RDMA, Machine: job.MachineOptions{MaxInflight: 8}},
	{Kind: job.Outcomes, File: "a.rdma", Source: []byte("text"), Semantics: machine.RDMA, Machine: job.MachineOptions{MaxInflight: 7, Reduce: true}},
	{Kind: job.Outcomes, File: "a.rdma", Source: []byte("text"), Semantics: machine.RDMA, Machine: job.MachineOptions{MaxInflight: 8, Unroll: 2, Reduce: true}},
	{Kind: job.Outcomes, File: "a.rdma", Source: []byte("text"), Semantics: machine.RDMA, Machine: job.MachineOptions{MaxInflight: 8, Reduce: true}, Symmetry: true},
	{Kind: job.Outcomes, File: "a.rdma", Source: []byte("text"), Semantics: machine.SC, Machine: job.MachineOptions{MaxInflight: 8}},
	{Kind: job.Outcomes, File: "a.rdma", Source: []byte("other text"), Semantics: machine.RDMA, Machine: job.MachineOptions{MaxInflight: 8, Reduce: true}},
	{Kind: job.Outcomes, File: "a.rdma", Source: []byte("text"), Params: map[string]int{"N": 3, "M": 1}, Semantics: machine.RDMA, Machine: job.MachineOptions{MaxInflight: 8, Reduce: true}},
	{Kind: job.Outcomes, File: "a.rdma", Source: []byte("text"), Params: map[string]int{"N": 4, "M": 1}, Semantics: machine.RDMA, Machine: job.MachineOptions{MaxInflight: 8, Reduce: true}},
	{Kind: job.Outcomes, File: "a.rdma", Semantics: machine.RDMA, Machine: job.MachineOptions{MaxInflight: 8, Reduce: true}},
	{Kind: job.RobustEnum, File: "a.rdma", Source: []byte("text"), Semantics: machine.RDMA, Machine: job.MachineOptions{MaxInflight: 8}},
	{Kind: job.RobustEnum, File: "a.rdma", Source: []byte("text"), Semantics: machine.RDMA, Machine: job.MachineOptions{MaxInflight: 8, Unroll: 1}},
	{Kind: job.Decide, File: "a.rdma", Source: []byte("text"), Semantics: machine.RDMA},
	{Kind: job.Decide, File: "a.rdma", Source: []byte("text"), Semantics: machine.RDMA, Symmetry: true},
	{Kind: job.Decide, File: "a.rdma", Source: []byte("text"), Semantics: machine.RDMA, Decider: job.Decider{EagerGuess: true}},
	{Kind: job.Decide, File: "a.rdma", Source: []byte("text"), Semantics: machine.RDMA, Decider: job.Decider{Block: 0b011}},
	{Kind: job.Decide, File: "a.rdma", Source: []byte("text"), Semantics: machine.RDMA, Symmetry: true, Decider: job.Decider{Block: 0b011}},
	{Kind: job.Decide, File: "a.rdma", Source: []byte("text"), Semantics: machine.RDMA, Symmetry: true, Decider: job.Decider{Block: 0b011, Symmetric: true}},
	{Kind: job.Outcomes, File: "a.rdma", Source: []byte("text"), Semantics: machine.SC, Machine: job.MachineOptions{MaxInflight: 8}, Unchecked: true},
	{Kind: job.Outcomes, File: "a.rdma", Source: []byte("text"), Semantics: machine.RDMA, Machine: job.MachineOptions{MaxInflight: 8, Reduce: true, Placement: machine.PlaceInOrder}},
	{Kind: job.RobustEnum, File: "a.rdma", Source: []byte("text"), Semantics: machine.RDMA, Machine: job.MachineOptions{MaxInflight: 8, Placement: machine.PlaceInOrder}},
}

// TestEncodeDecode checks that every job decodes from its encoding to
// itself, and encodes again to the same bytes.
func TestEncodeDecode(t *testing.T) {
	for _, j := range jobs {
		data := j.Encode()
		got, err := job.Decode(data)
		if err != nil {
			t.Errorf("%v: job.Decode(%s): %v", j, data, err)
			continue
		}
		if !reflect.DeepEqual(got, j) {
			t.Errorf("job.Decode(Encode(%+v)) = %+v", j, got)
		}
		if again := got.Encode(); !bytes.Equal(again, data) {
			t.Errorf("%v: encoded again as %s, first %s", j, again, data)
		}
	}
}

// TestKey checks that keys are stable (the same value as every run before:
// a key names directories that outlive the process), distinct for distinct
// jobs, blind to the file name, and equal for jobs that differ only in what
// their kind ignores.
func TestKey(t *testing.T) {
	// The key of jobs[0], pinned: it changes only with the encoding (and
	// then job.Version must change too).
	const want0 = "ab714de1692b2183"
	if got := jobs[0].Key(); got != want0 {
		t.Errorf("Key of %v = %s, want %s (the encoding changed: raise Version)", jobs[0], got, want0)
	}
	seen := map[string]job.Job{}
	for _, j := range jobs {
		k := j.Key()
		if len(k) != 16 || strings.Trim(k, "0123456789abcdef") != "" {
			t.Errorf("%v: key %q: want 16 hexadecimal digits", j, k)
		}
		if o, dup := seen[k]; dup {
			t.Errorf("%v and %v have the same key %s", j, o, k)
		}
		seen[k] = j
	}
	same := []struct{ a, b job.Job }{
		{jobs[0], func() job.Job { j := jobs[0]; j.File = "elsewhere/b.rdma"; return j }()},
		{jobs[5], func() job.Job { j := jobs[5]; j.Machine.Reduce = true; return j }()},     // SC has no reduction
		{jobs[12], func() job.Job { j := jobs[12]; j.Machine.MaxInflight = 3; return j }()}, // the decider has no bounds
		{jobs[10], func() job.Job { j := jobs[10]; j.Symmetry = true; return j }()},         // nor event graphs symmetry
		{jobs[0], func() job.Job { j := jobs[0]; j.Params = map[string]int{}; return j }()},
		{jobs[10], func() job.Job { j := jobs[10]; j.Unchecked = true; return j }()}, // robustness is always unchecked
		{jobs[12], func() job.Job { j := jobs[12]; j.Unchecked = true; return j }()},
		// SC places a multi-word operation at once; the decider has no placement.
		{jobs[5], func() job.Job { j := jobs[5]; j.Machine.Placement = machine.PlaceInOrder; return j }()},
		{jobs[12], func() job.Job { j := jobs[12]; j.Machine.Placement = machine.PlaceInOrder; return j }()},
	}
	for _, s := range same {
		if s.a.Key() != s.b.Key() {
			t.Errorf("%+v and %+v: keys %s and %s, want equal", s.a, s.b, s.a.Key(), s.b.Key())
		}
	}
}

// TestDecodeBad checks that what is not the encoding of a job is an error
// that says so.
func TestDecodeBad(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{"", "not the description of a search"},
		{"{", "not the description of a search"},
		{"[1,2]", "not the description of a search"},
		{`{"v":1,"kind":"outcomes","file":"a","semantics":"rdma","max_inflight":8}x`, "data after its end"},
		{`{"v":1,"kind":"outcomes","file":"a","semantics":"rdma","max_inflight":8,"colour":1}`, "unknown field"},
		{`{"v":2,"kind":"outcomes","file":"a","semantics":"rdma","max_inflight":8}`, "version 2"},
		{`{"v":1,"kind":"walk","file":"a","semantics":"rdma","max_inflight":8}`, `kind "walk"`},
		{`{"v":1,"kind":"outcomes","file":"a","semantics":"tso","max_inflight":8}`, "semantics"},
		{`{"v":1,"kind":"decide","file":"a","semantics":"sc"}`, "rdma semantics"},
		{`{"v":1,"kind":"outcomes","file":"a","semantics":"rdma"}`, "max-inflight 0"},
		{`{"v":1,"kind":"outcomes","file":"a","semantics":"rdma","max_inflight":8,"unroll":999}`, "unroll 999"},
		{`{"v":1,"kind":"outcomes","file":"a","semantics":"rdma","max_inflight":8,"placement":"sideways"}`, "placement"},
		{`{"v":1,"kind":"outcomes","file":"a","semantics":"rdma","max_inflight":8,"placement":"any"}`, "placement"},
	} {
		_, err := job.Decode([]byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("job.Decode(%q) = %v, want an error with %q", c.data, err, c.want)
		}
	}
}

// FuzzDecode checks that job.Decode never panics, and that what it accepts
// encodes to bytes it decodes to the same job.
func FuzzDecode(f *testing.F) {
	for _, j := range jobs {
		f.Add(j.Encode())
	}
	f.Add([]byte(`{"v":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := job.Decode(data)
		if err != nil {
			return
		}
		again, err := job.Decode(j.Encode())
		if err != nil || !reflect.DeepEqual(again, j) {
			t.Errorf("job.Decode(%q) = %+v, whose encoding decodes to %+v, %v", data, j, again, err)
		}
	})
}

// count explores m in full, breadth-first, on one core, and returns the
// states found.
func count(t *testing.T, m explore.Machine, symmetry bool) uint64 {
	t.Helper()
	r, err := explore.New(m, explore.Options{Symmetry: symmetry}).Run(context.Background())
	if err != nil || r.Stop != explore.Complete {
		t.Fatalf("exploring: %v, %v", r.Stop, err)
	}
	return r.States
}

// TestBuild checks that the machine Build makes of a job of each kind is
// the one the single-process commands explore: the same number of states
// as verdict.Compute, verdict.RobustMachine and decide.Decide find on
// litmus and protocol files (robust ones, so that the last two search to
// the end), also from the text alone, with params and with symmetry.
func TestBuild(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		file   string
		params map[string]int
		mopt   machine.Options
		sym    bool
	}{
		{file: litmus + "PUT-PUT-MP.rdma", mopt: machine.Options{MaxInflight: 8, Reduce: true}},
		{file: litmus + "PUT-PUT-MP.rdma", mopt: machine.Options{MaxInflight: 1}},
		{file: litmus + "GET-RFENCE-GET-MP.rdma", mopt: machine.Options{MaxInflight: 2, Reduce: true}},
		{file: "../../corpus/protocols/family-slots.rdma", mopt: machine.Options{MaxInflight: 8, Reduce: true}, sym: true},
		{file: "../../corpus/protocols/farm-ring-readback.rdma", params: map[string]int{"M": 2}, mopt: machine.Options{MaxInflight: 4, Reduce: true}},
	} {
		src, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		p, err := parse.ParseOptions(c.file, src, parse.Options{Params: c.params})
		if err != nil {
			t.Fatal(err)
		}
		vopt := verdict.Options{Machine: c.mopt}
		vopt.Symmetry = c.sym
		for _, sem := range []machine.Semantics{machine.RDMA, machine.SC} {
			want, err := verdict.Compute(ctx, p, sem, vopt)
			if err != nil {
				t.Fatal(err)
			}
			for _, text := range []bool{false, true} {
				j := job.Job{Kind: job.Outcomes, File: c.file, Params: c.params, Semantics: sem, Machine: job.MachineOf(c.mopt), Symmetry: c.sym}
				if text {
					j.Source = src
				}
				b, err := j.Build(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if got := count(t, b.Machine, c.sym); got != want.Search.States {
					t.Errorf("%v: %d states, verdict.Compute %d", j, got, want.Search.States)
				}
				if (b.Symmetry != nil) != (want.Symmetry != "") {
					t.Errorf("%v: symmetry %v, verdict.Compute's %q", j, b.Symmetry, want.Symmetry)
				}
			}
		}
		rr, err := verdict.RobustMachine(ctx, p, vopt)
		if err != nil {
			t.Fatal(err)
		}
		j := job.Job{Kind: job.RobustEnum, File: c.file, Params: c.params, Semantics: machine.RDMA, Machine: job.MachineOf(c.mopt), Symmetry: c.sym}
		if !rr.Robust {
			t.Fatalf("%s: not robust: pick a robust program, whose search goes to its end", c.file)
		}
		b, err := j.Build(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := count(t, b.Machine, false); got != rr.Search.States {
			t.Errorf("%v: %d states, verdict.RobustMachine %d", j, got, rr.Search.States)
		}
		dr, err := decide.Decide(ctx, p, decide.Options{Settings: explore.Settings{Symmetry: c.sym}})
		if err != nil {
			t.Fatal(err)
		}
		// Decide searches a program of one block restricted to it
		// (and one of several block by block, which this test does not
		// compare).
		var block uint64
		if blocks := instr.Blocks(p); len(blocks) == 1 {
			block = blocks[0]
		} else if len(blocks) > 1 {
			t.Fatalf("%s: %d blocks: pick a program of one", c.file, len(blocks))
		}
		j = job.Job{Kind: job.Decide, File: c.file, Params: c.params, Semantics: machine.RDMA, Symmetry: c.sym,
			Decider: job.Decider{Block: block, Symmetric: true}}
		if b, err = j.Build(ctx); err != nil {
			t.Fatal(err)
		}
		if got := count(t, b.Machine, c.sym); dr.KarpMiller || got != dr.Search.States {
			t.Errorf("%v: %d states, decide.Decide %d (Karp–Miller %v)", j, got, dr.Search.States, dr.KarpMiller)
		}
		if (b.Symmetry != nil) != (dr.Symmetry != "") {
			t.Errorf("%v: symmetry %v, decide.Decide's %q", j, b.Symmetry, dr.Symmetry)
		}
	}
}

// TestBuildErrors checks that Build reports a job it cannot build: one that
// fails Check, a missing file, a text that does not parse.
func TestBuildErrors(t *testing.T) {
	for _, c := range []struct {
		j    job.Job
		want string
	}{
		{job.Job{Kind: "walk", File: "a"}, `kind "walk"`},
		{job.Job{Kind: job.Outcomes, Machine: job.MachineOptions{MaxInflight: 8}}, "no program"},
		{job.Job{Kind: job.Outcomes, File: "does-not-exist.rdma", Machine: job.MachineOptions{MaxInflight: 8}}, "reading program"},
		{job.Job{Kind: job.Outcomes, File: "bad.rdma", Source: []byte("nonsense"), Machine: job.MachineOptions{MaxInflight: 8}}, "bad.rdma:"},
	} {
		if _, err := c.j.Build(context.Background()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: Build: %v, want an error with %q", c.j, err, c.want)
		}
	}
}

// TestMachine checks that a worker's machine, built from a payload, is the
// one verdict.Compute explores: the same initial state and the same
// successors of it, under both semantics and other bounds.
func TestMachine(t *testing.T) {
	file := litmus + "SB-PUT.rdma"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p, err := parse.Parse(file, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, sem := range []machine.Semantics{machine.RDMA, machine.SC} {
		for _, opt := range []machine.Options{{MaxInflight: 8, Reduce: true}, {MaxInflight: 1, Unroll: 2}} {
			want, err := verdict.OutcomeMachine(p, sem, opt)
			if err != nil {
				t.Fatal(err)
			}
			got, err := job.Machine(job.Job{Kind: job.Outcomes, File: file, Source: src, Semantics: sem, Machine: job.MachineOf(opt)}.Encode())
			if err != nil {
				t.Fatal(err)
			}
			wi, gi := want.Initial(nil), got.Initial(nil)
			if !bytes.Equal(wi, gi) {
				t.Errorf("%v %+v: initial state %x, want %x", sem, opt, gi, wi)
			}
			succs := func(m explore.Machine) (out []string) {
				m.Successors(wi, func(l explore.Label, next []byte) { out = append(out, string(next)) })
				return out
			}
			if w, g := succs(want), succs(got); len(w) == 0 || !reflect.DeepEqual(w, g) {
				t.Errorf("%v %+v: %d successors, want %d", sem, opt, len(g), len(w))
			}
		}
	}
	for _, bad := range []string{"", "{", `{"v":1,"kind":"outcomes","semantics":"tso"}`,
		`{"v":1,"kind":"outcomes","file":"x","semantics":"rdma","max_inflight":8,"source":"bm9uc2Vuc2U="}`} {
		if _, err := job.Machine([]byte(bad)); err == nil {
			t.Errorf("payload %q: no error", bad)
		}
	}
}

// TestRemote checks that job.Remote hands every search its own job, given
// the program: the search's description (kind, semantics, bounds) kept,
// the file, text and params the program's; and that what is not a job is
// an error, not a run.
func TestRemote(t *testing.T) {
	program := job.Job{File: "p.rdma", Source: []byte("text"), Params: map[string]int{"N": 3}}
	var got []job.Job
	remote := job.Remote(program, func(j job.Job) (explore.RemoteCloser, error) {
		got = append(got, j)
		return nil, nil
	})
	var want []job.Job
	for _, j := range jobs {
		desc := j
		desc.File, desc.Source, desc.Params = "", nil, nil
		if _, err := remote(desc.Encode()); err != nil {
			t.Fatalf("%v: %v", desc, err)
		}
		j.File, j.Source, j.Params = program.File, program.Source, program.Params
		want = append(want, j.Canonical())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the searches' jobs:\n%+v\nwant\n%+v", got, want)
	}
	if _, err := remote([]byte("{}")); err == nil || len(got) != len(jobs) {
		t.Errorf("a description that is no job: error %v, %d runs started (want %d)", err, len(got), len(jobs))
	}
}

// TestUnchecked checks that an Unchecked job and the robustness kinds
// build from the program without its checked ranges, and that an Outcomes
// job without Unchecked keeps them.
func TestUnchecked(t *testing.T) {
	file := "../../corpus/protocols/atomics-counter.rdma"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p, err := parse.Parse(file, src)
	if err != nil {
		t.Fatal(err)
	}
	if !prog.HasRangeChecks(p) {
		t.Fatalf("%s has no checked range: the test needs one", file)
	}
	for _, tc := range []struct {
		j       job.Job
		checked bool
	}{
		{job.Job{Kind: job.Outcomes, Semantics: machine.SC, Machine: job.MachineOptions{MaxInflight: 8}}, true},
		{job.Job{Kind: job.Outcomes, Semantics: machine.SC, Machine: job.MachineOptions{MaxInflight: 8}, Unchecked: true}, false},
		{job.Job{Kind: job.RobustEnum, Semantics: machine.RDMA, Machine: job.MachineOptions{MaxInflight: 8}}, false},
	} {
		b, err := tc.j.BuildFrom(p)
		if err != nil {
			t.Fatalf("%v: %v", tc.j, err)
		}
		if got := prog.HasRangeChecks(b.Program); got != tc.checked {
			t.Errorf("%v: built from a program with checked ranges %v, want %v", tc.j, got, tc.checked)
		}
	}
}
