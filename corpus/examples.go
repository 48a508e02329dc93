package corpus

import (
	"embed"
	"io/fs"
)

// examples are the programs the playground offers to pick from.
//
//go:embed litmus/*.rdma protocols/*.rdma bench/*.rdma
var examples embed.FS

// Examples returns the example programs of the playground (rdmasim serve):
// litmus/NAME.rdma, the litmus tests, protocols/NAME.rdma, the protocols,
// and bench/NAME.rdma, the benchmarks, some of whose state spaces run to
// millions of configurations (for watching progress and stopping a search).
func Examples() fs.FS { return examples }
