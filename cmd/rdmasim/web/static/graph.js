// Execution graphs as SVG, laid out as the CLI's Graphviz drawings are
// (opsem/dot): the initial writes in a row on top, one column per thread with
// its events in program order downwards, po edges straight down the column,
// every other relation a labelled curve in the relation's colour, bent around
// the event boxes between its ends, the edges
// of an sc cycle bold, and the legend below, whose entries show and hide
// their relation. Labels do not overlap each other and are drawn above the
// event boxes; arrowheads have one size. A graph comes from the worker as
// play.Graph: {title, threads, events: [{thread, label, line, col, stmt,
// source, step}], edges: [{from, to, rel, bold}], key: [{name, colour,
// meaning}], bold}. An event with a source line names it in its tooltip
// and is a button (mouse and keyboard): onEvent(event) is called, for the
// page to show the line in the program and the step that made the event,
// and the event stays marked (class picked) until another is chosen.
"use strict";

const SVG = "http://www.w3.org/2000/svg";

function svgEl(name, attrs, text) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

// layoutGraph places each event: {x, y} centres, the SVG's width and height.
function layoutGraph(g) {
  const colW = 190, rowH = 74, top = 56, left = 40, boxW = 150;
  const init = [], cols = g.threads.map(() => []);
  g.events.forEach((e, i) => (e.thread < 0 ? init : cols[e.thread]).push(i));
  const ncols = Math.max(cols.length, 1);
  const pos = new Array(g.events.length);
  const width = Math.max(left * 2 + ncols * colW, left * 2 + init.length * (boxW + 20));
  init.forEach((ev, k) => {
    pos[ev] = { x: left + boxW / 2 + k * (boxW + 20), y: top + 20 };
  });
  const colTop = top + (init.length ? 20 + rowH : 20) + 24;
  let rows = 0;
  cols.forEach((evs, t) => {
    evs.forEach((ev, k) => {
      pos[ev] = { x: left + colW / 2 + t * colW, y: colTop + k * rowH };
    });
    rows = Math.max(rows, evs.length);
  });
  return { pos, width, height: colTop + rows * rowH, colTop, colW, left, boxW };
}

// drawGraph renders g into container (replacing what it held); onEvent,
// when given, is called with the event an event box activates.
function drawGraph(container, g, onEvent) {
  container.textContent = "";
  const L = layoutGraph(g);
  const key = g.key || [];
  const legendH = 22 * (key.length + (g.bold ? 1 : 0)) + 20;
  const svg = svgEl("svg", {
    width: L.width, height: L.height + legendH, viewBox: `0 0 ${L.width} ${L.height + legendH}`,
    class: "exec-graph", role: "img", "aria-label": g.title,
  });
  const colour = (rel) => (key.find((k) => k.name === rel) || { colour: "grey" }).colour;
  const defs = svgEl("defs");
  for (const c of new Set(key.map((k) => k.colour).concat(["grey"]))) {
    // Arrowheads of one size in user units, whatever the edge's width.
    const m = svgEl("marker", { id: "arrow-" + c, viewBox: "0 0 10 10", refX: 9, refY: 5, markerUnits: "userSpaceOnUse", markerWidth: 9, markerHeight: 9, orient: "auto-start-reverse" });
    m.appendChild(svgEl("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: c }));
    defs.appendChild(m);
  }
  svg.appendChild(defs);
  svg.appendChild(svgEl("text", { x: 12, y: 22, class: "g-title" }, g.title));
  g.threads.forEach((name, t) => {
    svg.appendChild(svgEl("text", { x: L.left + L.colW / 2 + t * L.colW, y: L.colTop - 30, class: "g-thread" }, name));
  });
  const edges = svgEl("g", { class: "g-edges" });
  svg.appendChild(edges);
  const labels = svgEl("g", { class: "g-labels" });
  // Labels are placed where they overlap no label placed before them: a
  // label that would is moved down, then up, a line at a time.
  const placed = [];
  const place = (x, y, text) => {
    const w = 7 * text.length + 4, h = 13;
    const free = (yy) => placed.every((r) => x + w <= r.x || r.x + r.w <= x || yy <= r.y - h || r.y + r.h <= yy - h);
    for (let k = 0; k < 12; k++) {
      const yy = y + (k % 2 ? -1 : 1) * Math.ceil(k / 2) * h;
      if (free(yy)) {
        placed.push({ x, y: yy - h + 3, w, h });
        return yy;
      }
    }
    placed.push({ x, y: y - h + 3, w, h });
    return y;
  };
  // A curve keeps out of every event box but its own two: crosses samples
  // the quadratic curve (s, c, t) and reports whether a point falls in
  // another box, enlarged by a margin.
  const boxes = g.events.map((_, i) => ({ x: L.pos[i].x - L.boxW / 2 - 4, y: L.pos[i].y - 17, w: L.boxW + 8, h: 34 }));
  const crosses = (q, from, to) => {
    for (let k = 1; k < 32; k++) {
      const t = k / 32, u = 1 - t;
      const x = u * u * q.sx + 2 * u * t * q.cx + t * t * q.tx, y = u * u * q.sy + 2 * u * t * q.cy + t * t * q.ty;
      if (boxes.some((r, i) => i !== from && i !== to && x > r.x && x < r.x + r.w && y > r.y && y < r.y + r.h)) return true;
    }
    return false;
  };
  // lanes returns the corners of an orthogonal route from event i to event
  // j that keeps out of every box: out of i's box (its side, or the bottom
  // of an initial write) into the nearest gap between rows, along it to
  // the gutter beside j's column on i's side, down or up the gutter to j's
  // row, and into j's side. Lanes are offset by n, the edges already
  // drawn between the pair.
  const rowGap = (y) => L.colTop - 37 + Math.round((y - (L.colTop - 37)) / 74) * 74;
  const lanes = (i, j, n) => {
    const a = L.pos[i], b = L.pos[j], off = 6 * n;
    const colOf = (x) => Math.floor((x - L.left) / L.colW);
    const cj = colOf(b.x);
    const right = a.x > b.x;
    const gx = L.left + (right ? cj + 1 : cj) * L.colW + (right ? -off : off);
    const side = right ? 1 : -1;
    const start = g.events[i].thread < 0 ? { x: a.x, y: a.y + 13 } : { x: a.x + side * L.boxW / 2, y: a.y };
    const gapY = (g.events[i].thread < 0 ? L.colTop - 37 : rowGap(a.y + (b.y > a.y ? 37 : -37))) + off;
    const ownGutter = g.events[i].thread < 0 ? start.x : L.left + (colOf(a.x) + (right ? 0 : 1)) * L.colW + (right ? off : -off);
    return [start, { x: ownGutter, y: start.y }, { x: ownGutter, y: gapY }, { x: gx, y: gapY }, { x: gx, y: b.y }, { x: b.x + side * L.boxW / 2, y: b.y }];
  };
  // Edges between the same two events are spread apart.
  const seen = new Map();
  for (const e of g.edges) {
    const a = L.pos[e.from], b = L.pos[e.to];
    const k = [Math.min(e.from, e.to), Math.max(e.from, e.to)].join(",");
    const n = seen.get(k) || 0;
    seen.set(k, n + 1);
    const c = colour(e.rel);
    const attrs = { stroke: c, fill: "none", "stroke-width": e.bold ? 3 : 1.3, "marker-end": `url(#arrow-${c})`, "data-rel": e.rel };
    const ev = g.events;
    const sameCol = ev[e.from].thread === ev[e.to].thread;
    const h = 13; // half a box's height
    let d, lx, ly;
    const straight = { sx: a.x, sy: a.y + Math.sign(b.y - a.y) * h, cx: a.x, cy: (a.y + b.y) / 2, tx: b.x, ty: b.y - Math.sign(b.y - a.y) * h };
    if (e.rel === "po" && sameCol && n === 0 && !crosses(straight, e.from, e.to)) {
      const dir = b.y > a.y ? 1 : -1;
      d = `M ${a.x} ${a.y + dir * h} L ${b.x} ${b.y - dir * h}`;
      lx = a.x + 6; ly = (a.y + b.y) / 2 + 4;
    } else {
      // A curve bowing sideways: out of the column for events of one
      // thread, else bent by how many edges join the pair already; when it
      // would cross another event's box, bent more, to one side and then
      // the other, until it does not.
      const dx = b.x - a.x, dy = b.y - a.y;
      const len = Math.hypot(dx, dy) || 1;
      let bend = (sameCol ? 70 + 14 * Math.abs(dy) / 74 : 28) * (1 + n) * (n % 2 ? -1 : 1);
      if (sameCol && e.from > e.to) bend = -bend;
      const nx = -dy / len, ny = dx / len;
      // The ends sit on the boxes' sides facing the bend (for events of one
      // thread, and for a curve that cannot reach a box's top or bottom
      // past its neighbours), else on the top and bottom.
      const curve = (bend, sides) => {
        const side = sides ? Math.sign(nx * bend) || Math.sign(bend) : 0;
        const sx = a.x + side * (L.boxW / 2 - 8), sy = a.y + (sides ? 0 : Math.sign(dy) * h);
        const tx = b.x + side * (L.boxW / 2 - 8), ty = b.y - (sides ? 0 : Math.sign(dy) * h);
        return { sx, sy, tx, ty, cx: (sx + tx) / 2 + nx * bend, cy: (sy + ty) / 2 + ny * bend };
      };
      let q = curve(bend, sameCol);
      search: for (const f of [-1, 2, -2, 3, -3]) {
        for (const sides of sameCol ? [true] : [false, true]) {
          if (!crosses(q, e.from, e.to)) break search;
          const other = curve(bend * f, sides);
          if (!crosses(other, e.from, e.to)) q = other;
        }
      }
      if (crosses(q, e.from, e.to)) {
        // No curve keeps out of the boxes: go round them on the grid of
        // free lanes, the gutters between columns and the gaps between
        // rows (an orthogonal route; its label on its vertical leg).
        const r = lanes(e.from, e.to, n);
        d = "M " + r.map((p) => `${p.x} ${p.y}`).join(" L ");
        lx = r[3].x; ly = (r[3].y + r[4].y) / 2;
      } else {
        d = `M ${q.sx} ${q.sy} Q ${q.cx} ${q.cy} ${q.tx} ${q.ty}`;
        lx = (q.sx + 2 * q.cx + q.tx) / 4; ly = (q.sy + 2 * q.cy + q.ty) / 4;
      }
    }
    edges.appendChild(svgEl("path", Object.assign({ d, "data-from": e.from, "data-to": e.to }, attrs)));
    labels.appendChild(svgEl("text", { x: lx + 3, y: place(lx + 3, ly, e.rel), fill: c, class: "g-rel" + (e.bold ? " bold" : ""), "data-rel": e.rel }, e.rel));
  }
  g.events.forEach((e, i) => {
    const p = L.pos[i];
    const box = svgEl("g", { class: "g-event" + (e.thread < 0 ? " init" : ""), "data-event": i });
    box.appendChild(svgEl("rect", { x: p.x - L.boxW / 2, y: p.y - 13, width: L.boxW, height: 26, rx: 5 }));
    box.appendChild(svgEl("text", { x: p.x, y: p.y + 4 }, e.label.split("\n")[0]));
    if (e.source) {
      const what = e.source + (e.step ? ` (made by step ${e.step})` : "");
      box.appendChild(svgEl("title", {}, what));
      box.dataset.line = e.line;
      if (e.step) box.dataset.step = e.step;
      if (onEvent) {
        // A button: the event's line in the program, its step in the run.
        box.classList.add("link");
        box.setAttribute("role", "button");
        box.setAttribute("tabindex", "0");
        box.setAttribute("aria-label", `${e.label.split("\n")[0]}: ${what}`);
        const pick = () => {
          for (const other of svg.querySelectorAll(".g-event.picked")) other.classList.remove("picked");
          box.classList.add("picked");
          onEvent(e);
        };
        box.addEventListener("click", pick);
        box.addEventListener("keydown", (ev) => {
          if (ev.key === "Enter" || ev.key === " ") {
            ev.preventDefault();
            pick();
          }
        });
      }
    }
    svg.appendChild(box);
  });
  // Labels above the boxes, so that no box hides one.
  svg.appendChild(labels);
  let y = L.height + 14;
  // Each entry of the legend shows or hides its relation's edges.
  for (const k of key) {
    const item = svgEl("g", { class: "g-key-item", "data-rel": k.name, role: "button", tabindex: 0, "aria-pressed": "true" });
    item.appendChild(svgEl("title", {}, "show or hide the " + k.name + " edges"));
    item.appendChild(svgEl("line", { x1: 14, y1: y - 4, x2: 44, y2: y - 4, stroke: k.colour, "stroke-width": 2 }));
    item.appendChild(svgEl("text", { x: 52, y, class: "g-key", fill: k.colour }, k.name));
    item.appendChild(svgEl("text", { x: 90, y, class: "g-key" }, k.meaning));
    const toggle = () => {
      const hide = item.getAttribute("aria-pressed") === "true";
      item.setAttribute("aria-pressed", String(!hide));
      for (const el of svg.querySelectorAll(`.g-edges [data-rel="${k.name}"], .g-labels [data-rel="${k.name}"]`)) el.classList.toggle("off", hide);
    };
    item.addEventListener("click", toggle);
    item.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        toggle();
      }
    });
    svg.appendChild(item);
    y += 22;
  }
  if (g.bold) {
    svg.appendChild(svgEl("line", { x1: 14, y1: y - 4, x2: 44, y2: y - 4, stroke: "black", "stroke-width": 3 }));
    svg.appendChild(svgEl("text", { x: 52, y, class: "g-key" }, "bold: " + g.bold));
  }
  container.appendChild(svg);
}
