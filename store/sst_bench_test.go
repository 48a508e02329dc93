//go:build !js

package store

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2/sstable"
)

// BenchmarkWriteSST measures writing a sorted run of fingerprints as an
// sstable in each table format.
func BenchmarkWriteSST(b *testing.B) {
	const n = 1 << 20
	var s fpSorter
	fps := make([]Fingerprint, n)
	for i := range fps {
		fps[i] = uniformFP(uint64(i))
	}
	sorted := s.sort(fps, 0)
	p, err := OpenPebble(b.TempDir(), PebbleOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for _, c := range []struct {
		tf    sstable.TableFormat
		block int
		bloom bool
	}{
		{sstable.TableFormatPebblev4, 4096, true},
		{p.wopts.TableFormat, 4096, true},
		{p.wopts.TableFormat, 4096, false},
		{p.wopts.TableFormat, 16384, true},
		{p.wopts.TableFormat, 32768, true},
	} {
		b.Run(fmt.Sprintf("%v/block=%d/bloom=%v", c.tf, c.block, c.bloom), func(b *testing.B) {
			saved := p.wopts
			defer func() { p.wopts = saved }()
			p.wopts.TableFormat = c.tf
			p.wopts.BlockSize = c.block
			if !c.bloom {
				p.wopts.FilterPolicy = nil
			}
			var key [16]byte
			for b.Loop() {
				if err := p.writeSST(filepath.Join(b.TempDir(), "x.sst"), sorted, &key); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "keys/s")
		})
	}
	b.Run("sort", func(b *testing.B) {
		for b.Loop() {
			for i := range fps {
				fps[i] = uniformFP(uint64(i))
			}
			s.sort(fps, 0)
		}
		b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "keys/s")
	})
}
