package reduce

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"rdmasim/opsem/parse"
)

// addSeeds adds the files matching pattern and extra snippets to f's seed
// corpus.
func addSeeds(f *testing.F, pattern string, extra ...string) {
	files, _ := filepath.Glob(pattern)
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// FuzzParseVASS checks that no input makes ParseVASS panic, that errors are
// *Error values, and that whatever parses is valid, prints back to itself
// and yields a program the .rdma parser accepts.
func FuzzParseVASS(f *testing.F) {
	addSeeds(f, "../vass/*.vass",
		"counters 1\ninit a\naccept a\n",
		"states a b\ncounters 62\ninit b\naccept a\na->b:c61 -1\n",
		"vass x\ncounters 2 # c\ninit q\naccept r // c\nq -> r : c1 +1\nexpect not-coverable\n",
		"q0 -> : c0\n\x00", "counters 1\r\ninit \xff\n")
	f.Fuzz(func(t *testing.T, src []byte) {
		v, err := ParseVASS("fuzz.vass", src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if err := v.Validate(); err != nil {
			t.Fatalf("parsed an invalid VASS: %v", err)
		}
		again, err := ParseVASS("again.vass", []byte(v.String()))
		if err != nil || again.String() != v.String() {
			t.Fatalf("String() round trip: %v\n%s", err, v)
		}
		if _, err := parse.Parse("fuzz.rdma", v.Program()); err != nil {
			t.Fatalf("program does not parse: %v\n%s", err, v.Program())
		}
		if len(v.Trans) <= 8 && v.Counters <= 3 {
			v.Coverable() // must terminate (the Karp–Miller tree is finite)
		}
	})
}

// FuzzParsePCP is FuzzParseVASS for PCP instances.
func FuzzParsePCP(f *testing.F) {
	addSeeds(f, "../pcp/*.pcp", "pcp / pcp\n", "expect solvable\nzz / z\n", "a/b/c\n", "a //b\n")
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := ParsePCP("fuzz.pcp", src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("parsed an invalid instance: %v", err)
		}
		again, err := ParsePCP("again.pcp", []byte(p.String()))
		if err != nil || again.String() != p.String() {
			t.Fatalf("String() round trip: %v\n%s", err, p)
		}
		if _, err := parse.Parse("fuzz.rdma", p.Program()); err != nil {
			t.Fatalf("program does not parse: %v\n%s", err, p.Program())
		}
		p.Solve(3)
	})
}
