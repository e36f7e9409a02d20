// The semlith portal: talking to the daemon (the session, /portal/api/<method>).
"use strict";

const SESSION_KEY = "semlith-portal-session";
const RENEW_MS = 5 * 60 * 1000;
let session = "";

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
