// The semlith portal: the Graph page. A symbol's neighbourhood and a path are drawn
// (picture.js) above the tables that give each edge's evidence.
"use strict";

const TRAIL_MAX = 8;  // the centres a person can step back to

function edgeRows(edges, far) {
  return table([[far], ["Kind"], ["Status"], ["Evidence"]], edges.map(e => h("tr", {},
    cell(far, e.path ? h("span", { class: "mono" },
      `${e.name}  ${e.path}:${e.start_line}-${e.end_line}`)
      : [h("span", { class: "mono" }, e.name || "a call"),
         `: one of ${n(e.candidates)} definitions`]),
    cell("Kind", e.kind),
    cell("Status", e.status + (e.status === "ambiguous" ? ` (${n(e.candidates)} candidates)` : "")),
    cell("Evidence", h("span", { class: "mono" }, evidence(e))))));
}

function omittedText(omitted) {
  const parts = Object.entries(omitted || {}).filter(([, count]) => count)
    .map(([what, count]) => `${n(count)} ${what}`);
  return parts.length ? h("p", { class: "muted" }, `Left out: ${parts.join(", ")}.`) : null;
}

// Every edge, ambiguous ones each listed and crossed (`--all-edges`): a path is then a
// hypothesis.
function allEdges() {
  return document.getElementById("g-all").checked;
}

// From a question to its answer drawn, in data-graphed (ms): tests wait on it.
async function timed(work) {
  const asked = performance.now();
  delete document.body.dataset.graphed;
  await work();
  document.body.dataset.graphed = (performance.now() - asked).toFixed(1);
}

function noGraph() {
  return [h("h1", {}, "Graph"),
    h("p", {}, "This page will show the code graph once semlith records one: a symbol's " +
      "callers and callees, what a change to it may impact, and a path between two names, " +
      "each edge with its status (resolved, ambiguous or unresolved)."),
    h("p", { class: "muted" }, "The daemon does not answer graph questions yet.")];
}

// The page's questions, drawn into `out`. A node clicked recentres on its definition: its
// name, chosen by its path and store (a name can have several definitions).
function grapher(out) {
  let trail = [];  // the centres shown before this one, oldest first
  let centre = null;
  const width = () => Math.max(240, Math.floor(out.clientWidth || 640) - 2);
  const request = (node) => ({ name: node.name, filters: { paths: [node.path] },
                               scope: { stores: [node.store] }, all_edges: allEdges() });
  const visit = (node, how) => {
    document.getElementById("g-name").value = node.name;
    timed(() => neighbours(request(node), how)).catch(failedIn(out));
  };
  const back = () => trail.length ? h("p", { class: "trail" }, "Shown before: ",
    trail.map((node, i) => [i ? " › " : "", h("button", { type: "button", class: "quiet mono",
      "aria-label": `Back to ${node.name} (${node.path}:${node.start_line})`,
      onclick: () => { trail = trail.slice(0, i); visit(node, "back"); } }, node.name)])) : null;
  // how: "ask" (a new question: no trail), "forward" (a node clicked), "back" (the trail).
  const neighbours = async (body, how) => {
    const a = await call("neighbors", body);
    if (how === "ask") trail = [];
    else if (how === "forward" && centre) trail = [...trail, centre].slice(-TRAIL_MAX);
    centre = a.symbol;
    fill(out, h("h2", {}, `${a.symbol.name} (${a.symbol.path}:${a.symbol.start_line})`), back(),
      neighbourhoodPicture(a, width(), (node) => visit(node, "forward")), legend(),
      h("h3", {}, counted(a.callers.length, "caller", "callers")), edgeRows(a.callers, "Caller"),
      h("h3", {}, counted(a.callees.length, "callee", "callees")), edgeRows(a.callees, "Callee"),
      omittedText(a.omitted));
    if (how !== "ask") out.querySelector(".node.centre").focus();  // the keyboard stays here
  };
  const chain = async (body) => {
    const a = await call("path", body);
    trail = [];
    centre = null;
    fill(out, h("h2", {}, `${a.source.name} to ${a.target.name}`),
      a.hops.length ? [chainPicture(a, width(), (node) => visit(node, "forward")), legend(),
        edgeRows(a.hops, "Hop")]
        : h("p", {}, prose("Not connected by settled calls" +
          (a.blocked ? `; an ambiguous call stops the walk: ${a.blocked}` : "."))),
      a.hypothesis ? h("p", { class: "notice" }, "A hypothesis: it crosses ambiguous calls.")
        : null);
  };
  const impact = async (body) => {
    const a = await call("impact", body);
    fill(out, h("h2", {}, `What reaches ${a.symbol.name}`),
      edgeRows(a.entries, "Reached from"), omittedText(a.omitted));
  };
  return { neighbours, chain, impact };
}

async function graphPage() {
  const mine = generation;
  const [status, methods] = await post("/portal/methods", {}, { "X-Semlith-Session": session });
  if (status === 401) { gate((methods && methods.error) || "the session has ended"); return; }
  if (!Array.isArray(methods) || !methods.includes("neighbors")) {
    showFor(mine, noGraph());
    return;
  }
  const out = h("div", { id: "graph" });
  const draw = grapher(out);
  const field = (id, label, hint) => h("div", { class: "field" },
    h("label", { for: id }, label),
    h("input", { id, type: "text", placeholder: hint, autocomplete: "off" }));
  const ask = async (what) => {
    const name = document.getElementById("g-name").value.trim();
    const target = document.getElementById("g-target").value.trim();
    if (!name || (what === "path" && !target)) {
      fill(out, problem(what === "path" ? "Name both ends of the path." : "Name a symbol."));
      return;
    }
    const all_edges = allEdges();
    const questions = {
      neighbors: () => draw.neighbours({ name, scope: ALL, all_edges }, "ask"),
      impact: () => draw.impact({ name, scope: ALL, all_edges }),
      path: () => draw.chain({ source: name, target, scope: ALL, all_edges }),
    };
    await timed(questions[what]);
  };
  const button = (what, label) => h("button", { type: "button",
    onclick: () => ask(what).catch(failedIn(out)) }, label);
  showFor(mine, h("h1", {}, "Graph"),
    h("div", { class: "row" }, field("g-name", "Symbol", "Session.send"),
      field("g-target", "Path to (for a path)", "Router.dispatch"),
      h("div", { class: "check" }, h("input", { id: "g-all", type: "checkbox" }),
        h("label", { for: "g-all" }, "Cross ambiguous calls")),
      button("neighbors", "Callers and callees"), button("impact", "Impact"),
      button("path", "Path")),
    out);
}
