package store

import "testing"

// TestParseSize: sizes with and without units, and what is not a size;
// the default budget is some memory.
func TestParseSize(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want uint64
	}{
		{"1", 1}, {"1073741824", 1 << 30}, {"512MiB", 512 << 20}, {"2GiB", 2 << 30}, {"1G", 1 << 30}, {"1g", 1 << 30},
		{"64k", 64 << 10}, {"1.5GiB", 3 << 29}, {"1GB", 1e9}, {"10 MB", 1e7}, {"1TiB", 1 << 40}, {"100B", 100},
	} {
		got, err := ParseSize(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "lots", "GiB", "-1G", "0", "1.2.3G", "1 GiBi", "0.1"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
	if b := DefaultBudget(); b < 1<<20 {
		t.Errorf("DefaultBudget() = %d", b)
	}
	if c := SpillCache(1 << 20); c != 8<<20 {
		t.Errorf("SpillCache(1MiB) = %d", c)
	}
}
