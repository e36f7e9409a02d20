// The semlith portal: the Search page.
"use strict";

// Words of a question too common to be worth marking in an excerpt.
const STOP_WORDS = new Set(("the and for with how does what where when which who why are was " +
  "were this that from into not but you your its has have had did can there then than they " +
  "them these those about any all our out").split(" "));
// Chunk kinds that name no kind of definition: the hit says only the name it is in.
const PLAIN_KINDS = new Set(["", "code", "text", "generated"]);
const EXCERPT_LINES = 8;

function words(value) {
  return value.split(/[\s,]+/).map(w => w.trim()).filter(Boolean);
}

// The question's words worth marking where they occur in an excerpt exactly.
function questionTerms(query) {
  const found = (query.match(/[\p{L}\p{N}_]+/gu) || []).map(w => w.toLowerCase());
  return [...new Set(found.filter(w => w.length >= 3 && !STOP_WORDS.has(w)))];
}

// "in function fetch_page": the definition (or section) a hit or a match is in.
// `part`: the definition's lines when the hit shows a part of it only (too large to show
// whole, semlith/search/whole.py), said as the CLI and MCP say it: `(part of 566-747)`.
function within(kind, name, part) {
  if (!name) return null;
  return h("span", { class: "within" }, "in ", PLAIN_KINDS.has(kind) ? "" : `${kind} `,
    h("code", {}, name), part ? ` (part of ${part[0]}-${part[1]})` : "");
}

function partOf(hit) {
  const [first, last] = hit.definition || [0, 0];
  return first && !(hit.start_line <= first && last <= hit.end_line) ? [first, last] : null;
}

// The lines read for a hit: `pattern`'s terms marked, the line `at` (a match) stressed.
function passageView(p, pattern, at) {
  const lines = p.lines.map((line, i) => h("li", { class: p.start_line + i === at ? "at" : null },
    line ? marked(line, termSpans(line, pattern)) : " "));
  return h("section", { class: "passage", id: "passage", tabindex: "-1",
                        "aria-label": `Lines ${p.start_line} to ${p.end_line} of ${p.path}` },
    h("h3", {}, `${p.store}:${p.path}:${p.start_line}-${p.end_line}`),
    h("p", { class: "muted" }, `${n(p.total_lines)} lines in all` +
      (p.changed ? "; the file changed on disk since it was indexed" : "")),
    h("ol", { start: p.start_line }, lines));
}

// One passage open at a time, under the hit that asked for it (not after all the hits,
// ~3,800 px down: issue #45), scrolled to and focused. Asked again, it closes.
function opener(pattern) {
  let shown = null;  // [the button, its slot] of the passage open
  const close = () => {
    if (!shown) return;
    const [button, slot] = shown;
    button.setAttribute("aria-expanded", "false");
    slot.parentElement.classList.remove("open");
    fill(slot);
    shown = null;
  };
  return async (button, slot, target, at) => {
    const again = shown && shown[0] === button;
    close();
    if (again) { button.focus(); return; }
    const p = await call("read", { target: `${target.store}:${target.path}:` +
      `${target.start_line}-${target.end_line}`, scope: { stores: [target.store] } });
    const view = passageView(p, pattern, at);
    fill(slot, view);
    slot.parentElement.classList.add("open");  // its excerpt gives way to the passage
    button.setAttribute("aria-expanded", "true");
    shown = [button, slot];
    slot.parentElement.scrollIntoView({ block: "start" });
    view.focus({ preventScroll: true });
  };
}

function openButton(label, text, open, target, at) {
  const slot = h("div", { class: "slot" });
  const button = h("button", { type: "button", class: "quiet mono", "aria-label": label,
                               "aria-expanded": "false" }, text);
  button.addEventListener("click", () => open(button, slot, target, at).catch(failed));
  return [button, slot];
}

function notesOf(answer) {
  return (answer.note ? [answer.note] : []).concat(
    answer.failed.map(f => `store ${f} (not searched)`)).map(note =>
    h("p", { class: "notice" }, prose(note)));
}

// Exact and regex mode: the matching lines grouped by file, ripgrep's way (issue #24),
// where the pattern matched marked and the definition each line is in named.
async function showMatches(out, body) {
  const found = await call("grep", body);
  const open = opener(null);
  const files = [];
  for (const m of found.matches) {
    const last = files[files.length - 1];
    if (last && last.store === m.store && last.path === m.path) last.matches.push(m);
    else files.push({ store: m.store, path: m.path, matches: [m] });
  }
  const more = found.more_matches ? `; ${n(found.more_matches)} more matches in ` +
    `${n(found.more_files)} files not shown` : "";
  const match = (m) => {
    const [button, slot] = openButton(`Open ${m.path} line ${m.line}`, `${m.line}:`, open,
      { store: m.store, path: m.path, start_line: Math.max(1, m.line - 10),
        end_line: m.line + 10 }, m.line);
    const inside = m.definition ? within(m.definition.kind, m.definition.name) : null;
    return h("div", { class: "match" }, h("div", { class: "hit-head" }, button, inside),
      h("pre", {}, m.before.map(line => `${line}\n`),
        marked(m.text, unitSpans(m.text, m.spans || [])), m.after.map(line => `\n${line}`)),
      slot);
  };
  fill(out,
    h("p", { role: "status" }, `${n(found.matches.length)} matching lines in ` +
      `${n(files.length)} files${more}`),
    notesOf(found),
    h("ol", { class: "hits" }, files.map(f => h("li", { "data-path": f.path,
                                                      "data-store": f.store },
      h("div", { class: "hit-head" }, h("span", { class: "mono" }, `${f.store}:${f.path}`)),
      f.matches.map(match)))));
}

function hitItem(hit, i, open, pattern) {
  const [button, slot] = openButton(
    `Open ${hit.path} lines ${hit.start_line} to ${hit.end_line}`,
    `${hit.path}:${hit.start_line}-${hit.end_line}`, open, hit, 0);
  // From the line the searcher chose to show (semlith/types/shown.py), as the CLI and the
  // MCP answer show it; a hit of an older daemon has none: from its first line.
  const lines = hit.text.split("\n");
  const first = hit.line > hit.start_line && hit.line - hit.start_line < lines.length ?
    hit.line - hit.start_line : 0;
  const excerpt = lines.slice(first, first + EXCERPT_LINES).join("\n");
  return h("li", { "data-path": hit.path, "data-store": hit.store },
    h("div", { class: "hit-head" }, button, within(hit.kind, hit.symbol, partOf(hit)),
      h("span", { class: "muted" }, `#${i + 1}` +  // the 0-1 relevance, as the CLI (#23)
        (hit.relevance == null ? "" : `, relevance ${hit.relevance.toFixed(2)}`) +
        `, ${hit.store}`)),
    h("pre", { class: "excerpt" }, marked(excerpt, termSpans(excerpt, pattern))), slot);
}

async function showHits(out, body) {
  const answer = await call("search", body);
  const pattern = termPattern(questionTerms(body.query));
  const open = opener(pattern);
  fill(out,
    h("p", { role: "status" }, `${n(answer.hits.length)} hits in ${answer.stores.join(", ")}`),
    notesOf(answer),
    h("ol", { class: "hits" }, answer.hits.map((hit, i) => hitItem(hit, i, open, pattern))));
}

function searchForm(stats, run) {
  const field = (id, label, hint, size) => h("div", { class: `field ${size || ""}` },
    h("label", { for: id }, label), h("input", { id, name: id, type: "text",
      placeholder: hint, autocomplete: "off" }));
  const choice = (id, label, options) => h("div", { class: "field narrow" },
    h("label", { for: id }, label), h("select", { id, name: id },
      options.map(([value, text]) => h("option", { value }, text))));
  return h("form", { class: "row", role: "search", onsubmit: run },
    field("q", "Question or words", "how does retry backoff work", "wide"),
    choice("s-store", "Store", [["*", "All stores"], ...stats.map(s => [s.name, s.name])]),
    field("f-path", "Path globs", "src/**  !tests/**"),
    field("f-ext", "Extensions", "py md", "narrow"),
    field("f-lang", "Languages", "python", "narrow"),
    choice("f-mode", "Mode", [["meaning", "Meaning"], ["exact", "Exact text"], ["regex", "Regex"]]),
    h("button", { type: "submit" }, "Search"));
}

async function searchPage() {
  const mine = generation;
  const stats = await call("stats", { scope: ALL });
  const out = h("div", { id: "results" });
  const value = (id) => document.getElementById(id).value;
  const ask = async () => {
    const query = value("q").trim();
    if (!query) { fill(out, problem("Type what you are looking for.")); return; }
    const asked = performance.now();
    delete document.body.dataset.searched;
    fill(out, h("p", { role: "status" }, "Searching…"));
    const filters = { paths: words(value("f-path")), exts: words(value("f-ext")),
                      langs: words(value("f-lang")) };
    const scope = { stores: [value("s-store")] };
    const mode = value("f-mode");
    if (mode === "meaning") await showHits(out, { query, k: 20, filters, scope });
    else await showMatches(out, { pattern: query, regex: mode === "regex", context: 2,
                                  limit: 200, filters, scope });
    document.body.dataset.searched = (performance.now() - asked).toFixed(1);
  };
  const run = (event) => { event.preventDefault(); ask().catch(failedIn(out)); };
  if (mine !== generation) return;
  show(h("h1", {}, "Search"), searchForm(stats, run), out);
  document.getElementById("q").focus();
}
