//go:build !js

package store

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchDup is the fraction of insertions that repeat an earlier fingerprint.
const benchDup = 0.2

// benchBatch is the number of fingerprints per InsertBatch: the successors of
// one state.
const benchBatch = 8

// pebbleBenchConfigs are the option sets measured by BenchmarkSets, each
// adding one choice to the previous one.
var pebbleBenchConfigs = []struct {
	name    string
	opt     PebbleOptions
	batched bool
	maxN    int // largest workload worth its time
}{
	{"0-pebble-defaults", PebbleOptions{BufferBytes: -1, FilterBitsPerKey: -1, BloomBitsPerKey: -1, WAL: true, MemTableBytes: 4 << 20, CacheBytes: 8 << 20}, false, 1e6},
	{"1-bloom", PebbleOptions{BufferBytes: -1, FilterBitsPerKey: -1, WAL: true, MemTableBytes: 4 << 20, CacheBytes: 8 << 20}, false, 1e6},
	{"2-nowal", PebbleOptions{BufferBytes: -1, FilterBitsPerKey: -1, MemTableBytes: 4 << 20, CacheBytes: 8 << 20}, false, 1e6},
	{"3-memtable64M-cache256M", PebbleOptions{BufferBytes: -1, FilterBitsPerKey: -1}, false, 1e6},
	{"4-batch", PebbleOptions{BufferBytes: -1, FilterBitsPerKey: -1}, true, 1e6},
	{"5-frontfilter", PebbleOptions{BufferBytes: -1}, true, 1e6},
	{"6-ingest-buffer16M-nofrontfilter", PebbleOptions{BufferBytes: 16 << 20, FilterBitsPerKey: -1}, true, 1e7},
	{"7-ingest-buffer16M", PebbleOptions{BufferBytes: 16 << 20}, true, 1e7},
	{"8-ingest-buffer64M", PebbleOptions{BufferBytes: 64 << 20}, true, 1e7},
	{"9-ingest-default-buffer256M", PebbleOptions{}, true, 1e7},
}

// BenchmarkSets fills a set with n insertions, a fifth of which repeat a
// uniformly chosen earlier fingerprint, in batches of benchBatch (or one at a
// time), once per iteration: run it with -benchtime=1x -count=5.
func BenchmarkSets(b *testing.B) {
	for _, n := range []int{1e6, 1e7} {
		b.Run(fmt.Sprintf("n=%.0e/mem", float64(n)), func(b *testing.B) {
			benchFill(b, n, true, func(*testing.B) Set { return NewMem(0) })
		})
		for _, c := range pebbleBenchConfigs {
			if n > c.maxN {
				continue
			}
			b.Run(fmt.Sprintf("n=%.0e/pebble/%s", float64(n), c.name), func(b *testing.B) {
				benchFill(b, n, c.batched, func(b *testing.B) Set {
					p, err := OpenPebble(b.TempDir(), c.opt)
					if err != nil {
						b.Fatal(err)
					}
					return p
				})
			})
		}
		for _, budget := range []uint64{16 << 20, 64 << 20, 256 << 20} {
			b.Run(fmt.Sprintf("n=%.0e/spill/budget=%dM", float64(n), budget>>20), func(b *testing.B) {
				benchFill(b, n, true, func(b *testing.B) Set {
					return NewSpill(budget, b.TempDir(), PebbleOptions{})
				})
			})
		}
	}
}

// benchFill measures filling sets made by mk with n insertions.
func benchFill(b *testing.B, n int, batched bool, mk func(*testing.B) Set) {
	fps := newStream(1, benchDup, uniformFP).fill(make([]Fingerprint, 0, n), n)
	added := make([]bool, benchBatch)
	var (
		inserts  int
		maxPause time.Duration
		diskPer  float64
		bytesPer float64
		spills   SpillStats
	)
	cpu0 := cpuTime()
	for b.Loop() {
		set := mk(b)
		for i := 0; i < len(fps); i += benchBatch {
			batch := fps[i:min(i+benchBatch, len(fps))]
			t0 := time.Now()
			if batched {
				if err := set.(BatchInserter).InsertBatch(batch, added); err != nil {
					b.Fatal(err)
				}
			} else {
				for _, fp := range batch {
					if _, err := set.Insert(fp); err != nil {
						b.Fatal(err)
					}
				}
			}
			maxPause = max(maxPause, time.Since(t0))
		}
		inserts += len(fps)
		b.StopTimer()
		bytesPer = float64(set.Bytes()) / float64(set.Len())
		var p *Pebble
		switch s := set.(type) {
		case *Pebble:
			p = s
		case *Spill:
			p = s.p
		}
		if p != nil {
			if err := p.wait(); err != nil {
				b.Fatal(err)
			}
			spills = p.Stats()
			if onDisk := p.Len() - p.inMemory(); onDisk > 0 {
				diskPer = float64(p.diskBytes()) / float64(onDisk)
			}
		}
		if err := set.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(inserts)/b.Elapsed().Seconds(), "inserts/s")
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(inserts), "cpu-ns/insert")
	b.ReportMetric(bytesPer, "bytes/entry")
	b.ReportMetric(diskPer, "disk-bytes/entry")
	b.ReportMetric(float64(maxPause.Microseconds())/1000, "max-pause-ms")
	if spills.Spills > 0 {
		b.ReportMetric(float64(spills.Spills), "spills")
		b.ReportMetric(spills.Max.Seconds(), "max-spill-s")
		b.ReportMetric(spills.MaxStall.Seconds()*1000, "max-stall-ms")
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkBig inserts $STORE_BIG_N fingerprints (with 20% duplicates) into a
// Pebble set, or a Spill with a budget of $STORE_BIG_BUDGET bytes if that is
// set, and reports the rate, the peak resident memory of the process
// (VmHWM) and the disk space. Repeats are of a uniformly chosen earlier
// fingerprint, or of one of the last $STORE_BIG_WINDOW new ones if that is
// set. It is skipped unless STORE_BIG_N is set:
//
//	STORE_BIG_N=100000000 go test -run '^$' -bench Big -benchtime 1x -timeout 2h ./store/
func BenchmarkBig(b *testing.B) {
	n, err := strconv.ParseUint(os.Getenv("STORE_BIG_N"), 10, 64)
	if err != nil {
		b.Skip("STORE_BIG_N not set")
	}
	var budget, window uint64
	if s := os.Getenv("STORE_BIG_WINDOW"); s != "" {
		if window, err = strconv.ParseUint(s, 10, 64); err != nil {
			b.Fatal(err)
		}
	}
	if s := os.Getenv("STORE_BIG_BUDGET"); s != "" {
		if budget, err = strconv.ParseUint(s, 10, 64); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		var set interface {
			Set
			BatchInserter
		}
		var p *Pebble
		if budget > 0 {
			s := NewSpill(budget, b.TempDir(), PebbleOptions{ExpectedEntries: n})
			set, p = s, s.p
		} else {
			if p, err = OpenPebble(b.TempDir(), PebbleOptions{ExpectedEntries: n}); err != nil {
				b.Fatal(err)
			}
			set = p
		}
		s := newStream(1, benchDup, uniformFP)
		s.window = window
		batch := make([]Fingerprint, benchBatch)
		added := make([]bool, benchBatch)
		start, last := time.Now(), time.Now()
		var maxPause time.Duration
		for i := uint64(0); i < n; i += benchBatch {
			for j := range batch {
				batch[j] = s.next()
			}
			t0 := time.Now()
			if err := set.InsertBatch(batch, added); err != nil {
				b.Fatal(err)
			}
			maxPause = max(maxPause, time.Since(t0))
			if (i/benchBatch)%(1<<20) == 0 && i > 0 {
				now := time.Now()
				b.Logf("%d inserts, %d entries, %.2f M inserts/s over the last 8M, VmRSS %s, Bytes %d MiB",
					i, set.Len(), float64(8<<20)/now.Sub(last).Seconds()/1e6, procStatus("VmRSS"), set.Bytes()>>20)
				last = now
			}
		}
		el := time.Since(start)
		b.StopTimer()
		if err := p.wait(); err != nil {
			b.Fatal(err)
		}
		b.Logf("%d inserts in %v: %.2f M inserts/s; %d entries; disk %d MiB (%.1f B/entry on disk); Bytes %d MiB; VmHWM %s; max pause %v; spills %+v",
			n, el, float64(n)/el.Seconds()/1e6, set.Len(), p.diskBytes()>>20,
			float64(p.diskBytes())/float64(p.Len()-p.inMemory()), set.Bytes()>>20, procStatus("VmHWM"), maxPause, p.Stats())
		b.ReportMetric(float64(n)/el.Seconds(), "inserts/s")
		if err := set.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// cpuTime returns the user and system CPU time of the process so far,
// including that of background goroutines and of Pebble's compactions (and of
// the untimed parts of a benchmark, which are short).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procStatus returns the value of a field of /proc/self/status.
func procStatus(field string) string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "?"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
