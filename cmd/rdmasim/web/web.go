// Package web is the playground's site: the page, its Web Worker and its
// style sheet (static/, committed), the WebAssembly build of rdmasim and Go's
// wasm_exec.js (built into static/ by make web, not committed), and the
// example programs of corpus (corpus.Examples) under examples/, listed in
// examples/index.json. rdmasim serve serves it (Handler); make web writes
// it to a directory for any static host (Write): the page needs no server
// of its own, since rdmasim runs in the browser.
package web

import (
	"bytes"
	"embed"
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
	sort.Slice(list, func(i, j int) bool { return list[i].Path < list[j].Path })
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

// Handler serves the site.
func (s *Site) Handler() http.Handler { return http.FileServerFS(s) }

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
