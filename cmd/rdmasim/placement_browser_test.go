package main

import (
	"fmt"
	"path/filepath"

	"rdmasim/opsem/check"
	"rdmasim/opsem/play"
)

// placement checks the page's --placement option (SEMANTICS-VERBS.md 1) on
// file, a litmus test whose answer it changes: the option shows any, the
// CLI's default, and under each placement the check shown is the CLI's
// check --placement P (the answers shown, and the JSON's outcomes and
// states). It leaves the option at any.
func (b *browser) placement(file string) {
	b.t.Helper()
	var pl string
	b.eval(`document.getElementById("opt-placement").value`, &pl)
	if pl != "any" {
		b.t.Errorf("the page's --placement is %q by default, the CLI's any", pl)
	}
	defer b.eval(`document.getElementById("opt-placement").value = "any"`, nil)
	answers := map[string]string{}
	for _, p := range []string{"any", "in-order"} {
		b.eval(fmt.Sprintf(`document.getElementById("opt-placement").value = %q`, p), nil)
		var want, got check.JSON
		b.cli(&want, "check", "--json", "--all-outcomes", "--placement", p, file)
		b.pick("litmus/" + filepath.Base(file))
		b.runCommand("check")
		shown := b.shown()
		b.shownJSON(&got)
		w := play.Word(want.RDMA.Allowed, "allowed", "forbidden")
		if shown["rdma"] != w {
			b.t.Errorf("%s, placement %s: the page shows rdma %s, the CLI says %s", file, p, shown["rdma"], w)
		}
		if fmt.Sprint(got.RDMA.Outcomes) != fmt.Sprint(want.RDMA.Outcomes) || got.RDMA.States != want.RDMA.States {
			b.t.Errorf("%s, placement %s: the page's JSON %+v, the CLI's %+v", file, p, *got.RDMA, *want.RDMA)
		}
		answers[p] = shown["rdma"]
	}
	if answers["any"] == answers["in-order"] {
		b.t.Errorf("%s: the page shows rdma %s under both placements; the file's answer depends on it", file, answers["any"])
	}
}
