package draw

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutput checks that the three outputs of a Result (one stream, texts,
// files) hold the same drawings, and how the files are named.
func TestOutput(t *testing.T) {
	res, err := Executions(context.Background(), program(t, paper51), Options{Show: ShowAll, Every: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Graphs) < 2 {
		t.Fatalf("%d drawings, want several", len(res.Graphs))
	}
	var stream bytes.Buffer
	if err := res.Write(&stream); err != nil {
		t.Fatal(err)
	}
	texts, err := res.DOT()
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) != len(res.Graphs) || strings.Join(texts, "") != stream.String() {
		t.Fatalf("DOT() gives %d texts, not the stream's", len(texts))
	}
	dir := t.TempDir()
	for _, c := range []struct {
		numbered bool
		want     []string
	}{
		{false, []string{"g.dot", "g.dot"}},
		{true, []string{"g-1.dot", "g-2.dot"}},
	} {
		paths, err := res.WriteFiles(filepath.Join(dir, "g.dot"), c.numbered, false)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range c.want {
			if paths[i] != filepath.Join(dir, want) {
				t.Errorf("numbered %v: file %d is %s, want %s", c.numbered, i, paths[i], want)
			}
		}
		last, err := os.ReadFile(paths[len(paths)-1])
		if err != nil || string(last) != texts[len(texts)-1] {
			t.Errorf("numbered %v: the last file holds %q (%v), want the last drawing", c.numbered, last, err)
		}
	}
}
