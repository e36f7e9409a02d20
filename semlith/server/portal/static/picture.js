// The semlith portal: the code graph as a picture, an SVG the page draws from the JSON of
// `neighbors` and `path` (no library, nothing fetched). A neighbourhood: callers on the
// left, the symbol in the middle, callees on the right; a path: a chain, left to right,
// wrapping. An edge's status is its line: extracted solid, resolved dashed, ambiguous
// dotted (the legend and each node's label say it in words too). Every node that names a
// definition is a button: a click, Enter or Space recentres the picture on it.
"use strict";

const STATUSES = [  // the most settled first
  ["extracted", "in the caller's file"], ["resolved", "across files"],
  ["ambiguous", "one of several definitions"]];
const SIDE_WORDS = { caller: "caller", callee: "callee", hop: "then", target: "reaching" };
// Sizes in CSS pixels: the picture is drawn at the width it is shown (no scaling), so a
// label's characters are fitted by count (monospace: 0.6 em each), without a layout read.
const BOX = { h: 38, row: 48, pad: 8, name: 13, sub: 11, head: 26, link: 30 };

function fitEnd(text, px, size) {
  const max = Math.max(4, Math.floor(px / (size * 0.6)));
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function fitStart(text, px, size) {  // a path's end is the telling part
  const max = Math.max(4, Math.floor(px / (size * 0.6)));
  return text.length <= max ? text : `…${text.slice(text.length - max + 1)}`;
}

function evidence(e) {
  return e.line ? `${e.site}:${e.line}` : String(e.site || "");
}

function statusClass(status) {
  return String(status || "").replace(/[^\w-]/g, "");
}

// The far ends of `edges`, one node per definition (a caller calling from two lines is
// one node with two sites); a node's line is its most settled edge's. An ambiguous edge
// shown collapsed has no definition (no path; its name is the call as written): a node
// of its own, which cannot be recentred on.
function farNodes(edges, store) {
  const nodes = new Map();
  edges.forEach((e, i) => {
    const key = e.path ? `${e.store}\u0000${e.path}\u0000${e.start_line}\u0000${e.name}`
      : `?${i}`;
    if (!nodes.has(key)) {
      nodes.set(key, { name: e.name || "", path: e.path || "", start_line: e.start_line || 0,
                       end_line: e.end_line || 0, store: e.store || store,
                       candidates: e.candidates || 1, edges: [] });
    }
    nodes.get(key).edges.push(e);
  });
  const rank = (status) => {
    const i = STATUSES.findIndex(([known]) => known === status);
    return i < 0 ? STATUSES.length : i;  // a status this page does not know: last
  };
  for (const node of nodes.values()) {
    node.status = node.edges.map(e => e.status).sort((a, b) => rank(a) - rank(b))[0] || "";
  }
  return [...nodes.values()];
}

function nodeWords(node, side) {
  const label = node.path ? node.name : `${node.name || "a call"}: one of ${n(node.candidates)}`;
  const where = node.path ? `${node.path}:${node.start_line}`
    : `${n(node.candidates)} definitions, called at ${evidence(node.edges[0])}`;
  if (!node.edges || !node.edges.length) return { label, where, said: `${label}, ${where}` };
  const kinds = [...new Set(node.edges.map(e => e.kind || "calls"))].join(", ");
  const said = `${SIDE_WORDS[side] || side} ${label}, ${where}; ${kinds}, ${node.status}, at ` +
    node.edges.map(evidence).join(", ");
  return { label, where, said };
}

function nodeBox(node, x, y, w, side, recentre) {
  const { label, where, said } = nodeWords(node, side);
  const acts = Boolean(recentre && node.path && node.name);
  const g = svg("g", { class: `node ${side}${node.path ? "" : " unknown"}`,
    transform: `translate(${x.toFixed(1)} ${y.toFixed(1)})`, "data-side": side,
    "data-name": node.name, "data-path": node.path, "data-status": node.status,
    tabindex: acts ? "0" : "-1", role: acts ? "button" : "img",
    "aria-label": acts ? `${said}. Recentre on it.` : said },
  svg("title", {}, said),
  svg("rect", { width: w.toFixed(1), height: BOX.h, rx: 6 }),
  svg("text", { x: BOX.pad, y: 16, class: "name" }, fitEnd(label, w - 2 * BOX.pad, BOX.name)),
  svg("text", { x: BOX.pad, y: 31, class: "where" }, fitStart(where, w - 2 * BOX.pad, BOX.sub)));
  if (acts) {
    g.addEventListener("click", () => recentre(node));
    g.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
      recentre(node);
    });
  }
  return g;
}

function connector(d, status, title) {
  return svg("path", { class: `edge ${statusClass(status)}`, "data-status": status, d,
                       "marker-end": "url(#g-arrow)" }, svg("title", {}, title));
}

function curve(x1, y1, x2, y2) {
  const dx = Math.max(12, (x2 - x1) / 2);
  return `M${x1.toFixed(1)} ${y1.toFixed(1)} C${(x1 + dx).toFixed(1)} ${y1.toFixed(1)} ` +
    `${(x2 - dx).toFixed(1)} ${y2.toFixed(1)} ${x2.toFixed(1)} ${y2.toFixed(1)}`;
}

// `parts` drawn inset by a pixel: a box's border on the picture's edge is not cut.
function picture(id, width, height, label, ...parts) {
  const [w, h] = [Math.ceil(width) + 2, Math.ceil(height) + 2];
  return svg("svg", { id, class: "graph-picture", viewBox: `0 0 ${w} ${h}`, width: w, height: h,
                      role: "group", "aria-label": label },
    svg("defs", {}, svg("marker", { id: "g-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
      markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
    svg("path", { d: "M0 0 L10 5 L0 10 z" }))),
    svg("g", { transform: "translate(1 1)" }, parts));
}


// Callers left, the symbol in the middle, callees right; each column centred. A box is
// at most 260 px wide: wider, a short name floats in it and the lines grow long.
function neighbourhoodPicture(a, width, recentre) {
  const callers = farNodes(a.callers || [], a.symbol.store);
  const callees = farNodes(a.callees || [], a.symbol.store);
  const w = Math.min(260, (width - 2 * (width < 560 ? 24 : 64)) / 3);
  const gutter = Math.min(160, (width - 3 * w) / 2);
  const rows = Math.max(callers.length, callees.length, 1);
  const top = (count, i) => BOX.head + (rows - count) * BOX.row / 2 + i * BOX.row;
  const mid = top(1, 0) + BOX.h / 2;
  const centreX = w + gutter, rightX = 2 * (w + gutter);
  const edges = [], boxes = [];
  callers.forEach((node, i) => {
    const y = top(callers.length, i);
    edges.push(connector(curve(w, y + BOX.h / 2, centreX - 2, mid), node.status,
                         nodeWords(node, "caller").said));
    boxes.push(nodeBox(node, 0, y, w, "caller", recentre));
  });
  callees.forEach((node, i) => {
    const y = top(callees.length, i);
    edges.push(connector(curve(centreX + w, mid, rightX - 2, y + BOX.h / 2), node.status,
                         nodeWords(node, "callee").said));
    boxes.push(nodeBox(node, rightX, y, w, "callee", recentre));
  });
  boxes.push(nodeBox({ ...a.symbol, edges: [] }, centreX, top(1, 0), w, "centre", null));
  const heading = (x, text) => svg("text", { x, y: 14, class: "side" }, text);
  return picture("graph-picture", 3 * w + 2 * gutter, BOX.head + rows * BOX.row,
    `${a.symbol.name}: its callers on the left, its callees on the right`,
    heading(0, counted(callers.length, "caller", "callers")),
    heading(rightX, counted(callees.length, "callee", "callees")), edges, boxes);
}

// The path as a chain: source, each hop, the target; left to right, wrapping into rows.
function chainPicture(a, width, recentre) {
  const nodes = [{ ...a.source, edges: [], status: "" }, ...a.hops.map(e => ({
    name: e.name, path: e.path, start_line: e.start_line, end_line: e.end_line,
    store: e.store, candidates: e.candidates || 1, edges: [e], status: e.status }))];
  const gap = 36;
  const w = Math.min(240, width);
  const per = Math.max(1, Math.floor((width + gap) / (w + gap)));
  const at = (i) => [(i % per) * (w + gap), Math.floor(i / per) * (BOX.h + BOX.link)];
  const edges = [], boxes = [];
  nodes.forEach((node, i) => {
    const [x, y] = at(i);
    const side = i === 0 ? "source" : i === nodes.length - 1 ? "target" : "hop";
    boxes.push(nodeBox(node, x, y, w, side, recentre));
    if (!i) return;
    const [px, py] = at(i - 1);
    const d = py === y  // along the row, or down from the end of one row to the next's start
      ? `M${(px + w).toFixed(1)} ${y + BOX.h / 2} L${(x - 2).toFixed(1)} ${y + BOX.h / 2}`
      : `M${(px + w / 2).toFixed(1)} ${py + BOX.h} C${(px + w / 2).toFixed(1)} ${y - 8} ` +
        `${(x + w / 2).toFixed(1)} ${py + BOX.h + 8} ${(x + w / 2).toFixed(1)} ${y - 2}`;
    edges.push(connector(d, node.status, nodeWords(node, "hop").said));
  });
  const rows = Math.ceil(nodes.length / per);
  const wide = Math.min(nodes.length, per) * (w + gap) - gap;
  return picture("graph-chain", wide, rows * (BOX.h + BOX.link) - BOX.link,
    `The path from ${a.source.name} to ${a.target.name}, ${counted(a.hops.length, "hop", "hops")}`,
    edges, boxes);
}

function legend() {
  return h("ul", { class: "legend", "aria-label": "What an edge's line says" },
    STATUSES.map(([status, words]) => h("li", {},
      svg("svg", { width: 40, height: 10, "aria-hidden": "true" },
        svg("line", { x1: 0, y1: 5, x2: 40, y2: 5, class: `edge ${status}`,
                      "data-status": status })),
      ` ${status}: ${words}`)));
}
