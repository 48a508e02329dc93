package web

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"
)

// testSite returns a site whose WebAssembly build is wasm.
func testSite(t *testing.T, wasm []byte) *Site {
	t.Helper()
	static := fstest.MapFS{
		WasmName:     {Data: wasm},
		WasmExecName: {Data: []byte("// wasm_exec")},
		"index.html": {Data: []byte("<!doctype html>")},
	}
	examples := fstest.MapFS{"litmus/A.rdma": {Data: []byte("litmus A\n")}}
	s, err := NewSite(static, examples)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWasmGzip: the WebAssembly build goes out gzip-compressed, as
// application/wasm, to a client that accepts gzip, and as it is to one
// that does not (or refuses gzip with q=0); other files are not
// compressed; every response varies on Accept-Encoding.
func TestWasmGzip(t *testing.T) {
	wasm := bytes.Repeat([]byte("\x00asm compressible "), 4096)
	h := testSite(t, wasm).Handler()
	tests := []struct {
		path, accept string
		gzipped      bool
	}{
		{"/" + WasmName, "gzip, deflate, br", true},
		{"/" + WasmName, "br;q=1.0, gzip;q=0.8", true},
		{"/" + WasmName, "", false},
		{"/" + WasmName, "gzip;q=0", false},
		{"/" + WasmExecName, "gzip", false},
		{"/" + IndexName, "gzip", false},
	}
	for _, tc := range tests {
		req := httptest.NewRequest(http.MethodGet, tc.path, nil)
		if tc.accept != "" {
			req.Header.Set("Accept-Encoding", tc.accept)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		res := rec.Result()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s (%q): status %d", tc.path, tc.accept, res.StatusCode)
		}
		if got := res.Header.Get("Vary"); got != "Accept-Encoding" {
			t.Errorf("%s: Vary %q", tc.path, got)
		}
		body, _ := io.ReadAll(res.Body)
		gz := res.Header.Get("Content-Encoding") == "gzip"
		if gz != tc.gzipped {
			t.Fatalf("%s (%q): gzip %v, want %v", tc.path, tc.accept, gz, tc.gzipped)
		}
		if tc.path != "/"+WasmName {
			continue
		}
		if ct := res.Header.Get("Content-Type"); ct != "application/wasm" {
			t.Errorf("%s (%q): Content-Type %q", tc.path, tc.accept, ct)
		}
		if gz {
			if len(body) >= len(wasm)/4 {
				t.Errorf("compressed to %d bytes of %d", len(body), len(wasm))
			}
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(body, wasm) {
			t.Errorf("%s (%q): the body is not the build", tc.path, tc.accept)
		}
	}
}

// TestWriteGzip: Write puts a gzip copy of the build beside it.
func TestWriteGzip(t *testing.T) {
	wasm := bytes.Repeat([]byte("wasm "), 1000)
	dir := t.TempDir()
	if err := testSite(t, wasm).Write(dir); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, WasmName+".gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(got, wasm) {
		t.Errorf("the .gz copy is not the build (%v)", err)
	}
	for _, name := range []string{WasmName, WasmExecName, "index.html", "examples/litmus/A.rdma", IndexName} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Errorf("Write left out %s: %v", name, err)
		}
	}
}

// TestExampleOrder: the index lists the litmus tests first, then the
// protocols, then the rest (the benchmarks), each group by path.
func TestExampleOrder(t *testing.T) {
	static := fstest.MapFS{WasmName: {Data: []byte("w")}, WasmExecName: {Data: []byte("e")}}
	examples := fstest.MapFS{
		"bench/mp5.rdma":         {Data: []byte("litmus mp5\n")},
		"protocols/lock.rdma":    {Data: []byte("litmus lock\n")},
		"litmus/B.rdma":          {Data: []byte("litmus B\n")},
		"litmus/A.rdma":          {Data: []byte("litmus A\n")},
		"regressions/r1.rdma":    {Data: []byte("litmus r1\n")},
		"protocols/abp.rdma":     {Data: []byte("litmus abp\n")},
		"bench/ticket-lock.rdma": {Data: []byte("litmus t\n")},
	}
	s, err := NewSite(static, examples)
	if err != nil {
		t.Fatal(err)
	}
	var list []Example
	if err := json.Unmarshal(s.index, &list); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Path)
	}
	want := []string{"litmus/A.rdma", "litmus/B.rdma", "protocols/abp.rdma", "protocols/lock.rdma",
		"bench/mp5.rdma", "bench/ticket-lock.rdma", "regressions/r1.rdma"}
	if !slices.Equal(got, want) {
		t.Errorf("index order %v, want %v", got, want)
	}
}

// TestRevalidate: every file goes out with an ETag and Cache-Control:
// no-cache, and a request that names that ETag in If-None-Match gets 304
// Not Modified with no body (a reload fetches nothing it has); another
// ETag gets the file. The compressed WebAssembly has its own ETag, as its
// bytes differ from the build's.
func TestRevalidate(t *testing.T) {
	wasm := bytes.Repeat([]byte("\x00asm compressible "), 4096)
	h := testSite(t, wasm).Handler()
	get := func(path, accept, ifNoneMatch string) *http.Response {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		if ifNoneMatch != "" {
			req.Header.Set("If-None-Match", ifNoneMatch)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Result()
	}
	tags := map[string]string{}
	for _, tc := range []struct{ path, accept string }{
		{"/", ""},
		{"/" + WasmName, "gzip"},
		{"/" + WasmName, ""},
		{"/" + WasmExecName, "gzip"},
		{"/" + IndexName, ""},
		{"/examples/litmus/A.rdma", ""},
	} {
		first := get(tc.path, tc.accept, "")
		tag := first.Header.Get("ETag")
		if first.StatusCode != http.StatusOK || tag == "" {
			t.Fatalf("%s (%q): status %d, ETag %q", tc.path, tc.accept, first.StatusCode, tag)
		}
		if cc := first.Header.Get("Cache-Control"); cc != "no-cache" {
			t.Errorf("%s (%q): Cache-Control %q, want no-cache", tc.path, tc.accept, cc)
		}
		if other, ok := tags[tag]; ok {
			t.Errorf("%s (%q) has the ETag of %s: %s", tc.path, tc.accept, other, tag)
		}
		tags[tag] = tc.path + " " + tc.accept
		again := get(tc.path, tc.accept, tag)
		body, _ := io.ReadAll(again.Body)
		if again.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Errorf("%s (%q) with If-None-Match %s: status %d, %d bytes; want 304, none", tc.path, tc.accept, tag, again.StatusCode, len(body))
		}
		if again.Header.Get("ETag") != tag {
			t.Errorf("%s (%q): the 304 has ETag %q, want %s", tc.path, tc.accept, again.Header.Get("ETag"), tag)
		}
		if stale := get(tc.path, tc.accept, `"0123"`); stale.StatusCode != http.StatusOK {
			t.Errorf("%s (%q) with another ETag: status %d, want 200", tc.path, tc.accept, stale.StatusCode)
		}
	}
}
