// The semlith portal: the Search page.
"use strict";

function words(value) {
  return value.split(/[\s,]+/).map(w => w.trim()).filter(Boolean);
}

function passageView(p) {
  const lines = p.lines.map(line => h("li", {}, line || " "));
  const list = h("ol", { start: p.start_line }, lines);
  return h("section", { class: "passage", id: "passage", tabindex: "-1",
                        "aria-label": `Lines ${p.start_line} to ${p.end_line} of ${p.path}` },
    h("h2", {}, `${p.store}:${p.path}:${p.start_line}-${p.end_line}`),
    h("p", { class: "muted" }, `${n(p.total_lines)} lines in all` +
      (p.changed ? "; the file changed on disk since it was indexed" : "")),
    list);
}

// Exact and regex mode: the matching lines grouped by file, ripgrep's way (issue #24).
async function showMatches(out, open, body) {
  const found = await call("grep", body);
  const notes = (found.note ? [found.note] : []).concat(
    found.failed.map(f => `store ${f} (not searched)`));
  const files = [];
  for (const m of found.matches) {
    const last = files[files.length - 1];
    if (last && last.store === m.store && last.path === m.path) last.matches.push(m);
    else files.push({ store: m.store, path: m.path, matches: [m] });
  }
  const more = found.more_matches ? `; ${n(found.more_matches)} more matches in ` +
    `${n(found.more_files)} files not shown` : "";
  fill(out,
    h("p", { role: "status" }, `${n(found.matches.length)} matching lines in ` +
      `${n(files.length)} files${more}`),
    notes.map(note => h("p", { class: "notice" }, note)),
    h("ol", { class: "hits" }, files.map(f => h("li", { "data-path": f.path },
      h("div", { class: "hit-head" }, h("span", { class: "mono" }, `${f.store}:${f.path}`)),
      f.matches.map(m => h("div", {},
        h("button", { type: "button", class: "quiet mono", "aria-label": `Open ${m.path} line ${m.line}`,
                      onclick: () => open({ store: m.store, path: m.path,
                        start_line: Math.max(1, m.line - 10), end_line: m.line + 10 }).catch(failed) },
          `${m.line}:`),
        h("pre", {}, [...m.before, m.text, ...m.after].join("\n"))))))));
}

async function searchPage() {
  const out = h("div", { id: "results" });
  const opened = h("div", {});
  const field = (id, label, hint, wide) => h("div", { class: wide ? "field wide" : "field" },
    h("label", { for: id }, label), h("input", { id, name: id, type: "text",
      placeholder: hint, autocomplete: "off" }));
  const open = async (hit) => {
    const p = await call("read", { target: `${hit.store}:${hit.path}:${hit.start_line}-${hit.end_line}`,
                                   scope: { stores: [hit.store] } });
    const view = passageView(p);
    fill(opened, view);
    view.focus();
  };
  const run = async (event) => {
    event.preventDefault();
    const query = document.getElementById("q").value.trim();
    if (!query) { fill(out, problem("Type what you are looking for.")); return; }
    const asked = performance.now();
    delete document.body.dataset.searched;
    fill(out, h("p", { role: "status" }, "Searching…"));
    fill(opened);
    const filters = { paths: words(document.getElementById("f-path").value),
                      exts: words(document.getElementById("f-ext").value),
                      langs: words(document.getElementById("f-lang").value) };
    const mode = document.getElementById("f-mode").value;
    if (mode !== "meaning") {
      await showMatches(out, open, { pattern: query, regex: mode === "regex", context: 2,
                                     limit: 200, filters, scope: { stores: ["*"] } });
      document.body.dataset.searched = (performance.now() - asked).toFixed(1);
      return;
    }
    const answer = await call("search", { query, k: 20, filters, scope: { stores: ["*"] } });
    const notes = (answer.note ? [answer.note] : []).concat(
      answer.failed.map(f => `store ${f} (not searched)`));
    fill(out,
      h("p", { role: "status" }, `${n(answer.hits.length)} hits in ${answer.stores.join(", ")}`),
      notes.map(note => h("p", { class: "notice" }, note)),
      h("ol", { class: "hits" }, answer.hits.map((hit, i) => h("li", { "data-path": hit.path },
        h("div", { class: "hit-head" },
          h("button", { type: "button", class: "quiet mono", onclick: () => open(hit).catch(failed),
                        "aria-label": `Open ${hit.path} lines ${hit.start_line} to ${hit.end_line}` },
            `${hit.path}:${hit.start_line}-${hit.end_line}`),
          h("span", { class: "muted" }, `#${i + 1}` +  // the 0-1 relevance, as the CLI (#23)
            (hit.relevance == null ? "" : `, relevance ${hit.relevance.toFixed(2)}`) +
            (hit.symbol ? `, ${hit.symbol}` : "") + `, ${hit.store}`)),
        h("pre", {}, hit.text.split("\n").slice(0, 8).join("\n"))))));
    document.body.dataset.searched = (performance.now() - asked).toFixed(1);
  };
  show(h("h1", {}, "Search"),
    h("form", { class: "row", role: "search", onsubmit: (e) => run(e).catch(failedIn(out)) },
      field("q", "Question or words", "how does retry backoff work", true),
      field("f-path", "Path globs", "src/**  !tests/**"),
      field("f-ext", "Extensions", "py md"),
      field("f-lang", "Languages", "python"),
      h("div", { class: "field" }, h("label", { for: "f-mode" }, "Mode"),
        h("select", { id: "f-mode", name: "f-mode" },
          h("option", { value: "meaning" }, "Meaning"),
          h("option", { value: "exact" }, "Exact text"),
          h("option", { value: "regex" }, "Regex"))),
      h("button", { type: "submit" }, "Search")),
    out, opened);
  document.getElementById("q").focus();
}
