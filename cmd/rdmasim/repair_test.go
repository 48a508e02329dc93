package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const protocolsDir = "../../corpus/protocols/"

// repairSeconds matches the timings repair prints, which the goldens mask.
var repairSeconds = regexp.MustCompile(`[0-9]+\.[0-9]+ s\b|"seconds":[0-9.e-]+`)

// TestGoldenRepair pins repair's report: text and JSON, a repair that
// needs a read-back, one the kinds allowed cannot make, a robust program,
// a search cut by its round limit, bad flags, and the query goal's
// repairs and refusals.
func TestGoldenRepair(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"repair-seqlock-get", []string{"repair", protocolsDir + "seqlock-get.rdma"}, exitOK},
		{"repair-commit-other-qp-json", []string{"repair", "--json", protocolsDir + "commit-other-qp.rdma"}, exitOK},
		{"repair-commit-other-qp-no-readback", []string{"repair", "--kinds", "poll,rfence", protocolsDir + "commit-other-qp.rdma"}, exitFailed},
		{"repair-sb-put", []string{"repair", litmus + "SB-PUT.rdma"}, exitOK},
		{"repair-robust-already", []string{"repair", protocolsDir + "seqlock-get-rfence.rdma"}, exitOK},
		{"repair-round-limit", []string{"repair", "--max-rounds", "1", protocolsDir + "seqlock-get.rdma"}, exitLimit},
		{"repair-bad-cost", []string{"repair", "--cost", "poll=x", protocolsDir + "seqlock-get.rdma"}, exitUsage},
		{"repair-bad-goal", []string{"repair", "--goal", "fast", protocolsDir + "seqlock-get.rdma"}, exitUsage},
		// --goal query: a poll, rfences, a read-back before a label (JSON),
		// and two refusals: SC reaches the outcome too; a put lands
		// between a remote atomic's read and write.
		{"repair-query-xprtrdma-reuse", []string{"repair", "--goal", "query", protocolsDir + "xprtrdma-reuse.rdma"}, exitOK},
		{"repair-query-get-get-mp", []string{"repair", "--goal", "query", litmus + "GET-GET-MP.rdma"}, exitOK},
		{"repair-query-seqlock-get", []string{"repair", "--goal", "query", protocolsDir + "seqlock-get.rdma"}, exitOK},
		{"repair-query-reach-label-json", []string{"repair", "--goal", "query", "--json", litmus + "rule-N7-reach-label.rdma"}, exitOK},
		{"repair-query-holds-already", []string{"repair", "--goal", "query", protocolsDir + "seqlock-get-rfence.rdma"}, exitOK},
		{"repair-query-sc-allows", []string{"repair", "--goal", "query", litmus + "PUT-PUT-2THR-MP.rdma"}, exitFailed},
		{"repair-query-atomic", []string{"repair", "--goal", "query", litmus + "ATOM-PUT-OTHERQP.rdma"}, exitFailed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			goldenNormalized(t, tc.name, tc.args, tc.code, func(s string) string {
				return repairSeconds.ReplaceAllStringFunc(s, func(m string) string {
					if strings.HasPrefix(m, `"`) {
						return `"seconds":0`
					}
					return "0.00 s"
				})
			})
		})
	}
}

// TestRepairOutput: -o writes the repaired text, which robust then proves.
func TestRepairOutput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fixed.rdma")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"repair", "-o", out, protocolsDir + "xprtrdma-reuse.rdma"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("repair exit %d: %s%s", code, stdout.String(), stderr.String())
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "  poll(S)\n") || !strings.Contains(string(text), "expect robust yes") {
		t.Errorf("the repaired text lacks its poll or its expect line:\n%s", text)
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"robust", "--method", "decide", out}, &stdout, &stderr); code != exitOK {
		t.Errorf("robust on the repaired text: exit %d\n%s", code, stdout.String())
	}

	// --write: in place, the original kept beside it.
	orig, err := os.ReadFile(protocolsDir + "xprtrdma-reuse.rdma")
	if err != nil {
		t.Fatal(err)
	}
	inPlace := filepath.Join(t.TempDir(), "reuse.rdma")
	if err := os.WriteFile(inPlace, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := run(context.Background(), []string{"repair", "--write", inPlace}, &stdout, &stderr); code != exitOK {
		t.Fatalf("repair --write: exit %d", code)
	}
	if got, _ := os.ReadFile(inPlace); string(got) != string(text) {
		t.Errorf("--write wrote\n%s\nwant what -o wrote\n%s", got, text)
	}
	if kept, _ := os.ReadFile(inPlace + ".orig"); string(kept) != string(orig) {
		t.Error("--write did not keep the original in FILE.orig")
	}
}

// TestRepairQueryOutput: --goal query -o writes a text whose expect lines
// say what the proof shows, so that check passes on it.
func TestRepairQueryOutput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fixed.rdma")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"repair", "--goal", "query", "-o", out, protocolsDir + "xprtrdma-reuse.rdma"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("repair exit %d: %s%s", code, stdout.String(), stderr.String())
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"poll(S)", "expect rdma forbidden", "expect robust yes"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the repaired text lacks %q:\n%s", want, text)
		}
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"check", out}, &stdout, &stderr); code != exitOK {
		t.Errorf("check on the repaired text: exit %d\n%s", code, stdout.String())
	}
}
