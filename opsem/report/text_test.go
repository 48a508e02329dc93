package report

import "testing"

func TestWrap(t *testing.T) {
	tests := []struct {
		s             string
		width, indent int
		want          string
	}{
		{"short", 40, 2, "short"},
		{"one two three four five six seven", 20, 2, "one two three four\n  five six seven"},
		{"a-very-long-unbreakable-word and more", 20, 4, "a-very-long-unbreakable-word\n    and more"},
		{"  spaces   are   squeezed  ", 40, 0, "spaces are squeezed"},
		{"too narrow to wrap into a column at all", 19, 2, "too narrow to wrap into a column at all"},
		{"", 40, 2, ""},
	}
	for _, tc := range tests {
		if got := Wrap(tc.s, tc.width, tc.indent); got != tc.want {
			t.Errorf("Wrap(%q, %d, %d) = %q, want %q", tc.s, tc.width, tc.indent, got, tc.want)
		}
	}
}
