package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"rdmasim/cmd/rdmasim/web"
	"rdmasim/opsem/check"
	"rdmasim/opsem/play"
	"rdmasim/opsem/report"
	"rdmasim/opsem/robust"
)

// TestBrowser drives the playground in headless Chromium: rdmasim serve on
// a free loopback port, the page loaded, examples picked, check and robust
// run in the page's WebAssembly; the verdicts shown must equal the CLI's
// JSON (run in-process) on every litmus test (every fourth with -short), a
// witness of paper-5.1 stepped to its end must show the final memory the
// CLI's witness run ends in, having shown every buffer the run fills, a
// syntax error typed into the editor must be marked at the line and column
// the CLI reports, and a long search must show progress and stop with a
// report of what it explored. The cases of issue 31, each of which failed
// on the page before its fix: robust's method is auto by default, as the
// CLI's; the robust chip reads "robust: no (all methods agree)"; an
// answer is marked stale once the program is edited, and its step-through
// still marks each thread on its statement; a fixed syntax error leaves no
// message; a program without a condition gets no rdma or sc verdict; an
// edit survives a reload and "reset to example" drops it; a link pasted
// into the open tab opens its program; a bad link says so and loses no
// program; a stopped search's report opens with the line the CLI prints
// on Ctrl-C. Then the views of issue 31's last items: the graph's events
// with their source lines, an event clicked selecting its statement and
// its step (graph-events), and one that robust's run to a violation never
// made saying so (graph-event-after-run); any outcome's run and graph, also when the
// condition is forbidden (outcome-graph); the step that settles the
// condition and the put or get each NIC step serves (cond-step); the
// Repair button, apply and undo (repair), and its stop (repair-stop); the
// new views at 400 px (narrow-new-views). Screenshots of each view are
// written to testdata/artifacts (ignored by git), or $RDMASIM_ARTIFACTS.
func TestBrowser(t *testing.T) {
	// Beside the other long tests: its server listens on a free port,
	// Chromium has its own profile directory, and the screenshots are its own.
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: the browser test takes about a minute")
	}
	chrome := findChromium()
	if chrome == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed under CI (make tools installs it)")
		}
		t.Skip("chromium is not installed (make tools installs it)")
	}
	if _, err := fs.Stat(web.Static(), web.WasmName); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the WebAssembly build is not embedded under CI: make test builds it (make wasm)")
		}
		t.Skip("the playground's WebAssembly is not built: run make wasm, then the test again")
	}
	artifacts := os.Getenv("RDMASIM_ARTIFACTS")
	if artifacts == "" {
		artifacts = filepath.Join("testdata", "artifacts")
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}

	addr, stopServe := startServe(t)
	defer stopServe()

	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chrome), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 1000))
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	b := &browser{t: t, ctx: ctx, artifacts: artifacts}
	b.do(chromedp.Navigate("about:blank")) // Chromium started, outside the times below
	start := time.Now()
	b.do(chromedp.Navigate("http://" + addr + "/"))
	b.wait(`document.getElementById("status").dataset.state === "idle"`, 60*time.Second)
	cold := time.Since(start)
	origin := "http://" + addr + "/"

	// The times a user waits, logged (go test -v -run TestBrowser/load-times),
	// never asserted: the page ready on a cold and on a warm load (the
	// WebAssembly compiled, the examples listed), and a litmus check.
	t.Run("load-times", func(t *testing.T) {
		b.t = t
		start := time.Now()
		b.do(chromedp.Reload())
		b.wait(`document.getElementById("status").dataset.state === "idle"`, 60*time.Second)
		warm := time.Since(start)
		b.pick("litmus/SB-PUT.rdma")
		start = time.Now()
		b.eval(`(() => { const e = document.getElementById("editor"); e.focus(); e.dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", ctrlKey: true, bubbles: true})); return true })()`, nil)
		b.wait(`document.getElementById("status").dataset.state === "done"`, 60*time.Second)
		t.Logf("page ready: %d ms cold, %d ms warm; check of SB-PUT: %d ms", cold.Milliseconds(), warm.Milliseconds(), time.Since(start).Milliseconds())
	})

	t.Run("robust-default", func(t *testing.T) {
		b.t = t
		b.robustDefault(litmus + "SB-PUT.rdma")
	})
	t.Run("placement", func(t *testing.T) {
		b.t = t
		b.placement(litmus + "WORDS-LAST-WORD.rdma")
	})
	t.Run("verdicts", func(t *testing.T) {
		files, err := filepath.Glob(litmus + "*.rdma")
		if err != nil || len(files) == 0 {
			t.Fatalf("no litmus tests: %v", err)
		}
		sort.Strings(files)
		b.setMethod("all")
		defer b.setMethod("auto")
		n, stride := 0, 1
		if testing.Short() {
			stride = 4
		}
		for i := 0; i < len(files); i += stride {
			b.t = t
			b.pick("litmus/" + filepath.Base(files[i]))
			b.compareCheck(files[i])
			b.compareRobust(files[i])
			n++
		}
		if n < 20 {
			t.Fatalf("compared %d files, want at least 20", n)
		}
		b.shot("report")
	})
	t.Run("step-through", func(t *testing.T) {
		b.t = t
		b.stepThrough(litmus + "paper-5.1.rdma")
	})
	t.Run("stale", func(t *testing.T) {
		b.t = t
		b.stale("litmus/paper-5.1.rdma")
	})
	t.Run("syntax-error", func(t *testing.T) {
		b.t = t
		b.syntaxError()
	})
	t.Run("syntax-fixed", func(t *testing.T) {
		b.t = t
		b.syntaxFixed()
	})
	t.Run("no-condition", func(t *testing.T) {
		b.t = t
		b.noCondition()
	})
	t.Run("reload", func(t *testing.T) {
		b.t = t
		b.reload("litmus/SB-PUT.rdma")
	})
	t.Run("hashchange", func(t *testing.T) {
		b.t = t
		b.hashchange()
	})
	t.Run("bad-link", func(t *testing.T) {
		b.t = t
		b.badLink(origin)
	})
	t.Run("stop", func(t *testing.T) {
		b.t = t
		b.stop()
	})
	t.Run("robust-stop", func(t *testing.T) {
		b.t = t
		b.robustStop("bench/decide-mp10.rdma")
	})
	t.Run("accessibility", func(t *testing.T) {
		b.t = t
		b.accessibility()
	})
	t.Run("outcomes", func(t *testing.T) {
		b.t = t
		b.outcomes(litmus + "paper-5.1.rdma")
	})
	t.Run("graph-events", func(t *testing.T) {
		b.t = t
		b.graphEvents(litmus + "paper-5.1.rdma")
	})
	t.Run("graph-event-after-run", func(t *testing.T) {
		b.t = t
		b.graphEventAfterRun("litmus/paper-5.1.rdma")
	})
	t.Run("graph-routing", func(t *testing.T) {
		b.t = t
		for _, f := range []string{"paper-5.1", "PUT-PUT-2THR-MP", "ATOM-PER-LOCATION", "PUTACK-NOT-VISIBLE"} {
			b.graphRouting(litmus + f + ".rdma")
		}
	})
	t.Run("outcome-graph", func(t *testing.T) {
		b.t = t
		b.outcomeGraph(litmus + "GET-RFENCE-GET-MP.rdma")
	})
	t.Run("cond-step", func(t *testing.T) {
		b.t = t
		b.condStep("litmus/paper-5.1.rdma")
	})
	t.Run("repair", func(t *testing.T) {
		b.t = t
		b.repair(litmus + "paper-5.1.rdma")
	})
	t.Run("repair-stop", func(t *testing.T) {
		b.t = t
		b.repairStop("bench/decide-mp10.rdma")
	})
	t.Run("narrow-new-views", func(t *testing.T) {
		b.t = t
		b.narrow("litmus/paper-5.1.rdma")
	})
}

// graphEventAfterRun checks robust's graph of a violation, drawn from the
// run to it and completed with the events the program makes after that
// run's end: an event of the run, clicked, takes Step through to its step;
// one made after the run's end (paper-5.1's put's write nrW(z,2)) says
// that it has no step, rather than saying nothing of it.
func (b *browser) graphEventAfterRun(path string) {
	b.t.Helper()
	b.pick(path)
	b.runCommand("robust")
	b.do(chromedp.Click(chromedp.CSS(`#tabs button[data-tab="graph"]`)))
	var notes map[string]string
	b.eval(`Object.fromEntries([...document.querySelectorAll("#graph .g-event:not(.init)")].map(g => {
		g.dispatchEvent(new MouseEvent("click", {bubbles: true}));
		return [g.querySelector("text").textContent + (g.dataset.step ? " step" : ""), document.getElementById("graph-note").textContent];
	}))`, &notes)
	if len(notes) == 0 {
		b.t.Fatal("robust drew no events for paper-5.1")
	}
	after, made := 0, 0
	for ev, note := range notes {
		switch {
		case strings.HasSuffix(ev, " step"):
			made++
			if !strings.Contains(note, "of the run (Step through)") {
				b.t.Errorf("event %s, made by a step of the run: the note says %q", ev, note)
			}
		default:
			after++
			if !strings.Contains(note, "after the end of the run shown") {
				b.t.Errorf("event %s, made after the run's end: the note says %q", ev, note)
			}
		}
	}
	if _, ok := notes["nrW(z,2)"]; !ok || made == 0 {
		b.t.Errorf("want nrW(z,2) made after the run and some event made in it: %v", notes)
	}
	b.shot("graph-event-after-run")
}

// tooltipRE reads an event of the CLI's Graphviz output with its tooltip.
var tooltipRE = regexp.MustCompile(`e\d+ \[label="([^"]+)", tooltip="([^"]+)"\]`)

// graphRouting checks file's graph in the page: no edge passes through an
// event box other than those of its two ends (each edge sampled at 60
// points along its path).
func (b *browser) graphRouting(file string) {
	b.t.Helper()
	b.pick("litmus/" + filepath.Base(file))
	b.runCommand("check")
	b.do(chromedp.Click(chromedp.CSS(`#tabs button[data-tab="graph"]`)))
	var res struct {
		N   int
		Out []string
	}
	b.eval(`(() => {
		const svg = document.querySelector("#graph svg.exec-graph");
		if (!svg) return {N: -1, Out: []};
		const boxes = [...svg.querySelectorAll(".g-event")].map(g => { const r = g.querySelector("rect");
			return {i: +g.dataset.event, x: +r.getAttribute("x"), y: +r.getAttribute("y"), w: +r.getAttribute("width"), h: +r.getAttribute("height"), label: g.querySelector("text").textContent} });
		const out = [];
		const paths = [...svg.querySelectorAll(".g-edges path")];
		for (const p of paths) {
			const from = +p.dataset.from, to = +p.dataset.to, n = p.getTotalLength();
			for (let k = 1; k < 60; k++) {
				const pt = p.getPointAtLength(n * k / 60);
				const hit = boxes.find(r => r.i !== from && r.i !== to && pt.x > r.x && pt.x < r.x + r.w && pt.y > r.y && pt.y < r.y + r.h);
				if (hit) { out.push(p.dataset.rel + " " + from + "->" + to + " through " + hit.label); break; }
			}
		}
		return {N: paths.length, Out: out};
	})()`, &res)
	b.shot("graph-routing-" + strings.TrimSuffix(filepath.Base(file), ".rdma"))
	if res.N <= 0 {
		b.t.Errorf("%s: no graph drawn (%d edges)", filepath.Base(file), res.N)
	}
	for _, c := range res.Out {
		b.t.Errorf("%s: edge %s", filepath.Base(file), c)
	}
}

// graphEvents checks the statements of the graph's events (issue 31, item
// 1): each event of paper-5.1's witness graph names its line in its
// tooltip, as the CLI's Graphviz drawing of the same execution does, and
// is linked to the step that made it (the NIC's writes too, whose steps
// F1 and F2 name them "nrW(z,2) visible"); a read and a write of the NIC
// (nlR, nrW), clicked, select their statement in the editor and take the
// step view to the step that made them, and Enter on a focused event does
// the same.
func (b *browser) graphEvents(file string) {
	b.t.Helper()
	var cli struct{ DOT []string }
	b.cli(&cli, "graph", "--json", file)
	if len(cli.DOT) == 0 {
		b.t.Fatalf("rdmasim graph %s drew nothing", file)
	}
	want := map[string]string{}
	for _, m := range tooltipRE.FindAllStringSubmatch(cli.DOT[0], -1) {
		want[m[1]] = m[2]
	}
	if len(want) == 0 {
		b.t.Fatalf("the CLI's drawing has no tooltip:\n%s", cli.DOT[0])
	}
	b.pick("litmus/" + filepath.Base(file))
	b.runCommand("check")
	b.do(chromedp.Click(chromedp.CSS(`#tabs button[data-tab="graph"]`)))
	var events []struct{ Label, Title, Line, Step, Role string }
	b.eval(`[...document.querySelectorAll("#graph .g-event:not(.init)")].map(g => ({Label: g.querySelector("text").textContent,
		Title: g.querySelector("title")?.textContent || "", Line: g.dataset.line || "", Step: g.dataset.step || "", Role: g.getAttribute("role") || ""}))`, &events)
	got := map[string]string{}
	var targets []int // a read the NIC makes (nlR) and a write it makes (nrW)
	for i, e := range events {
		got[e.Label] = strings.TrimSuffix(e.Title, fmt.Sprintf(" (made by step %s)", e.Step))
		if e.Role != "button" {
			b.t.Errorf("event %s is not a button (role %q)", e.Label, e.Role)
		}
		// The execution drawn is the witness's: each event is linked to
		// the step that made it, the NIC's writes (F1, F2) too.
		if e.Step == "" {
			b.t.Errorf("event %s is linked to no step", e.Label)
		}
		if (strings.HasPrefix(e.Label, "nlR(") || strings.HasPrefix(e.Label, "nrW(")) && e.Step != "" {
			targets = append(targets, i)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		b.t.Errorf("the page's events and their sources %v, the CLI's %v", got, want)
	}
	if len(targets) != 2 {
		b.t.Fatalf("want an nlR and an nrW event linked to their steps: %+v", events)
	}
	for _, target := range targets {
		e := events[target]
		check := func(how string) {
			var sel struct{ Text, Frame, What string }
			b.eval(`({Text: editor.value.slice(editor.selectionStart, editor.selectionEnd), Frame: document.getElementById("step-pos").dataset.frame,
			What: document.getElementById("step-what").textContent})`, &sel)
			line, _ := strconv.Atoi(e.Line)
			src, _ := os.ReadFile(file)
			lines := strings.Split(string(src), "\n")
			if line < 1 || line > len(lines) || sel.Text != strings.TrimSpace(lines[line-1]) {
				b.t.Errorf("%s %s: the editor selects %q, want line %s", how, e.Label, sel.Text, e.Line)
			}
			if sel.Frame != e.Step || !strings.Contains(sel.What, e.Label) {
				b.t.Errorf("%s %s: the step view at frame %s (%q), want step %s, which makes it", how, e.Label, sel.Frame, sel.What, e.Step)
			}
		}
		sel := fmt.Sprintf(`document.querySelectorAll("#graph .g-event:not(.init)")[%d]`, target)
		b.eval(`(editor.setSelectionRange(0, 0), document.getElementById("step-first").click(), true)`, nil)
		b.eval(sel+`.dispatchEvent(new MouseEvent("click", {bubbles: true})) || true`, nil)
		check("clicked")
		b.shot("graph-event-clicked-" + strings.ToLower(e.Label[:3]))
		b.eval(`(editor.setSelectionRange(0, 0), document.getElementById("step-first").click(), true)`, nil)
		b.eval(`(`+sel+`.focus(), document.activeElement.dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", bubbles: true})), true)`, nil)
		check("Enter on")
	}
}

// outcomeGraph checks that any outcome can be drawn and stepped through
// (issue 31, item 2), with GET-RFENCE-GET-MP, whose condition is forbidden (so that
// check has no witness nor graph): the graph tab offers its outcomes; the
// one chosen there is drawn, its run shown, ending in it; a row of the
// outcomes table clicked does the same.
func (b *browser) outcomeGraph(file string) {
	b.t.Helper()
	var cli check.JSON
	b.cli(&cli, "check", "--json", "--all-outcomes", file)
	if cli.RDMA.Allowed == nil || *cli.RDMA.Allowed || len(cli.RDMA.Outcomes) < 2 {
		b.t.Fatalf("%s: want a forbidden condition and two outcomes or more: %+v", file, cli.RDMA)
	}
	b.pick("litmus/" + filepath.Base(file))
	b.runCommand("check")
	b.do(chromedp.Click(chromedp.CSS(`#tabs button[data-tab="graph"]`)))
	var before int
	b.eval(`document.querySelectorAll("#graph svg").length`, &before)
	if before != 0 {
		b.t.Fatalf("%s: a graph is drawn although the condition is forbidden", file)
	}
	var options []string
	b.eval(`[...document.querySelectorAll("#graph-outcome option")].filter(o => o.value !== "").map(o => o.textContent)`, &options)
	if len(options) != len(cli.RDMA.Outcomes) {
		b.t.Errorf("the graph tab offers %d outcomes %v, the CLI lists %d under RDMA", len(options), options, len(cli.RDMA.Outcomes))
	}
	// The last frame's memory of the run shown, and the events drawn.
	ends := func(how string, want map[string]string) {
		b.wait(`document.getElementById("status").dataset.state === "done" && document.getElementById("status").textContent.startsWith("outcome")`, 60*time.Second)
		var events int
		b.eval(`document.querySelectorAll("#graph svg .g-event").length`, &events)
		if events == 0 {
			b.t.Errorf("%s: no graph drawn", how)
		}
		// The drawing names the outcome it is of.
		var title string
		b.eval(`document.querySelector("#graph svg .g-title")?.textContent ?? ""`, &title)
		for loc, v := range want {
			if !strings.Contains(title, loc+" = "+v) {
				b.t.Errorf("%s: the graph's title %q does not name %s = %s", how, title, loc, v)
			}
		}
		b.eval(`document.getElementById("step-last").click() || true`, nil)
		var mem map[string]string
		b.eval(`Object.fromEntries([...document.querySelectorAll("#memory td[data-loc]")].map(td => [td.dataset.loc, td.textContent]))`, &mem)
		for loc, v := range want {
			if mem[loc] != v {
				b.t.Errorf("%s: the run shown ends with %s = %s, want the outcome's %s", how, loc, mem[loc], v)
			}
		}
	}
	var picked map[string]string
	b.eval(`(() => { const s = document.getElementById("graph-outcome"); s.value = "1"; s.dispatchEvent(new Event("change")); return Object.fromEntries(Object.entries(state.outcomes[1].values).map(([k, v]) => [k, String(v)])) })()`, &picked)
	ends("the graph tab's outcome 2", picked)
	b.shot("outcome-graph")
	b.do(chromedp.Click(chromedp.CSS(`#tabs button[data-tab="report"]`)))
	var row map[string]string
	b.eval(`(() => { const r = document.querySelectorAll("#outcomes tr[role=button]")[0]; r.click(); return Object.fromEntries(Object.entries(state.outcomes[0].values).map(([k, v]) => [k, String(v)])) })()`, &row)
	ends("the outcomes table's row 1", row)
	var chosen int
	b.eval(`document.querySelectorAll("#outcomes tr.chosen").length`, &chosen)
	if chosen != 1 {
		b.t.Errorf("%d rows marked as the outcome shown, want 1", chosen)
	}
}

// condStep checks the step view's marks (issue 31, item 4) on paper-5.1's
// witness: a button takes it to the step where z = 2 becomes true for
// good (z is 2 there, not one step before), and each NIC step lights up
// the put or get it serves (the get y := w on line 8, the put z := x on
// line 9).
func (b *browser) condStep(path string) {
	b.t.Helper()
	b.pick(path)
	b.runCommand("check")
	b.do(chromedp.Click(chromedp.CSS(`#tabs button[data-tab="steps"]`)))
	var hidden bool
	b.eval(`document.getElementById("step-cond").hidden`, &hidden)
	if hidden {
		b.t.Fatal("no button to the step that settles the condition")
	}
	b.click("step-cond")
	var at struct {
		Frame, Z, Mark string
		Marked         bool
	}
	b.eval(`({Frame: document.getElementById("step-pos").dataset.frame, Z: document.querySelector('#memory td[data-loc="z"]').textContent,
		Mark: document.getElementById("step-what").textContent, Marked: document.getElementById("step-what").classList.contains("cond-step")})`, &at)
	if at.Z != "2" || !at.Marked || !strings.Contains(at.Mark, "becomes true") {
		b.t.Errorf("at the condition's step (frame %s) z = %s, marked %v (%q)", at.Frame, at.Z, at.Marked, at.Mark)
	}
	b.shot("cond-step")
	b.click("step-prev")
	var z string
	b.eval(`document.querySelector('#memory td[data-loc="z"]').textContent`, &z)
	if z == "2" {
		b.t.Errorf("z is 2 already one step before the step marked (%s)", at.Frame)
	}
	var last int
	b.eval(`Number(document.getElementById("step-pos").dataset.last)`, &last)
	b.click("step-first")
	nic := 0
	for i := 1; i <= last; i++ {
		b.click("step-next")
		var f struct{ Rule, Served, Stepped string }
		b.eval(`({Rule: document.getElementById("step-what").dataset.rule,
			Served: [...document.querySelectorAll("#step-source .served")].map(e => e.dataset.line).join(","),
			Stepped: [...document.querySelectorAll("#step-source .stepped")].map(e => e.dataset.line).join(",")})`, &f)
		if f.Rule == "step" {
			if f.Served != "" || f.Stepped == "" {
				b.t.Errorf("CPU step %d: lines stepped %q, served %q", i, f.Stepped, f.Served)
			}
			continue
		}
		nic++
		want := map[string]string{"N1": "9", "N4": "9", "N7": "9", "F1": "9", "N2": "8", "N5": "8", "N6": "8", "N8": "8", "F2": "8"}[f.Rule]
		if f.Served != want {
			b.t.Errorf("NIC step %d (%s): line lit %q, want %s", i, f.Rule, f.Served, want)
		}
		if i == 4 {
			b.shot("nic-step-served")
		}
	}
	if nic == 0 {
		b.t.Error("no NIC step in paper-5.1's witness")
	}
}

// repair checks the Repair button (issue 31, item 3) against the CLI's
// repair --json: the insertions listed with their lines, apply puts the
// repaired text in the editor with the inserted lines marked, and both
// undo and the browser's own undo (Ctrl+Z) bring the text back.
func (b *browser) repair(file string) {
	b.t.Helper()
	var cli struct {
		Insertions []struct {
			AfterLine int    `json:"after_line"`
			Stmt      string `json:"stmt"`
		} `json:"insertions"`
		Repaired string `json:"repaired"`
		Cost     int    `json:"cost"`
	}
	b.cli(&cli, "repair", "--json", file)
	if len(cli.Insertions) == 0 || cli.Repaired == "" {
		b.t.Fatalf("the CLI repairs nothing in %s", file)
	}
	b.pick("litmus/" + filepath.Base(file))
	var original string
	b.eval(`editor.value`, &original)
	b.runCommand("repair")
	var head string
	b.eval(`document.querySelector("#repair h3").textContent`, &head)
	if !strings.Contains(head, fmt.Sprintf("cost %d,", cli.Cost)) {
		b.t.Errorf("the repair reads %q, the CLI's cost is %d", head, cli.Cost)
	}
	var items []struct{ Line, Text string }
	b.eval(`[...document.querySelectorAll("#repair li")].map(li => ({Line: li.dataset.line, Text: li.textContent}))`, &items)
	if len(items) != len(cli.Insertions) {
		b.t.Fatalf("the page lists %d insertions %v, the CLI %d", len(items), items, len(cli.Insertions))
	}
	for i, in := range cli.Insertions {
		if items[i].Line != strconv.Itoa(in.AfterLine) || !strings.Contains(items[i].Text, in.Stmt) {
			b.t.Errorf("insertion %d: the page shows %+v, the CLI line %d %q", i, items[i], in.AfterLine, in.Stmt)
		}
	}
	b.click("repair-apply")
	var text string
	var marked int
	b.eval(`editor.value`, &text)
	b.eval(`document.querySelectorAll("#backdrop .inserted").length`, &marked)
	if text != cli.Repaired {
		b.t.Errorf("after apply the editor holds\n%s\nthe CLI's repaired text is\n%s", text, cli.Repaired)
	}
	if marked < len(cli.Insertions) {
		b.t.Errorf("%d lines marked as inserted, want at least %d", marked, len(cli.Insertions))
	}
	b.shot("repair-applied")
	b.click("repair-undo")
	b.eval(`editor.value`, &text)
	if text != original {
		b.t.Errorf("after undo the editor holds\n%s\nwant the original\n%s", text, original)
	}
	b.click("repair-apply")
	b.eval(`(editor.focus(), document.execCommand("undo"), editor.value)`, &text)
	if text != original {
		b.t.Errorf("after the browser's undo the editor holds\n%s\nwant the original", text)
	}
}

// repairStop checks that a repair stops as other runs do: path's repair
// (a robust program whose decision takes seconds) is running, stop ends it
// and the page is ready again.
func (b *browser) repairStop(path string) {
	b.t.Helper()
	b.pick(path)
	b.click("run-repair")
	b.wait(`document.getElementById("status").dataset.state === "running"`, 10*time.Second)
	time.Sleep(time.Second)
	b.click("stop")
	b.wait(`["stopped", "restarted"].includes(document.getElementById("status").dataset.state)`, 30*time.Second)
	b.wait(`!document.getElementById("run-check").disabled`, 60*time.Second)
}

// narrow checks the views issue 31's last items added at 400 px wide: the
// outcomes table, the repair's insertions and its buttons, the graph tab's
// list of outcomes and the step view's condition button fit the page's
// width (the graph itself scrolls in its tab), with screenshots.
func (b *browser) narrow(path string) {
	b.t.Helper()
	b.do(chromedp.EmulateViewport(400, 900))
	defer b.do(chromedp.EmulateViewport(1400, 1000))
	b.pick(path)
	fits := func(what string, ids ...string) {
		for _, id := range ids {
			var r struct{ Right, Width float64 }
			b.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); const r = e ? e.getBoundingClientRect() : {right: 0}; return {Right: r.right, Width: document.documentElement.clientWidth} })()`, id), &r)
			if r.Right > r.Width+1 {
				b.t.Errorf("%s at 400 px: %s ends at %.0f px, past the page's %.0f", what, id, r.Right, r.Width)
			}
		}
	}
	b.runCommand("check")
	fits("report", "#outcomes table", "#verdicts")
	b.shot("narrow-outcomes")
	b.do(chromedp.Click(chromedp.CSS(`#tabs button[data-tab="graph"]`)))
	fits("graph tab", "#graph-outcome", "#graph-pick")
	b.do(chromedp.Click(chromedp.CSS(`#tabs button[data-tab="steps"]`)))
	fits("step view", "#step-cond", "#step-last")
	b.shot("narrow-steps")
	b.runCommand("repair")
	fits("repair", "#repair", "#repair-apply", "#repair-undo")
	b.shot("narrow-repair")
}

// click clicks the button id once it is shown and enabled (within 10 s,
// else the test fails with the page's status and report): chromedp's
// Click would wait for ever for a button that never comes.
func (b *browser) click(id string) {
	b.t.Helper()
	ready := fmt.Sprintf(`(() => { const e = document.getElementById(%q); return !!e && !e.disabled && !e.hidden && !!e.offsetParent })()`, id)
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](ready, chromedp.WithPollingTimeout(10*time.Second), chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		var page string
		b.eval(`document.getElementById("status").textContent + "\n" + document.getElementById("report").textContent`, &page)
		b.t.Fatalf("no button #%s to click: %v\n%s", id, err, page)
	}
	b.eval(fmt.Sprintf(`document.getElementById(%q).click() || true`, id), nil)
}

// outcomes checks the side-by-side table of check's final outcomes against
// the CLI's: every RDMA and SC outcome listed once, those only RDMA reaches
// marked.
func (b *browser) outcomes(file string) {
	b.t.Helper()
	var cli struct {
		RDMA struct{ Outcomes []map[string]int } `json:"rdma"`
		SC   struct{ Outcomes []map[string]int } `json:"sc"`
	}
	b.cli(&cli, "check", "--json", "--all-outcomes", file)
	key := func(o map[string]int) string {
		var parts []string
		for k, v := range o {
			parts = append(parts, fmt.Sprintf("%s=%d", k, v))
		}
		sort.Strings(parts)
		return strings.Join(parts, " ")
	}
	want := map[string]string{}
	for _, o := range cli.RDMA.Outcomes {
		want[key(o)] = "rdma"
	}
	for _, o := range cli.SC.Outcomes {
		if want[key(o)] == "rdma" {
			want[key(o)] = "both"
		} else {
			want[key(o)] = "sc"
		}
	}
	b.pick("litmus/" + filepath.Base(file))
	b.runCommand("check")
	var rows []struct {
		Cells   map[string]string
		RDMA    bool
		SC      bool
		Special bool
	}
	b.eval(`(() => {
		const t = document.querySelector("#outcomes table");
		if (!t) return [];
		const head = [...t.rows[0].cells].map(c => c.textContent);
		return [...t.rows].slice(1).map(r => {
			const c = [...r.cells].map(x => x.textContent);
			const cells = {};
			head.slice(0, -2).forEach((h, i) => { if (c[i] !== "") cells[h] = c[i]; });
			return {Cells: cells, RDMA: c[c.length - 2].startsWith("✓"), SC: c[c.length - 1] === "✓", Special: r.classList.contains("rdma-only")};
		});
	})()`, &rows)
	got := map[string]string{}
	for _, r := range rows {
		o := map[string]int{}
		for k, v := range r.Cells {
			var n int
			fmt.Sscan(v, &n)
			o[k] = n
		}
		side := map[[2]bool]string{{true, false}: "rdma", {false, true}: "sc", {true, true}: "both"}[[2]bool{r.RDMA, r.SC}]
		got[key(o)] = side
		if r.Special != (side == "rdma") {
			b.t.Errorf("outcome %s: marked RDMA-only %v, reached by %s", key(o), r.Special, side)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		b.t.Errorf("outcomes shown %v, the CLI's %v", got, want)
	}
	if !strings.Contains(fmt.Sprint(want), "rdma") {
		b.t.Errorf("%s has no RDMA-only outcome: choose a file that has one", file)
	}
	b.shot("outcomes")
}

// accessibility checks what issue 31 asked of the page for keyboards and
// screen readers, of its step view, and of its weight: the status is
// announced, the result tabs are a tablist the arrow keys move through,
// Ctrl+Enter checks the program, the line numbers have a contrast of at
// least 4.5:1, the list of examples opens on the litmus tests, the
// queue-pair table fits its column and its terms are explained, and the
// WebAssembly came gzipped.
func (b *browser) accessibility() {
	b.t.Helper()
	var status []string
	b.eval(`(() => { const s = document.getElementById("status"); return [s.getAttribute("role"), s.getAttribute("aria-live")] })()`, &status)
	if len(status) != 2 || status[0] != "status" || status[1] != "polite" {
		b.t.Errorf("status role and aria-live: %v", status)
	}
	selected := func() string {
		var v string
		b.eval(`[...document.querySelectorAll("#tabs [role=tab]")].filter(e => e.getAttribute("aria-selected") === "true").map(e => e.dataset.tab).join(",")`, &v)
		return v
	}
	var roles []string
	b.eval(`[document.getElementById("tabs").getAttribute("role"), ...[...document.querySelectorAll(".tab")].map(e => e.getAttribute("role"))]`, &roles)
	if strings.Join(roles, ",") != "tablist,tabpanel,tabpanel,tabpanel,tabpanel" {
		b.t.Errorf("roles of the tab list and panels: %v", roles)
	}
	b.do(chromedp.Click(chromedp.CSS(`#tabs button[data-tab="json"]`)))
	if got := selected(); got != "json" {
		b.t.Errorf("after clicking JSON, selected tabs %q", got)
	}
	key := func(k string) {
		b.eval(fmt.Sprintf(`document.activeElement.dispatchEvent(new KeyboardEvent("keydown", {key: %q, bubbles: true})) || true`, k), nil)
	}
	b.eval(`document.getElementById("tabbtn-json").focus() || true`, nil)
	key("ArrowLeft")
	if got := selected(); got != "steps" {
		b.t.Errorf("ArrowLeft from JSON selected %q, want steps", got)
	}
	key("Home")
	if got := selected(); got != "report" {
		b.t.Errorf("Home selected %q, want report", got)
	}
	var focused string
	b.eval(`document.activeElement.id`, &focused)
	if focused != "tabbtn-report" {
		b.t.Errorf("focus on %q after Home, want the Report tab", focused)
	}

	b.pick("litmus/PUT-LW.rdma")
	b.eval(`(() => { const e = document.getElementById("editor"); e.focus(); e.dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", ctrlKey: true, bubbles: true})); return true })()`, nil)
	b.wait(`document.getElementById("status").dataset.state === "done"`, 60*time.Second)
	if v := b.shown(); v["rdma"] == "" || v["sc"] == "" {
		b.t.Errorf("Ctrl+Enter in the editor: verdicts %v, want check's", v)
	}

	var ratio float64
	b.eval(`(() => {
		const lum = (c) => { const [r, g, b] = c.match(/\d+/g).slice(0, 3).map(Number).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4 }); return 0.2126 * r + 0.7152 * g + 0.0722 * b };
		const st = getComputedStyle(document.getElementById("gutter"));
		const a = lum(st.color), b = lum(st.backgroundColor);
		return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
	})()`, &ratio)
	if ratio < 4.5 {
		b.t.Errorf("line numbers at a contrast of %.2f:1, want at least 4.5:1", ratio)
	}
	var first string
	b.eval(`document.querySelector("#examples optgroup").label`, &first)
	if first != "corpus/litmus" {
		b.t.Errorf("the examples open on %q, want corpus/litmus", first)
	}
	// The step view: its queue-pair table fits its column at 1400 px, its
	// headers and the NIC rules explained on hover and in the glossary.
	b.pick("litmus/paper-5.1.rdma")
	b.runCommand("check")
	b.do(chromedp.Click(chromedp.CSS(`#tabs button[data-tab="steps"]`)))
	var last int
	b.eval(`Number(document.getElementById("step-pos").dataset.last)`, &last)
	explained := ""
	for i := 1; i <= last && explained == ""; i++ {
		b.do(chromedp.Click(chromedp.ID("step-next")))
		b.wait(fmt.Sprintf(`document.getElementById("step-pos").dataset.frame === "%d"`, i), 5*time.Second)
		b.eval(`document.getElementById("step-what").title`, &explained)
	}
	if explained == "" {
		b.t.Error("no NIC step of paper-5.1's witness has its rule explained on hover")
	}
	var fits bool
	b.eval(`(() => { const q = document.querySelector("#queues table"); return !!q && q.getBoundingClientRect().right <= document.getElementById("queues").getBoundingClientRect().right + 1 })()`, &fits)
	if !fits {
		b.t.Error("the queue-pair table overflows its column at 1400 px")
	}
	var titled []string
	b.eval(`[...document.querySelectorAll("#queues th[title]")].map(e => e.textContent)`, &titled)
	if strings.Join(titled, " ") != "B1 B2 B3 RW LW unpolled" {
		b.t.Errorf("queue-pair headers explained on hover: %v", titled)
	}
	var terms int
	b.eval(`document.querySelectorAll("#glossary dt").length`, &terms)
	if terms < 18 {
		b.t.Errorf("the glossary explains %d terms, want the 6 columns and 12 rules", terms)
	}
	b.shot("step-view-1400")

	// The execution graph of the same witness: no two relation labels
	// overlap, arrowheads have one size, the legend hides a relation.
	b.do(chromedp.Click(chromedp.CSS(`#tabs button[data-tab="graph"]`)))
	var overlaps int
	b.eval(`(() => {
		const r = [...document.querySelectorAll("#graph .g-labels text")].map(e => e.getBBox());
		let n = 0;
		for (let i = 0; i < r.length; i++) for (let j = i + 1; j < r.length; j++)
			if (r[i].x < r[j].x + r[j].width && r[j].x < r[i].x + r[i].width && r[i].y < r[j].y + r[j].height && r[j].y < r[i].y + r[i].height) n++;
		return n;
	})()`, &overlaps)
	if overlaps > 0 {
		b.t.Errorf("%d pairs of relation labels overlap in the graph", overlaps)
	}
	var units []string
	b.eval(`[...new Set([...document.querySelectorAll("#graph marker")].map(m => m.getAttribute("markerUnits")))]`, &units)
	if strings.Join(units, ",") != "userSpaceOnUse" {
		b.t.Errorf("arrowhead units %v, want userSpaceOnUse (one size whatever the edge's width)", units)
	}
	visible := func() int {
		var n int
		b.eval(`[...document.querySelectorAll('#graph .g-edges [data-rel="po"]')].filter(e => getComputedStyle(e).display !== "none").length`, &n)
		return n
	}
	before := visible()
	b.eval(`document.querySelector('#graph .g-key-item[data-rel="po"]').dispatchEvent(new MouseEvent("click", {bubbles: true})) || true`, nil)
	if after := visible(); before == 0 || after != 0 {
		b.t.Errorf("po edges shown: %d, %d after its legend entry was clicked", before, after)
	}
	b.shot("graph-po-hidden")
	b.do(chromedp.Click(chromedp.CSS(`#tabs button[data-tab="report"]`)))

	var enc string
	b.eval(`(window.wasmEncoding = undefined, fetch("rdmasim.wasm", {cache: "no-store"}).then(r => window.wasmEncoding = String(r.headers.get("content-encoding"))), true)`, nil)
	b.wait(`window.wasmEncoding !== undefined`, 30*time.Second)
	b.eval(`window.wasmEncoding`, &enc)
	if enc != "gzip" {
		b.t.Errorf("rdmasim.wasm served with Content-Encoding %q, want gzip", enc)
	}
}

// robustStop runs robust --method all on path, whose first method (the
// decider) answers in seconds and whose second (enum-machine) takes
// seconds more: while the second runs, the page must show the first's
// answer and which method runs; stopped then, it must keep that answer.
func (b *browser) robustStop(path string) {
	b.t.Helper()
	b.setMethod("all")
	defer b.setMethod("auto")
	b.pick(path)
	b.do(chromedp.Click(chromedp.ID("run-robust")))
	b.wait(`!!document.querySelector('#verdicts .verdict[data-name="decide"][data-value="yes"]') && !!document.querySelector('#verdicts .verdict.running')`, 60*time.Second)
	var running string
	b.eval(`document.querySelector('#verdicts .verdict.running').textContent + " | " + document.getElementById("status").textContent`, &running)
	// A method that answered is never shown running beside its answer
	// (the progress line that says it answered still names it).
	var twice bool
	b.eval(`(() => { const n = [...document.querySelectorAll('#verdicts .verdict')].map((e) => e.dataset.name); return new Set(n).size !== n.length; })()`, &twice)
	if twice {
		b.t.Errorf("a method has two chips (its answer and running): %q", running)
	}
	if !strings.Contains(running, "enum-machine") || !strings.Contains(running, "(2 of 3)") {
		b.t.Errorf("while the second method runs the page shows %q, want enum-machine (2 of 3)", running)
	}
	b.shot("robust-running")
	b.do(chromedp.Click(chromedp.ID("stop")))
	b.wait(`["stopped", "restarted", "done"].includes(document.getElementById("status").dataset.state)`, 30*time.Second)
	if v := b.shown()["decide"]; v != "yes" {
		b.t.Errorf("after the stop the page shows decide %q, want its answer yes kept", v)
	}
	b.shot("robust-stopped")
}

// findChromium returns the path of a Chromium, or "".
func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// startServe runs rdmasim serve on a free loopback port, in-process, and
// returns its address and a func that stops it and checks how it ended.
func startServe(t *testing.T) (string, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := run(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, pw, &stderr)
		pw.Close()
		done <- code
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("rdmasim serve printed no address: %v\n%s", err, stderr.String())
	}
	m := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("rdmasim serve printed %q, want its loopback address", line)
	}
	go io.Copy(io.Discard, pr)
	return m[1], func() {
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("rdmasim serve exited %d: %s", code, stderr.String())
		}
	}
}

// browser is the page in a tab.
type browser struct {
	t         *testing.T
	ctx       context.Context
	artifacts string
}

func (b *browser) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression into v.
func (b *browser) eval(expr string, v any) {
	b.t.Helper()
	raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[json.RawMessage](expr))
	if err != nil {
		b.t.Fatalf("%s: %v", expr, err)
	}
	if v != nil {
		if err := json.Unmarshal(raw, v); err != nil {
			b.t.Fatalf("%s: %v", expr, err)
		}
	}
}

// wait waits until the expression is true.
func (b *browser) wait(expr string, timeout time.Duration) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		var status string
		b.eval(`document.getElementById("status").textContent`, &status)
		b.t.Fatalf("waiting for %s: %v (status: %s)", expr, err, status)
	}
}

// shot saves a screenshot of the page as NAME.png.
func (b *browser) shot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err == nil {
		err = os.WriteFile(filepath.Join(b.artifacts, name+".png"), png, 0o644)
	}
	if err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
	}
}

// pick selects an example, as a user does, and waits until it is loaded.
func (b *browser) pick(path string) {
	b.t.Helper()
	b.eval(fmt.Sprintf(`(() => { const s = document.getElementById("examples"); s.value = %q; s.dispatchEvent(new Event("change")); return true })()`, path), nil)
	b.wait(fmt.Sprintf(`location.hash === "#example=" + encodeURIComponent(%q)`, path), 10*time.Second)
}

// runCommand clicks a command's button and waits for its answer (a page
// without the button fails the test, rather than hang it).
func (b *browser) runCommand(command string) {
	b.t.Helper()
	b.click("run-" + command)
	b.wait(`document.getElementById("status").dataset.state === "done"`, 60*time.Second)
}

// shown returns the verdicts the page shows, by name.
func (b *browser) shown() map[string]string {
	b.t.Helper()
	var v map[string]string
	b.eval(`Object.fromEntries([...document.querySelectorAll("#verdicts .verdict")].map(e => [e.dataset.name, e.dataset.value]))`, &v)
	return v
}

// shownJSON decodes the JSON the page shows.
func (b *browser) shownJSON(v any) {
	b.t.Helper()
	var text string
	b.eval(`document.getElementById("json").textContent`, &text)
	if err := json.Unmarshal([]byte(text), v); err != nil {
		b.t.Fatalf("the page's JSON: %v\n%s", err, text)
	}
}

// cli runs rdmasim in-process and decodes its --json line into v.
func (b *browser) cli(v any, args ...string) {
	b.t.Helper()
	var stdout, stderr bytes.Buffer
	run(context.Background(), args, &stdout, &stderr)
	if err := json.Unmarshal(stdout.Bytes(), v); err != nil {
		b.t.Fatalf("rdmasim %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
}

// compareCheck runs check on the picked example and compares the verdicts
// shown, and the JSON shown, with the CLI's.
func (b *browser) compareCheck(file string) {
	b.t.Helper()
	var want, got check.JSON
	b.cli(&want, "check", "--json", "--all-outcomes", file)
	b.runCommand("check")
	shown := b.shown()
	b.shownJSON(&got)
	for _, s := range []struct {
		name      string
		want, got *check.SemanticsJSON
	}{{"rdma", want.RDMA, got.RDMA}, {"sc", want.SC, got.SC}} {
		if w := play.Word(s.want.Allowed, "allowed", "forbidden"); shown[s.name] != w {
			b.t.Errorf("%s: the page shows %s %s, the CLI says %s", file, s.name, shown[s.name], w)
		}
		if fmt.Sprint(s.got.Outcomes) != fmt.Sprint(s.want.Outcomes) || s.got.States != s.want.States ||
			s.got.Coverage != s.want.Coverage || s.got.Positive != s.want.Positive || s.got.Negative != s.want.Negative {
			b.t.Errorf("%s: %s: the page's JSON %+v, the CLI's %+v", file, s.name, *s.got, *s.want)
		}
	}
	for _, x := range want.Expect {
		if got := shown["expect "+x.Sem]; got != string(x.Status) {
			b.t.Errorf("%s: the page shows expect %s %s, the CLI says %s", file, x.Sem, got, x.Status)
		}
	}
}

// compareRobust runs robust (every method) on the picked example and
// compares the verdicts shown with the CLI's robust --method all.
func (b *browser) compareRobust(file string) {
	b.t.Helper()
	var want, got robust.AllJSON
	b.cli(&want, "robust", "--json", "--method", "all", file)
	b.runCommand("robust")
	shown := b.shown()
	b.shownJSON(&got)
	if w := play.Word(want.Robust, "yes", "no"); shown["robust"] != w {
		b.t.Errorf("%s: the page shows robust %s, the CLI says %s", file, shown["robust"], w)
	}
	var chip string
	b.eval(`document.querySelector('#verdicts .verdict[data-name="robust"]').textContent`, &chip)
	if !robustChip.MatchString(chip) {
		b.t.Errorf("%s: the robust chip reads %q, want %s", file, chip, robustChip)
	}
	if len(got.Methods) != len(want.Methods) {
		b.t.Fatalf("%s: the page ran %d methods, the CLI %d", file, len(got.Methods), len(want.Methods))
	}
	for i, m := range want.Methods {
		g := got.Methods[i]
		if w := play.Word(m.Robust, "yes", "no"); shown[string(m.Method)] != w || g.Method != m.Method || play.Word(g.Robust, "yes", "no") != w || g.Coverage != m.Coverage {
			b.t.Errorf("%s: %s: the page shows %s (JSON %s, %s), the CLI says %s (%s)", file, m.Method, shown[string(m.Method)], play.Word(g.Robust, "yes", "no"), g.Coverage, w, m.Coverage)
		}
	}
}

// robustChip is how the headline of robust --method all reads: the
// answer, then how the methods agree in parentheses (never "no methods
// agree").
var robustChip = regexp.MustCompile(`^robust: (yes|no|unknown) \((all methods agree|\d of \d methods certain, they agree|no method certain|the methods disagree)\)$`)

// setMethod sets robust's --method in the page's options.
func (b *browser) setMethod(m string) {
	b.t.Helper()
	b.eval(fmt.Sprintf(`document.getElementById("opt-method").value = %q`, m), nil)
}

// robustDefault checks that the page's robust runs method auto, the CLI's
// default: the option shows auto, and the JSON shown is that of the CLI's
// robust --json without --method.
func (b *browser) robustDefault(file string) {
	b.t.Helper()
	var method string
	b.eval(`document.getElementById("opt-method").value`, &method)
	if method != "auto" {
		b.t.Errorf("the page's robust --method is %q by default, the CLI's auto", method)
	}
	var want, got robust.JSON
	b.cli(&want, "robust", "--json", file)
	b.pick("litmus/" + filepath.Base(file))
	b.runCommand("robust")
	b.shownJSON(&got)
	if got.Method != want.Method || play.Word(got.Robust, "yes", "no") != play.Word(want.Robust, "yes", "no") || got.Coverage != want.Coverage {
		b.t.Errorf("%s: the page's robust answers %s %s (%s), the CLI's %s %s (%s)", file, got.Method, play.Word(got.Robust, "yes", "no"), got.Coverage,
			want.Method, play.Word(want.Robust, "yes", "no"), want.Coverage)
	}
}

// stepThrough checks paper-5.1 in the page, steps its RDMA witness forward
// to its end, then once back and forward, and compares the memory shown
// with the final memory of the CLI's witness (its initial memory with each
// step's changes applied), and the buffers shown along the way with those
// the CLI's run fills.
func (b *browser) stepThrough(file string) {
	b.t.Helper()
	var want check.JSON
	b.cli(&want, "check", "--json", "--all-outcomes", file)
	w := want.RDMA.Witness
	if w == nil {
		b.t.Fatalf("%s: the CLI finds no RDMA witness", file)
	}
	memory := initialMemory(b.t, w)
	filled := map[string]bool{} // buffers the run makes non-empty
	for _, s := range w.Steps {
		for _, c := range s.Memory {
			memory[c.Loc] = strconv.Itoa(int(c.To))
		}
		for _, c := range s.Buffers {
			if c.Entries != "[]" {
				filled[c.Buf] = true
			}
		}
	}
	b.pick("litmus/" + filepath.Base(file))
	b.runCommand("check")
	b.do(chromedp.Click(chromedp.CSS(`#tabs button[data-tab="steps"]`)))
	var last int
	b.eval(`Number(document.getElementById("step-pos").dataset.last)`, &last)
	if last != len(w.Steps) {
		b.t.Fatalf("the page's witness has %d steps, the CLI's %d", last, len(w.Steps))
	}
	seen := map[string]bool{}
	for i := 1; i <= last; i++ {
		b.do(chromedp.Click(chromedp.ID("step-next")))
		b.wait(fmt.Sprintf(`document.getElementById("step-pos").dataset.frame === "%d"`, i), 5*time.Second)
		var bufs []string
		b.eval(`[...document.querySelectorAll("#queues td[data-buf]")].filter(td => td.textContent !== "").map(td => td.dataset.buf)`, &bufs)
		for _, x := range bufs {
			seen[x] = true
		}
		if i == 3 {
			b.shot("step-through-3")
		}
	}
	for buf := range filled {
		if !seen[buf] {
			b.t.Errorf("the step-through never showed %s non-empty; the CLI's run fills it", buf)
		}
	}
	b.do(chromedp.Click(chromedp.ID("step-prev")), chromedp.Click(chromedp.ID("step-next")))
	var got map[string]string
	b.eval(`Object.fromEntries([...document.querySelectorAll("#memory td[data-loc]")].map(td => [td.dataset.loc, td.textContent]))`, &got)
	for loc, v := range memory {
		if got[loc] != v && got[loc] != "_" {
			b.t.Errorf("at the end of the witness the page shows %s = %s, the CLI's run ends with %s", loc, got[loc], v)
		}
	}
	var ended bool
	b.eval(`[...document.querySelectorAll("#threads .thread")].every(e => e.textContent.endsWith(": end"))`, &ended)
	if !ended {
		b.t.Error("at the end of the witness some thread is not shown at its end")
	}
	b.shot("step-through-end")
	b.do(chromedp.Click(chromedp.CSS(`#tabs button[data-tab="graph"]`)))
	var events int
	b.eval(`document.querySelectorAll("#graph svg .g-event").length`, &events)
	if events == 0 {
		b.t.Error("no execution graph drawn for paper-5.1's witness")
	}
	b.shot("graph")
}

// initialMemory reads the memory of a run's initial configuration from its
// lines ("n1 { x=1 y=0 }").
func initialMemory(t *testing.T, w *report.Run) map[string]string {
	mem := map[string]string{}
	re := regexp.MustCompile(`(\w+)=(\d+|_)`)
	for _, line := range w.Initial {
		if !strings.Contains(line, "{") {
			continue
		}
		for _, m := range re.FindAllStringSubmatch(line, -1) {
			mem[m[1]] = m[2]
		}
	}
	if len(mem) == 0 {
		t.Fatalf("no memory in the initial configuration %q", w.Initial)
	}
	return mem
}

// own opens the user's own program (the examples' "(your program)") and
// types src into the editor in place of what it holds.
func (b *browser) own(src string) {
	b.t.Helper()
	b.eval(`(() => { const s = document.getElementById("examples"); s.value = ""; s.dispatchEvent(new Event("change")); return true })()`, nil)
	b.eval(`(() => { const e = document.getElementById("editor"); e.value = ""; e.focus(); return true })()`, nil)
	b.do(chromedp.SendKeys(chromedp.ID("editor"), src))
	b.wait(fmt.Sprintf(`document.getElementById("editor").value === %q`, src), 10*time.Second)
}

// threadsOnTheirLines is true when every thread the step-through shows
// at a statement ("T0: at x := 2 (line 5, col 3)") is marked (◀) on a
// source line holding that statement.
const threadsOnTheirLines = `[...document.querySelectorAll("#threads .thread")].every(e => {
	const m = e.textContent.match(/^\S+: (?:at|inside) (.*?) \(line (\d+), col \d+\)/);
	if (!m) return true;
	const line = document.querySelectorAll("#step-source > div")[Number(m[2]) - 1];
	return !!line && line.classList.contains("at") && line.textContent.includes(m[1]);
})`

// staleShown is true when the page marks its answer stale: the banner
// shown, the answer's views dimmed.
const staleShown = `(() => { const e = document.getElementById("stale"); return !!e && !e.hidden && document.getElementById("right").classList.contains("stale") })()`

// stale checks an example, then adds two comment lines above its program:
// the answer must be marked stale (the banner, the verdicts dimmed), its
// step-through must still mark each thread on its statement at every
// frame, and a new check must clear the mark; reset to example then drops
// the edit.
func (b *browser) stale(path string) {
	b.t.Helper()
	b.pick(path)
	b.runCommand("check")
	var stale bool
	b.eval(staleShown, &stale)
	if stale {
		b.t.Fatal("a fresh answer is marked stale")
	}
	b.eval(`(() => { const e = document.getElementById("editor"); e.focus(); e.setSelectionRange(0, 0); return true })()`, nil)
	b.do(chromedp.SendKeys(chromedp.ID("editor"), "# an edit\n# another\n"))
	b.wait(`document.getElementById("editor").value.startsWith("# an edit\n# another\n")`, 10*time.Second)
	b.eval(staleShown, &stale)
	if !stale {
		b.t.Error("after an edit the answer is not marked stale")
	}
	b.do(chromedp.Click(chromedp.CSS(`#tabs button[data-tab="steps"]`)))
	var last int
	b.eval(`Number(document.getElementById("step-pos").dataset.last)`, &last)
	if last == 0 {
		b.t.Fatal("no witness to step through")
	}
	for i := 0; i <= last; i++ {
		if i > 0 {
			b.do(chromedp.Click(chromedp.ID("step-next")))
			b.wait(fmt.Sprintf(`document.getElementById("step-pos").dataset.frame === "%d"`, i), 5*time.Second)
		}
		var ok bool
		b.eval(threadsOnTheirLines, &ok)
		if !ok {
			var threads []string
			b.eval(`[...document.querySelectorAll("#threads .thread, #step-source .at")].map(e => e.textContent)`, &threads)
			b.shot("stale-step-through")
			b.t.Fatalf("frame %d after the edit: a thread's marker is not on its statement: %q", i, threads)
		}
	}
	b.shot("stale")
	b.do(chromedp.Click(chromedp.CSS(`#tabs button[data-tab="report"]`)))
	b.runCommand("check")
	b.eval(staleShown, &stale)
	if stale {
		b.t.Error("the answer to the edited text is marked stale")
	}
	b.do(chromedp.Click(chromedp.ID("reset")))
	b.wait(fmt.Sprintf(`location.hash === "#example=" + encodeURIComponent(%q) && !document.getElementById("editor").value.startsWith("# an edit")`, path), 10*time.Second)
}

// syntaxError types a program with an error into the editor and checks
// that the page marks the line and column the CLI reports.
func (b *browser) syntaxError() {
	b.t.Helper()
	src := "litmus bad\nnode A { x = 1 }\nthread T0 on A {\n  x := := 2\n}\n"
	path := filepath.Join(b.t.TempDir(), "bad.rdma")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.t.Fatal(err)
	}
	var want report.FileErrorJSON
	b.cli(&want, "check", "--json", "--all-outcomes", path)
	pos := strings.TrimPrefix(want.Error.Pos, path+":")
	if pos == want.Error.Pos || pos == "" {
		b.t.Fatalf("the CLI reports no position: %+v", want)
	}
	b.own(src)
	b.wait(`document.querySelector("#backdrop .err-mark") !== null`, 10*time.Second)
	var got string
	b.eval(`(() => { const m = document.querySelector("#backdrop .err-mark"); return m.dataset.line + ":" + m.dataset.col })()`, &got)
	if got != pos {
		b.t.Errorf("the page marks %s, the CLI reports %s", got, pos)
	}
	var listed string
	b.eval(`document.querySelector("#diagnostics li").textContent`, &listed)
	if listed != pos+": "+want.Error.Message {
		b.t.Errorf("the page lists %q, the CLI reports %q", listed, pos+": "+want.Error.Message)
	}
	b.shot("syntax-error")
}

// syntaxFixed types a syntax error, then the program fixed: the error
// must go, marks and messages.
func (b *browser) syntaxFixed() {
	b.t.Helper()
	b.own("litmus fix\nnode A { x = 1 }\nthread T0 on A {\n  x := := 2\n}\n")
	b.wait(`document.querySelectorAll("#diagnostics li").length > 0`, 10*time.Second)
	b.own("litmus fix\nnode A { x = 1 }\nthread T0 on A {\n  x := 2\n}\n")
	b.wait(`document.querySelectorAll("#diagnostics li").length === 0 && document.querySelector("#backdrop .err-mark") === null`, 10*time.Second)
}

// noCondition checks a program without a condition: no verdict on rdma or
// sc, but the number of final outcomes the CLI lists ("States 1"); and a
// program whose assert makes the query (reach T0@fail): its verdicts, and
// that query named.
func (b *browser) noCondition() {
	b.t.Helper()
	b.own("litmus noq\nnode A { x = 0 }\nthread T0 on A {\n  x := 1\n}\n")
	b.runCommand("check")
	shown := b.shown()
	if _, ok := shown["rdma"]; ok || shown["sc"] != "" || shown["rdma outcomes"] != "1" || shown["sc outcomes"] != "1" {
		b.t.Errorf("a program without a condition: the page shows %v, want no rdma or sc verdict and 1 outcome under each", shown)
	}
	b.shot("no-condition")
	b.own("litmus asserts\nnode A { x = 0 }\nthread T0 on A {\n  reg a\n  a := x\n  assert(a == 1)\n}\n")
	b.runCommand("check")
	shown = b.shown()
	var query string
	b.eval(`document.getElementById("query").textContent`, &query)
	if shown["rdma"] != "allowed" || shown["sc"] != "allowed" || query != "query: reach T0@fail" {
		b.t.Errorf("a program with an assert: the page shows %v under %q, want rdma and sc allowed under query: reach T0@fail", shown, query)
	}
}

// reload edits an example, reloads the page and checks that the edit is
// still there, the example still picked; reset to example then drops it.
func (b *browser) reload(path string) {
	b.t.Helper()
	b.pick(path)
	b.eval(`(() => { const e = document.getElementById("editor"); e.focus(); e.setSelectionRange(e.value.length, e.value.length); return true })()`, nil)
	b.do(chromedp.SendKeys(chromedp.ID("editor"), "# kept across a reload\n"))
	b.wait(`location.hash.includes("program=")`, 10*time.Second)
	b.do(chromedp.Reload())
	b.wait(`document.getElementById("status").dataset.state === "idle"`, 60*time.Second)
	b.wait(`document.getElementById("editor").value !== ""`, 10*time.Second)
	var got struct {
		Text, Example string
		Reset         bool
	}
	b.eval(`({text: document.getElementById("editor").value, example: document.getElementById("examples").value, reset: !document.getElementById("reset").hidden})`, &got)
	if !strings.HasSuffix(got.Text, "# kept across a reload\n") || got.Example != path || !got.Reset {
		b.t.Fatalf("after a reload the editor holds %q (example %q, reset shown %v), want the edit of %s", got.Text, got.Example, got.Reset, path)
	}
	b.do(chromedp.Click(chromedp.ID("reset")))
	b.wait(fmt.Sprintf(`location.hash === "#example=" + encodeURIComponent(%q) && !document.getElementById("editor").value.includes("# kept")`, path), 10*time.Second)
}

// hashchange puts a share link's fragment into the open tab's address, as
// pasting a link does: the page must open its program.
func (b *browser) hashchange() {
	b.t.Helper()
	src := "litmus linked\nnode A { x = 0 }\nthread T0 on A {\n  x := 3\n}\nexists (x = 3)\n"
	b.eval(fmt.Sprintf(`(() => { location.hash = "program=%s"; return true })()`, base64.RawURLEncoding.EncodeToString([]byte(src))), nil)
	b.wait(fmt.Sprintf(`document.getElementById("editor").value === %q`, src), 10*time.Second)
}

// badLink opens links whose program cannot be read, in the open tab and on
// loading the page: each must say so, and the editor must not be emptied.
func (b *browser) badLink(origin string) {
	b.t.Helper()
	var before string
	b.eval(`document.getElementById("editor").value`, &before)
	b.eval(`(() => { location.hash = "program=A"; return true })()`, nil)
	b.wait(`!!document.getElementById("link-error") && !document.getElementById("link-error").hidden`, 10*time.Second)
	var after string
	b.eval(`document.getElementById("editor").value`, &after)
	if after != before {
		b.t.Errorf("a bad link changed the editor from %q to %q", before, after)
	}
	b.do(chromedp.Navigate(origin + "?again#program=%25%25"))
	b.wait(`document.getElementById("status").dataset.state === "idle"`, 60*time.Second)
	b.wait(`!!document.getElementById("link-error") && !document.getElementById("link-error").hidden && document.getElementById("editor").value !== ""`, 10*time.Second)
	b.shot("bad-link")
}

// stop starts a search of millions of configurations, waits for its
// progress, stops it and checks the report of a stopped search.
func (b *browser) stop() {
	b.t.Helper()
	b.pick("bench/mp5.rdma")
	b.do(chromedp.Click(chromedp.ID("run-reach")))
	b.wait(`/states/.test(document.getElementById("status").textContent)`, 30*time.Second)
	b.shot("progress")
	b.do(chromedp.Click(chromedp.ID("stop")))
	b.wait(`document.getElementById("status").dataset.state === "stopped"`, 20*time.Second)
	var stats report.StatsJSON
	b.shownJSON(&stats)
	if stats.Complete || stats.Bound != "interrupted" || stats.States == 0 {
		b.t.Errorf("after stop the page reports %+v, want an incomplete search cut by interrupted", stats)
	}
	var first string
	b.eval(`document.getElementById("report").textContent.split("\n")[0]`, &first)
	if want := "rdmasim reach: interrupted after "; !strings.HasPrefix(first, want) || !strings.Contains(first, report.Count(stats.States)+" configurations") {
		b.t.Errorf("a stopped report starts %q, want %q and what was explored (%d configurations)", first, want, stats.States)
	}
	b.shot("stopped")
}

// TestBrowserTimes measures what a playground user waits for, in headless
// Chromium: the page ready (the WebAssembly compiled, the examples listed)
// on a cold load (a fresh browser profile, nothing cached) and on a warm
// one (a reload, then another: Chromium may keep the compiled WebAssembly
// only once it has seen it), and the time from the check button to its
// answer on a litmus test (SB-PUT, twice: the first search of a page pays
// for the WebAssembly's start) and on a protocol (bakery). Each answer's
// time is logged split into the search (the Go code's own clock), its way
// to the page and the page's drawing. Each figure is the median of
// RDMASIM_MEASURE runs (5 if it is not a number); the test runs only when
// RDMASIM_MEASURE is set, as its figures are logged, never asserted (go
// test -v -run TestBrowserTimes). RDMASIM_MEASURE_URL names a playground
// already served (another build's rdmasim serve, for a before/after
// comparison in the same browser); without it the test serves this
// build's. The page of every build since the playground's first marks its
// status element's data-state idle when ready and done after an answer,
// names its check button run-check and answers in a global showResponse,
// which is all this needs.
func TestBrowserTimes(t *testing.T) {
	if os.Getenv("RDMASIM_MEASURE") == "" {
		t.Skip("set RDMASIM_MEASURE (the number of runs) to measure the playground's load and check times")
	}
	runs, err := strconv.Atoi(os.Getenv("RDMASIM_MEASURE"))
	if err != nil || runs < 1 {
		runs = 5
	}
	chrome := findChromium()
	if chrome == "" {
		t.Skip("chromium is not installed (make tools installs it)")
	}
	origin := os.Getenv("RDMASIM_MEASURE_URL")
	if origin == "" {
		if _, err := fs.Stat(web.Static(), web.WasmName); err != nil {
			t.Skip("the playground's WebAssembly is not built: run make wasm, then the test again")
		}
		addr, stopServe := startServe(t)
		defer stopServe()
		origin = "http://" + addr + "/"
	}
	const ready = `document.getElementById("status").dataset.state === "idle"`
	const done = `document.getElementById("status").dataset.state === "done"`
	// splitTimes wraps the page's handler of an answer, showResponse (a
	// global function in every build's app.js), to time it and keep the
	// search's own time (the response's millis) in window.measured.
	const splitTimes = `(() => {
		if (!window.measured) {
			window.measured = {};
			const show = showResponse;
			showResponse = function (r) {
				const t0 = performance.now();
				window.measured.arrive = t0;
				window.measured.go = r.millis;
				show(r);
				window.measured.draw = performance.now() - t0;
			};
		}
		return true;
	})()`
	var cold, warm, warmAgain, litmusCheck, litmusAgain, bakeryCheck []time.Duration
	for i := 0; i < runs; i++ {
		func() {
			alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
				chromedp.ExecPath(chrome), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
				chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
				chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
				chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 1000))
			defer cancelAlloc()
			ctx, cancel := chromedp.NewContext(alloc)
			defer cancel()
			b := &browser{t: t, ctx: ctx}
			b.do(chromedp.Navigate("about:blank")) // Chromium started, outside the times
			start := time.Now()
			b.do(chromedp.Navigate(origin))
			b.wait(ready, 60*time.Second)
			cold = append(cold, time.Since(start))
			for _, into := range []*[]time.Duration{&warm, &warmAgain} {
				start = time.Now()
				b.do(chromedp.Reload())
				b.wait(ready, 60*time.Second)
				*into = append(*into, time.Since(start))
			}
			for _, c := range []struct {
				example string
				into    *[]time.Duration
			}{{"litmus/SB-PUT.rdma", &litmusCheck}, {"litmus/SB-PUT.rdma", &litmusAgain}, {"protocols/bakery.rdma", &bakeryCheck}} {
				b.pick(c.example)
				// The answer's time split in three: the search in the
				// worker (the Go code's own clock), the rest of the way
				// to the page's handler (the worker's message, JSON), and
				// the handler drawing it (report, tables, graph, steps).
				b.eval(splitTimes, nil)
				b.wait(`!document.getElementById("run-check").disabled`, 10*time.Second)
				start = time.Now()
				var state string
				b.eval(`(() => { window.measured.click = performance.now(); document.getElementById("run-check").click(); return document.getElementById("status").dataset.state })()`, &state)
				if state != "running" {
					t.Fatalf("%s: check did not start (status %q)", c.example, state)
				}
				b.wait(done, 120*time.Second)
				*c.into = append(*c.into, time.Since(start))
				var split struct{ Go, Message, Draw float64 }
				b.eval(`(() => { const m = window.measured; return {Go: m.go, Message: m.arrive - m.click - m.go, Draw: m.draw} })()`, &split)
				t.Logf("%s: %d ms: the search %.0f ms, its way to the page %.0f ms, drawing %.0f ms",
					c.example, time.Since(start).Milliseconds(), split.Go, split.Message, split.Draw)
			}
		}()
	}
	median := func(ds []time.Duration) string {
		s := append([]time.Duration(nil), ds...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		all := make([]string, len(ds))
		for i, d := range ds {
			all[i] = strconv.FormatInt(d.Milliseconds(), 10)
		}
		return fmt.Sprintf("%d ms (runs: %s)", s[len(s)/2].Milliseconds(), strings.Join(all, ", "))
	}
	t.Logf("%s, medians of %d:", origin, runs)
	t.Logf("page ready, cold: %s", median(cold))
	t.Logf("page ready, warm (reloaded): %s", median(warm))
	t.Logf("page ready, warm (reloaded again): %s", median(warmAgain))
	t.Logf("check SB-PUT: %s", median(litmusCheck))
	t.Logf("check SB-PUT again: %s", median(litmusAgain))
	t.Logf("check bakery: %s", median(bakeryCheck))
}
