package machine

import "rdmasim/opsem/prog"

// Semantics selects one of the two operational machines of a program: the
// queue-pair buffer machine (RDMA) or the sequentially consistent one (SC).
type Semantics int

// The operational semantics.
const (
	RDMA Semantics = iota
	SC
)

// String returns "rdma" or "sc".
func (s Semantics) String() string {
	if s == SC {
		return "sc"
	}
	return "rdma"
}

// New builds the machine of p for sem: NewSC for SC, NewRDMA otherwise.
func New(p *prog.Program, sem Semantics, opt Options) (*Machine, error) {
	if sem == SC {
		return NewSC(p, opt)
	}
	return NewRDMA(p, opt)
}
