// The console's script: talks to the JSON API, builds elements, routes the address (/, /tasks,
// /tasks/ID, /jobs, /jobs/NAME, /hosts) to the page scripts (overview.js, tasks.js, task.js,
// jobs.js, hosts.js)
// and keeps the page live from the event stream. No framework, no build step; every text goes
// into the page through textContent.
"use strict";

const csrf = document.querySelector('meta[name="tq-csrf"]').content;
const readOnly = document.querySelector('meta[name="tq-read-only"]').content === "true";
const canSignOut = document.querySelector('meta[name="tq-sign-out"]').content === "true";
const SIGNED_OUT = "Your session has ended (signed out, 12 hours old, or tq web restarted): " +
  "sign in again with the address tq web printed.";
const SVG = "http://www.w3.org/2000/svg";
const ACTIVE_STATES = ["pending", "running"];
const RETRYABLE_STATES = ["failed", "cancelled"];
const FINISHED_STATES = ["succeeded", "failed", "cancelled", "expired"];
const ALL_STATES = ["pending", "running", "succeeded", "failed", "cancelled", "expired"];

// ---- talking to the API ----

// GET /api/TYPE with `body` as its q argument; the parsed answer (throws tqd's message).
async function read(type, body = {}) {
  const r = await fetch(`/api/${type}?q=${encodeURIComponent(JSON.stringify(body))}`);
  return answerOf(r);
}

// POST /api/TYPE with `body`; the parsed answer (throws tqd's message).
async function change(type, body) {
  const r = await fetch(`/api/${type}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify(body),
  });
  return answerOf(r);
}

// The JSON of a response, or an Error with tqd's message (or the HTTP status) when it refused.
async function answerOf(r) {
  if (r.status === 401) throw new Error(SIGNED_OUT);
  let answer;
  try { answer = await r.json(); } catch (_) { throw new Error(`HTTP ${r.status}`); }
  if (!answer.ok) throw new Error(answer.error ? answer.error.message : `HTTP ${r.status}`);
  return answer;
}

// Every task of the list filter `filter` (all pages), oldest pages last.
async function listAll(filter) {
  const tasks = [];
  let before = undefined;
  for (;;) {
    const body = Object.assign({}, filter, { limit: 1000 });
    if (before !== undefined) body.before_id = before;
    const answer = await read("list", body);
    tasks.push(...answer.tasks);
    if (!answer.more) return tasks;
    before = answer.next_before_id;
  }
}

// ---- building the page ----

// An element `tag` with `text` and attributes `attrs` (class, href, data-*...).
function el(tag, text = "", attrs = {}) {
  const e = document.createElement(tag);
  e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

// `parent` with `children` appended (null and undefined children are skipped); `parent`.
function put(parent, ...children) {
  for (const c of children) if (c !== null && c !== undefined) parent.append(c);
  return parent;
}

// An SVG element `tag` with attributes `attrs`.
function svg(tag, attrs = {}) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

// A link inside the console; clicks on it are routed without loading the page again.
function link(href, text, attrs = {}) {
  return el("a", text, Object.assign({ href }, attrs));
}

// A button doing `action` (its data-action) that runs `work` and then redraws; null when the
// A button that runs `work` when clicked: after the user confirms `ask` (when given), then says
// `done` (when given) in the banner and draws the page again; a refusal goes to the banner.
function button(label, action, work, { ask = null, done = null } = {}) {
  if (readOnly) return null;
  const b = el("button", label, { "data-action": action, type: "button" });
  b.addEventListener("click", async () => {
    if (ask && !confirm(ask)) return;
    b.disabled = true;
    try {
      await work();
      if (done) notice(done); else document.getElementById("flash").hidden = true;
    } catch (e) { flash(e); }
    b.disabled = false;
    redraw();
  });
  return b;
}

// A table with header `heads` and a body; returns [table, tbody].
function table(heads, attrs = {}) {
  const t = el("table", "", attrs);
  const head = t.createTHead().insertRow();
  for (const h of heads) head.appendChild(el("th", h));
  return [t, t.createTBody()];
}

// A row of cells appended to `body`: strings become text cells, nodes are put in cells as is.
function row(body, cells, attrs = {}) {
  const r = body.insertRow();
  for (const [k, v] of Object.entries(attrs)) r.setAttribute(k, v);
  for (const c of cells) {
    const td = r.insertCell();
    if (c instanceof Node) td.append(c); else td.textContent = c === null || c === undefined ? "" : String(c);
  }
  return r;
}

// A definition list of [term, value] pairs (values are text or nodes; null values are skipped).
function facts(pairs) {
  const dl = el("dl", "", { class: "facts" });
  for (const [k, v] of pairs) {
    if (v === null || v === undefined || v === "") continue;
    dl.append(el("dt", k));
    put(dl, put(el("dd"), v instanceof Node ? v : String(v)));
  }
  return dl;
}

// A state word in its colour.
function stateEl(state) {
  return el("span", state, { class: `state state-${state}` });
}

// A time in the browser's zone (the date too unless it is today), its UTC ISO form on hover.
function timeEl(value) {
  if (value === null || value === undefined) return el("span", "–", { class: "muted" });
  const d = new Date(value);
  const today = new Date().toDateString() === d.toDateString();
  const text = today ? d.toLocaleTimeString() : d.toLocaleString();
  return el("time", text, { datetime: d.toISOString(), title: d.toISOString() });
}

// A duration in ms as "850 ms", "12.3 s", "4 min 5 s", "2 h 3 min" or "3 d 4 h".
function durationText(ms) {
  if (ms === null || ms === undefined) return "";
  if (ms < 1000) return `${ms} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${(ms / 1000).toFixed(1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

// A byte count as "512 KiB", "1.5 MiB"...
function bytesText(n) {
  if (!n) return "";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return `${i ? n.toFixed(1) : n} ${units[i]}`;
}

// The bytes of a value as the wire carries it: a string (UTF-8), or {"b64": ...} for bytes that
// are not UTF-8.
function wireBytes(v) {
  if (typeof v === "string") return new TextEncoder().encode(v);
  const raw = atob(v && v.b64 ? v.b64 : "");
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

// One argument shell-quoted as `tq list` quotes it: as it is when plain, in '...' when printable
// UTF-8, else in $'...' with every byte that is not printable ASCII as \xNN.
function shellQuote(v) {
  if (typeof v === "string") {
    if (v === "") return "''";
    if (/^[A-Za-z0-9@%+=:,.\/_-]+$/.test(v)) return v;
    if (!/[\x00-\x1f\x7f]/.test(v)) return `'${v.replace(/'/g, "'\\''")}'`;
  }
  let out = "$'";
  for (const b of wireBytes(v)) {
    if (b === 0x27 || b === 0x5c) out += "\\" + String.fromCharCode(b);
    else if (b === 0x0a) out += "\\n";
    else if (b === 0x09) out += "\\t";
    else if (b < 0x20 || b >= 0x7f) out += "\\x" + b.toString(16).padStart(2, "0");
    else out += String.fromCharCode(b);
  }
  return out + "'";
}

// The command of a task or stage as one line (of a task with stages, its current stage's):
// its shell string, or its arguments shell-quoted as `tq list` shows them.
function commandText(t) {
  if (t.shell) return typeof t.shell === "string" ? t.shell : shellQuote(t.shell);
  if ((!t.argv || t.argv.length === 0) && t.stages && t.stages.length) {
    return commandText(t.stages[t.stage ? t.stage.index : 0]);
  }
  return (t.argv || []).map(shellQuote).join(" ");
}

// The stage column of a task: "2/4 name" when it has stages, else "".
function stageText(t) {
  if (!t.stages || t.stages.length === 0 || !t.stage) return "";
  return `${t.stage.index + 1}/${t.stages.length} ${t.stage.name}`;
}

// A banner at the top of the page with the error `e` (a click takes it away).
function flash(e) {
  const banner = document.getElementById("flash");
  banner.textContent = String(e && e.message ? e.message : e);
  banner.classList.remove("ok");
  banner.hidden = false;
}

// The banner with what a change did, `text` (a click takes it away).
function notice(text) {
  flash(text);
  document.getElementById("flash").classList.add("ok");
}

// ---- routing ----

let generation = 0;       // bumped on every route; an old page's late answers are dropped
let currentDraw = null;   // the current page's redraw (called on events)
let pageTimers = [];      // intervals of the current page, cleared when it is left

// Draws the page for location.pathname.
function route() {
  generation++;
  for (const t of pageTimers) clearInterval(t);
  pageTimers = [];
  document.getElementById("flash").hidden = true;
  const path = location.pathname.replace(/\/+$/, "") || "/";
  let m;
  if (path === "/") page(drawOverview, "/");
  else if (path === "/tasks") page(drawTasksPage, "/tasks");
  else if ((m = path.match(/^\/tasks\/(\d+)$/))) page(() => drawTask(Number(m[1])), "/tasks");
  else if (path === "/jobs") page(() => drawJobs(null), "/jobs");
  else if ((m = path.match(/^\/jobs\/([^/]+)$/))) page(() => drawJobs(decodeURIComponent(m[1])), "/jobs");
  else if (path === "/hosts") page(drawHosts, "/hosts");
  else page(drawNotFound, "");
}

// Makes `draw` the current page (its nav link `nav` marked) and draws it once.
function page(draw, nav) {
  for (const a of document.querySelectorAll("header nav a")) {
    a.classList.toggle("current", a.getAttribute("href") === nav);
  }
  document.getElementById("main").replaceChildren();
  currentDraw = draw;
  redraw();
}

// Draws the current page again; errors go to the banner.
function redraw() {
  if (currentDraw) currentDraw().catch(flash);
}

// Replaces the page's content with `nodes` unless another page was routed to since `gen`.
function render(gen, ...nodes) {
  if (gen !== generation) return false;
  const main = document.getElementById("main");
  main.replaceChildren();
  put(main, ...nodes);
  return true;
}

// Routes clicks on links inside the console through history instead of loading the page again.
function interceptLinks() {
  document.addEventListener("click", (ev) => {
    const a = ev.target.closest("a[href]");
    if (!a || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || url.pathname.startsWith("/api/") || url.pathname.startsWith("/assets/")) return;
    ev.preventDefault();
    if (url.href !== location.href) history.pushState(null, "", url.href);
    route();
  });
  window.addEventListener("popstate", route);
}

// The page for an address the console does not know.
async function drawNotFound() {
  render(generation, el("h1", "Not found"), el("p", "The console has no page here."), link("/", "Overview"));
}

// ---- live updates ----

// Follows tqd's events: the page is drawn again (at most every 500 ms) when a task changes;
// the stream is closed while the tab is hidden and opened again when it shows. A stream that
// ends (tqd or tq web restarted, too many pages open, the session over) is opened again after a
// pause that grows from 1 s to 30 s, with a banner saying why while it cannot be.
function follow() {
  const live = document.getElementById("live");
  let source = null;
  let pending = false;
  let pause = 1000;
  let retry = null;
  const gone = async () => {
    source.close();
    source = null;
    live.classList.remove("on");
    live.textContent = "offline";
    let why = "Live updates stopped: tqd or tq web is not answering";
    try {
      const r = await fetch("/api/stats?q=%7B%7D");
      if (r.status === 401) why = SIGNED_OUT;
      else if (r.ok) why = "Live updates stopped (too many pages may follow tqd at once)";
    } catch (_) { /* tq web itself is gone */ }
    flash(why === SIGNED_OUT ? why : `${why}; trying again in ${Math.round(pause / 1000)} s.`);
    document.getElementById("flash").dataset.live = "lost";
    if (why === SIGNED_OUT) return;
    retry = setTimeout(() => { retry = null; open(); }, pause);
    pause = Math.min(pause * 2, 30000);
  };
  const open = () => {
    source = new EventSource("/api/events");
    source.onopen = () => {
      live.classList.add("on");
      live.textContent = "live";
      pause = 1000;
      const banner = document.getElementById("flash");
      if (banner.dataset.live === "lost") { banner.hidden = true; delete banner.dataset.live; redraw(); }
    };
    source.onerror = () => {
      live.classList.remove("on");
      live.textContent = "reconnecting";
      // The browser tries again by itself after a dropped stream, never after a refusal.
      if (source.readyState === EventSource.CLOSED) gone();
    };
    source.onmessage = () => {
      if (pending) return;
      pending = true;
      setTimeout(() => { pending = false; redraw(); }, 500);
    };
    live.textContent = "connecting";
  };
  const close = () => {
    if (retry) clearTimeout(retry);
    retry = null;
    if (source) source.close();
    source = null;
    live.textContent = "paused";
    live.classList.remove("on");
  };
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) close();
    else { open(); redraw(); }
  });
  open();
}

// Signs this browser out of the console: its session ends at once.
async function signOut() {
  await fetch("/logout", { method: "POST", headers: { "X-CSRF-Token": csrf } });
  location.reload();
}

// Starts the console: the error banner, routing, the overview's refresh and the event stream.
function start() {
  const banner = document.getElementById("flash");
  banner.addEventListener("click", () => { banner.hidden = true; });
  interceptLinks();
  const out = document.getElementById("sign-out");
  out.hidden = !canSignOut;
  out.addEventListener("click", () => signOut().catch(flash));
  route();
  // The overview's charts move on with tqd's history even when no task changes.
  setInterval(() => { if (location.pathname === "/" && !document.hidden) redraw(); }, REFRESH_MS);
  follow();
}

// Every page script has run once the document is parsed (they are deferred, in order).
document.addEventListener("DOMContentLoaded", start);
