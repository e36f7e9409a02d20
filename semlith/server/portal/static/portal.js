// The semlith portal. Plain JavaScript, no build step, no network beyond this daemon.
// Every page reads the library's methods through /portal/api/<method> (the same
// endpoints as /api). The DOM is built with textContent only: paths and file text are
// never parsed as HTML. The scripts share one global scope and run in the order
// index.html lists them (SCRIPTS in routes.py): the DOM, the daemon, the pages, and
// last this one, the frame, which starts the portal.
"use strict";

const ALL = { stores: ["*"] };  // the portal addresses every store unless a page picks one
const PAGES = [
  ["stores", "Stores"], ["files", "Files"], ["search", "Search"],
  ["runs", "Runs"], ["agents", "Agents"], ["graph", "Graph"],
];
let timer = 0;  // the live refresh of the page shown
let renderedAt = 0;
let generation = 0;  // bumped by each page change: an answer for an older page is dropped

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
