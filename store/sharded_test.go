package store

import (
	"math/rand/v2"
	"sync"
	"testing"
)

func TestShardedMatchesMem(t *testing.T) {
	for _, shards := range []int{0, 1, 3, 64, 5000} {
		s := NewSharded(shards, 100)
		if n := s.Shards(); n&(n-1) != 0 || n < max(shards, 1) && n < maxShards {
			t.Fatalf("NewSharded(%d) has %d shards", shards, n)
		}
		m := NewMem(0)
		rng := rand.New(rand.NewPCG(1, uint64(shards)))
		for round := range 200 {
			n := rng.IntN(300)
			fps := make([]Fingerprint, n)
			for i := range fps {
				// Few keys, so that batches repeat fingerprints,
				// and key 0 is the zero fingerprint.
				key := rng.Uint64N(5000)
				fps[i] = Fingerprint{Lo: key * 0x9e3779b97f4a7c15, Hi: key * 0xc2b2ae3d27d4eb4f}
			}
			got, want := make([]bool, n), make([]bool, n)
			if round%3 == 0 {
				for i, fp := range fps {
					got[i], _ = s.Insert(fp)
				}
			} else if err := s.InsertBatch(fps, got); err != nil {
				t.Fatal(err)
			}
			m.InsertBatch(fps, want)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("shards %d round %d: added[%d] (%v) = %v, want %v", shards, round, i, fps[i], got[i], want[i])
				}
			}
		}
		if s.Len() != m.Len() || s.Bytes() == 0 {
			t.Fatalf("Len = %d, want %d; Bytes = %d", s.Len(), m.Len(), s.Bytes())
		}
		if !s.Contains(Fingerprint{}) != !m.Contains(Fingerprint{}) {
			t.Fatalf("Contains(zero) differs")
		}
		s.Close()
	}
}

func TestShardedConcurrent(t *testing.T) {
	const workers, per = 8, 20000
	s := NewSharded(16, 0)
	defer s.Close()
	// Every worker inserts the same fingerprints in a different order and
	// batching; each must be added exactly once in all.
	var wg sync.WaitGroup
	addedBy := make([][]bool, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			perm := rng.Perm(per)
			addedBy[w] = make([]bool, per)
			for i := 0; i < per; {
				n := min(1+rng.IntN(64), per-i)
				fps := make([]Fingerprint, n)
				for j := range fps {
					fps[j] = Of([]byte{byte(perm[i+j]), byte(perm[i+j] >> 8), byte(perm[i+j] >> 16)})
				}
				added := make([]bool, n)
				s.InsertBatch(fps, added)
				for j, a := range added {
					if a {
						addedBy[w][perm[i+j]] = true
					}
				}
				i += n
			}
		}()
	}
	wg.Wait()
	for x := range per {
		n := 0
		for w := range workers {
			if addedBy[w][x] {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("fingerprint %d added %d times", x, n)
		}
	}
	if s.Len() != per {
		t.Fatalf("Len = %d, want %d", s.Len(), per)
	}
}
