package play

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"rdmasim/opsem/check"
)

// TestPlacementOption: the page's placement reaches the searches as the
// CLI's --placement does (SEMANTICS-VERBS.md 1): WORDS-LAST-WORD's torn
// outcome (the last word placed, the first not yet) is allowed on the RDMA
// machine under any, the default, and forbidden under in-order, by the
// machine and the model alike; a placement the CLI refuses is refused.
func TestPlacementOption(t *testing.T) {
	file := litmus + "WORDS-LAST-WORD.rdma"
	for _, tc := range []struct {
		placement string
		allowed   bool
	}{
		{"", true},
		{"any", true},
		{"in-order", false},
	} {
		for _, sem := range []string{"machine", "axiom"} {
			r := Run(context.Background(), request(t, Check, file, Options{Placement: tc.placement, Semantics: sem}), nil)
			if len(r.Errors) > 0 {
				t.Fatalf("placement %q, %s: %+v", tc.placement, sem, r.Errors)
			}
			var j check.JSON
			if err := json.Unmarshal(r.JSON, &j); err != nil {
				t.Fatal(err)
			}
			if a := j.RDMA; a == nil || a.Allowed == nil || *a.Allowed != tc.allowed {
				t.Errorf("placement %q, %s: the RDMA answer %+v, want allowed %v", tc.placement, sem, a, tc.allowed)
			}
		}
	}
	r := Run(context.Background(), request(t, Check, file, Options{Placement: "wqe-any"}), nil)
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "--placement") {
		t.Errorf("placement wqe-any: errors %+v, want one about --placement", r.Errors)
	}
}
