package ckpt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun creates a run manifest, reads it back, and checks what resuming
// refuses.
func TestRun(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "p.rdma")
	if err := os.WriteFile(file, []byte("litmus P\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "ck")
	params := RunParams{MaxStates: 10, Order: "bfs", Store: "mem"}
	job := json.RawMessage(`{"kind":"outcomes","unroll":2}`)
	if err := CreateRun(dir, &Run{Command: "check", File: file, Flags: []string{"--unroll=2"}, Params: params, Job: job}); err != nil {
		t.Fatal(err)
	}
	r, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Format != RunFormat || r.CheckpointFormat != Format || r.Command != "check" || r.Params != params || !sameJSON(r.Job, job) ||
		len(r.Flags) != 1 || r.Flags[0] != "--unroll=2" || len(r.ProgramSHA256) != 64 || !filepath.IsAbs(r.FileAbs) {
		t.Fatalf("read back %+v", r)
	}
	if got, err := r.Program(); err != nil || got != file {
		t.Fatalf("Program() = %q, %v; want %q", got, err, file)
	}
	if err := StartRun(dir, &Run{Command: "check", File: file, Job: job}, true, ""); err != nil {
		t.Fatal(err)
	}

	other := filepath.Join(tmp, "q.rdma")
	if err := os.WriteFile(other, []byte("litmus Q\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(tmp, "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, RunName), []byte(`{"format": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"exists", func() error { return StartRun(dir, &Run{Command: "check", File: file}, false, "") }, "already holds a checkpoint"},
		{"no manifest", func() error { _, err := ReadRun(tmp); return err }, "holds no checkpoint"},
		{"format", func() error { _, err := ReadRun(bad); return err }, "a checkpoint of format 1"},
		{"job", func() error {
			return StartRun(dir, &Run{Command: "check", File: file, Job: json.RawMessage(`{"kind":"outcomes","unroll":3}`)}, true, "")
		}, "which this rdmasim describes as"},
		{"command", func() error { _, err := ResumeRun(dir, "robust", file); return err }, "not of rdmasim robust"},
		{"program", func() error { _, err := ResumeRun(dir, "check", other); return err }, "not of rdmasim check on " + other},
		{"changed", func() error {
			if err := os.WriteFile(file, []byte("litmus P2\n"), 0o644); err != nil {
				return err
			}
			_, err := r.Program()
			return err
		}, "has changed since the checkpoint"},
	} {
		if err := c.err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// TestRemoveLeftovers checks that only the litter of a killed run goes.
func TestRemoveLeftovers(t *testing.T) {
	dir, storeDir := t.TempDir(), t.TempDir()
	for _, p := range []string{
		filepath.Join(dir, "pebbleset-1", "LOCK"),
		filepath.Join(dir, "rdmasim-frontier-2.seg"),
		filepath.Join(storeDir, "rdmasim-frontier-3.seg"),
		filepath.Join(dir, RunName),
		filepath.Join(dir, "search-0", ManifestName),
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveLeftovers(dir, storeDir); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		kept bool
	}{
		{filepath.Join(dir, "pebbleset-1"), false},
		{filepath.Join(dir, "rdmasim-frontier-2.seg"), false},
		{filepath.Join(storeDir, "rdmasim-frontier-3.seg"), false},
		{filepath.Join(dir, RunName), true},
		{filepath.Join(dir, "search-0", ManifestName), true},
	} {
		if _, err := os.Stat(c.path); (err == nil) != c.kept {
			t.Errorf("%s: kept %v, want %v", c.path, err == nil, c.kept)
		}
	}
}
