package machine

import (
	"fmt"

	"rdmasim/opsem/prog"
)

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

// ParseSemantics reads a semantics by its name, "rdma" or "sc" (String's
// names). The error says what was given and what is wanted; callers put
// the flag or field in front of it.
func ParseSemantics(s string) (Semantics, error) {
	switch s {
	case "rdma":
		return RDMA, nil
	case "sc":
		return SC, nil
	}
	return 0, fmt.Errorf("%q: want rdma or sc", s)
}

// New builds the machine of p for sem: NewSC for SC, NewRDMA otherwise.
func New(p *prog.Program, sem Semantics, opt Options) (*Machine, error) {
	if sem == SC {
		return NewSC(p, opt)
	}
	return NewRDMA(p, opt)
}
