package prog

import "fmt"

// EventKind is the label kind of an event (seed paper, section 4).
type EventKind uint8

// Event kinds.
const (
	EvNone  EventKind = iota // a silent step
	EvLW                     // lW(x,v): CPU local write
	EvLR                     // lR(x,v): CPU local read
	EvCAS                    // CAS(x,a,b): successful compare-and-swap
	EvNLR                    // nlR(x,v,n): NIC local read of a put
	EvNRW                    // nrW(y,v): NIC remote write of a put
	EvNRR                    // nrR(y,v): NIC remote read of a get
	EvNLW                    // nlW(x,v,n): NIC local write of a get
	EvNF                     // nF(n): NIC fence
	EvPoll                   // poll(n)
	EvNAR                    // naR(y,v): NIC remote read of a remote atomic (rcas, rfaa)
	EvNAW                    // naW(y,v): NIC remote write of a remote atomic (a successful rcas, an rfaa)
	EvQuiet                  // quiet: a CPU event, after every earlier operation of the thread is complete and visible
)

// IsAtomic reports whether k is an event of a remote atomic at its target.
func (k EventKind) IsAtomic() bool { return k == EvNAR || k == EvNAW }

// Event is one event: its kind, thread, location, values and remote node.
type Event struct {
	Kind   EventKind
	Thread int
	Loc    int   // location, for reads and writes
	Val    uint8 // value read or written (for CAS: the value read, a)
	New    uint8 // CAS: the value written, b
	Remote int   // remote node, for NIC events and polls
}

// IsNICWrite reports whether e is non-instantaneous (nlW or nrW).
func (e Event) IsNICWrite() bool { return e.Kind == EvNLW || e.Kind == EvNRW }

// EventString prints e in the paper's notation, e.g. nlR(x,1,n2).
func (p *Program) EventString(e Event) string {
	loc := func() string { return p.Locs[e.Loc].Name }
	node := func() string { return p.Nodes[e.Remote].Name }
	switch e.Kind {
	case EvLW:
		return fmt.Sprintf("lW(%s,%d)", loc(), e.Val)
	case EvLR:
		return fmt.Sprintf("lR(%s,%d)", loc(), e.Val)
	case EvCAS:
		return fmt.Sprintf("CAS(%s,%d,%d)", loc(), e.Val, e.New)
	case EvNLR:
		return fmt.Sprintf("nlR(%s,%d,%s)", loc(), e.Val, node())
	case EvNRW:
		return fmt.Sprintf("nrW(%s,%d)", loc(), e.Val)
	case EvNRR:
		return fmt.Sprintf("nrR(%s,%d)", loc(), e.Val)
	case EvNLW:
		return fmt.Sprintf("nlW(%s,%d,%s)", loc(), e.Val, node())
	case EvNF:
		return fmt.Sprintf("nF(%s)", node())
	case EvPoll:
		return fmt.Sprintf("poll(%s)", node())
	case EvNAR:
		return fmt.Sprintf("naR(%s,%d)", loc(), e.Val)
	case EvNAW:
		return fmt.Sprintf("naW(%s,%d)", loc(), e.Val)
	case EvQuiet:
		return "quiet"
	}
	return "-"
}
