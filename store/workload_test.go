package store

import "math/rand/v2"

// uniformFP returns the i-th of a sequence of distinct fingerprints whose
// both words are uniformly spread, like those of Of.
func uniformFP(i uint64) Fingerprint {
	return Fingerprint{Lo: mix(i), Hi: mix(i ^ 0x5851f42d4c957f2d)}
}

// skewedFP returns the i-th of a sequence of distinct fingerprints with small
// Hi words (all in one key range, in the same sort bucket) and, for i = 0,
// the zero fingerprint.
func skewedFP(i uint64) Fingerprint {
	if i == 0 {
		return Fingerprint{}
	}
	return Fingerprint{Lo: mix(i) >> (i % 64), Hi: i % 7}
}

// stream yields fingerprints of which a fraction dup repeat a uniformly
// chosen earlier fingerprint of the stream (or of the same batch) and the rest
// are new.
type stream struct {
	rng      *rand.Rand
	dup      float64
	gen      func(uint64) Fingerprint
	distinct uint64
	window   uint64 // if not zero, repeats come from the last window fingerprints
}

func newStream(seed uint64, dup float64, gen func(uint64) Fingerprint) *stream {
	return &stream{rng: rand.New(rand.NewPCG(seed, seed^0xabcdef)), dup: dup, gen: gen}
}

func (s *stream) next() Fingerprint {
	if s.distinct > 0 && s.rng.Float64() < s.dup {
		if s.window > 0 && s.distinct > s.window {
			return s.gen(s.distinct - 1 - s.rng.Uint64N(s.window))
		}
		return s.gen(s.rng.Uint64N(s.distinct))
	}
	s.distinct++
	return s.gen(s.distinct - 1)
}

// fill appends n fingerprints of the stream to fps.
func (s *stream) fill(fps []Fingerprint, n int) []Fingerprint {
	for range n {
		fps = append(fps, s.next())
	}
	return fps
}
