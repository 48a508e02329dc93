package machine

import (
	"fmt"
	"strings"

	"rdmasim/opsem/prog"
)

// Config is a configuration as a reader sees it, every part named: the
// memory of each node, where each thread is in its source, and every queue
// pair's buffers. Format prints it; a step-through (the playground's)
// shows it whole at every step of a run, where a run's Transition lists
// only what changed.
type Config struct {
	Nodes   []NodeMemory `json:"nodes"`
	Threads []ThreadAt   `json:"threads"`
	// QueuePairs lists every queue pair of the program, empty buffers
	// included, in the program's order (none on the SC machine, which has
	// no buffers).
	QueuePairs []QueuePair `json:"queue_pairs"`
}

// NodeMemory is the memory of one node, its locations in program order.
type NodeMemory struct {
	Node string     `json:"node"`
	Locs []LocValue `json:"locs"`
}

// LocValue is a location and its value. A location nothing reads (see
// DeadLocations) is not tracked by the machine that explored it: Tracked
// is false and Value meaningless.
type LocValue struct {
	Loc     string `json:"loc"`
	Value   uint8  `json:"value"`
	Tracked bool   `json:"tracked"`
}

// ThreadAt is where a thread is: at the statement it executes next (its
// source position), inside one whose two events are half done (carrying
// the value read), or at its end.
type ThreadAt struct {
	Thread   string `json:"thread"`
	End      bool   `json:"end,omitempty"`
	Stmt     string `json:"stmt,omitempty"`
	Line     int    `json:"line,omitempty"`
	Col      int    `json:"col,omitempty"`
	Inside   bool   `json:"inside,omitempty"`
	Carrying uint8  `json:"carrying,omitempty"`
	// Regs are a protocol thread's registers, "r=1 s=0" (they live in its
	// control point).
	Regs string `json:"regs,omitempty"`
}

// QueuePair is the state of one queue pair: its five FIFO buffers, oldest
// entry first, each entry as printed ("PUT(z,x)", "ACK", "z=2"): B1 (posted
// operations), B2 (in flight to the remote node), B3 (acknowledgements and
// get responses on their way back), RW (remote writes issued, not yet in
// the remote memory) and LW (a get's local writes, not yet in memory).
type QueuePair struct {
	QP     string   `json:"queue_pair"` // "T0->B"
	Thread string   `json:"thread"`
	Remote string   `json:"remote"`
	B1     []string `json:"B1"`
	B2     []string `json:"B2"`
	B3     []string `json:"B3"`
	RW     []string `json:"RW"`
	LW     []string `json:"LW"`
	// Unpolled counts the operations posted and not yet polled.
	Unpolled int `json:"unpolled"`
}

// buffers returns q's buffers in pipeline order, as bufNames names them.
func (q *QueuePair) buffers() [nBuf]*[]string {
	return [nBuf]*[]string{&q.B1, &q.B2, &q.B3, &q.RW, &q.LW}
}

// Snapshot decodes the configuration s into a Config.
func (m *Machine) Snapshot(s []byte) Config {
	st := m.newState()
	m.decode(s, st)
	var c Config
	for n, node := range m.p.Nodes {
		nm := NodeMemory{Node: node.Name, Locs: []LocValue{}}
		for l, loc := range m.p.Locs {
			if loc.Node == n {
				nm.Locs = append(nm.Locs, LocValue{Loc: loc.Name, Value: st.mem[l], Tracked: !m.dead[l]})
			}
		}
		c.Nodes = append(c.Nodes, nm)
	}
	for t := range m.p.Threads {
		th := &m.p.Threads[t]
		in := &th.Code[st.pc[t]]
		at := ThreadAt{Thread: th.Name, End: in.Op == prog.OpEnd}
		if !at.End {
			at.Stmt, at.Line, at.Col = m.p.SourceString(in.Stmt), in.Stmt.Pos.Line, in.Stmt.Pos.Col
			at.Inside, at.Carrying = st.mid[t], st.reg[t]
			if in.Stmt.Src != nil {
				at.Regs = in.Stmt.Src.Regs
			}
		}
		c.Threads = append(c.Threads, at)
	}
	c.QueuePairs = []QueuePair{}
	if m.sc {
		return c
	}
	for qi := range st.q {
		qp := m.p.QPs[qi]
		out := QueuePair{QP: m.p.Threads[qp.Thread].Name + "->" + m.p.Nodes[qp.Remote].Name,
			Thread: m.p.Threads[qp.Thread].Name, Remote: m.p.Nodes[qp.Remote].Name, Unpolled: int(st.q[qi].npend)}
		for bi, b := range out.buffers() {
			*b = m.entryStrings(bi, st.q[qi].buf[bi])
		}
		c.QueuePairs = append(c.QueuePairs, out)
	}
	return c
}

// Format prints a configuration: memory per node (a location nothing reads
// as "_"), each thread's position, and the non-empty buffers.
func (m *Machine) Format(s []byte) string {
	c := m.Snapshot(s)
	var b strings.Builder
	for _, n := range c.Nodes {
		fmt.Fprintf(&b, "%s {", n.Node)
		for _, l := range n.Locs {
			if l.Tracked {
				fmt.Fprintf(&b, " %s=%d", l.Loc, l.Value)
			} else {
				fmt.Fprintf(&b, " %s=_", l.Loc) // not tracked: nothing reads it
			}
		}
		b.WriteString(" }\n")
	}
	for _, t := range c.Threads {
		where := "end"
		switch {
		case t.Inside:
			where = fmt.Sprintf("inside %s (line %d), carrying %d", t.Stmt, t.Line, t.Carrying)
		case !t.End:
			where = fmt.Sprintf("at %s (line %d)", t.Stmt, t.Line)
		}
		fmt.Fprintf(&b, "%s: %s\n", t.Thread, where)
	}
	for _, q := range c.QueuePairs {
		for bi, buf := range q.buffers() {
			if len(*buf) > 0 {
				fmt.Fprintf(&b, "%s[%s] = [%s]\n", bufNames[bi], q.QP, strings.Join(*buf, " "))
			}
		}
	}
	return b.String()
}
