// The semlith portal: building the DOM. Text is set with textContent only: paths and
// file text are never parsed as HTML.
"use strict";

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
