package store

import (
	"fmt"
	"testing"
)

// mix is the splitmix64 finaliser: a cheap bijection that turns a counter into
// well-spread fingerprint words.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// fpN returns the n-th of a sequence of distinct, well-spread fingerprints.
func fpN(n uint64) Fingerprint { return Fingerprint{Lo: mix(n), Hi: n} }

func TestMemInsert(t *testing.T) {
	type op struct {
		fp    Fingerprint
		added bool
	}
	tests := []struct {
		name string
		ops  []op
		len  uint64
	}{
		{"empty", nil, 0},
		{"one", []op{{fpN(1), true}}, 1},
		{"duplicate", []op{{fpN(1), true}, {fpN(1), false}, {fpN(2), true}, {fpN(1), false}}, 2},
		{"same Lo, different Hi", []op{
			{Fingerprint{Lo: 7, Hi: 1}, true},
			{Fingerprint{Lo: 7, Hi: 2}, true},
			{Fingerprint{Lo: 7, Hi: 1}, false},
			{Fingerprint{Lo: 7, Hi: 2}, false},
		}, 2},
		{"same slot, probe chain", []op{
			{Fingerprint{Lo: 3, Hi: 1}, true},
			{Fingerprint{Lo: 3 + 1<<20, Hi: 1}, true},
			{Fingerprint{Lo: 4, Hi: 1}, true},
			{Fingerprint{Lo: 3 + 1<<20, Hi: 1}, false},
			{Fingerprint{Lo: 4, Hi: 1}, false},
		}, 3},
		{"wrap around end of table", []op{
			{Fingerprint{Lo: minSlots - 1, Hi: 1}, true},
			{Fingerprint{Lo: 2*minSlots - 1, Hi: 1}, true},
			{Fingerprint{Lo: 0, Hi: 9}, true},
			{Fingerprint{Lo: 2*minSlots - 1, Hi: 1}, false},
		}, 3},
		{"zero fingerprint", []op{{Fingerprint{}, true}, {Fingerprint{}, false}}, 1},
		{"zero is distinct from its neighbours", []op{
			{Fingerprint{}, true},
			{Fingerprint{Lo: 0, Hi: 1}, true},
			{Fingerprint{Lo: 1, Hi: 0}, true},
			{Fingerprint{}, false},
			{Fingerprint{Lo: 0, Hi: 1}, false},
			{Fingerprint{Lo: 1, Hi: 0}, false},
		}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMem(0)
			defer m.Close()
			for i, o := range tt.ops {
				added, err := m.Insert(o.fp)
				if err != nil {
					t.Fatalf("op %d: Insert(%v): %v", i, o.fp, err)
				}
				if added != o.added {
					t.Errorf("op %d: Insert(%v) = %v, want %v", i, o.fp, added, o.added)
				}
				if !m.Contains(o.fp) {
					t.Errorf("op %d: Contains(%v) = false after Insert", i, o.fp)
				}
			}
			if got := m.Len(); got != tt.len {
				t.Errorf("Len() = %d, want %d", got, tt.len)
			}
			if m.Contains(fpN(1 << 40)) {
				t.Errorf("Contains(%v) = true for a fingerprint never inserted", fpN(1<<40))
			}
		})
	}
}

func TestMemInsertBatch(t *testing.T) {
	var big []Fingerprint
	for i := range uint64(5000) {
		big = append(big, fpN(i%3000))
	}
	tests := []struct {
		name    string
		batches [][]Fingerprint
	}{
		{"empty", [][]Fingerprint{nil, {}}},
		{"distinct", [][]Fingerprint{{fpN(1), fpN(2), fpN(3)}}},
		{"repeated within a batch", [][]Fingerprint{{fpN(1), fpN(2), fpN(1), fpN(1)}}},
		{"repeated across batches", [][]Fingerprint{{fpN(1), fpN(2)}, {fpN(2), fpN(3), fpN(1)}}},
		{"zero", [][]Fingerprint{{{}, fpN(1), {}}, {{}, {Lo: 0, Hi: 1}}}},
		{"growth within a batch", [][]Fingerprint{big, big[:100]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ref := NewMem(0), NewMem(0)
			defer m.Close()
			defer ref.Close()
			for bi, batch := range tt.batches {
				added := make([]bool, len(batch)+1) // longer than needed is fine
				if err := m.InsertBatch(batch, added); err != nil {
					t.Fatalf("batch %d: InsertBatch: %v", bi, err)
				}
				for i, fp := range batch {
					want, _ := ref.Insert(fp)
					if added[i] != want {
						t.Errorf("batch %d: added[%d] (%v) = %v, want %v", bi, i, fp, added[i], want)
					}
				}
			}
			if m.Len() != ref.Len() {
				t.Errorf("Len() = %d, want %d", m.Len(), ref.Len())
			}
		})
	}
}

func TestMemGrowth(t *testing.T) {
	tests := []struct {
		hint uint64
		n    uint64
	}{
		{0, 1_000_000},
		{1_000_000, 1_000_000},
		{10, 100_000},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("hint=%d,n=%d", tt.hint, tt.n), func(t *testing.T) {
			m := NewMem(tt.hint)
			defer m.Close()
			initial := m.Bytes()
			for i := range tt.n {
				added, err := m.Insert(fpN(i))
				if err != nil || !added {
					t.Fatalf("Insert(fpN(%d)) = %v, %v; want true, nil", i, added, err)
				}
				if i%1000 == 0 {
					// A duplicate in the middle of growth must be recognised.
					if added, _ := m.Insert(fpN(i / 2)); added {
						t.Fatalf("re-Insert(fpN(%d)) after %d inserts reported added", i/2, i+1)
					}
				}
			}
			if got := m.Len(); got != tt.n {
				t.Fatalf("Len() = %d, want %d", got, tt.n)
			}
			for i := range tt.n {
				if added, _ := m.Insert(fpN(i)); added {
					t.Fatalf("second Insert(fpN(%d)) reported added", i)
				}
			}
			if got := m.Len(); got != tt.n {
				t.Fatalf("Len() after duplicates = %d, want %d", got, tt.n)
			}
			for i := tt.n; i < tt.n+1000; i++ {
				if m.Contains(fpN(i)) {
					t.Fatalf("Contains(fpN(%d)) = true, never inserted", i)
				}
			}
			slots := m.Bytes() / 16
			if slots&(slots-1) != 0 {
				t.Errorf("table has %d slots, not a power of two", slots)
			}
			if load := float64(tt.n) / float64(slots); load > 0.75 || load < 0.75/2 {
				t.Errorf("load factor %.3f outside [0.375, 0.75]", load)
			}
			if tt.hint >= tt.n && m.Bytes() != initial {
				t.Errorf("table grew from %d to %d bytes although hint %d covered %d inserts", initial, m.Bytes(), tt.hint, tt.n)
			}
		})
	}
}

func TestNewMemSize(t *testing.T) {
	tests := []struct{ hint, slots uint64 }{
		{0, minSlots},
		{12, 16},
		{13, 32},
		{24, 32},
		{25, 64},
		{1_000_000, 1 << 21},
		{3 << 20, 4 << 20},
		{3<<20 + 1, 8 << 20},
	}
	for _, tt := range tests {
		m := NewMem(tt.hint)
		if got := m.Bytes() / 16; got != tt.slots {
			t.Errorf("NewMem(%d) has %d slots, want %d", tt.hint, got, tt.slots)
		}
		m.Close()
	}
}

func TestMemInsertDoesNotAllocate(t *testing.T) {
	m := NewMem(1 << 16)
	i := uint64(0)
	allocs := testing.AllocsPerRun(10_000, func() {
		m.Insert(fpN(i))
		i++
	})
	if allocs != 0 {
		t.Errorf("Insert allocates %.2f times per call without growth, want 0", allocs)
	}
}

func TestMemClose(t *testing.T) {
	m := NewMem(0)
	m.Insert(fpN(1))
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if m.Len() != 0 || m.Bytes() != 0 {
		t.Errorf("after Close: Len() = %d, Bytes() = %d; want 0, 0", m.Len(), m.Bytes())
	}
}

func BenchmarkMemInsert(b *testing.B) {
	for _, hint := range []uint64{0, 1 << 24} {
		b.Run(fmt.Sprintf("hint=%d", hint), func(b *testing.B) {
			m := NewMem(hint)
			defer m.Close()
			var i uint64
			for b.Loop() {
				m.Insert(fpN(i))
				i++
			}
			b.ReportMetric(float64(m.Bytes())/float64(m.Len()), "bytes/entry")
		})
	}
	b.Run("batch=4", func(b *testing.B) {
		m := NewMem(0)
		defer m.Close()
		var (
			fps   [4]Fingerprint
			added [4]bool
			i     uint64
		)
		for b.Loop() {
			for j := range fps {
				fps[j] = fpN(i)
				i++
			}
			m.InsertBatch(fps[:], added[:])
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i), "ns/insert")
		b.ReportMetric(float64(m.Bytes())/float64(m.Len()), "bytes/entry")
	})
	b.Run("duplicate", func(b *testing.B) {
		const n = 1 << 20
		m := NewMem(n)
		defer m.Close()
		for i := range uint64(n) {
			m.Insert(fpN(i))
		}
		var i uint64
		for b.Loop() {
			m.Insert(fpN(i & (n - 1)))
			i++
		}
		b.ReportMetric(float64(m.Bytes())/float64(m.Len()), "bytes/entry")
	})
}
