package syntax

import "testing"

// TestStatementHint: words of other tools and misspelt keywords find the
// statements they stand for; other names find none.
func TestStatementHint(t *testing.T) {
	tests := []struct{ word, arg, want string }{
		{"flush", "B", "did you mean rfence(B) or poll(B)?"},
		{"fence", "", "did you mean rfence(m)?"},
		{"MFENCE", "n2", "did you mean rfence(n2)?"},
		{"wait", "B", "did you mean poll(B)?"},
		{"poll_cq", "", "did you mean poll(m)?"},
		{"nop", "", "did you mean skip?"},
		{"repeat", "", "did you mean while (cond) { A } or loop { A }?"},
		{"elsif", "", "did you mean if (cond) { A } else { B }?"},
		{"select", "", "did you mean choose { A } or { B }?"},
		{"read", "", "did you mean a get x := y (x on the thread's node, y on the remote one)?"},
		{"cmpxchg", "", "did you mean x := cas(z, a, b)?"},
		// Misspellings: one edit up to four letters, two beyond.
		{"pol", "B", "did you mean poll(B)?"},
		{"Poll", "B", "did you mean poll(B)?"},
		{"rfense", "B", "did you mean rfence(B)?"},
		{"asume", "", "did you mean assume(x == v)?"},
		{"chose", "", "did you mean choose { A } or { B }?"},
		{"lop", "", "did you mean loop { A }?"},
		{"skp", "", "did you mean skip?"},
		{"whlie", "", "did you mean while (cond) { A }?"},
		{"iff", "", "did you mean if (cond) { A } else { B }?"},
		{"fro", "", "did you mean for k in lo..hi { A }?"},
		{"asert", "", "did you mean assert(cond)?"},
		{"brek", "", "did you mean break?"},
		// Equally near two keywords: both.
		{"choop", "B", "did you mean choose { A } or { B } or loop { A }?"},
		// Nothing near.
		{"x", "", ""},
		{"foo", "", ""},
		{"frobnicate", "B", ""},
		{"pl", "", ""},
	}
	for _, tc := range tests {
		if got := statementHint(tc.word, tc.arg); got != tc.want {
			t.Errorf("statementHint(%q, %q) = %q, want %q", tc.word, tc.arg, got, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "poll", 4}, {"poll", "", 4}, {"poll", "poll", 0},
		{"pol", "poll", 1}, {"pool", "poll", 1}, {"fence", "rfence", 1}, {"kitten", "sitting", 3},
	}
	for _, tc := range tests {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
