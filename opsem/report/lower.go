package report

import (
	"rdmasim/opsem/prog"
)

// LoweredJSON is the JSON form of what `rdmasim lower` prints: every
// thread's control-flow graph, one object an instruction, with the protocol
// statement and registers it was compiled from.
type LoweredJSON struct {
	File    string       `json:"file"`
	Name    string       `json:"name"`
	Threads []ThreadCode `json:"threads"`
	Query   string       `json:"query,omitempty"`
}

// ThreadCode is one thread's graph.
type ThreadCode struct {
	Name         string      `json:"name"`
	Node         string      `json:"node"`
	Entry        int         `json:"entry"`
	Instructions []InstrJSON `json:"instructions"`
}

// InstrJSON is one instruction: its core statement (or "end", "choose",
// "loop N", "fail: ..."), its successors, and its source.
type InstrJSON struct {
	PC     int      `json:"pc"`
	Op     string   `json:"op"`
	Text   string   `json:"text"`
	Next   []int    `json:"next"`
	Labels []string `json:"labels,omitempty"`
	Line   int      `json:"line,omitempty"`
	Source string   `json:"source,omitempty"`
	Regs   string   `json:"regs,omitempty"`
}

// Lowered returns the JSON form of p's graphs.
func Lowered(file string, p *prog.Program) LoweredJSON {
	out := LoweredJSON{File: file, Name: p.Name}
	if p.Query.Kind != prog.QNone {
		out.Query = p.Query.Kind.String() + " " + p.CondString(p.Query.Cond)
	}
	for t := range p.Threads {
		th := &p.Threads[t]
		tc := ThreadCode{Name: th.Name, Node: p.Nodes[th.Node].Name, Entry: th.Entry, Instructions: []InstrJSON{}}
		for pc := range th.Code {
			in := &th.Code[pc]
			ij := InstrJSON{PC: pc, Op: in.Op.String(), Next: append([]int{}, in.Succ()...)}
			switch {
			case in.Op == prog.OpEnd:
				ij.Text = "end"
			case in.Op == prog.OpBranch && in.Loop >= 0:
				ij.Text = "loop"
			case in.Op == prog.OpBranch:
				ij.Text = "choose"
			case in.Op == prog.OpSwitch:
				ij.Text = "switch " + p.Locs[in.X].Name
			case in.Op.IsRegisterOp():
				ij.Text = p.RegisterOpString(in)
			default:
				ij.Text = p.StmtString(in.Stmt)
			}
			for _, l := range th.Labels {
				if l.PC == pc {
					ij.Labels = append(ij.Labels, l.Name)
				}
			}
			if in.Stmt != nil {
				ij.Line = in.Stmt.Pos.Line
				if in.Stmt.Src != nil && in.Op != prog.OpFail {
					ij.Source, ij.Regs = in.Stmt.Src.Text, in.Stmt.Src.Regs
				}
			}
			tc.Instructions = append(tc.Instructions, ij)
		}
		out.Threads = append(out.Threads, tc)
	}
	return out
}
