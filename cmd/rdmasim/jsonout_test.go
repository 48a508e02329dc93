package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"rdmasim/opsem/promela"
	"strings"
	"testing"
)

// TestJSONOnePerFile: under --json every command prints exactly one JSON
// object, on one line, per input file, in order: also for a file that does
// not parse or cannot be read (an object with an error), and for several
// robustness methods.
func TestJSONOnePerFile(t *testing.T) {
	const (
		bad     = "testdata/bad-syntax.rdma"
		missing = "testdata/no-such-file.rdma"
		good    = litmus + "PUT-LW.rdma"
	)
	for _, tt := range []struct {
		args  []string
		files []string // the input files, in order
		code  int
	}{
		{[]string{"check"}, []string{bad, missing, good}, exitUsage},
		{[]string{"check", "--semantics", "both"}, []string{good, bad}, exitUsage},
		{[]string{"explore"}, []string{good, bad, good}, exitUsage},
		{[]string{"robust"}, []string{bad, good}, exitUsage},
		{[]string{"robust", "--method", "all"}, []string{good, missing}, exitUsage},
		{[]string{"robust", "--method", "both"}, []string{good}, exitOK},
		{[]string{"stress", "--walks", "10"}, []string{good, bad}, exitUsage},
		{[]string{"run"}, []string{bad}, exitUsage},
		{[]string{"run"}, []string{good}, exitOK},
		{[]string{"graph"}, []string{missing}, exitUsage},
		{[]string{"graph"}, []string{good}, exitOK},
		{[]string{"export", "--promela"}, []string{bad}, exitUsage},
		{[]string{"export", "--promela", "--robustness"}, []string{good}, exitOK},
		{[]string{"corpus"}, []string{bad, good}, exitFailed},
	} {
		args := append(append(append([]string{}, tt.args...), "--json"), tt.files...)
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), args, &stdout, &stderr); code != tt.code {
				t.Errorf("exit %d, want %d\n%s", code, tt.code, stderr.String())
			}
			lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
			if len(lines) != len(tt.files) {
				t.Fatalf("%d lines for %d files:\n%s", len(lines), len(tt.files), stdout.String())
			}
			for i, l := range lines {
				var obj struct {
					File  string          `json:"file"`
					Error json.RawMessage `json:"error"`
				}
				if err := json.Unmarshal([]byte(l), &obj); err != nil {
					t.Fatalf("line %d: %v\n%s", i+1, err, l)
				}
				if obj.File != tt.files[i] {
					t.Errorf("line %d is about %q, want %q", i+1, obj.File, tt.files[i])
				}
				if failed := tt.files[i] != good; failed != (obj.Error != nil) {
					t.Errorf("line %d: error %s, want one: %v", i+1, obj.Error, failed)
				}
			}
		})
	}
}

// TestExportJSON: export --json carries the text that export prints
// without it, and with -o writes that text to the file.
func TestExportJSON(t *testing.T) {
	file := litmus + "paper-5.1.rdma"
	var plain, stderr bytes.Buffer
	if code := run(context.Background(), []string{"export", "--promela", file}, &plain, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := filepath.Join(t.TempDir(), "model.pml")
	for _, args := range [][]string{
		{"export", "--promela", "--json", file},
		{"export", "--promela", "--json", "-o", out, file},
	} {
		var stdout bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		var got promela.JSON
		if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		text := got.Promela
		if got.Output != "" {
			data, err := os.ReadFile(got.Output)
			if err != nil {
				t.Fatal(err)
			}
			text = string(data)
		}
		if text != plain.String() || got.Bytes != plain.Len() || got.Model != "machine" || got.Options["semantics"] != "rdma" {
			t.Errorf("%v: %d bytes (model %s, options %v), want the %d bytes of plain export", args, len(text), got.Model, got.Options, plain.Len())
		}
	}
}

// TestFileMessage: the file's name once, whether the error gives its
// position in the file or not.
func TestFileMessage(t *testing.T) {
	for _, tc := range []struct {
		file string
		err  error
		want string
	}{
		{"a.rdma", errors.New("a.rdma:3:4: the decider does not cover quiet"), "rdmasim robust: a.rdma:3:4: the decider does not cover quiet"},
		{"a.rdma", errors.New("dist: the run's stream: gone"), "rdmasim robust: a.rdma: dist: the run's stream: gone"},
		{"a.rdma", errors.New("a.rdmax:1:1: another file"), "rdmasim robust: a.rdma: a.rdmax:1:1: another file"},
	} {
		if got := fileMessage("robust", tc.file, tc.err); got != tc.want {
			t.Errorf("fileMessage(%q, %v) = %q, want %q", tc.file, tc.err, got, tc.want)
		}
	}
}
