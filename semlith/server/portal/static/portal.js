// The semlith portal. Plain JavaScript, no build step, no network beyond this daemon.
// Every page reads the library's methods through /portal/api/<method> (the same
// endpoints as /api). The DOM is built with textContent only: paths and file text are
// never parsed as HTML.
"use strict";

const SESSION_KEY = "semlith-portal-session";
const ALL = { stores: ["*"] };  // the portal addresses every store unless a page picks one
const RENEW_MS = 5 * 60 * 1000;
const PAGES = [
  ["stores", "Stores"], ["files", "Files"], ["search", "Search"],
  ["runs", "Runs"], ["agents", "Agents"], ["graph", "Graph"],
];
let session = "";
let timer = 0;  // the live refresh of the page shown
let renderedAt = 0;
let generation = 0;  // bumped by each page change: an answer for an older page is dropped

// -- building the DOM -------------------------------------------------------------------

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "text") el.textContent = value;
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function n(value) { return Number(value || 0).toLocaleString("en-US"); }

function ago(unix) {
  if (!unix) return "never";
  const s = Math.max(0, Date.now() / 1000 - unix);
  if (s < 60) return `${Math.round(s)} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return new Date(unix * 1000).toLocaleString();
}

function duration(s) {
  if (s === null || s === undefined) return "estimating";
  if (s < 60) return `about ${Math.max(1, Math.round(s))} s left`;
  if (s < 3600) return `about ${Math.round(s / 60)} min left`;
  return `about ${(s / 3600).toFixed(1)} h left`;
}

function table(headers, rows, cls) {
  return h("div", { class: "table" }, h("table", { class: cls || "stack" },
    h("thead", {}, h("tr", {}, headers.map(([label, num]) =>
      h("th", { scope: "col", class: num ? "num" : null }, label)))),
    h("tbody", {}, rows)));
}

function cell(label, value, num) {
  return h("td", { "data-label": label, class: num ? "num" : null }, value);
}

function fill(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter(c => c !== null && c !== undefined
                                                       && c !== false));
}

function show(...children) {
  fill(document.getElementById("page"), ...children);
}

// Show only while the page that asked is still the one on screen.
function showFor(mine, ...children) {
  if (mine === generation) show(...children);
}

function problem(message) {
  return h("p", { class: "error", role: "alert" }, message);
}

// -- talking to the daemon ---------------------------------------------------------------

class Ended extends Error {}

async function post(path, body, headers) {
  const answer = await fetch(path, {
    method: "POST", cache: "no-store", credentials: "omit",
    headers: { "Content-Type": "application/json", ...(headers || {}) },
    body: JSON.stringify(body || {}),
  });
  let data = null;
  try { data = await answer.json(); } catch (e) { data = null; }
  return [answer.status, data];
}

async function call(method, body) {
  const [status, data] = await post(`/portal/api/${method}`, body,
                                    { "X-Semlith-Session": session });
  if (status === 401) { gate((data && data.error) || "the session has ended"); throw new Ended(); }
  if (status >= 400) throw new Error((data && data.error) || `the daemon answered HTTP ${status}`);
  return data;
}

async function exchange(token) {
  const [status, data] = await post("/portal/session", { token });
  if (status !== 200) throw new Error((data && data.error) || `HTTP ${status}`);
  return data.session;
}

async function renew() {
  const [status, data] = await post("/portal/renew", {}, { "X-Semlith-Session": session });
  if (status !== 200) { gate((data && data.error) || "the session has ended"); return; }
  remember(data.session);
}

function remember(token) {
  session = token;
  try { sessionStorage.setItem(SESSION_KEY, token); } catch (e) { /* private mode */ }
}

function awaitLink() {
  // A link opened in this tab changes only the fragment: no load, so start again.
  window.addEventListener("hashchange", () => {
    if (location.hash.startsWith("#token=")) location.reload();
  });
}

function gate(message) {
  clearInterval(timer);
  window.removeEventListener("hashchange", route);
  awaitLink();
  session = "";
  try { sessionStorage.removeItem(SESSION_KEY); } catch (e) { /* private mode */ }
  for (const id of ["top", "page"]) {
    const el = document.getElementById(id);
    if (el) el.remove();
  }
  const gateEl = document.getElementById("gate");
  gateEl.hidden = false;
  const error = document.getElementById("gate-error");
  if (message) { error.textContent = message; error.hidden = false; }
}

// -- the frame ---------------------------------------------------------------------------

function frame() {
  document.getElementById("gate").hidden = true;
  const nav = h("nav", { "aria-label": "Portal pages" }, h("ul", {}, PAGES.map(([id, title]) =>
    h("li", {}, h("a", { href: `#/${id}`, id: `nav-${id}` }, title)))));
  document.body.prepend(h("header", { id: "top" },
    h("span", { class: "brand" }, "semlith"), nav));
  document.body.append(h("main", { id: "page", tabindex: "-1" }));
  window.addEventListener("hashchange", route);
  setInterval(renew, RENEW_MS);
}

function route() {
  clearInterval(timer);
  const mine = ++generation;
  const id = (location.hash.match(/^#\/(\w+)/) || [])[1] || "stores";
  const known = PAGES.find(([name]) => name === id) ? id : "stores";
  for (const [name, title] of PAGES) {
    const link = document.getElementById(`nav-${name}`);
    if (name === known) {
      link.setAttribute("aria-current", "page");
      document.title = `${title} · semlith portal`;
    } else link.removeAttribute("aria-current");
  }
  document.body.dataset.page = known;
  const started = performance.now();
  delete document.body.dataset.rendered;
  Promise.resolve(PAGE_VIEWS[known]()).then(() => {
    if (mine !== generation) return;
    renderedAt = performance.now() - started;
    document.body.dataset.rendered = renderedAt.toFixed(1);
    if (!document.body.dataset.loaded) {  // since navigation start: the first page drawn
      document.body.dataset.loaded = performance.now().toFixed(1);
    }
  }).catch(failed);
}

function failed(error) {
  if (error instanceof Ended) return;
  show(problem(String(error.message || error)));
}

// For a question asked on a page: its error goes where its answer would have.
function failedIn(el) {
  return (error) => {
    if (!(error instanceof Ended)) fill(el, problem(String(error.message || error)));
  };
}

// Refresh the page shown every `ms` while the tab is visible; `mine`: the page's
// generation (a page left before its first answer starts no timer).
function live(mine, refresh, ms) {
  if (mine !== generation) return;
  clearInterval(timer);
  timer = setInterval(() => {
    if (!document.hidden) refresh().catch(e => { if (mine === generation) failed(e); });
  }, ms);
}

// -- Stores ------------------------------------------------------------------------------

function watchText(watch) {
  if (!watch) return "not watched";
  const parts = [`${watch.mode}, ${n(watch.pending)} pending, ${n(watch.batches)} batches`];
  if (watch.last_batch_at) parts.push(`last batch ${ago(watch.last_batch_at)}`);
  if (watch.last_error) parts.push(`last error: ${watch.last_error}`);
  return parts.join("; ");
}

function lastRunText(run) {
  if (!run) return "none since the daemon started";
  if (run.state === "running") return `running (${run.phase}), started ${ago(run.started)}`;
  return `${run.state} ${ago(run.finished)}: ${run.summary}`;
}

function storeCard(s, run) {
  const rows = [
    ["Root", s.root, "root"], ["Model", s.model, "model"], ["Backend", s.backend, "backend"],
    ["Files", n(s.files), "files"], ["Files pending", n(s.pending_files), "pending_files"],
    ["Chunks", n(s.chunks), "chunks"],
    ["Chunks not yet embedded", n(s.pending_chunks), "pending_chunks"],
    ["Last run", lastRunText(run), "last_run"], ["Watch", watchText(s.watch), "watch"],
  ];
  return h("section", { class: "card", "data-store": s.name, "aria-label": `Store ${s.name}` },
    h("h2", {}, s.name),
    h("dl", {}, rows.map(([term, value, field]) => [h("dt", {}, term),
      h("dd", { "data-field": field }, value)])));
}

async function storesPage() {
  const mine = generation;
  const draw = async () => {
    const [stats, runs] = await Promise.all([call("stats", { scope: { stores: ["*"] } }),
                                             call("runs")]);
    const byStore = {};
    for (const run of runs) if (!byStore[run.store]) byStore[run.store] = run;
    showFor(mine, h("h1", {}, "Stores"),
      stats.length ? h("div", { class: "cards" }, stats.map(s => storeCard(s, byStore[s.name])))
        : h("p", {}, "No store yet: run `semlith index FOLDER`."),
      h("p", { class: "muted", "aria-live": "polite" },
        `Refreshed every 2 s; last at ${new Date().toLocaleTimeString()}.`));
  };
  await draw();
  live(mine, draw, 2000);
}

// -- Files -------------------------------------------------------------------------------

function storePicker(id, stats, onchange) {
  return h("div", { class: "field" }, h("label", { for: id }, "Store"),
    h("select", { id, onchange }, stats.map(s => h("option", { value: s.name }, s.name))));
}

function buildTree(files) {
  const root = { dirs: {}, files: [], count: 0, langs: {} };
  for (const f of files) {
    const parts = f.path.split("/");
    let node = root;
    for (const part of parts.slice(0, -1)) {
      node.count += 1;
      node.langs[f.lang || "text"] = (node.langs[f.lang || "text"] || 0) + 1;
      node = node.dirs[part] || (node.dirs[part] = { dirs: {}, files: [], count: 0, langs: {} });
    }
    node.count += 1;
    node.langs[f.lang || "text"] = (node.langs[f.lang || "text"] || 0) + 1;
    node.files.push(f);
  }
  return root;
}

function langText(langs) {
  return Object.entries(langs).sort((a, b) => b[1] - a[1])
    .map(([lang, count]) => `${lang} ${count}`).join(", ");
}

function treeList(node, prefix, onForget) {
  const items = [];
  for (const name of Object.keys(node.dirs).sort()) {
    const dir = node.dirs[name];
    items.push(h("li", {}, h("details", {},
      h("summary", {}, h("span", { class: "mono" }, `${name}/`),
        ` — ${n(dir.count)} files: ${langText(dir.langs)}`),
      treeList(dir, `${prefix}${name}/`, onForget))));
  }
  for (const f of node.files.sort((a, b) => a.path.localeCompare(b.path))) {
    const name = f.path.split("/").pop();
    items.push(h("li", { class: "file", "data-path": f.path },
      h("span", { class: "mono" }, name),
      h("span", { class: "muted" }, `${f.lang || "text"}, ${n(f.size)} bytes, ${f.state}`),
      h("button", { type: "button", class: "quiet", "aria-label": `Forget ${f.path}`,
                    onclick: () => onForget(f.path) }, "Forget")));
  }
  return h("ul", {}, items);
}

async function filesPage() {
  const mine = generation;
  const stats = await call("stats", { scope: { stores: ["*"] } });
  if (!stats.length) { showFor(mine, h("h1", {}, "Files"), h("p", {}, "No store yet.")); return; }
  const body = h("div", {});
  const draw = async () => {
    const name = document.getElementById("files-store").value;
    const store = stats.find(s => s.name === name);
    const scope = { stores: [name] };
    const [files, skipped] = await Promise.all([call("files", { scope }),
                                                call("skipped", { scope })]);
    const forget = async (path) => {
      if (!window.confirm(`Remove ${path} from the index? (The file stays on disk.)`)) return;
      const removed = await call("forget", { path: `${store.root}/${path}`, store: name });
      say.textContent = `Forgot ${n(removed)} file(s) under ${path}.`;
      await draw();
    };
    const tree = buildTree(files);
    const secret = skipped.filter(s => s.reason === "secret");
    const withheld = store.withheld || {};
    fill(body,
      h("h2", {}, `${n(files.length)} files indexed`),
      h("p", { class: "muted" }, `Languages: ${langText(tree.langs) || "none"}`),
      h("div", { class: "tree" }, treeList(tree, "", forget)),
      h("h2", {}, "Withheld as secret"),
      h("p", { "data-field": "withheld" },
        `${n(withheld.secret_files)} secret files withheld; ${n(withheld.redacted_strings)} ` +
        `credential-shaped strings redacted in ${n(withheld.redacted_files)} files. ` +
        "Only their paths are shown, never their content."),
      secret.length ? h("ul", {}, secret.map(s => h("li", { class: "mono" },
        `${s.path} (${s.detail || "secret"})`))) : null,
      h("h2", {}, `${n(skipped.length)} files skipped`),
      skipped.length ? table([["Path"], ["Reason"], ["Detail"]], skipped.map(s => h("tr", {},
        cell("Path", h("span", { class: "mono" }, s.path)), cell("Reason", s.reason),
        cell("Detail", s.detail))))
        : h("p", {}, "None."));
  };
  const say = h("p", { role: "status", "aria-live": "polite" });
  showFor(mine, h("h1", {}, "Files"),
    h("div", { class: "row" }, storePicker("files-store", stats, () => draw().catch(failed))),
    say, body);
  await draw();
}

// -- Search ------------------------------------------------------------------------------

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

// -- Runs --------------------------------------------------------------------------------

// A run's row is updated in place, not redrawn: a Stop button under the pointer or the
// keyboard focus stays the same element while the numbers move.
function runRow(row, run) {
  const total = Math.max(run.chunks_total, run.chunks_done);
  const running = run.state === "running";
  row.dataset.state = run.state;
  const [, state, by, progress, time, action] = row.children;
  state.textContent = run.state;
  by.textContent = run.by;
  let bar = progress.querySelector("progress");
  if (running && total > 0) {
    if (!bar) { bar = h("progress", {}); progress.prepend(bar); }
    bar.max = total;
    bar.value = run.chunks_done;
    bar.setAttribute("aria-label", `${run.store}: ${run.chunks_done} of about ${total} chunks`);
  } else if (bar) bar.remove();
  progress.lastChild.textContent = running
    ? `${run.phase}: ${n(run.files_done)} of ${n(run.files_total)} files, ` +
      `${n(run.chunks_done)} of about ${n(total)} chunks` +
      (run.chunks_per_s ? `, ${n(Math.round(run.chunks_per_s))} chunks/s` : "")
    : run.summary;
  time.textContent = running ? duration(run.eta_s) : ago(run.finished);
  if (running && !action.firstChild) {
    fill(action, h("button", { type: "button", "aria-label": `Stop the run of ${run.store}`,
      onclick: () => call("stop_run", { store: run.store }).catch(failed) }, "Stop"));
  } else if (!running) fill(action);
}

function newRunRow(run) {
  return h("tr", { "data-store": run.store }, cell("Store", run.store), cell("State", ""),
    cell("Started by", ""), cell("Progress", h("div", {})), cell("Time", ""),
    cell("Action", null));
}

async function runsPage() {
  const mine = generation;
  const stats = await call("stats", { scope: { stores: ["*"] } });
  const list = h("div", { id: "runs" });
  const say = h("p", { role: "status", "aria-live": "polite" });
  const rows = new Map();  // store -> its row, kept across refreshes
  const body = h("tbody", {});
  const draw = async () => {
    const runs = await call("runs");
    if (!runs.length) {
      fill(list, h("p", {}, "No index run since the daemon started."));
      return;
    }
    if (!list.contains(body)) {
      fill(list, h("div", { class: "table" }, h("table", { class: "stack" },
        h("thead", {}, h("tr", {}, ["Store", "State", "Started by", "Progress", "Time",
                                    "Action"].map(label => h("th", { scope: "col" }, label)))),
        body)));
    }
    const order = runs.map(run => {
      const key = `${run.store}\u0000${run.started}`;
      if (!rows.has(key)) rows.set(key, newRunRow(run));
      runRow(rows.get(key), run);
      return rows.get(key);
    });
    for (const [key, row] of rows) if (!order.includes(row)) rows.delete(key);
    order.forEach((row, i) => { if (body.children[i] !== row) body.insertBefore(row, body.children[i] || null); });
    while (body.children.length > order.length) body.lastChild.remove();
  };
  const start = async () => {
    const store = document.getElementById("run-store").value;
    await call("index", { store });
    say.textContent = `Started a run of ${store}.`;
    await draw();
  };
  const forget = async (event) => {
    event.preventDefault();
    const name = document.getElementById("forget-store").value;
    const rel = document.getElementById("forget-path").value.trim().replace(/^\/+/, "");
    if (!rel) { say.textContent = "Type the path of a file or folder inside the store's root."; return; }
    const store = stats.find(s => s.name === name);
    const removed = await call("forget", { path: `${store.root}/${rel}`, store: name });
    say.textContent = `Forgot ${n(removed)} file(s) under ${rel}.`;
  };
  showFor(mine, h("h1", {}, "Runs"), list,
    stats.length ? [
      h("h2", {}, "Start a run"),
      h("div", { class: "row" }, storePicker("run-store", stats),
        h("button", { type: "button", id: "run-start", onclick: () => start().catch(failed) },
          "Index now")),
      h("h2", {}, "Forget a file or folder"),
      h("form", { class: "row", onsubmit: (e) => forget(e).catch(failed) },
        storePicker("forget-store", stats),
        h("div", { class: "field wide" }, h("label", { for: "forget-path" },
          "Path inside the store's root"),
          h("input", { id: "forget-path", type: "text", autocomplete: "off",
                       placeholder: "build/old.py" })),
        h("button", { type: "submit" }, "Forget")),
    ] : null,
    say);
  await draw();
  live(mine, draw, 1000);
}

// -- Agents ------------------------------------------------------------------------------

async function agentsPage() {
  const mine = generation;
  const a = await call("agents");
  showFor(mine, h("h1", {}, "Agents"),
    h("dl", {},
      h("dt", {}, "MCP endpoint"), h("dd", { class: "mono", "data-field": "endpoint" }, a.endpoint),
      h("dt", {}, "Agent key"), h("dd", { "data-field": "key_file" },
        `kept in ${a.key_file} (not shown here; \`semlith key show\` prints it in a terminal)`)),
    h("h2", {}, "Rotating the key"), h("p", {}, a.rotate),
    h("h2", {}, "Clients on this machine"),
    table([["Client"], ["Configured"], ["Config file"]], a.clients.map(c =>
      h("tr", { "data-client": c.name }, cell("Client", c.title),
        cell("Configured", c.configured ? "yes: names semlith" : "no"),
        cell("Config file", h("span", { class: "mono" }, c.config))))),
    h("p", { class: "muted" }, "`semlith setup CLIENT --write` adds semlith to a client's config."));
}

// -- Graph -------------------------------------------------------------------------------

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

const PAGE_VIEWS = { stores: storesPage, files: filesPage, search: searchPage,
                     runs: runsPage, agents: agentsPage, graph: graphPage };

// -- start -------------------------------------------------------------------------------

async function start() {
  const fromLink = (location.hash.match(/^#token=([^&]+)/) || [])[1];
  let stored = "";
  try { stored = sessionStorage.getItem(SESSION_KEY) || ""; } catch (e) { stored = ""; }
  if (fromLink) {
    history.replaceState(null, "", `${location.pathname}#/stores`);  // the link is spent
    try { remember(await exchange(decodeURIComponent(fromLink))); } catch (error) {
      gate(error.message);
      return;
    }
  } else if (stored) {
    session = stored;
  } else {
    awaitLink();  // no token: the explanation is all there is
    return;
  }
  frame();
  route();
}

start();
