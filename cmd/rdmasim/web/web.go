// Package web is the playground's site: the page, its Web Worker and its
// style sheet (static/, committed), the WebAssembly build of rdmasim and Go's
// wasm_exec.js (built into static/ by make web, not committed), and the
// example programs of corpus (corpus.Examples) under examples/, listed in
// examples/index.json. rdmasim serve serves it (Handler), the WebAssembly
// gzip-compressed to browsers that accept it; make web writes it to a
// directory for any static host (Write), with a compressed copy of the
// WebAssembly beside it: the page needs no server of its own, since rdmasim
// runs in the browser.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

//go:embed static
var embedded embed.FS

// Static returns the page's files as built into this binary: static/ with
// whatever make web put there.
func Static() fs.FS {
	sub, err := fs.Sub(embedded, "static")
	if err != nil {
		panic(err) // static is embedded above: it is always there
	}
	return sub
}

// The files make web builds into static/.
const (
	WasmName     = "rdmasim.wasm"
	WasmExecName = "wasm_exec.js"
)

// ErrNotBuilt says that the WebAssembly build is missing from the static
// files, and how to build it.
var ErrNotBuilt = errors.New("the playground's WebAssembly is not built: run 'make web' " +
	"(GOOS=js GOARCH=wasm go build -o cmd/rdmasim/web/static/rdmasim.wasm ./cmd/rdmasim-wasm, and " +
	"cp \"$(go env GOROOT)/lib/wasm/wasm_exec.js\" cmd/rdmasim/web/static/), then rebuild rdmasim")

// IndexName is the list of the examples, under examples/.
const IndexName = "examples/index.json"

// Example is an entry of examples/index.json: Path under examples/, its
// Group (litmus, bench) and Name, and File, the path rdmasim's reports name
// it by when run from the repository (corpus/litmus/PUT-LW.rdma).
type Example struct {
	Path  string `json:"path"`
	Group string `json:"group"`
	Name  string `json:"name"`
	File  string `json:"file"`
}

// Site is the playground: the static files, and the examples under
// examples/ with their index. It fails with ErrNotBuilt when static lacks
// the WebAssembly build.
type Site struct {
	static, examples fs.FS
	index            []byte

	// gzipped: the WebAssembly build compressed, made once, as Handler
	// starts or at the first need (the build is 7.9 MiB, 2.2 MiB
	// compressed, measured at d48745a).
	gzipOnce sync.Once
	gzipped  []byte
	gzipErr  error

	// etags holds the ETag of each file served so far, by path ("+gzip"
	// after the compressed WebAssembly's), computed at its first request.
	etagMu sync.Mutex
	etags  map[string]string
}

// NewSite returns the site of the static files and the example programs
// (.rdma files, any depth).
func NewSite(static, examples fs.FS) (*Site, error) {
	for _, name := range []string{WasmName, WasmExecName} {
		if _, err := fs.Stat(static, name); err != nil {
			return nil, fmt.Errorf("%w (%s is missing)", ErrNotBuilt, name)
		}
	}
	var list []Example
	err := fs.WalkDir(examples, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".rdma" {
			return err
		}
		list = append(list, Example{Path: p, Group: path.Dir(p), Name: strings.TrimSuffix(path.Base(p), ".rdma"), File: "corpus/" + p})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the examples: %w", err)
	}
	// Litmus tests first, then protocols, then the rest (the benchmarks,
	// which take seconds): the list opens on small programs.
	rank := func(group string) int {
		switch group {
		case "litmus":
			return 0
		case "protocols":
			return 1
		}
		return 2
	}
	sort.Slice(list, func(i, j int) bool {
		if ri, rj := rank(list[i].Group), rank(list[j].Group); ri != rj {
			return ri < rj
		}
		return list[i].Path < list[j].Path
	})
	index, err := json.MarshalIndent(list, "", " ")
	if err != nil {
		return nil, err
	}
	return &Site{static: static, examples: examples, index: index}, nil
}

// Open opens a file of the site (fs.FS): examples/index.json, an example
// under examples/, else a static file.
func (s *Site) Open(name string) (fs.File, error) {
	switch {
	case name == IndexName:
		return &memFile{Reader: bytes.NewReader(s.index), name: path.Base(name), size: int64(len(s.index))}, nil
	case strings.HasPrefix(name, "examples/"):
		return s.examples.Open(strings.TrimPrefix(name, "examples/"))
	}
	return s.static.Open(name)
}

// Handler serves the site. The WebAssembly build goes out gzip-compressed
// to a client that accepts it (Accept-Encoding), as the file Write puts
// beside it would from a static host; Handler starts compressing it at
// once. Every file goes out with an ETag (a hash of the bytes sent) and
// Cache-Control: no-cache, so a browser that has it asks again with
// If-None-Match and gets 304 Not Modified: a reload fetches nothing it
// has, and Chromium keeps the compiled WebAssembly it caches beside the
// file (the embedded files have no modification time, so without an ETag
// every reload fetched and compiled the build again). A rebuilt rdmasim
// serves new hashes, so nothing stale is ever used.
func (s *Site) Handler() http.Handler {
	files := http.FileServerFS(s)
	go s.gzipWasm() // compress ahead of the page's first request for it
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Accept-Encoding")
		w.Header().Set("Cache-Control", "no-cache")
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if name == "" {
			name = "index.html"
		}
		if r.URL.Path != "/"+WasmName || !acceptsGzip(r) {
			if tag, ok := s.etag(name, func() ([]byte, error) { return fs.ReadFile(s, name) }); ok {
				w.Header().Set("ETag", tag)
			}
			files.ServeHTTP(w, r)
			return
		}
		gz, err := s.gzipWasm()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if tag, ok := s.etag(name+"+gzip", func() ([]byte, error) { return gz, nil }); ok {
			w.Header().Set("ETag", tag)
		}
		w.Header().Set("Content-Type", "application/wasm")
		w.Header().Set("Content-Encoding", "gzip")
		http.ServeContent(w, r, WasmName, time.Time{}, bytes.NewReader(gz))
	})
}

// etag returns the ETag of the file served under key, whose bytes read
// returns: a strong validator, the first 16 bytes of their SHA-256 in
// hex, quoted. It is computed once per key; ok is false when read fails
// (a directory, a file that is not there), which is then served without.
func (s *Site) etag(key string, read func() ([]byte, error)) (tag string, ok bool) {
	s.etagMu.Lock()
	defer s.etagMu.Unlock()
	if tag, ok := s.etags[key]; ok {
		return tag, true
	}
	data, err := read()
	if err != nil {
		return "", false
	}
	sum := sha256.Sum256(data)
	tag = `"` + hex.EncodeToString(sum[:16]) + `"`
	if s.etags == nil {
		s.etags = map[string]string{}
	}
	s.etags[key] = tag
	return tag, true
}

// acceptsGzip reports whether the request's Accept-Encoding lists gzip
// (without q=0).
func acceptsGzip(r *http.Request) bool {
	for _, h := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(h, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if strings.EqualFold(strings.TrimSpace(name), "gzip") && strings.ReplaceAll(params, " ", "") != "q=0" {
				return true
			}
		}
	}
	return false
}

// gzipWasm returns the WebAssembly build compressed with gzip, compressing
// it once.
func (s *Site) gzipWasm() ([]byte, error) {
	s.gzipOnce.Do(func() {
		data, err := fs.ReadFile(s.static, WasmName)
		if err != nil {
			s.gzipErr = fmt.Errorf("reading %s: %w", WasmName, err)
			return
		}
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		if _, err := zw.Write(data); err != nil {
			s.gzipErr = fmt.Errorf("compressing %s: %w", WasmName, err)
			return
		}
		if err := zw.Close(); err != nil {
			s.gzipErr = fmt.Errorf("compressing %s: %w", WasmName, err)
			return
		}
		s.gzipped = b.Bytes()
	})
	return s.gzipped, s.gzipErr
}

// Write writes the site to dir, ready to publish on a static host.
func (s *Site) Write(dir string) error {
	write := func(fsys fs.FS, under string) error {
		return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			return writeFile(filepath.Join(dir, under, filepath.FromSlash(p)), data)
		})
	}
	if err := write(s.static, ""); err != nil {
		return fmt.Errorf("writing the site: %w", err)
	}
	if err := write(s.examples, "examples"); err != nil {
		return fmt.Errorf("writing the examples: %w", err)
	}
	// rdmasim.wasm.gz beside the build, for hosts that serve a file's
	// precompressed copy (nginx's gzip_static, Caddy's precompressed).
	gz, err := s.gzipWasm()
	if err != nil {
		return fmt.Errorf("writing the site: %w", err)
	}
	if err := writeFile(filepath.Join(dir, WasmName+".gz"), gz); err != nil {
		return fmt.Errorf("writing the site: %w", err)
	}
	return writeFile(filepath.Join(dir, filepath.FromSlash(IndexName)), s.index)
}

func writeFile(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, data, 0o644)
}

// memFile is the index, as an fs.File.
type memFile struct {
	*bytes.Reader
	name string
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f, nil }
func (f *memFile) Close() error               { return nil }
func (f *memFile) Name() string               { return f.name }
func (f *memFile) Size() int64                { return f.size }
func (f *memFile) Mode() fs.FileMode          { return 0o444 }
func (f *memFile) ModTime() time.Time         { return time.Time{} }
func (f *memFile) IsDir() bool                { return false }
func (f *memFile) Sys() any                   { return nil }

var _ io.ReadSeeker = (*memFile)(nil)
