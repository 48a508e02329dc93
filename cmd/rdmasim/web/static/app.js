// The playground's page: the editor (with the examples of corpus/ and the
// syntax errors marked as the user types), the commands, and the views of
// an answer (report, execution graph, step-through, JSON). rdmasim itself
// runs in a Web Worker (worker.js); every answer is a play.Response built in
// Go (opsem/play), which this file only displays.
//
// Two rules keep the page honest about what it shows:
//
//   - An answer belongs to the text it was computed from. The page keeps
//     that text (state.answer.program) with the answer: the step-through
//     draws it, not the editor's, so that a thread's marker stays on its
//     statement; and once the editor's text differs from it the answer is
//     marked stale (a banner, the verdicts dimmed) until the next run.
//   - No edit is lost. The editor's text is saved in the browser
//     (localStorage) as it is typed, per example, and the address follows
//     it (#program=..., the share link's form), so that a reload, or a
//     link pasted into the tab (hashchange), loses nothing; a link that
//     cannot be read says so and leaves the editor as it was.
"use strict";

const $ = (id) => document.getElementById(id);
const editor = $("editor");

const state = {
  file: "playground.rdma", // the name reports give the program
  worker: null,
  ready: false,
  nextId: 1,
  running: 0, // the id of the run in progress, 0 for none
  stopTimer: 0,
  diagnoseTimer: 0,
  diagnoseId: 0,
  trace: null,
  frame: 0,
  // The program of the run in progress, and of the answer shown: the text
  // it was computed from and the file name it went by.
  pending: null,
  answer: null,
  // The example the editor holds (its path under examples/, "" for the
  // user's own program) and its text as the corpus has it: the editor's
  // text differs from it when the example was edited.
  example: "",
  exampleText: "",
  saveTimer: 0, // the autosave, a moment after the last keystroke
  // The last check's outcomes (rows of the side-by-side table), for the
  // graph tab's picker; the repair shown, and the editor's text before it
  // was applied (for "undo"); the lines the applied repair inserted.
  outcomes: [],
  chosen: "", // the outcome whose run and graph are shown (its text, "x=1 y=0")
  repair: null,
  beforeRepair: null,
  applied: null,
  loaded: false, // the editor holds a program (before, there is nothing to save)
  ownHash: "", // the address the page wrote last, which is no link to follow
};

// ---- the worker ----------------------------------------------------------

function startWorker() {
  state.ready = false;
  setStatus("loading", "loading rdmasim (WebAssembly)…");
  const w = new Worker("worker.js");
  w.onmessage = (ev) => onWorkerMessage(w, ev.data);
  w.onerror = (ev) => setStatus("error", "the worker failed: " + (ev.message || ev));
  state.worker = w;
}

function onWorkerMessage(w, msg) {
  if (w !== state.worker) return; // a terminated worker's last words
  switch (msg.type) {
    case "ready":
      state.ready = true;
      setStatus("idle", "ready");
      setRunning(0);
      diagnose();
      break;
    case "failed":
      setStatus("error", "could not load rdmasim: " + msg.message);
      break;
    case "diagnostics":
      // A valid program's list is [] (older builds said null).
      if (msg.id === state.diagnoseId) showDiagnostics(JSON.parse(msg.json) || []);
      break;
    case "progress":
      if (msg.id === state.running) showProgress(JSON.parse(msg.json));
      break;
    case "result":
      if (msg.id === state.running) showResponse(JSON.parse(msg.json));
      break;
  }
}

function setStatus(st, text) {
  const el = $("status");
  el.dataset.state = st;
  el.textContent = text;
}

function setRunning(id) {
  state.running = id;
  for (const b of document.querySelectorAll("#commands button")) {
    b.disabled = b.id === "stop" ? !id : !!id || !state.ready;
  }
}

function options() {
  const num = (id) => Number($(id).value) || 0;
  return {
    max_states: num("opt-max-states"),
    timeout: $("opt-timeout").value.trim(),
    max_inflight: num("opt-max-inflight"),
    unroll: num("opt-unroll"),
    no_reduce: !$("opt-reduce").checked,
    placement: $("opt-placement").value,
    method: $("opt-method").value,
    walks: num("opt-walks"),
    seed: num("opt-seed"),
    bias: Number($("opt-bias").value) || 0,
    first: $("opt-first").checked,
  };
}

// run runs command on the editor's program or, for an outcome (a row of
// check's outcomes: {semantics, values}), on the program of the answer
// shown, whose outcome it is.
function run(command, outcome) {
  if (!state.ready || state.running) return;
  const opts = options();
  opts.semantics = command === "check" ? $("opt-check-semantics").value : $("opt-semantics").value;
  opts.goal = $("opt-goal").value;
  const id = state.nextId++;
  const from = outcome && state.answer ? state.answer : { program: editor.value, file: state.file };
  const request = { command, file: from.file, program: from.program, options: opts };
  if (outcome) request.outcome = outcome;
  state.pending = { program: from.program, file: from.file, command };
  setRunning(id);
  setStatus("running", `${command}: running…`);
  state.worker.postMessage({ type: "run", id, request: JSON.stringify(request) });
}

// stop asks the run to stop, as Ctrl-C stops the CLI: the worker's Go code
// yields to its event loop about once a second to hear it, and the answer
// then covers what was explored. If no answer comes within ten seconds
// (a search that does not yield; a loaded machine can delay a yielding one
// by seconds, and terminating it loses the report), the worker is
// terminated and restarted.
function stop() {
  const id = state.running;
  if (!id) return;
  setStatus("stopping", "stopping…");
  state.worker.postMessage({ type: "stop", id });
  clearTimeout(state.stopTimer);
  state.stopTimer = setTimeout(() => {
    if (state.running !== id) return;
    state.worker.terminate();
    setRunning(0);
    startWorker();
    const kept = $("verdicts").querySelectorAll(".verdict:not(.running)").length;
    $("verdicts").querySelector(".running")?.remove();
    setStatus("restarted", "stopped: the search did not yield, so the worker was restarted (no report" +
      (kept ? "; the answers found before it are kept above" : "") + ")");
  }, 10000);
}

// showProgress shows how the run goes: the CLI's progress line and, for
// robust, the method running and the answers of those that ran before it,
// shown as they come (so that stopping a later method loses none).
function showProgress(p) {
  const line = p.line.replace(/^rdmasim: /, "");
  const stopping = $("status").dataset.state === "stopping";
  if (!p.method) {
    if (!stopping) setStatus("running", line);
    return;
  }
  if (!stopping) setStatus("running", line.startsWith("robust: ") ? line : `robust, ${p.method}: ${line}`);
  // The line that says a method answered still names it: its chip shows
  // the answer, not "running" beside it.
  const name = p.method.replace(/ \(.*/, "");
  const answered = (p.verdicts || []).some((v) => v.name === name);
  showVerdicts((p.verdicts || []).concat(answered ? [] : [{ name, value: "running", detail: p.method, running: true }]));
}

// ---- answers --------------------------------------------------------------

function showResponse(r) {
  clearTimeout(state.stopTimer);
  state.stopTimer = 0;
  setRunning(0);
  if (r.command === "outcome") {
    showOutcomeRun(r);
    return;
  }
  state.answer = state.pending;
  const secs = (r.millis / 1000).toFixed(2) + "s";
  if (r.errors && r.errors.length) {
    setStatus("error", `${r.command}: ${r.errors[0].line ? r.errors[0].line + ":" + r.errors[0].col + ": " : ""}${r.errors[0].message}`);
  } else if (r.interrupted) {
    setStatus("stopped", `${r.command}: stopped after ${secs}; the report covers only what was explored`);
  } else {
    setStatus("done", `${r.command}: done in ${secs}`);
  }
  // What the verdicts answer: the program's query (a program whose
  // asserts or error points make it asks "reach T@fail"), or nothing.
  $("query").textContent = r.errors && r.errors.length ? "" : r.query ? "query: " + r.query
    : r.command === "check" ? "no condition: no verdict, the report lists the final outcomes" : "";
  showVerdicts(r.verdicts || []);
  showOutcomes(r.command === "check" && !(r.errors && r.errors.length) ? r.json : null);
  showRepair(r.repair || null);
  if (r.repair) showTab("report"); // where its insertions and "apply" are
  $("report").textContent = r.text;
  $("json").textContent = r.json ? JSON.stringify(r.json, null, 2) : "";
  showGraph(r.graph, r.graph_note || "No execution to draw for this answer.");
  setTrace(r.trace || null);
  markStale();
}

// showGraph draws g in the graph tab, or says why there is none (note).
function showGraph(g, note) {
  if (g) {
    drawGraph($("graph"), g, graphEvent);
    $("graph-note").textContent = "Click an event (or Tab to it, Enter) for its line in the program and the step that made it.";
  } else {
    $("graph").textContent = "";
    $("graph-note").textContent = note;
  }
}

// graphEvent shows where event e of the graph comes from: its statement
// selected in the editor (when the editor still holds the text the answer
// was computed from) and the step view at the step that made it.
function graphEvent(e) {
  const parts = [`${e.label.split("\n")[0]}: ${e.source}`];
  if (e.step && state.trace) {
    step(e.step);
    parts.push(`step ${e.step} of the run (Step through)`);
  } else if (state.trace && e.line) {
    // robust's run stops at the violation; the drawing completes the
    // execution with the events the program makes after it.
    parts.push("made after the end of the run shown (Step through): no step");
  }
  const fresh = !state.answer || state.answer.program === editor.value;
  if (fresh && e.line) selectLine(e.line);
  else if (e.line) parts.push("the editor's text has changed since: not selected");
  $("graph-note").textContent = parts.join(" — ");
}

// selectLine selects line n (from 1) of the editor, and scrolls to it.
function selectLine(n) {
  const lines = editor.value.split("\n");
  if (n < 1 || n > lines.length) return;
  let off = 0;
  for (let i = 0; i < n - 1; i++) off += lines[i].length + 1;
  const lead = lines[n - 1].length - lines[n - 1].trimStart().length;
  editor.focus();
  editor.setSelectionRange(off + lead, off + lines[n - 1].length);
  const lh = parseFloat(getComputedStyle(editor).lineHeight) || 18;
  editor.scrollTop = Math.max(0, (n - 3) * lh);
  syncScroll();
}

// showOutcomeRun shows the run and the graph of an outcome the user chose
// (a row of the outcomes table, or the graph tab's list): the answer's
// report and verdicts stay as they are.
function showOutcomeRun(r) {
  const which = r.query ? r.query.replace(/^exists /, "") : "the outcome";
  const sem = (r.verdicts && r.verdicts[0] && r.verdicts[0].name.replace("outcome under ", "")) || "";
  if (r.errors && r.errors.length) {
    setStatus("error", `outcome: ${r.errors[0].message}`);
    return;
  }
  if (r.interrupted) {
    setStatus("stopped", `outcome ${which}: stopped`);
    return;
  }
  setStatus("done", `outcome ${which} under ${sem}: ${r.trace ? "run of " + (r.trace.frames.length - 1) + " steps" : "not reached"}${r.graph ? ", graph drawn" : ""}`);
  showGraph(r.graph, r.graph_note || "No execution to draw for this outcome.");
  $("graph-note").dataset.outcome = state.chosen;
  if (r.trace) setTrace(r.trace);
  for (const row of document.querySelectorAll("#outcomes tr[data-outcome]")) {
    row.classList.toggle("chosen", row.dataset.outcome === state.chosen);
  }
  showTab(r.graph ? "graph" : "steps");
}

// pickOutcome runs outcome o ({values, rdma, sc}) of the outcomes table:
// its run under RDMA if RDMA reaches it, else under SC.
function pickOutcome(o) {
  state.chosen = o.text;
  run("outcome", { semantics: o.rdma ? "rdma" : "sc", values: o.values });
}

// showOutcomePicker fills the graph tab's list of outcomes: any of them can
// be drawn, whatever the condition says.
function showOutcomePicker() {
  const sel = $("graph-outcome");
  sel.textContent = "";
  const none = cell("option", state.outcomes.length ? "choose an outcome…" : "(check the program first)");
  none.value = "";
  sel.appendChild(none);
  state.outcomes.forEach((o, i) => {
    const opt = cell("option", o.text + (o.rdma && !o.sc ? "  (RDMA only)" : o.rdma ? "" : "  (SC only)"));
    opt.value = String(i);
    sel.appendChild(opt);
  });
  $("graph-pick").hidden = !state.outcomes.length;
}

// showRepair shows a repair's insertions in the program's terms, with
// "apply" (the repaired text into the editor, undoable) when it found one.
function showRepair(rp) {
  state.repair = rp;
  const box = $("repair");
  box.textContent = "";
  box.hidden = !rp;
  if (!rp) return;
  const head = rp.already ? "Nothing to insert: the program already " + (rp.goal === "query" ? "satisfies its query under RDMA." : "is robust.")
    : rp.found ? `Repair (${rp.goal}): ${rp.insertions.length} insertion${rp.insertions.length === 1 ? "" : "s"}, cost ${rp.cost}, ${rp.minimal}`
    : "No repair: " + (rp.why || rp.cut || "none found");
  box.appendChild(cell("h3", head));
  const ul = cell("ul", "");
  for (const ins of rp.insertions) {
    const li = cell("li", "");
    li.dataset.line = ins.after_line || ins.line;
    li.append(`thread ${ins.thread}, line ${ins.after_line || ins.line}, after `, cell("code", ins.after), ": insert ", cell("code", ins.stmt), " ", cell("small", "— breaks " + ins.breaks, "note"));
    ul.appendChild(li);
  }
  if (rp.insertions.length) box.appendChild(ul);
  if (rp.proof) box.appendChild(cell("p", "Proof: " + rp.proof, "note"));
  if (rp.found && !rp.already && rp.text) {
    const bar = cell("div", "", "bar");
    const apply = cell("button", "apply");
    apply.id = "repair-apply";
    apply.title = "replace the editor's text with the repaired text (Ctrl+Z, or undo, brings yours back)";
    apply.onclick = applyRepair;
    const undo = cell("button", "undo");
    undo.id = "repair-undo";
    undo.disabled = true;
    undo.title = "put back the text the repair replaced";
    undo.onclick = undoRepair;
    bar.append(apply, undo);
    box.appendChild(bar);
  }
}

// replaceText replaces the editor's whole text as an edit the browser can
// undo (Ctrl+Z), where it supports insertText; else by assignment.
function replaceText(text) {
  editor.focus();
  editor.select();
  let done = false;
  try {
    done = document.execCommand("insertText", false, text);
  } catch {
    done = false;
  }
  if (!done || editor.value !== text) editor.value = text;
  edited();
}

// applyRepair puts the repaired text in the editor and marks the lines it
// inserted; undoRepair puts back the text it replaced.
function applyRepair() {
  if (!state.repair || !state.repair.text) return;
  state.beforeRepair = editor.value;
  replaceText(state.repair.text);
  state.applied = { text: editor.value, lines: insertedLines(state.beforeRepair, editor.value) };
  renderBackdrop([]);
  $("repair-undo").disabled = false;
  $("repair-apply").disabled = true;
  setStatus("done", `repair applied: ${state.applied.lines.length} line${state.applied.lines.length === 1 ? "" : "s"} inserted or changed (marked in the editor); undo or Ctrl+Z puts your text back`);
}

function undoRepair() {
  if (state.beforeRepair === null) return;
  state.applied = null;
  replaceText(state.beforeRepair);
  state.beforeRepair = null;
  $("repair-undo").disabled = true;
  $("repair-apply").disabled = false;
  setStatus("idle", "repair undone: your text is back");
}

// insertedLines returns the lines (from 1) of after that are not lines of
// before kept in order: what a repair inserted (or changed, as its
// expect line).
function insertedLines(before, after) {
  const a = before.split("\n"), b = after.split("\n");
  const out = [];
  let i = 0;
  b.forEach((line, k) => {
    const j = a.indexOf(line, i);
    if (j >= 0 && j - i <= 2) i = j + 1;
    else out.push(k + 1);
  });
  return out;
}

// showOutcomes draws check's final outcomes under RDMA and SC side by side,
// as herd's lists are read: one row per outcome, a column per location,
// whether each semantics reaches it, the outcomes only RDMA reaches marked.
// A semantics whose search did not complete says so under the table.
function showOutcomes(j) {
  const box = $("outcomes");
  box.textContent = "";
  state.outcomes = [];
  showOutcomePicker();
  if (!j || !j.rdma || !j.sc || !j.rdma.outcomes || !j.sc.outcomes) return;
  const key = (o) => JSON.stringify(Object.keys(o).sort().map((k) => [k, o[k]]));
  const rows = new Map();
  for (const [side, list] of [["rdma", j.rdma.outcomes], ["sc", j.sc.outcomes]]) {
    for (const o of list) {
      const k = key(o);
      if (!rows.has(k)) rows.set(k, { o, rdma: false, sc: false });
      rows.get(k)[side] = true;
    }
  }
  if (!rows.size) return;
  const locs = [...new Set([...rows.values()].flatMap((r) => Object.keys(r.o)))].sort();
  const tbl = document.createElement("table");
  tbl.className = "outcomes";
  tbl.appendChild(cell("caption", "Final outcomes, RDMA and SC side by side"));
  const head = tbl.insertRow();
  for (const l of locs) head.appendChild(cell("th", l));
  head.appendChild(cell("th", "RDMA"));
  head.appendChild(cell("th", "SC"));
  const sorted = [...rows.values()].sort((a, b) => (a.sc === b.sc ? key(a.o).localeCompare(key(b.o)) : a.sc ? 1 : -1));
  state.outcomes = sorted.map((r) => ({ values: r.o, rdma: r.rdma, sc: r.sc, text: locs.filter((l) => l in r.o).map((l) => `${l}=${r.o[l]}`).join(" ") }));
  sorted.forEach((r, i) => {
    const row = tbl.insertRow();
    const only = r.rdma && !r.sc;
    const o = state.outcomes[i];
    row.dataset.outcome = o.text;
    // Each row is a button: its run in the step view, its graph.
    row.tabIndex = 0;
    row.setAttribute("role", "button");
    row.setAttribute("aria-label", `outcome ${o.text}: show its run and its graph (under ${r.rdma ? "RDMA" : "SC"})`);
    row.title = (only ? "reached under RDMA only — " : "") + "click (or Enter) for its run and its graph";
    if (only) row.className = "rdma-only";
    row.onclick = () => pickOutcome(o);
    row.onkeydown = (ev) => {
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        pickOutcome(o);
      }
    };
    for (const l of locs) row.appendChild(cell("td", l in r.o ? String(r.o[l]) : ""));
    row.appendChild(cell("td", r.rdma ? (only ? "✓ RDMA only" : "✓") : "–"));
    row.appendChild(cell("td", r.sc ? "✓" : "–"));
  });
  box.appendChild(tbl);
  showOutcomePicker();
  const partial = [["RDMA", j.rdma], ["SC", j.sc]].filter(([, s]) => s.coverage !== "complete").map(([n, s]) => `${n}: ${s.coverage}${s.bound ? " (" + s.bound + ")" : ""}`);
  if (partial.length) box.appendChild(cell("p", "Not every outcome may be listed — " + partial.join("; "), "note"));
}

// showVerdicts draws the verdicts as chips, "name: value (detail)": "rdma:
// allowed (complete)", "robust: no (all methods agree)".
function showVerdicts(list) {
  const v = $("verdicts");
  v.textContent = "";
  for (const x of list) {
    const el = document.createElement("span");
    el.className = "verdict v-" + x.value.replace(/[^a-z]/g, "") + (x.running ? " running" : "");
    el.dataset.name = x.name;
    el.dataset.value = x.value;
    el.append(x.name + ": ", cell("b", x.value));
    if (x.detail && x.detail !== x.value && !x.running) el.append(" ", cell("small", "(" + x.detail + ")"));
    v.appendChild(el);
  }
}

// markStale marks the answer shown as stale when the editor's text is no
// longer the text it was computed from (and unmarks it when an undo brings
// that text back).
function markStale() {
  const stale = !!state.answer && state.answer.program !== editor.value;
  $("right").classList.toggle("stale", stale);
  $("stale").hidden = !stale;
  if (stale && state.trace) $("trace-title").textContent = state.trace.title + " — of the previous text, shown as it was run";
  else if (state.trace) $("trace-title").textContent = state.trace.title + " — ← and → step";
}

// ---- step-through ---------------------------------------------------------

function setTrace(t) {
  state.trace = t;
  state.frame = 0;
  $("trace-title").textContent = t ? t.title + " — ← and → step" : "No run for this answer.";
  // The step that settles the condition, a button to go there.
  const c = t && t.cond;
  const b = $("step-cond");
  b.hidden = !c;
  if (c) {
    b.textContent = `⚑ ${c.text} ${c.holds ? "holds" : "fails"} from step ${c.frame}`;
    b.title = `go to step ${c.frame}, where the condition ${c.text} becomes ${c.holds ? "true" : "false"} for the rest of the run`;
    b.dataset.frame = c.frame;
  }
  showFrame();
}

function step(to) {
  if (!state.trace) return;
  state.frame = Math.max(0, Math.min(to, state.trace.frames.length - 1));
  showFrame();
}

function cell(tag, text, cls) {
  const el = document.createElement(tag);
  el.textContent = text;
  if (cls) el.className = cls;
  return el;
}

function showFrame() {
  const t = state.trace;
  const n = t ? t.frames.length - 1 : 0;
  $("step-pos").textContent = `${state.frame} / ${n}`;
  $("step-pos").dataset.frame = state.frame;
  $("step-pos").dataset.last = n;
  for (const id of ["step-first", "step-prev"]) $(id).disabled = !t || state.frame === 0;
  for (const id of ["step-next", "step-last"]) $(id).disabled = !t || state.frame === n;
  const mem = $("memory"), threads = $("threads"), queues = $("queues");
  mem.textContent = threads.textContent = queues.textContent = "";
  $("step-source").textContent = "";
  $("step-what").textContent = "";
  if (!t) return;
  const f = t.frames[state.frame];
  const s = f.step;
  $("step-what").textContent = s
    ? `${state.frame}. ${s.actor}  ${s.rule === "step" ? "" : s.rule + " "}${s.what}${s.event ? "  " + s.event : ""}`
    : "the initial configuration";
  $("step-what").title = (s && s.rule !== "step" && glossary(s.rule)) || "";
  $("step-what").dataset.rule = s ? s.rule : "";
  // The step where the condition becomes true (or false, for good).
  const c = t.cond;
  const settles = !!c && c.frame === state.frame;
  $("step-what").classList.toggle("cond-step", settles);
  if (settles) $("step-what").appendChild(cell("span", `  ⚑ here ${c.text} becomes ${c.holds ? "true" : "false"}${state.frame ? "" : " (it is from the start)"}`, "cond-mark"));
  const changed = new Set(((s && s.memory) || []).map((m) => m.loc));
  const bufChanged = new Set(((s && s.buffers) || []).map((b) => b.queue_pair + " " + b.buffer));
  // Memory, one table per node.
  for (const node of f.config.nodes) {
    const tbl = document.createElement("table");
    tbl.className = "mem";
    const head = tbl.insertRow();
    head.appendChild(cell("th", node.node));
    const row = tbl.insertRow();
    row.appendChild(cell("td", ""));
    for (const l of node.locs) {
      head.appendChild(cell("th", l.loc));
      const td = cell("td", l.tracked ? String(l.value) : "_", changed.has(l.loc) ? "changed" : "");
      td.dataset.loc = l.loc;
      if (!l.tracked) td.title = "not tracked: nothing reads it";
      row.appendChild(td);
    }
    mem.appendChild(tbl);
  }
  // Threads, and their positions marked in the source: the text the run
  // was computed from, which the editor may no longer hold.
  const lines = (state.answer ? state.answer.program : editor.value).split("\n");
  const at = new Map(); // line -> [thread names]
  for (const th of f.config.threads) {
    let where = "end";
    if (!th.end) {
      where = `${th.inside ? "inside" : "at"} ${th.stmt} (line ${th.line}, col ${th.col})${th.inside ? ", carrying " + th.carrying : ""}`;
      if (!at.has(th.line)) at.set(th.line, []);
      at.get(th.line).push(th.thread);
    }
    const p = cell("div", `${th.thread}: ${where}`, "thread" + (s && s.thread === th.thread ? " moved" : ""));
    p.dataset.thread = th.thread;
    threads.appendChild(p);
  }
  // The statement of the step: a thread's, or the operation a NIC step
  // serves (the put or get whose entry it moves), lit up.
  const srcLine = f.source ? f.source.line : s && s.rule === "step" ? s.line : 0;
  const src = $("step-source");
  lines.forEach((text, i) => {
    const who = at.get(i + 1);
    const line = cell("div", `${String(i + 1).padStart(3)}  ${text}`, who ? "at" : "");
    line.dataset.line = i + 1;
    if (who) line.appendChild(cell("span", " ◀ " + who.join(", "), "who"));
    if (s && srcLine === i + 1) {
      if (s.rule === "step") {
        line.classList.add("stepped");
        line.title = "the statement this step executes";
      } else {
        line.classList.add("served");
        line.title = `the operation this NIC step (${s.rule}) serves`;
        line.appendChild(cell("span", ` ◀ ${s.actor} ${s.rule}`, "nic"));
      }
    }
    src.appendChild(line);
  });
  // Every queue pair's buffers.
  if (f.config.queue_pairs.length) {
    const tbl = document.createElement("table");
    tbl.className = "qp";
    const head = tbl.insertRow();
    for (const h of ["queue pair", "B1", "B2", "B3", "RW", "LW", "unpolled"]) {
      const th = cell("th", h);
      const dd = glossary(h);
      if (dd) th.title = dd;
      head.appendChild(th);
    }
    for (const q of f.config.queue_pairs) {
      const row = tbl.insertRow();
      row.dataset.qp = q.queue_pair;
      row.appendChild(cell("th", q.queue_pair));
      for (const b of ["B1", "B2", "B3", "RW", "LW"]) {
        const td = cell("td", q[b].join(" "), bufChanged.has(q.queue_pair + " " + b) ? "changed" : "");
        td.dataset.buf = b;
        row.appendChild(td);
      }
      row.appendChild(cell("td", String(q.unpolled)));
    }
    queues.appendChild(tbl);
  } else {
    queues.textContent = "none (" + t.semantics + " has no buffers)";
  }
}

// glossary returns the page's explanation of a buffer or rule name (the
// list under the step view), or "".
function glossary(name) {
  for (const dt of document.querySelectorAll("#glossary dt")) {
    if (dt.textContent === name) return dt.nextElementSibling.textContent;
  }
  return "";
}

// ---- the editor ------------------------------------------------------------

function renderBackdrop(diags) {
  // The backdrop lies under the transparent textarea and holds the same
  // text, with each error's line and column marked.
  const text = editor.value;
  const lines = text.split("\n");
  const marks = new Map();
  for (const d of diags || []) if (d.line) marks.set(d.line, (marks.get(d.line) || []).concat(d));
  const bd = $("backdrop");
  bd.textContent = "";
  // The lines an applied repair inserted, while the editor holds its text.
  const inserted = new Set(state.applied && state.applied.text === text ? state.applied.lines : []);
  lines.forEach((line, i) => {
    const div = document.createElement("div");
    const ds = marks.get(i + 1);
    if (inserted.has(i + 1)) {
      div.className = "inserted";
      div.dataset.line = i + 1;
    }
    if (!ds) {
      div.textContent = line || " ";
    } else {
      div.className = "err-line";
      const d = ds[0];
      const c = Math.min(Math.max(d.col - 1, 0), line.length);
      // the token at the error: up to the next space or punctuation
      let end = c + 1;
      while (end < line.length && /[\w@.:=-]/.test(line[end]) && /[\w@.]/.test(line[c])) end++;
      div.append(line.slice(0, c));
      const m = cell("span", line.slice(c, end) || " ", "err-mark");
      m.dataset.line = d.line;
      m.dataset.col = d.col;
      m.title = d.message;
      div.append(m, line.slice(end) || "");
    }
    bd.appendChild(div);
  });
  $("gutter").textContent = lines.map((_, i) => i + 1).join("\n");
  syncScroll();
}

function syncScroll() {
  $("backdrop").scrollTop = editor.scrollTop;
  $("backdrop").scrollLeft = editor.scrollLeft;
  $("gutter").scrollTop = editor.scrollTop;
}

function showDiagnostics(diags) {
  renderBackdrop(diags);
  const ul = $("diagnostics");
  ul.textContent = "";
  for (const d of diags || []) {
    const li = cell("li", `${d.line}:${d.col}: ${d.message}`);
    li.dataset.line = d.line;
    li.dataset.col = d.col;
    li.onclick = () => jumpTo(d.line, d.col);
    ul.appendChild(li);
  }
}

function jumpTo(line, col) {
  const lines = editor.value.split("\n");
  let off = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) off += lines[i].length + 1;
  off += Math.max(col - 1, 0);
  editor.focus();
  editor.setSelectionRange(off, off + 1);
}

function diagnose() {
  clearTimeout(state.diagnoseTimer);
  state.diagnoseTimer = setTimeout(() => {
    if (!state.ready) return;
    state.diagnoseId = state.nextId++;
    state.worker.postMessage({ type: "diagnose", id: state.diagnoseId, file: state.file, program: editor.value });
  }, 200);
}

// setProgram puts text in the editor, as example (its path, "" for the
// user's own program) whose text as the corpus has it is original.
function setProgram(text, example = "", original = "") {
  editor.value = text;
  state.loaded = true;
  state.example = example;
  state.exampleText = original;
  $("examples").value = example;
  edited();
}

// edited follows a change of the editor's text: the file name, the syntax
// errors, the answer's staleness, the "reset to example" control, and (a
// moment later) the autosave and the address.
function edited() {
  const changed = state.example !== "" && editor.value !== state.exampleText;
  state.file = state.example && !changed ? $("examples").selectedOptions[0]?.dataset.file || "playground.rdma" : "playground.rdma";
  $("reset").hidden = !changed;
  $("edited-note").textContent = changed ? "edited (saved in this browser)" : "";
  renderBackdrop([]);
  diagnose();
  markStale();
  clearTimeout(state.saveTimer);
  state.saveTimer = setTimeout(save, 250);
}

// ---- examples and links --------------------------------------------------

async function loadExamples() {
  const sel = $("examples");
  const list = await (await fetch("examples/index.json")).json();
  const groups = new Map();
  for (const ex of list) {
    if (!groups.has(ex.group)) {
      const og = document.createElement("optgroup");
      og.label = "corpus/" + ex.group;
      groups.set(ex.group, og);
      sel.appendChild(og);
    }
    const o = cell("option", ex.name);
    o.value = ex.path;
    o.dataset.file = ex.file;
    groups.get(ex.group).appendChild(o);
  }
}

// ---- autosave and the address ----------------------------------------------
//
// The editor's text is saved in localStorage under savedKey(example): one
// entry per example edited (removed when its text is the corpus's again,
// or by "reset to example"), and one for the user's own program. The
// address follows the editor: #example=PATH for an example as the corpus
// has it, #example=PATH&program=TEXT for an edited one, #program=TEXT for
// the user's own program (TEXT as encodeProgram writes it).

function savedKey(example) {
  return "rdmasim-playground:" + (example ? "example:" + example : "program");
}

function loadSaved(example) {
  try {
    return localStorage.getItem(savedKey(example));
  } catch {
    return null; // storage refused (a private window, say)
  }
}

// store saves the editor's text in localStorage, and save also makes the
// address follow it.
function store() {
  clearTimeout(state.saveTimer);
  if (!state.loaded) return false;
  const text = editor.value, ex = state.example;
  const changed = ex === "" || text !== state.exampleText;
  try {
    if (changed) localStorage.setItem(savedKey(ex), text);
    else localStorage.removeItem(savedKey(ex));
  } catch {
    $("edited-note").textContent = changed && ex ? "edited (not saved: this browser refuses storage)" : "";
  }
  return true;
}

function save() {
  if (!store()) return;
  const text = editor.value, ex = state.example;
  const changed = ex === "" || text !== state.exampleText;
  let hash = "";
  if (ex) hash = "example=" + encodeURIComponent(ex);
  if (changed) hash += (hash ? "&" : "") + "program=" + encodeProgram(text);
  if (location.hash !== "#" + hash) {
    state.ownHash = "#" + hash;
    history.replaceState(null, "", "#" + hash);
  }
}

async function exampleText(path) {
  const res = await fetch("examples/" + path);
  if (!res.ok) throw new Error(`no example ${path} (${res.status})`);
  return res.text();
}

// pickExample opens the example chosen in the list: with the edits saved
// for it, if any (reset to example drops them).
async function pickExample() {
  store(); // the program being left, at once
  $("link-error").hidden = true;
  const o = $("examples").selectedOptions[0];
  if (!o || !o.value) {
    setProgram(loadSaved("") || "");
    return;
  }
  await openExample(o.value, null);
}

// openExample opens example path, with text (from a link) or else its
// saved edits, or else the corpus's text.
async function openExample(path, text) {
  if (![...$("examples").options].some((o) => o.value === path)) throw new Error(`no example named ${path}`);
  const original = await exampleText(path);
  setProgram(text ?? loadSaved(path) ?? original, path, original);
  save();
}

function resetExample() {
  if (!state.example) return;
  setProgram(state.exampleText, state.example, state.exampleText);
  save();
}

// The program travels in the URL fragment (never sent to a server), as
// UTF-8 in base64url.
function encodeProgram(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// decodeProgram reads encodeProgram's text; it throws on text that is not
// base64url of UTF-8 (a link cut short or mangled).
function decodeProgram(s) {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) throw new Error("it is not base64url");
  let bin;
  try {
    bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    throw new Error("its length is not that of base64 (cut short?)");
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  } catch {
    throw new Error("it is not UTF-8 text");
  }
}

function share() {
  const url = location.origin + location.pathname + "#program=" + encodeProgram(editor.value);
  state.ownHash = "#program=" + encodeProgram(editor.value);
  history.replaceState(null, "", url);
  const note = $("share-note");
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(url).then(() => (note.textContent = "link copied"), () => (note.textContent = "link in the address bar"));
  } else {
    note.textContent = "link in the address bar";
  }
}

// fromFragment opens the program the address names (#program=,
// #example=, or both: an edited example) and returns whether it named
// one. A link that cannot be read is reported in #link-error, and the
// editor keeps what it holds.
async function fromFragment() {
  $("link-error").hidden = true;
  const h = new URLSearchParams(location.hash.slice(1));
  if (!h.has("program") && !h.has("example")) return false;
  try {
    const text = h.has("program") ? decodeProgram(h.get("program")) : null;
    store(); // what the editor holds, before the link replaces it
    if (h.has("example")) await openExample(h.get("example"), text);
    else setProgram(text);
    return true;
  } catch (err) {
    const e = $("link-error");
    e.textContent = `This link's program could not be read: ${err.message}. The editor keeps the program it had.`;
    e.hidden = false;
    return false;
  }
}

// ---- wiring ----------------------------------------------------------------

function showTab(name) {
  for (const b of document.querySelectorAll("#tabs button")) {
    const on = b.dataset.tab === name;
    b.classList.toggle("active", on);
    b.setAttribute("aria-selected", String(on));
    b.tabIndex = on ? 0 : -1; // one tab stop for the list; arrows move within
  }
  for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.id === "tab-" + name);
}

// tabKeys moves between the tabs with the arrow keys, Home and End, as the
// WAI-ARIA tabs pattern does.
function tabKeys(ev) {
  const tabs = [...document.querySelectorAll("#tabs button")];
  const i = tabs.indexOf(ev.target);
  if (i < 0) return;
  const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[ev.key];
  if (to === undefined) return;
  ev.preventDefault();
  const b = tabs[(to + tabs.length) % tabs.length];
  showTab(b.dataset.tab);
  b.focus();
}

async function init() {
  for (const c of ["check", "robust", "stress", "reach", "repair"]) $("run-" + c).onclick = () => run(c);
  $("step-cond").onclick = () => step(Number($("step-cond").dataset.frame));
  $("graph-outcome").onchange = () => {
    const o = state.outcomes[Number($("graph-outcome").value)];
    if (o && $("graph-outcome").value !== "") pickOutcome(o);
  };
  $("stop").onclick = stop;
  $("share").onclick = share;
  $("reset").onclick = resetExample;
  $("examples").onchange = () => pickExample().catch((err) => ($("share-note").textContent = String(err)));
  for (const b of document.querySelectorAll("#tabs button")) b.onclick = () => showTab(b.dataset.tab);
  $("step-first").onclick = () => step(0);
  $("step-prev").onclick = () => step(state.frame - 1);
  $("step-next").onclick = () => step(state.frame + 1);
  $("step-last").onclick = () => step(Infinity);
  $("tabs").addEventListener("keydown", tabKeys);
  // Ctrl+Enter (Cmd+Enter on a Mac) checks the program, from anywhere.
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey) && !$("run-check").disabled) {
      ev.preventDefault();
      run("check");
    }
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.target === editor || ev.target.closest?.("#tabs") || !$("tab-steps").classList.contains("active")) return;
    if (ev.key === "ArrowRight") step(state.frame + 1);
    if (ev.key === "ArrowLeft") step(state.frame - 1);
  });
  editor.addEventListener("input", () => {
    $("link-error").hidden = true;
    edited();
  });
  // A link pasted into this tab's address bar (or the back button) changes
  // the fragment without a reload; the address the page writes itself
  // (replaceState) fires no hashchange.
  window.addEventListener("hashchange", () => {
    if (location.hash !== state.ownHash) fromFragment();
  });
  // Leaving (or reloading) within the autosave's moment saves at once.
  window.addEventListener("pagehide", save);
  editor.addEventListener("scroll", syncScroll);
  setRunning(0);
  startWorker();
  try {
    await loadExamples();
  } catch (err) {
    $("share-note").textContent = "no examples: " + err;
  }
  if (!(await fromFragment())) {
    const own = loadSaved("");
    if ($("link-error").hidden || own === null) await openExample("litmus/paper-5.1.rdma", null).catch(() => {});
    else setProgram(own);
  }
  showFrame();
}

init();
