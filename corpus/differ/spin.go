package differ

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"rdmasim/opsem/prog"
	"rdmasim/opsem/promela"
	"rdmasim/opsem/verdict"
)

// spin compares each complete machine search of r (RDMA and SC) with SPIN's
// on the Promela model promela.Write exports for it: the same final
// outcomes, the same bound cutting both or neither, and the same number of
// states stored.
func (r *Report) spin(ctx context.Context, vopt verdict.Options, ro promela.RunOptions) error {
	if ro.CFlags == nil {
		ro.CFlags = []string{"-O0"}
	}
	if ro.MaxDepth == 0 {
		ro.MaxDepth = 1000
	}
	if ro.HashBits == 0 {
		ro.HashBits = 18
	}
	for i, k := range []Kind{SpinRDMA, SpinSC} {
		m := r.Machine[i]
		if prog.HasRangeChecks(r.Program) {
			r.Skipped = append(r.Skipped, Skip{string(k), "the Promela models do not check the ranges of NIC writes (prog.Range)"})
			continue
		}
		if m.Search.Stop != 0 {
			r.Skipped = append(r.Skipped, Skip{string(k), "machine search cut by " + m.Bound})
			continue
		}
		if promela.FirstInlineWords(r.Program) != nil {
			r.Skipped = append(r.Skipped, Skip{string(k), "the Promela machines do not model a multi-word put marked inline (promela.InlineWordsError)"})
			continue
		}
		var model bytes.Buffer
		po := promela.Options{Semantics: m.Semantics, MaxInflight: vopt.Machine.MaxInflight, Unroll: vopt.Machine.Unroll, Placement: vopt.Machine.Placement}
		if err := promela.Write(&model, r.Program, po); err != nil {
			return fmt.Errorf("differ: exporting Promela: %w", err)
		}
		got, err := promela.Run(ctx, model.Bytes(), ro)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			r.Problems = append(r.Problems, Problem{k, fmt.Sprintf("spin %s: %v", m.Semantics, firstLine(err.Error()))})
			continue
		}
		r.Spin[i] = got
		var diffs []string
		if want := promela.VerdictOutcomes(r.Program, m); !slices.Equal(got.Outcomes, want) {
			diffs = append(diffs, fmt.Sprintf("outcomes: spin %q, machine %q", got.Outcomes, want))
		}
		if spinCut := len(got.Cut) > 0; spinCut == m.Complete {
			diffs = append(diffs, fmt.Sprintf("spin cut by %q, machine complete=%v (bound %q)", got.Cut, m.Complete, m.Bound))
		}
		if got.States != m.Search.States {
			diffs = append(diffs, fmt.Sprintf("spin stored %d states, the machine explored %d", got.States, m.Search.States))
		}
		if len(diffs) > 0 {
			r.Problems = append(r.Problems, Problem{k, fmt.Sprintf("spin %s: %s", m.Semantics, strings.Join(diffs, "; "))})
		}
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// SpinAvailable returns nil when spin and gcc, which CheckSpin runs, are on
// the PATH, and an error naming the missing tool otherwise.
func SpinAvailable() error {
	for _, tool := range []string{"spin", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s is not on the PATH: %w", tool, err)
		}
	}
	return nil
}
