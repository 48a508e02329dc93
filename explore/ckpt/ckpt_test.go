package ckpt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rdmasim/store"
)

// record is a frontier record, for the tests.
type record struct {
	enc   []byte
	id    uint64
	depth int
}

// write writes a checkpoint of n states and the frontier recs to a new
// directory opened with p, and returns the directory.
func write(t *testing.T, p Params, n int, recs []record, finished bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ck")
	d, m, err := Open(dir, p, false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.NoSync = true
	if m != nil {
		t.Fatalf("a new directory holds a checkpoint: %+v", m)
	}
	for i := range n {
		d.AddFingerprint(store.Of([]byte{byte(i), byte(i >> 8)}))
	}
	parents, _ := d.Parents()
	if parents != nil {
		defer parents.Close()
		if _, err := parents.WriteAt(make([]byte, 8*n), 0); err != nil {
			t.Fatal(err)
		}
	}
	man := &Manifest{Workers: 2, States: uint64(n), Transitions: 7, MaxDepth: 3, Finished: finished, State: json.RawMessage(`{"x":1}`)}
	if !finished {
		man.Frontier.FirstID, man.Frontier.FirstDepth, man.Frontier.FirstLevel = uint64(n-len(recs)), 2, uint64(len(recs))
	}
	err = d.Write(man, parents, func(w io.Writer) (uint64, error) {
		for _, r := range recs {
			var err error
			if p.Order == DepthFirst {
				err = WriteDFSRecord(w, r.enc, r.id, r.depth)
			} else {
				err = WriteRecord(w, r.enc)
			}
			if err != nil {
				return 0, err
			}
		}
		return uint64(len(recs)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRoundTrip writes checkpoints and reads them back.
func TestRoundTrip(t *testing.T) {
	recs := []record{{[]byte("a"), 7, 1}, {nil, 8, 2}, {bytes.Repeat([]byte("b"), 5000), 9, 2}}
	for _, tt := range []struct {
		name     string
		p        Params
		finished bool
	}{
		{"bfs", Params{Order: BreadthFirst, MaxStates: 10, Timeout: time.Second, Meta: json.RawMessage(`{"a": 1}`)}, false},
		{"dfs traced", Params{Order: DepthFirst, Trace: true}, false},
		{"finished", Params{Order: BreadthFirst, Trace: true}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const n = 5000
			dir := write(t, tt.p, n, recs, tt.finished)
			d, m, err := Open(dir, tt.p, true)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if m == nil || m.States != n || m.Seq != 1 || m.Workers != 2 || m.Finished != tt.finished || m.Trace != tt.p.Trace ||
				!sameJSON(m.Meta, tt.p.Meta) || !sameJSON(m.State, json.RawMessage(`{"x":1}`)) {
				t.Fatalf("manifest %+v", m)
			}
			var i int
			err = d.ReadVisited(m, func(fps []store.Fingerprint) error {
				for _, fp := range fps {
					if fp != store.Of([]byte{byte(i), byte(i >> 8)}) {
						return fmt.Errorf("fingerprint %d differs", i)
					}
					i++
				}
				return nil
			})
			if err != nil || i != n {
				t.Fatalf("%d fingerprints read: %v", i, err)
			}
			var got []record
			err = d.ReadFrontier(m, func(enc []byte, id uint64, depth int) error {
				got = append(got, record{bytes.Clone(enc), id, depth})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if tt.finished {
				if len(got) != 0 || m.Frontier.File != "" {
					t.Fatalf("a finished checkpoint has a frontier: %+v", m.Frontier)
				}
				return
			}
			if len(got) != len(recs) {
				t.Fatalf("%d records read, want %d", len(got), len(recs))
			}
			for k, r := range got {
				want := recs[k]
				if tt.p.Order == BreadthFirst {
					want.id, want.depth = 0, 0
				}
				if !bytes.Equal(r.enc, want.enc) || r.id != want.id || r.depth != want.depth {
					t.Fatalf("record %d: %+v, want %+v", k, r, want)
				}
			}
		})
	}
}

// TestOpenErrors: a checkpoint is opened only by a search with its
// parameters, only by one at a time, and damage is detected.
func TestOpenErrors(t *testing.T) {
	p := Params{Order: BreadthFirst, Trace: true, Meta: json.RawMessage(`{"a":1}`)}
	recs := []record{{enc: []byte("abc")}, {enc: []byte("de")}}
	edit := func(f func(*Manifest)) func(dir string) error {
		return func(dir string) error {
			path := filepath.Join(dir, ManifestName)
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			var m Manifest
			if err := json.Unmarshal(data, &m); err != nil {
				return err
			}
			f(&m)
			if data, err = json.Marshal(&m); err != nil {
				return err
			}
			return os.WriteFile(path, data, 0o644)
		}
	}
	frontier := func(dir string) string {
		ms, _ := filepath.Glob(filepath.Join(dir, "frontier-*.bin"))
		return ms[0]
	}
	for _, tt := range []struct {
		name   string
		damage func(dir string) error
		p      Params
		want   string // from Open, or else from ReadFrontier
	}{
		{name: "order", p: Params{Order: DepthFirst, Trace: true, Meta: p.Meta}, want: "made by a bfs search, resumed by a dfs one"},
		{name: "max states", p: Params{Order: BreadthFirst, MaxStates: 3, Meta: p.Meta}, want: "MaxStates"},
		{name: "timeout", p: Params{Order: BreadthFirst, Timeout: time.Second, Meta: p.Meta}, want: "Timeout"},
		{name: "meta", p: Params{Order: BreadthFirst, Meta: json.RawMessage(`{"a":2}`)}, want: "made by another search"},
		{name: "trace", damage: edit(func(m *Manifest) { m.Trace = false; m.Parents = Log{} }), want: "without Trace"},
		{name: "format", damage: edit(func(m *Manifest) { m.Format = 99 }), want: "format 99"},
		{name: "seed", damage: edit(func(m *Manifest) { m.FingerprintSeed[0]++ }), want: "fingerprint seed"},
		{name: "counts", damage: edit(func(m *Manifest) { m.Visited.Count++ }), want: "the manifest counts"},
		{name: "first level", damage: edit(func(m *Manifest) { m.Frontier.FirstLevel = 0 }), want: "first level"},
		{name: "short visited file", damage: func(dir string) error {
			return os.Truncate(filepath.Join(dir, VisitedName), 16)
		}, want: "the manifest counts"},
		{name: "manifest", damage: func(dir string) error {
			return os.WriteFile(filepath.Join(dir, ManifestName), []byte("{"), 0o644)
		}, want: "reading the manifest"},
		{name: "frontier checksum", damage: edit(func(m *Manifest) { m.Frontier.CRC32C++ }), want: "checksum"},
		{name: "long frontier", damage: func(dir string) error {
			f, err := os.OpenFile(frontier(dir), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.Write([]byte{0})
			return err
		}, want: "longer than its 2 states"},
		{name: "short frontier", damage: func(dir string) error {
			return os.Truncate(frontier(dir), 5)
		}, want: "unexpected EOF"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := write(t, p, 4, recs, false)
			if tt.damage != nil {
				if err := tt.damage(dir); err != nil {
					t.Fatal(err)
				}
			}
			pp := p
			if tt.p.Order != "" {
				pp = tt.p
			}
			d, m, err := Open(dir, pp, true)
			if err == nil {
				defer d.Close()
				err = d.ReadFrontier(m, func([]byte, uint64, int) error { return nil })
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}

	dir := write(t, p, 4, recs, false)
	if _, _, err := Open(dir, p, false); err == nil || !strings.Contains(err.Error(), "already holds a checkpoint") {
		t.Fatalf("opening a checkpoint without resuming: %v", err)
	}
	d, _, err := Open(dir, p, true)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, _, err := Open(dir, p, true); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("opening a directory in use: %v", err)
	}
}
