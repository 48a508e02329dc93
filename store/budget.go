package store

import (
	"errors"
	"os"
	"strconv"
	"strings"
)

// Memory budgets of visited sets, as a user gives them and by default.

// ParseSize parses a size in bytes: a number, optionally fractional, and a
// unit: none or B for bytes; K, M, G, T and KiB, MiB, GiB, TiB for powers of
// 1024; kB, MB, GB, TB for powers of 1000 (case-insensitive).
func ParseSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(t)
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult := map[string]float64{
		"": 1, "b": 1,
		"k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tib": 1 << 40,
		"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	}[unit]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 || num == "" {
		return 0, errors.New("want a size such as 512MiB, 2GiB, 1G or a number of bytes")
	}
	size := v * mult
	if size < 1 || size >= 1<<63 {
		return 0, errors.New("want at least one byte and less than 8 EiB")
	}
	return uint64(size), nil
}

// fallbackBudget is DefaultBudget where the machine's memory is
// unknown.
const fallbackBudget = 1 << 30

// DefaultBudget returns a quarter of the memory available to the process: the
// smaller of MemTotal in /proc/meminfo and the limit of its cgroup (v2), or
// fallbackBudget if neither can be read.
func DefaultBudget() uint64 {
	total := uint64(0)
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseUint(f[1], 10, 64); err == nil {
					total = kb << 10
				}
			}
		}
	}
	if data, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if limit, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64); err == nil && (total == 0 || limit < total) {
			total = limit
		}
	}
	if total == 0 {
		return fallbackBudget
	}
	return total / 4
}

// SpillCache returns the size of Pebble's block cache for a visited set that
// spills with the given budget: a quarter of the budget, from 8 MiB up to
// DefaultCacheBytes, so that a small budget is not swamped by the cache.
func SpillCache(budget uint64) int64 {
	return int64(min(max(budget/4, 8<<20), DefaultCacheBytes))
}

// BudgetGCPercent is the garbage collector's target (GOGC) for a process
// whose visited sets have a memory budget: the heap may grow to 1.5 times
// the live data between collections, rather than twice. The live data of a
// long search is mostly pointer-free tables (the visited set's buffer and
// filter, frontier chunks), so that collections cost little: on
// corpus/bench/mp4y.rdma with --store pebble --mem-budget 256MiB (1.2*10^8
// configurations, live heap up to about 650 MB), 69 collections of a few
// milliseconds each, and a peak RSS of 1.46 GiB instead of 1.82 GiB. It
// scales with the live data, unlike a fixed limit (debug.SetMemoryLimit:
// GOMEMLIMIT=1GiB saved as much on that run), which makes the collector run
// without pause once the live data outgrows it.
const BudgetGCPercent = 50
