package verdict

import (
	"context"
	"encoding/json"
	"fmt"

	"rdmasim/explore"
	"rdmasim/opsem/axiom"
	"rdmasim/opsem/job"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/prog"
)

// RobustResult is the answer of an enumeration (RobustMachine,
// RobustModel) on whether a program is robust: whether every RDMA
// behaviour (trace) is also an SC one. Front-ends ask package robust,
// whose Result is the one answer of every method.
type RobustResult struct {
	Robust   bool
	Complete bool   // the search covered every reachable configuration
	Bound    string // what cut an incomplete search
	Method   string
	Search   explore.Result
	// Witness is the shortest run to a configuration whose event graph has
	// an sc cycle, and Graph that graph; nil when robust.
	Witness *Run
	Graph   *machine.Graph
	// Full is the violating execution run on to a final configuration
	// (when one is reachable by letting every thread and NIC go on), for
	// pictures of the whole trace; it contains Graph's cycle.
	Full *machine.Graph
	// Limit (method enum-axiom): the limit of the model that kept it from
	// answering at all (see RobustLimited); Bound then says it too.
	Limit *axiom.LimitError
}

// Certain reports whether Robust is certain: a violation was found, or the
// search was complete.
func (r *RobustResult) Certain() bool { return !r.Robust || r.Complete }

// Coverage classifies the search behind r.
func (r *RobustResult) Coverage() Coverage {
	switch {
	case r.Complete:
		return Complete
	case r.Limit != nil:
		return Unknown
	case r.Search.Stop == explore.Complete || r.Search.Stop == explore.Stopped:
		return WithinBounds
	}
	return Unknown
}

// RobustMachine decides robustness by enumeration on the RDMA machine: it
// explores configurations that carry the event graph of their run and
// stops at the first (with BFS, the shortest) whose graph has an sc cycle.
// Event graphs grow with every loop iteration, so loops are bounded
// (LoopBound: DefaultModelUnroll unless opt gives one); the answer then holds
// for that many iterations per loop, and says so.
func RobustMachine(ctx context.Context, p *prog.Program, opt Options) (*RobustResult, error) {
	j := job.Job{Kind: job.RobustEnum, Semantics: machine.RDMA, Machine: job.MachineOf(opt.Machine)}
	b, err := j.BuildFrom(p)
	if err != nil {
		return nil, err
	}
	m, mopt := b.Outcome, b.Options
	res := &RobustResult{Robust: true, Method: "enum-machine"}
	violation := explore.FirstWhere(m.HasSCCycle)
	c := explore.Caller{
		Key:   j.Key(),
		Job:   j.Encode(),
		Name:  p.Name + " robustness (enum-machine)",
		Trace: true,
		Visit: violation.Visit,
		Meta:  json.RawMessage(j.Encode()),
		Save:  func() (json.RawMessage, error) { return json.Marshal(robustState{Violation: violation.ID}) },
		Restore: func(data json.RawMessage) error {
			var rs robustState
			if err := json.Unmarshal(data, &rs); err != nil {
				return err
			}
			violation.ID = rs.Violation
			return nil
		},
	}
	search, closeSet, err := opt.Open(explore.Cloning(m), c)
	if err != nil {
		return nil, &explore.SearchError{Err: err}
	}
	defer closeSet()
	sr, err := search.Run(ctx)
	if err != nil {
		return nil, &explore.SearchError{Err: fmt.Errorf("exploring %s for robustness: %w", p.Name, err)}
	}
	res.Search = sr
	if violation.Found() {
		res.Robust = false
		path, err := search.Path(uint64(violation.ID))
		if err != nil {
			return nil, &explore.SearchError{Err: fmt.Errorf("rebuilding the violation of %s: %w", p.Name, err)}
		}
		res.Witness = explain(m, path)
		g, err := m.Graph(path[len(path)-1].State)
		if err != nil {
			return nil, &explore.SearchError{Err: err}
		}
		res.Graph = g
		res.Full = complete(m, path[len(path)-1].State)
		return res, nil
	}
	res.Complete = sr.Stop == explore.Complete && sr.Pruned == 0
	switch {
	case sr.Stop != explore.Complete:
		res.Bound = stopBound(sr.Stop, opt)
		if sr.Pruned != 0 {
			res.Bound += ", " + machine.PrunedString(sr.Pruned, mopt)
		}
	case sr.Pruned != 0:
		res.Bound = machine.PrunedString(sr.Pruned, mopt)
	}
	return res, nil
}

// robustState is the state of RobustMachine's visitor in a checkpoint.
type robustState struct {
	Violation int64 `json:"violation"` // the id of the first violation, or -1
}

// complete runs on from configuration s, always taking the first enabled
// transition, until a final configuration, and returns its event graph; nil
// when the run blocks first. Graphs only grow along a run, so a cycle of s
// stays a cycle.
func complete(m *machine.Machine, s []byte) *machine.Graph {
	st := m.NewState()
	cur := append([]byte(nil), s...)
	for step := 0; step < 10000; step++ {
		m.Decode(cur, st)
		if m.Final(st) {
			g, err := m.Graph(cur)
			if err != nil {
				return nil
			}
			return g
		}
		var next []byte
		m.Successors(cur, func(_ uint64, n []byte) {
			if next == nil {
				next = append([]byte(nil), n...)
			}
		})
		if next == nil {
			return nil
		}
		cur = next
	}
	return nil
}
