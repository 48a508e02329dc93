package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

// TestServeGolden: serve's flags, as the other commands' are checked.
func TestServeGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"serve-help", []string{"serve", "--help"}, exitOK},
		{"serve-bad-flag", []string{"serve", "--port", "80"}, exitUsage},
		{"serve-argument", []string{"serve", "index.html"}, exitUsage},
		{"help-serve", []string{"help", "serve"}, exitOK},
	} {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.args, tc.code) })
	}
}

// fakeStatic stands for the page's static files with the WebAssembly built.
func fakeStatic() fstest.MapFS {
	return fstest.MapFS{
		"index.html":   {Data: []byte("<!doctype html><title>rdmasim playground</title>")},
		"rdmasim.wasm": {Data: []byte("\x00asm\x01\x00\x00\x00")},
		"wasm_exec.js": {Data: []byte("// Go's loader")},
	}
}

// serveEnv runs serve with args and static files in the background and
// returns the address it prints and a func that stops it and returns its
// exit code and stderr.
func serveEnv(t *testing.T, static fstest.MapFS, args ...string) (string, func() (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	e := newEnv(pw, &stderr)
	e.static = static
	done := make(chan int, 1)
	go func() {
		code := runEnv(ctx, append([]string{"serve"}, args...), e)
		pw.Close()
		done <- code
	}()
	line, _ := bufio.NewReader(pr).ReadString('\n')
	go io.Copy(io.Discard, pr)
	stop := func() (int, string) {
		cancel()
		return <-done, stderr.String()
	}
	m := regexp.MustCompile(`^rdmasim serve: the playground is at http://(127\.0\.0\.1:\d+)/ \(Ctrl-C stops\)\n$`).FindStringSubmatch(line)
	if m == nil {
		code, msg := stop()
		t.Fatalf("serve printed %q (exit %d, %s), want its address", line, code, msg)
	}
	return m[1], stop
}

// TestServe: serve prints its loopback address, serves the page, the
// WebAssembly with its MIME type and the examples with their index, and
// stops on its context (Ctrl-C) with exit 0.
func TestServe(t *testing.T) {
	addr, stop := serveEnv(t, fakeStatic(), "--addr", "127.0.0.1:0")
	get := func(path string) (string, string) {
		t.Helper()
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", path, resp.Status)
		}
		return string(body), resp.Header.Get("Content-Type")
	}
	if body, _ := get("/"); !strings.Contains(body, "rdmasim playground") {
		t.Errorf("GET /: %q", body)
	}
	if body, typ := get("/rdmasim.wasm"); typ != "application/wasm" || !strings.HasPrefix(body, "\x00asm") {
		t.Errorf("GET /rdmasim.wasm: %q, %s", body, typ)
	}
	if body, _ := get("/examples/index.json"); !strings.Contains(body, `"path": "litmus/PUT-LW.rdma"`) || !strings.Contains(body, `"file": "corpus/litmus/PUT-LW.rdma"`) {
		t.Errorf("GET /examples/index.json: %.300s", body)
	}
	want, err := os.ReadFile(litmus + "PUT-LW.rdma")
	if err != nil {
		t.Fatal(err)
	}
	if body, _ := get("/examples/litmus/PUT-LW.rdma"); body != string(want) {
		t.Errorf("GET /examples/litmus/PUT-LW.rdma: %q", body)
	}
	if code, stderr := stop(); code != exitOK || stderr != "" {
		t.Errorf("serve stopped with exit %d, stderr %q", code, stderr)
	}
}

// TestServeNotBuilt: without the WebAssembly build, serve says how to
// build it and exits 2.
func TestServeNotBuilt(t *testing.T) {
	static := fakeStatic()
	delete(static, "rdmasim.wasm")
	var stdout, stderr bytes.Buffer
	e := newEnv(&stdout, &stderr)
	e.static = static
	code := runEnv(context.Background(), []string{"serve", "--addr", "127.0.0.1:0"}, e)
	if code != exitUsage || stdout.Len() > 0 || !strings.Contains(stderr.String(), "make web") || !strings.Contains(stderr.String(), "rdmasim.wasm is missing") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// TestServeWrite: --write writes the site for a static host: the page, the
// WebAssembly, the examples and their index.
func TestServeWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "site")
	var stdout, stderr bytes.Buffer
	e := newEnv(&stdout, &stderr)
	e.static = fakeStatic()
	if code := runEnv(context.Background(), []string{"serve", "--write", dir}, e); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, name := range []string{"index.html", "rdmasim.wasm", "wasm_exec.js", "examples/index.json", "examples/litmus/paper-5.1.rdma", "examples/bench/mp5.rdma"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
}

// TestLoopback: the addresses serve does not warn about.
func TestLoopback(t *testing.T) {
	for host, want := range map[string]bool{"127.0.0.1": true, "::1": true, "localhost": true, "0.0.0.0": false, "": false, "192.168.1.2": false} {
		if got := loopback(host); got != want {
			t.Errorf("loopback(%q) = %v", host, got)
		}
	}
}
