// The semlith portal: the Graph page.
"use strict";

function edgeRows(edges, far) {
  return table([[far], ["Kind"], ["Status"], ["Evidence"]], edges.map(e => h("tr", {},
    cell(far, e.name ? h("span", { class: "mono" },
      `${e.name}  ${e.path}:${e.start_line}-${e.end_line}`) : `one of ${n(e.candidates)} definitions`),
    cell("Kind", e.kind),
    cell("Status", e.status + (e.status === "ambiguous" ? ` (${n(e.candidates)} candidates)` : "")),
    cell("Evidence", h("span", { class: "mono" }, e.line ? `${e.site}:${e.line}` : e.site)))));
}

function omittedText(omitted) {
  const parts = Object.entries(omitted || {}).filter(([, count]) => count)
    .map(([what, count]) => `${n(count)} ${what}`);
  return parts.length ? h("p", { class: "muted" }, `Left out: ${parts.join(", ")}.`) : null;
}

async function graphPage() {
  const mine = generation;
  const [status, methods] = await post("/portal/methods", {}, { "X-Semlith-Session": session });
  if (status === 401) { gate((methods && methods.error) || "the session has ended"); return; }
  if (!Array.isArray(methods) || !methods.includes("neighbors")) {
    showFor(mine, h("h1", {}, "Graph"),
      h("p", {}, "This page will show the code graph once semlith records one: a symbol's " +
        "callers and callees, what a change to it may impact, and a path between two names, " +
        "each edge with its status (resolved, ambiguous or unresolved)."),
      h("p", { class: "muted" }, "The daemon does not answer graph questions yet."));
    return;
  }
  const out = h("div", { id: "graph" });
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
    if (what === "neighbors") {
      const a = await call("neighbors", { name, scope: ALL });
      fill(out, h("h2", {}, `${a.symbol.name} (${a.symbol.path}:${a.symbol.start_line})`),
        h("h3", {}, `${n(a.callers.length)} callers`), edgeRows(a.callers, "Caller"),
        h("h3", {}, `${n(a.callees.length)} callees`), edgeRows(a.callees, "Callee"),
        omittedText(a.omitted));
    } else if (what === "impact") {
      const a = await call("impact", { name, scope: ALL });
      fill(out, h("h2", {}, `What reaches ${a.symbol.name}`),
        edgeRows(a.entries, "Reached from"), omittedText(a.omitted));
    } else {
      const a = await call("path", { source: name, target, scope: ALL });
      fill(out, h("h2", {}, `${a.source.name} to ${a.target.name}`),
        a.hops.length ? edgeRows(a.hops, "Hop") : h("p", {}, "Not connected by settled calls" +
          (a.blocked ? `; an ambiguous call stops the walk: ${a.blocked}` : ".")),
        a.hypothesis ? h("p", { class: "notice" }, "A hypothesis: it crosses ambiguous calls.") : null);
    }
  };
  const button = (what, label) => h("button", { type: "button",
    onclick: () => ask(what).catch(failedIn(out)) }, label);
  showFor(mine, h("h1", {}, "Graph"),
    h("div", { class: "row" }, field("g-name", "Symbol", "Session.send"),
      field("g-target", "Path to (for a path)", "Router.dispatch"),
      button("neighbors", "Callers and callees"), button("impact", "Impact"),
      button("path", "Path")),
    out);
}
