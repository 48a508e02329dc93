package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeTour runs every command the README shows with its output (a
// code block line "$ bin/rdmasim ARGS", or "$ cat FILE", optionally piped
// into "grep -E 'RE'") and compares the output with the lines that follow it
// in the block, so that the tour a new user follows stays true byte for
// byte. A --dot file is written to a temporary directory instead of docs/.
// Under -update it rewrites those lines of README.md instead.
func TestReadmeTour(t *testing.T) {
	text, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	type example struct {
		line int // of the command; its output follows it
		cmd  string
		want []string
		got  string
	}
	var examples []example
	in, cur := false, (*example)(nil)
	sc := bufio.NewScanner(bytes.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			in = !in
			if cur != nil {
				examples = append(examples, *cur)
				cur = nil
			}
		case !in:
		case strings.HasPrefix(line, "$ "):
			if cur != nil {
				examples = append(examples, *cur)
			}
			cur = &example{line: n, cmd: strings.TrimPrefix(line, "$ ")}
		case cur != nil:
			cur.want = append(cur.want, line)
		}
	}
	if len(examples) < 3 {
		t.Fatalf("found %d examples in README.md", len(examples))
	}
	for k := range examples {
		ex := &examples[k]
		cmd, filter := ex.cmd, ""
		if i := strings.Index(cmd, " | grep -E "); i >= 0 {
			cmd, filter = cmd[:i], strings.Trim(cmd[i+len(" | grep -E "):], "'")
		}
		args := strings.Fields(cmd)
		var got string
		switch args[0] {
		case "cat":
			b, err := os.ReadFile(filepath.Join("../..", args[1]))
			if err != nil {
				t.Fatalf("README.md:%d: %v", ex.line, err)
			}
			got = string(b)
		case "bin/rdmasim":
			args = args[1:]
			// The test runs in cmd/rdmasim: files are found two levels
			// up, and where the output names them (robust's repair
			// hint) it names them as the README's command does.
			var names []string
			for i := range args {
				switch {
				case i > 0 && args[i-1] == "--dot":
					args[i] = filepath.Join(t.TempDir(), filepath.Base(args[i]))
				case strings.HasSuffix(args[i], ".rdma"):
					names = append(names, filepath.Join("../..", args[i]), args[i])
					args[i] = filepath.Join("../..", args[i])
				}
			}
			var stdout, stderr bytes.Buffer
			run(context.Background(), args, &stdout, &stderr)
			got = strings.NewReplacer(names...).Replace(stdout.String())
		default:
			t.Fatalf("README.md:%d: cannot run %q", ex.line, ex.cmd)
		}
		if filter != "" {
			re := regexp.MustCompile(filter)
			var kept []string
			for _, l := range strings.Split(got, "\n") {
				if re.MatchString(l) {
					kept = append(kept, l)
				}
			}
			got = strings.Join(kept, "\n") + "\n"
		}
		ex.got = got
		if want := strings.Join(ex.want, "\n") + "\n"; got != want && !*update {
			t.Errorf("README.md:%d: $ %s\n--- got\n%s--- README\n%s", ex.line, ex.cmd, got, want)
		}
	}
	if *update {
		lines := strings.Split(string(text), "\n")
		for k := len(examples) - 1; k >= 0; k-- { // from the end, so that line numbers hold
			ex := examples[k]
			got := strings.Split(strings.TrimSuffix(ex.got, "\n"), "\n")
			lines = append(lines[:ex.line], append(got, lines[ex.line+len(ex.want):]...)...)
		}
		if err := os.WriteFile("../../README.md", []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
