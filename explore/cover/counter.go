package cover

// The counters of a state encoding. A Machine's encodings end with its
// Counters() counters, CounterBytes bytes each, big-endian; the value Omega
// stands for ω, a counter that the search has found can be pumped as high as
// wanted. A machine reads and writes its counters with Counter and
// SetCounter and moves them with Inc and Dec, which keep ω: ω+1 = ω-1 = ω.

// Omega is the encoding of ω in a counter.
const Omega = ^uint32(0)

// CounterBytes is the size of one counter in a state encoding.
const CounterBytes = 4

// Counter returns counter j of the counters b (a suffix of an encoding, or
// any run of encoded counters).
func Counter(b []byte, j int) uint32 {
	b = b[CounterBytes*j:]
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// SetCounter writes v as counter j of the counters b.
func SetCounter(b []byte, j int, v uint32) {
	b = b[CounterBytes*j:]
	b[0], b[1], b[2], b[3] = uint8(v>>24), uint8(v>>16), uint8(v>>8), uint8(v)
}

// Inc returns c+1: ω stays ω, and a counter that reaches the largest
// encodable value becomes ω (a sound over-approximation for coverability).
func Inc(c uint32) uint32 {
	if c >= Omega-1 {
		return Omega
	}
	return c + 1
}

// Dec returns c-1 for a positive c: ω stays ω. A machine enables a
// decrement only when the counter is positive, and always when it is ω.
func Dec(c uint32) uint32 {
	if c == Omega {
		return c
	}
	return c - 1
}
