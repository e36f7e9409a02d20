// The semlith portal: the Stores, Files, Runs and Agents pages.
"use strict";

// -- Stores ------------------------------------------------------------------------------

function watchText(watch) {
  if (!watch) return "not watched";
  const parts = [`${watch.mode}, ${n(watch.pending)} pending, ${n(watch.batches)} batches`];
  if (watch.last_batch_at) parts.push(`last batch ${ago(watch.last_batch_at)}`);
  if (watch.last_error) parts.push(`last error: ${watch.last_error}`);
  return prose(parts.join("; "));
}

// Who started a run, in words (Run.by: `index` for the person's library, the CLI's and
// this page's, `agent` for an MCP client's, `watch` for the watcher's).
const STARTED_BY = { index: "you", agent: "an agent", watch: "the watcher" };

function startedBy(by) {
  return STARTED_BY[by] || by || "someone";
}

function lastRunText(run) {
  if (!run) return "none since the daemon started";
  const who = `started by ${startedBy(run.by)}`;
  if (run.state === "running") return `running (${run.phase}), ${who} ${ago(run.started)}`;
  return prose(`${run.state} ${ago(run.finished)}, ${who}: ${run.summary}`);
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
        : h("p", {}, prose("No store yet: run `semlith index FOLDER`.")),
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
        ` — ${counted(dir.count, "file", "files")}: ${langText(dir.langs)}`),
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

// The paths the Withheld paragraph promises: files kept out whole, and files indexed with
// their credential-shaped strings replaced by a marker (how many in each).
function withheldLists(secret, redacted) {
  const list = (field, items) => h("ul", { class: "paths", "data-field": field }, items);
  return [
    secret.length ? [h("h3", {}, "Kept out whole"), list("secret-files", secret.map(s =>
      h("li", {}, h("span", { class: "mono" }, s.path), ` (${s.detail || "secret"})`)))] : null,
    redacted.length ? [h("h3", {}, "Indexed with credentials redacted"),
      list("redacted-files", redacted.map(f => h("li", { "data-path": f.path },
        h("span", { class: "mono" }, f.path),
        ` (${n(f.redacted)} ${f.redacted === 1 ? "string" : "strings"} redacted)`)))] : null,
  ];
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
      h("h2", {}, `${counted(files.length, "file", "files")} indexed`),
      h("p", { class: "muted" }, `Languages: ${langText(tree.langs) || "none"}`),
      h("div", { class: "tree" }, treeList(tree, "", forget)),
      h("h2", {}, "Withheld as secret"),
      h("p", { "data-field": "withheld" },
        `${counted(withheld.secret_files, "secret file", "secret files")} withheld; ` +
        `${counted(withheld.redacted_strings, "credential-shaped string",
                   "credential-shaped strings")} redacted in ` +
        `${counted(withheld.redacted_files, "file", "files")}. ` +
        "Only their paths are shown, never their content."),
      withheldLists(secret, files.filter(f => f.redacted > 0)),
      h("h2", {}, `${counted(skipped.length, "file", "files")} skipped`),
      skipped.length ? table([["Path"], ["Reason"], ["Detail"]], skipped.map(s => h("tr", {},
        cell("Path", h("span", { class: "mono" }, s.path)), cell("Reason", s.reason),
        cell("Detail", prose(s.detail)))))
        : h("p", {}, "None."));
  };
  const say = h("p", { role: "status", "aria-live": "polite" });
  showFor(mine, h("h1", {}, "Files"),
    h("div", { class: "row" }, storePicker("files-store", stats, () => draw().catch(failed))),
    say, body);
  await draw();
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
  by.textContent = startedBy(run.by);
  let bar = progress.querySelector("progress");
  if (running && total > 0) {
    if (!bar) { bar = h("progress", {}); progress.prepend(bar); }
    bar.max = total;
    bar.value = run.chunks_done;
    bar.setAttribute("aria-label", `${run.store}: ${run.chunks_done} of about ${total} chunks`);
  } else if (bar) bar.remove();
  fill(progress.lastChild, running
    ? `${run.phase}: ${n(run.files_done)} of ${n(run.files_total)} files, ` +
      `${n(run.chunks_done)} of about ${n(total)} chunks` +
      (run.chunks_per_s ? `, ${n(Math.round(run.chunks_per_s))} chunks/s` : "")
    : prose(run.summary));
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
        prose(`kept in ${a.key_file} (not shown here; \`semlith key show\` prints it in a ` +
              "terminal)"))),
    h("h2", {}, "Rotating the key"), h("p", {}, prose(a.rotate)),
    h("h2", {}, "Clients on this machine"),
    table([["Client"], ["Configured"], ["Config file"]], a.clients.map(c =>
      h("tr", { "data-client": c.name }, cell("Client", c.title),
        cell("Configured", c.configured ? "yes: names semlith" : "no"),
        cell("Config file", h("span", { class: "mono" }, c.config))))),
    h("p", { class: "muted" },
      prose("`semlith setup CLIENT --write` adds semlith to a client's config.")));
}
