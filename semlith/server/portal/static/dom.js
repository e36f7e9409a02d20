// The semlith portal: building the DOM. Text is set with textContent only: paths and
// file text are never parsed as HTML.
"use strict";

function h(tag, attrs, ...children) {
  return dress(document.createElement(tag), attrs, children);
}

// An SVG element (the graph's picture), built as `h` builds HTML.
function svg(tag, attrs, ...children) {
  return dress(document.createElementNS("http://www.w3.org/2000/svg", tag), attrs, children);
}

function dress(el, attrs, children) {
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

function counted(count, one, many) {
  return `${n(count)} ${count === 1 ? one : many}`;
}

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
  return h("p", { class: "error", role: "alert" }, prose(message));
}

// -- words -------------------------------------------------------------------------------

// A sentence from the library as a person reads it: what the CLI prints between
// backticks (`semlith stop`) is code. A stray backtick (an odd count) leaves the text as
// it is: it was not Markdown.
function prose(text) {
  const parts = String(text === null || text === undefined ? "" : text).split("`");
  if (parts.length % 2 === 0) return parts.join("`");
  return parts.map((part, i) => (i % 2 ? h("code", {}, part) : part)).filter(p => p !== "");
}

// `text` with its [start, end) spans marked (<mark>), the rest as plain text.
function marked(text, spans) {
  const out = [];
  let at = 0;
  for (const [start, end] of [...spans].sort((a, b) => a[0] - b[0])) {
    if (start < at || end <= start) continue;  // overlapping or empty: the first one wins
    if (start > at) out.push(text.slice(at, start));
    out.push(h("mark", {}, text.slice(start, end)));
    at = end;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

// One letter either case: the terms are matched without the `i` flag, under which
// \p{Lu} would match lower case too and the camel-case boundary below would be lost.
function caseless(term) {
  return [...term].map(c => {
    const lower = c.toLowerCase(), upper = c.toUpperCase();
    return lower !== upper && lower.length === 1 && upper.length === 1
      ? `[${lower}${upper}]` : c.replace(/[\\^$.*+?()[\]{}|\/]/g, "\\$&");
  }).join("");
}

// A pattern for `terms` where they begin a word or an identifier's part: `retry` in
// `call_with_retry` and in `RetryPolicy`, `work` not in `network`. Null for no terms.
function termPattern(terms) {
  if (!terms.length) return null;
  const alternatives = [...terms].sort((a, b) => b.length - a.length).map(caseless);
  return new RegExp(`(?:(?<![\\p{L}\\p{N}])|(?<=\\p{Ll})(?=\\p{Lu}))(?:${alternatives.join("|")})`,
                    "gu");
}

function termSpans(text, pattern) {
  if (!pattern) return [];
  return [...text.matchAll(pattern)].map(m => [m.index, m.index + m[0].length]);
}

// The daemon counts characters as Python does (code points); JavaScript's strings count
// UTF-16 units: a span after an emoji would land one unit early.
function unitSpans(text, spans) {
  if (!/[\uD800-\uDFFF]/.test(text)) return spans;
  const units = [0];
  for (const c of text) units.push(units[units.length - 1] + c.length);
  return spans.map(([start, end]) => [units[start] ?? text.length, units[end] ?? text.length]);
}
