// The playground's page: the editor (with the examples of corpus/ and the
// syntax errors marked as the user types), the commands, and the views of
// an answer (report, execution graph, step-through, JSON). rdmasim itself
// runs in a Web Worker (worker.js); every answer is a play.Response built in
// Go (opsem/play), which this file only displays.
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
      if (msg.id === state.diagnoseId) showDiagnostics(JSON.parse(msg.json));
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
    method: $("opt-method").value,
    walks: num("opt-walks"),
    seed: num("opt-seed"),
    bias: Number($("opt-bias").value) || 0,
    first: $("opt-first").checked,
  };
}

function run(command) {
  if (!state.ready || state.running) return;
  const opts = options();
  opts.semantics = command === "check" ? $("opt-check-semantics").value : $("opt-semantics").value;
  const id = state.nextId++;
  const request = { command, file: state.file, program: editor.value, options: opts };
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
    setStatus("restarted", "stopped: the search did not yield, so the worker was restarted (no report)");
  }, 10000);
}

function showProgress(p) {
  setStatus("running", p.line.replace(/^rdmasim: /, ""));
}

// ---- answers --------------------------------------------------------------

function showResponse(r) {
  clearTimeout(state.stopTimer);
  setRunning(0);
  const secs = (r.millis / 1000).toFixed(2) + "s";
  if (r.errors && r.errors.length) {
    setStatus("error", `${r.command}: ${r.errors[0].line ? r.errors[0].line + ":" + r.errors[0].col + ": " : ""}${r.errors[0].message}`);
  } else if (r.interrupted) {
    setStatus("stopped", `${r.command}: stopped after ${secs}; the report covers what was explored`);
  } else {
    setStatus("done", `${r.command}: done in ${secs}`);
  }
  const v = $("verdicts");
  v.textContent = "";
  for (const x of r.verdicts || []) {
    const el = document.createElement("span");
    el.className = "verdict v-" + x.value.replace(/[^a-z]/g, "");
    el.dataset.name = x.name;
    el.dataset.value = x.value;
    el.innerHTML = "";
    el.append(x.name + ": ", Object.assign(document.createElement("b"), { textContent: x.value }));
    if (x.detail) el.append(" ", Object.assign(document.createElement("small"), { textContent: x.detail }));
    v.appendChild(el);
  }
  $("report").textContent = r.text;
  $("json").textContent = r.json ? JSON.stringify(r.json, null, 2) : "";
  if (r.graph) {
    drawGraph($("graph"), r.graph);
    $("graph-note").textContent = "";
  } else {
    $("graph").textContent = "";
    $("graph-note").textContent = r.graph_note || "No execution to draw for this answer.";
  }
  setTrace(r.trace || null);
}

// ---- step-through ---------------------------------------------------------

function setTrace(t) {
  state.trace = t;
  state.frame = 0;
  $("trace-title").textContent = t ? t.title + " — ← and → step" : "No run for this answer.";
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
  // Threads, and their positions marked in the source.
  const lines = editor.value.split("\n");
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
  const src = $("step-source");
  lines.forEach((text, i) => {
    const who = at.get(i + 1);
    const line = cell("div", `${String(i + 1).padStart(3)}  ${text}`, who ? "at" : "");
    if (who) line.appendChild(cell("span", " ◀ " + who.join(", "), "who"));
    if (s && s.line === i + 1 && s.rule === "step") line.classList.add("stepped");
    src.appendChild(line);
  });
  // Every queue pair's buffers.
  if (f.config.queue_pairs.length) {
    const tbl = document.createElement("table");
    tbl.className = "qp";
    const head = tbl.insertRow();
    for (const h of ["queue pair", "B1", "B2", "B3", "RW (remote writes)", "LW (local writes)", "unpolled"]) head.appendChild(cell("th", h));
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

// ---- the editor ------------------------------------------------------------

function renderBackdrop(diags) {
  // The backdrop lies under the transparent textarea and holds the same
  // text, with each error's line and column marked.
  const text = editor.value;
  const lines = text.split("\n");
  const marks = new Map();
  for (const d of diags) if (d.line) marks.set(d.line, (marks.get(d.line) || []).concat(d));
  const bd = $("backdrop");
  bd.textContent = "";
  lines.forEach((line, i) => {
    const div = document.createElement("div");
    const ds = marks.get(i + 1);
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
  for (const d of diags) {
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

function setProgram(text, file) {
  editor.value = text;
  state.file = file || "playground.rdma";
  renderBackdrop([]);
  diagnose();
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

async function pickExample() {
  const sel = $("examples");
  const o = sel.selectedOptions[0];
  if (!o || !o.value) return;
  const text = await (await fetch("examples/" + o.value)).text();
  setProgram(text, o.dataset.file);
  history.replaceState(null, "", "#example=" + encodeURIComponent(o.value));
}

// The program travels in the URL fragment (never sent to a server), as
// UTF-8 in base64url.
function encodeProgram(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decodeProgram(s) {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

function share() {
  const url = location.origin + location.pathname + "#program=" + encodeProgram(editor.value);
  history.replaceState(null, "", url);
  const note = $("share-note");
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(url).then(() => (note.textContent = "link copied"), () => (note.textContent = "link in the address bar"));
  } else {
    note.textContent = "link in the address bar";
  }
}

async function fromFragment() {
  const h = new URLSearchParams(location.hash.slice(1));
  if (h.has("program")) {
    setProgram(decodeProgram(h.get("program")), "playground.rdma");
    return true;
  }
  if (h.has("example")) {
    $("examples").value = h.get("example");
    await pickExample();
    return true;
  }
  return false;
}

// ---- wiring ----------------------------------------------------------------

function showTab(name) {
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("active", b.dataset.tab === name);
  for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.id === "tab-" + name);
}

async function init() {
  for (const c of ["check", "robust", "stress", "reach"]) $("run-" + c).onclick = () => run(c);
  $("stop").onclick = stop;
  $("share").onclick = share;
  $("examples").onchange = pickExample;
  for (const b of document.querySelectorAll("#tabs button")) b.onclick = () => showTab(b.dataset.tab);
  $("step-first").onclick = () => step(0);
  $("step-prev").onclick = () => step(state.frame - 1);
  $("step-next").onclick = () => step(state.frame + 1);
  $("step-last").onclick = () => step(Infinity);
  document.addEventListener("keydown", (ev) => {
    if (ev.target === editor || !$("tab-steps").classList.contains("active")) return;
    if (ev.key === "ArrowRight") step(state.frame + 1);
    if (ev.key === "ArrowLeft") step(state.frame - 1);
  });
  editor.addEventListener("input", () => {
    state.file = "playground.rdma";
    $("examples").value = "";
    renderBackdrop([]);
    diagnose();
  });
  editor.addEventListener("scroll", syncScroll);
  setRunning(0);
  startWorker();
  try {
    await loadExamples();
  } catch (err) {
    $("share-note").textContent = "no examples: " + err;
  }
  if (!(await fromFragment())) {
    $("examples").value = "litmus/paper-5.1.rdma";
    await pickExample();
  }
  showFrame();
}

init();
