package fuzz

import (
	"context"
	"fmt"
	"strings"
	"time"

	"rdmasim/corpus/differ"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/prog"
)

// Keeps returns the minimiser's test for a disagreement of kind k: the
// candidate still shows a disagreement of that kind, with the comparisons
// of differ.For(k) only (KindError: a semantics still fails, and not by a
// timeout). Each test has the given timeout (0: none).
func Keeps(k differ.Kind, dopt differ.Options, timeout time.Duration) func(context.Context, *prog.Program) bool {
	return func(ctx context.Context, p *prog.Program) bool {
		cctx, cancel := withTimeout(ctx, timeout)
		defer cancel()
		o := dopt
		o.Checks = differ.CheckAll
		if k != KindError {
			o.Checks = differ.For(k)
		}
		rep, err := differ.Check(cctx, p, o)
		if k == KindError {
			return err != nil && cctx.Err() == nil
		}
		return err == nil && rep.Has(k)
	}
}

// disputedReach returns the condition, as text, of the first reach query
// of rep whose machine and model answers differ under the semantics of
// k (reach-rdma or reach-sc); "" for other kinds.
func disputedReach(rep *differ.Report, k differ.Kind) string {
	i := 0
	switch k {
	case differ.ReachRDMA:
	case differ.ReachSC:
		i = 1
	default:
		return ""
	}
	if rep == nil {
		return ""
	}
	for _, a := range rep.Reach {
		if m := a.Machine[i]; m != nil && m.Allowed != a.Model[i].Allowed {
			return a.Program.CondString(a.Program.Query.Cond)
		}
	}
	return ""
}

// WithReach returns p asking `reach cond` (cond as text, naming p's
// locations and threads), parsed back; false when cond does not resolve
// in p (the minimiser removed a location or thread it names).
func WithReach(p *prog.Program, cond string) (*prog.Program, bool) {
	c := clone(p)
	c.Query = prog.Query{}
	q, err := parse.Parse(c.Name+".rdma", []byte(c.String()+"reach "+cond+"\n"))
	if err != nil {
		return nil, false
	}
	return q, true
}

// keepsReach wraps keep so that it tests each candidate with the disputed
// reach query cond: a candidate where cond no longer resolves is dropped.
func keepsReach(keep func(context.Context, *prog.Program) bool, cond string) func(context.Context, *prog.Program) bool {
	return func(ctx context.Context, p *prog.Program) bool {
		q, ok := WithReach(p, cond)
		return ok && keep(ctx, q)
	}
}

// problemsOf returns p's problems of kind k.
func problemsOf(ctx context.Context, p *prog.Program, k differ.Kind, dopt differ.Options) []differ.Problem {
	o := dopt
	o.Checks = differ.CheckAll
	if k != KindError {
		o.Checks = differ.For(k)
	}
	rep, err := differ.Check(ctx, p, o)
	if err != nil {
		return []differ.Problem{{Kind: KindError, Detail: err.Error()}}
	}
	var out []differ.Problem
	for _, pr := range rep.Problems {
		if pr.Kind == k {
			out = append(out, pr)
		}
	}
	return out
}

// surfaceRegression returns the regression test of a protocol's
// disagreement, surface-SEED: the program's text whole, with the problems
// in a comment.
func surfaceRegression(d *Disagreement) (name, text string) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Found by rdmasim fuzz --surface (program seed %#x): the semantics disagree on its lowering.\n", d.Seed)
	for _, pr := range d.Problems {
		fmt.Fprintf(&b, "# %s: %s\n", pr.Kind, firstLine(pr.Detail))
	}
	b.WriteString(d.Source)
	return fmt.Sprintf("surface-%016x", d.Seed), b.String()
}
