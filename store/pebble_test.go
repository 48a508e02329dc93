//go:build !js

package store

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// checkExact inserts fps into set, in batches of random sizes through
// InsertBatch if batched and one at a time otherwise, and checks every result
// and Len against ref, the fingerprints already in set (nil if none), which it
// updates.
func checkExact(t *testing.T, set Set, ref map[Fingerprint]bool, fps []Fingerprint, batched bool, seed uint64) {
	t.Helper()
	if ref == nil {
		ref = make(map[Fingerprint]bool)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	added := make([]bool, 64)
	for i := 0; i < len(fps); {
		n := 1
		if batched {
			n = min(len(fps)-i, rng.IntN(20))
		}
		batch := fps[i : i+n]
		if batched {
			if err := set.(BatchInserter).InsertBatch(batch, added); err != nil {
				t.Fatalf("InsertBatch at %d: %v", i, err)
			}
		} else {
			var err error
			if added[0], err = set.Insert(batch[0]); err != nil {
				t.Fatalf("Insert at %d: %v", i, err)
			}
		}
		for j, fp := range batch {
			want := !ref[fp]
			ref[fp] = true
			if added[j] != want {
				t.Fatalf("insertion %d (%v): added = %v, want %v", i+j, fp, added[j], want)
			}
		}
		i += n
		if got := set.Len(); got != uint64(len(ref)) {
			t.Fatalf("after insertion %d: Len() = %d, want %d", i, got, len(ref))
		}
	}
	// Every member is found again, however old.
	for fp := range ref {
		if added, err := set.Insert(fp); err != nil || added {
			t.Fatalf("reinserting member %v: added = %v, err = %v", fp, added, err)
		}
	}
	if got := set.Len(); got != uint64(len(ref)) {
		t.Fatalf("Len() = %d, want %d", got, len(ref))
	}
}

// pebbleConfigs are the option sets the tests run, from Pebble's defaults to
// the set's.
var pebbleConfigs = []struct {
	name string
	opt  PebbleOptions
}{
	{"pebble defaults", PebbleOptions{BufferBytes: -1, FilterBitsPerKey: -1, BloomBitsPerKey: -1, WAL: true, MemTableBytes: 1 << 20, CacheBytes: 1 << 20}},
	{"bloom, no WAL, front filter", PebbleOptions{BufferBytes: -1, MemTableBytes: 1 << 20, ExpectedEntries: 1000}},
	{"tiny buffer", PebbleOptions{BufferBytes: 4 << 10}},
	{"small buffer", PebbleOptions{BufferBytes: 16 << 10}},
	{"small buffer, no filters", PebbleOptions{BufferBytes: 16 << 10, FilterBitsPerKey: -1, BloomBitsPerKey: -1}},
	{"small buffer, growing filter", PebbleOptions{BufferBytes: 16 << 10, ExpectedEntries: 1 << 8}},
}

func TestPebbleExact(t *testing.T) {
	workloads := []struct {
		name string
		n    int
		dup  float64
		gen  func(uint64) Fingerprint
	}{
		{"empty", 0, 0, uniformFP},
		{"uniform, 30% duplicates", 4000, 0.3, uniformFP},
		{"skewed with zero", 2000, 0.4, skewedFP},
	}
	for _, c := range pebbleConfigs {
		for _, w := range workloads {
			for _, batched := range []bool{false, true} {
				name := c.name + "/" + w.name
				if batched {
					name += "/batched"
				}
				t.Run(name, func(t *testing.T) {
					p, err := OpenPebble(t.TempDir(), c.opt)
					if err != nil {
						t.Fatal(err)
					}
					fps := newStream(uint64(w.n), w.dup, w.gen).fill(nil, w.n)
					checkExact(t, p, nil, fps, batched, 1)
					if w.n > 0 && p.Bytes() == 0 {
						t.Errorf("Bytes() = 0 with %d fingerprints", p.Len())
					}
					// checkExact reinserts every member: those
					// spilled are found on disk.
					if st := p.Stats(); st.DiskHits > st.DiskLookups || st.Spills > 0 && st.DiskHits == 0 {
						t.Errorf("%d spills, %d lookups on disk, %d hits", st.Spills, st.DiskLookups, st.DiskHits)
					}
					if err := p.Close(); err != nil {
						t.Fatal(err)
					}
					if _, err := p.Insert(uniformFP(1)); err == nil {
						t.Error("Insert after Close succeeded")
					}
				})
			}
		}
	}
}

// TestPebbleBatchEquivalence checks that InsertBatch and Insert give the same
// answers, including for fingerprints repeated within a batch.
func TestPebbleBatchEquivalence(t *testing.T) {
	for _, c := range pebbleConfigs {
		t.Run(c.name, func(t *testing.T) {
			one, err := OpenPebble(t.TempDir(), c.opt)
			if err != nil {
				t.Fatal(err)
			}
			defer one.Close()
			many, err := OpenPebble(t.TempDir(), c.opt)
			if err != nil {
				t.Fatal(err)
			}
			defer many.Close()
			s := newStream(3, 0.3, uniformFP)
			rng := rand.New(rand.NewPCG(4, 5))
			added := make([]bool, 40)
			for range 150 {
				batch := s.fill(nil, rng.IntN(40))
				if len(batch) > 2 {
					batch[len(batch)-1] = batch[0] // a repeat within the batch
				}
				if err := many.InsertBatch(batch, added); err != nil {
					t.Fatal(err)
				}
				for i, fp := range batch {
					want, err := one.Insert(fp)
					if err != nil {
						t.Fatal(err)
					}
					if added[i] != want {
						t.Fatalf("InsertBatch added[%d] = %v, Insert = %v", i, added[i], want)
					}
				}
			}
			if one.Len() != many.Len() {
				t.Fatalf("Len: Insert %d, InsertBatch %d", one.Len(), many.Len())
			}
		})
	}
}

func TestPebbleTemp(t *testing.T) {
	parent := t.TempDir()
	p, err := OpenPebble(parent, PebbleOptions{Temp: true, BufferBytes: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	checkExact(t, p, nil, newStream(9, 0.2, uniformFP).fill(nil, 2000), true, 2)
	if ents, _ := os.ReadDir(parent); len(ents) != 1 {
		t.Fatalf("%s holds %d entries, want the temporary directory", parent, len(ents))
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Fatalf("%s holds %d entries after Close, want none", parent, len(ents))
	}
	if _, err := OpenPebble("", PebbleOptions{}); err == nil {
		t.Error("OpenPebble with no directory succeeded")
	}
}

func TestSortFingerprints(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		prefix uint
		gen    func(uint64) Fingerprint
	}{
		{"small", 10, 0, uniformFP},
		{"uniform", 5000, 0, uniformFP},
		{"uniform range", 5000, 3, func(i uint64) Fingerprint {
			fp := uniformFP(i)
			fp.Hi = fp.Hi>>3 | 5<<61
			return fp
		}},
		{"skewed", 5000, 0, skewedFP},
		{"equal Hi", 3000, 0, func(i uint64) Fingerprint { return Fingerprint{Lo: mix(i), Hi: 42} }},
	}
	var s fpSorter
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a []Fingerprint
			for i := range uint64(tt.n) {
				a = append(a, tt.gen(i))
			}
			want := slices.Clone(a)
			slices.SortFunc(want, compareFP)
			got := s.sort(a, tt.prefix)
			if !slices.Equal(got, want) {
				t.Fatal("not sorted")
			}
		})
	}
}

func TestFrontFilter(t *testing.T) {
	for _, bpk := range []int{4, 12} {
		f := newFrontFilter(bpk, 2000) // grows to several segments
		for i := range uint64(10000) {
			f.add(uniformFP(i))
		}
		for i := range uint64(10000) {
			if !f.mayContain(uniformFP(i)) {
				t.Fatalf("bits %d: false negative for %d", bpk, i)
			}
		}
		fp := 0
		for i := uint64(1 << 40); i < 1<<40+100000; i++ {
			if f.mayContain(uniformFP(i)) {
				fp++
			}
		}
		if segs := len(*f.segs.Load()); segs < 2 {
			t.Errorf("bits %d: %d segments, want growth", bpk, segs)
		}
		t.Logf("bits/key %d: false positive rate %.4f", bpk, float64(fp)/100000)
		if bpk == 12 && fp > 3000 {
			t.Errorf("false positive rate %.4f with 12 bits/key", float64(fp)/100000)
		}
	}
}

// TestRemoveStale leaves behind what a killed process would (an old
// temporary set directory with and without a LOCK file), next to a set that
// is open, a directory too young to judge and unrelated entries, and checks
// that opening a temporary set removes exactly the stale ones.
func TestRemoveStale(t *testing.T) {
	parent := t.TempDir()
	old := time.Now().Add(-2 * staleAge)
	mkdir := func(name string, lock bool, mtime time.Time) string {
		d := filepath.Join(parent, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if lock {
			if err := os.WriteFile(filepath.Join(d, "LOCK"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(d, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return d
	}
	stale := mkdir(tempPrefix+"killed", true, old)
	staleNoLock := mkdir(tempPrefix+"killed-early", false, old)
	young := mkdir(tempPrefix+"young", false, time.Now())
	other := mkdir("other-killed", true, old)
	file := filepath.Join(parent, tempPrefix+"file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	open, err := OpenPebble(parent, PebbleOptions{Temp: true, BufferBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	if err := os.Chtimes(open.dir, old, old); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{stale, staleNoLock} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("stale %s not removed (%v)", d, err)
		}
	}
	// A second set finds the first one locked: it stays, like the rest.
	second, err := OpenPebble(parent, PebbleOptions{Temp: true, BufferBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	for _, d := range []string{open.dir, young, other, file} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
	if added, err := open.Insert(uniformFP(1)); err != nil || !added {
		t.Errorf("the open set after another opened: Insert = %v, %v", added, err)
	}
}
