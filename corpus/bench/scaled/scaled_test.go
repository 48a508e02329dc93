package scaled

import (
	"os"
	"strings"
	"testing"
)

// TestFiles: corpus/bench/decide-mp10.rdma and f5.rdma are MP(10) and F(5),
// comments aside.
func TestFiles(t *testing.T) {
	for _, c := range []struct {
		file string
		text string
	}{
		{"../decide-mp10.rdma", MP(10)},
		{"../f5.rdma", F(5)},
	} {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		var prog []string
		for _, line := range strings.SplitAfter(string(data), "\n") {
			if line != "" && !strings.HasPrefix(line, "#") {
				prog = append(prog, line)
			}
		}
		if got := strings.Join(prog, ""); got != c.text {
			t.Errorf("%s:\n%s\ngenerated:\n%s", c.file, got, c.text)
		}
	}
}
