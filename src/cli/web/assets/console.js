// The console's script: draws the page for the address (/, /tasks, /tasks/ID, /jobs,
// /jobs/NAME) from the JSON API and keeps it live from the event stream. No framework, no build
// step; every text goes into the page through textContent.
"use strict";

const csrf = document.querySelector('meta[name="tq-csrf"]').content;
const readOnly = document.querySelector('meta[name="tq-read-only"]').content === "true";
const SVG = "http://www.w3.org/2000/svg";
const ACTIVE_STATES = ["pending", "running"];
const RETRYABLE_STATES = ["failed", "cancelled"];
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
    if (!answer.more || answer.tasks.length === 0) return tasks;
    before = answer.tasks[answer.tasks.length - 1].id;
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
// console is read-only, so read-only pages draw no buttons.
function button(label, action, work, attrs = {}) {
  if (readOnly) return null;
  const b = el("button", label, Object.assign({ "data-action": action, type: "button" }, attrs));
  b.addEventListener("click", async () => {
    b.disabled = true;
    try { await work(); } catch (e) { flash(e); }
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

// The command of a task or stage as one line (of a task with stages, its current stage's).
function commandText(t) {
  if (t.shell) return t.shell;
  if ((!t.argv || t.argv.length === 0) && t.stages && t.stages.length) {
    return commandText(t.stages[t.stage ? t.stage.index : 0]);
  }
  return (t.argv || []).join(" ");
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
  banner.hidden = false;
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

// ---- overview ----

const HISTORY_MS = 3600 * 1000;
const SAMPLE_MS = 10 * 1000;
const samples = [];  // {time, finished: {state: count}, running} from stats, the last hour

// Reads stats and, at most once per 10 s, takes a sample of them into the rolling history
// (taken on every page, so the charts have it); the stats.
async function sample() {
  const stats = (await read("stats")).stats;
  const running = Object.values(stats.running || {}).reduce((a, b) => a + b, 0);
  const now = Date.now();
  if (samples.length && now - samples[samples.length - 1].time < SAMPLE_MS - 500) return stats;
  samples.push({ time: now, started: stats.started, finished: stats.finished || {}, running });
  while (samples.length && samples[0].time < now - HISTORY_MS) samples.shift();
  return stats;
}

// The overview: queues with their counts, resources, and charts of the last hour.
async function drawOverview() {
  const gen = generation;
  const [stats, queues, resources] = await Promise.all([
    sample(), read("queue", { action: "list" }), read("resources")]);
  render(gen,
    el("h1", "Overview"),
    queueTable(queues.queues, stats.tasks || []),
    queues.more ? el("p", "More queues exist than tqd lists at once.", { class: "note" }) : null,
    el("h2", "Resources"),
    resourceTable(resources.resources || []),
    el("h2", "The last hour"),
    el("p", "Sampled every 10 s while this console is open; history starts when it opens.", { class: "note" }),
    put(el("div", "", { class: "charts" }), finishedChart(), runningChart()));
}

// The queues with counts by state, running/concurrency, paused, and pause/resume buttons.
function queueTable(queues, counts) {
  const byQueue = new Map();
  for (const c of counts) {
    if (!byQueue.has(c.queue)) byQueue.set(c.queue, {});
    byQueue.get(c.queue)[c.state] = c.count;
  }
  const [t, body] = table(["QUEUE", "RUNNING", "PAUSED", ...ALL_STATES.map((s) => s.toUpperCase()), ""], { id: "queues" });
  const countCells = (q) => ALL_STATES.map((s) => {
    const n = (byQueue.get(q) || {})[s];
    return n ? link(`/tasks?queue=${encodeURIComponent(q)}&state=${s}`, String(n), { class: `state-${s}` }) : "";
  });
  for (const q of queues) {
    const action = q.paused
      ? button("resume", "resume", () => change("queue", { action: "resume", name: q.name }))
      : button("pause", "pause", () => change("queue", { action: "pause", name: q.name }));
    row(body, [
      link(`/tasks?queue=${encodeURIComponent(q.name)}`, q.name),
      `${q.running}/${q.concurrency === null ? "∞" : q.concurrency}`,
      q.paused ? el("span", "paused", { class: "badge warn" }) : "no",
      ...countCells(q.name),
      put(el("span"), action),
    ]);
  }
  if (byQueue.has("(other)")) {
    row(body, [el("span", "(other)", { title: "the queues tqd.toml does not name, counted together" }),
      "", "", ...countCells("(other)"), ""]);
  }
  return t;
}

// The resources: units in use of the total, each unit a square linking to its holder.
function resourceTable(resources) {
  if (resources.length === 0) return el("p", "No resources are configured.", { class: "muted" });
  const [t, body] = table(["RESOURCE", "IN USE", "UNITS"]);
  for (const r of resources) {
    const units = el("span", "", { class: "units" });
    for (const u of r.units) {
      const title = `${r.name} ${u.name}: ${u.in_use ? (u.task ? `task ${u.task}` : "in use") : "free"}` +
        (u.configured ? "" : " (no longer configured)");
      const cls = `unit ${u.in_use ? "unit-used" : "unit-free"}`;
      units.append(u.task ? link(`/tasks/${u.task}`, u.name, { class: cls, title }) : el("span", u.name, { class: cls, title }));
    }
    row(body, [r.name, `${r.in_use}/${r.total}`, units]);
  }
  return t;
}

// A chart's frame: a figure with an SVG (360×120, x axis at y 110), `title` as caption and `max`
// as the label of the top of the y axis; returns [figure, svg].
function chartFrame(title, max) {
  const box = el("figure", "", { class: "chart" });
  const s = svg("svg", { viewBox: "0 0 360 120", class: "chart-svg", role: "img", "aria-label": title });
  s.append(svg("line", { x1: 0, y1: 110, x2: 360, y2: 110, class: "axis" }));
  const label = svg("text", { x: 2, y: 10, class: "chart-label" });
  label.textContent = String(max);
  s.append(label);
  put(box, s, el("figcaption", title));
  return [box, s];
}

// Bars of tasks that succeeded and failed in each 10 s interval of the history.
function finishedChart() {
  const deltas = [];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1], b = samples[i];
    const diff = (s) => (a.started === b.started ? Math.max(0, (b.finished[s] || 0) - (a.finished[s] || 0)) : 0);
    deltas.push({ time: b.time, ok: diff("succeeded"), failed: diff("failed") });
  }
  const max = Math.max(1, ...deltas.map((d) => d.ok + d.failed));
  const [box, s] = chartFrame("tasks finished per 10 s: succeeded, failed", max);
  const bar = 360 / (HISTORY_MS / SAMPLE_MS);
  const now = Date.now();
  for (const d of deltas) {
    const x = 360 - ((now - d.time) / HISTORY_MS) * 360;
    const hOk = (d.ok / max) * 100, hFail = (d.failed / max) * 100;
    const title = svg("title");
    title.textContent = `${new Date(d.time).toLocaleTimeString()}: ${d.ok} succeeded, ${d.failed} failed`;
    const g = svg("g");
    g.append(title,
      svg("rect", { x: x - bar, y: 110 - hOk, width: Math.max(1, bar - 0.5), height: hOk, class: "bar-ok" }),
      svg("rect", { x: x - bar, y: 110 - hOk - hFail, width: Math.max(1, bar - 0.5), height: hFail, class: "bar-failed" }));
    s.append(g);
  }
  if (deltas.length === 0) box.append(el("p", "Waiting for a second sample…", { class: "muted" }));
  return box;
}

// A line of how many tasks were running at each sample of the history.
function runningChart() {
  const max = Math.max(1, ...samples.map((p) => p.running));
  const [box, s] = chartFrame("tasks running", max);
  const now = Date.now();
  const points = samples.map((p) => `${(360 - ((now - p.time) / HISTORY_MS) * 360).toFixed(1)},${(110 - (p.running / max) * 100).toFixed(1)}`);
  if (points.length > 0) s.append(svg("polyline", { points: points.join(" "), class: "line-running" }));
  return box;
}

// ---- tasks ----

// The filters of the tasks page, read from the address (?state=&queue=&label=&user=&text=&before=).
function taskFilters() {
  const p = new URLSearchParams(location.search);
  const f = {};
  for (const k of ["state", "queue", "label", "user", "text", "before"]) if (p.get(k)) f[k] = p.get(k);
  return f;
}

// The list request body for filters `f` (the text filter is the browser's, not tqd's).
function listBody(f) {
  const body = {};
  for (const k of ["state", "queue", "label", "user"]) if (f[k]) body[k] = f[k];
  return body;
}

// Sets the address to filters `f` (replacing the history entry) and draws the page again.
function setFilters(f) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v) p.set(k, v);
  const q = p.toString();
  history.replaceState(null, "", q ? `/tasks?${q}` : "/tasks");
  redraw();
}

// Whether task `t` matches the text filter (its command, case-insensitive).
function textMatches(t, text) {
  if (!text) return true;
  const hay = [commandText(t), ...(t.stages || []).map(commandText)].join("\n").toLowerCase();
  return hay.includes(text.toLowerCase());
}

// The tasks page: the filter form (built once, so typing is not interrupted) and the table.
async function drawTasksPage() {
  const main = document.getElementById("main");
  if (!document.getElementById("task-filters")) {
    main.replaceChildren(el("h1", "Tasks"), filterForm(), el("div", "", { id: "task-results" }));
  }
  const gen = generation;
  const f = taskFilters();
  const body = Object.assign(listBody(f), { limit: 100 });
  if (f.before) body.before_id = Number(f.before);
  const answer = await read("list", body);
  if (gen !== generation) return;
  const shown = answer.tasks.filter((t) => textMatches(t, f.text));
  const results = document.getElementById("task-results");
  results.replaceChildren(
    put(el("div", "", { class: "toolbar" }),
      el("span", `${shown.length} of ${answer.tasks.length} on this page`, { class: "muted" }),
      f.text ? el("span", "The text filter applies to the tasks of this page only.", { class: "note" }) : null,
      bulkButton("cancel all matching", "cancel-matching", "cancel", ACTIVE_STATES, f),
      bulkButton("retry all matching", "retry-matching", "retry", RETRYABLE_STATES, f)),
    taskTable(shown),
    pager(f, answer));
}

// The form of filters: state, queue, label, owner and text; changes apply at once.
function filterForm() {
  const f = taskFilters();
  const form = el("form", "", { id: "task-filters", class: "filters" });
  const state = el("select", "", { name: "state" });
  state.append(el("option", "any state", { value: "" }));
  for (const s of ALL_STATES) state.append(el("option", s, { value: s }));
  state.value = f.state || "";
  const input = (name, placeholder) => {
    const i = el("input", "", { name, placeholder, type: name === "text" ? "search" : "text", size: 12 });
    i.value = f[name] || "";
    return i;
  };
  put(form, state, input("queue", "queue"), input("label", "label"), input("user", "owner"),
    input("text", "command text"));
  let timer = null;
  const apply = () => {
    const next = {};
    for (const e of form.elements) if (e.name && e.value.trim()) next[e.name] = e.value.trim();
    setFilters(next);  // a change of filters starts again at the newest page
  };
  form.addEventListener("change", apply);
  form.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(apply, 400); });
  form.addEventListener("submit", (ev) => { ev.preventDefault(); apply(); });
  return form;
}

// "newest" and "older" links for paging with before_id.
function pager(f, answer) {
  const nav = el("div", "", { class: "pager" });
  if (f.before) nav.append(button0("newest", () => setFilters(Object.assign({}, f, { before: "" }))));
  if (answer.more && answer.tasks.length) {
    const last = answer.tasks[answer.tasks.length - 1].id;
    nav.append(button0("older →", () => setFilters(Object.assign({}, f, { before: String(last) }))));
  }
  return nav;
}

// A button for navigation (drawn in read-only consoles too) that runs `go`.
function button0(label, go) {
  const b = el("button", label, { type: "button", class: "nav-button" });
  b.addEventListener("click", go);
  return b;
}

// A bulk button ("cancel all matching", "retry all matching"): counts the tasks the filters
// match in `states`, asks confirm() with that number, then sends `verb` for them.
function bulkButton(label, action, verb, states, f) {
  if (f.state && !states.includes(f.state)) return null;
  const chosen = f.state ? [f.state] : states;
  return button(label, action, async () => {
    let matching = [];
    for (const s of chosen) matching.push(...await listAll(Object.assign(listBody(f), { state: s })));
    matching = matching.filter((t) => textMatches(t, f.text));
    if (matching.length === 0) { flash(`No ${chosen.join(" or ")} task matches.`); return; }
    const words = [f.queue && `queue ${f.queue}`, f.label && `label ${f.label}`, f.user && `owner ${f.user}`,
      f.text && `command containing "${f.text}"`].filter(Boolean).join(", ");
    if (!confirm(`${verb} ${matching.length} ${chosen.join("/")} task(s)${words ? ` (${words})` : ""}?`)) return;
    // Without a text filter tqd's own filters choose the tasks; with one, the ids that matched.
    const selector = f.text
      ? { ids: matching.map((t) => t.id) }
      : Object.assign({ states: chosen }, f.queue && { queue: f.queue }, f.label && { label: f.label }, f.user && { user: f.user });
    await change(verb, selector);
  });
}

// The tasks table (id "tasks"), a row per task with data-id, and cancel/retry where allowed.
function taskTable(tasks) {
  const [t, body] = table(["ID", "STATE", "QUEUE", "OWNER", "STAGE", "COMMAND", "CREATED", ""], { id: "tasks" });
  for (const task of tasks) {
    row(body, [
      link(`/tasks/${task.id}`, String(task.id)),
      stateEl(task.state),
      task.queue,
      task.owner ? task.owner.name : "",
      stageText(task),
      el("span", commandText(task), { class: "command" }),
      timeEl(task.created),
      put(el("span", "", { class: "actions" }), ...taskButtons(task, false)),
    ], { "data-id": String(task.id) });
  }
  if (tasks.length === 0) row(body, [el("span", "No task matches.", { class: "muted" })]);
  return t;
}

// The buttons task `t` allows: cancel while active; retry (and retry from start for a task with
// stages, when `full`) once failed or cancelled.
function taskButtons(t, full) {
  const out = [];
  if (ACTIVE_STATES.includes(t.state)) out.push(button("cancel", "cancel", () => change("cancel", { ids: [t.id] })));
  if (RETRYABLE_STATES.includes(t.state)) {
    out.push(button("retry", "retry", () => change("retry", { ids: [t.id] })));
    if (full && t.stages && t.stages.length > 0) {
      out.push(button("retry from start", "retry-from-start", () => change("retry", { ids: [t.id], from_start: true })));
    }
  }
  return out;
}

// ---- one task ----

// The task page: facts, environment, stages, attempts (redrawn on events) and its output
// (kept, and extended every 2 s while the task runs).
async function drawTask(id) {
  const gen = generation;
  const t = (await read("status", { id })).task;
  if (gen !== generation) return;
  const main = document.getElementById("main");
  if (!document.getElementById("task-info")) {
    main.replaceChildren(el("div", "", { id: "task-info" }), el("h2", "Output"), outputView(id));
  }
  const info = document.getElementById("task-info");
  info.replaceChildren();
  put(info,
    put(el("h1"), `Task ${t.id} `, stateEl(t.state)),
    put(el("div", "", { class: "toolbar" }), ...taskButtons(t, true)),
    facts([
      ["command", t.stages && t.stages.length ? `${t.stages.length} stages` : el("code", commandText(t))],
      ["owner", t.owner ? t.owner.name : null],
      ["cwd", t.cwd ? el("code", t.cwd) : null],
      ["queue", link(`/tasks?queue=${encodeURIComponent(t.queue)}`, t.queue)],
      ["labels", t.labels && t.labels.length ? labelLinks(t.labels) : null],
      ["job", t.job ? link(`/jobs/${encodeURIComponent(t.job)}`, t.job) : null],
      ["priority", t.priority],
      ["created", timeEl(t.created)],
      ["finished", t.finished ? timeEl(t.finished) : null],
      ["exit", exitText(t)],
      ["reason", t.reason],
      ["waiting", t.state === "pending" ? waitingText(t.waiting) : null],
      ["environment", envView(t.env)],
    ]),
    stagesTable(t),
    attemptsTable(t));
  document.getElementById("task-output").dataset.state = t.state;
}

// Links to the tasks page filtered by each label.
function labelLinks(labels) {
  const span = el("span");
  for (const l of labels) span.append(link(`/tasks?label=${encodeURIComponent(l)}`, l, { class: "badge" }), " ");
  return span;
}

// "exit 3", "signal KILL" or null for a task or attempt.
function exitText(x) {
  if (x.signal !== null && x.signal !== undefined) return `signal ${x.signal}`;
  if (x.exit_code !== null && x.exit_code !== undefined) return `exit ${x.exit_code}`;
  return null;
}

// Why a pending task waits, from its "waiting" object.
function waitingText(w) {
  if (!w) return null;
  const why = [];
  if (w.held) why.push("held");
  if (w.queue_paused) why.push("queue paused");
  if (w.until) why.push(`until ${new Date(w.until).toLocaleString()}`);
  if (w.after && w.after.length) why.push(`after ${w.after.join(", ")}`);
  if (w.units) why.push(`units ${JSON.stringify(w.units)}`);
  return why.length ? why.join("; ") : "ready";
}

// The names of the environment; the values only after "show values" (when the JSON has them).
// `env` may be {NAME: value} or ["NAME=value", ...]; absent, nothing is shown.
function envView(env) {
  if (!env) return null;
  const pairs = Array.isArray(env)
    ? env.map((e) => { const i = String(e).indexOf("="); return i < 0 ? [String(e), null] : [e.slice(0, i), e.slice(i + 1)]; })
    : Object.entries(env);
  if (pairs.length === 0) return el("span", "none set", { class: "muted" });
  const list = el("ul", "", { class: "env" });
  const values = [];
  for (const [name, value] of pairs) {
    const v = el("code", value === null ? "" : `=${value}`, { class: "env-value" });
    v.hidden = true;
    values.push(v);
    list.append(put(el("li"), el("code", name), v));
  }
  const hasValues = pairs.some(([, value]) => value !== null);
  if (!hasValues) return list;
  const toggle = el("button", "show values", { type: "button", "data-action": "show-env" });
  toggle.addEventListener("click", () => {
    const show = values[0].hidden;
    for (const v of values) v.hidden = !show;
    toggle.textContent = show ? "hide values" : "show values";
  });
  return put(el("div"), toggle, list);
}

// The stages table: name, state, attempts, exit, command; null for a task without stages.
function stagesTable(t) {
  if (!t.stages || t.stages.length === 0) return null;
  const [tbl, body] = table(["#", "STAGE", "STATE", "ATTEMPTS", "EXIT", "COMMAND"]);
  for (const s of t.stages) {
    row(body, [String(s.index + 1), s.name, stateEl(s.state), String(s.attempts), exitText(s) || "",
      el("span", commandText(s), { class: "command" })],
      t.stage && t.stage.index === s.index ? { class: "current-stage" } : {});
  }
  return put(el("section"), el("h2", "Stages"), tbl);
}

// The attempts table: number, stage, started, ended, exit/signal, reason, cpu, memory.
function attemptsTable(t) {
  const log = t.attempt_log || [];
  const [tbl, body] = table(["#", "STAGE", "STARTED", "ENDED", "DURATION", "EXIT", "REASON", "CPU", "MEMORY"]);
  for (const a of log) {
    const cpu = (a.user_cpu_ms || 0) + (a.system_cpu_ms || 0);
    const mem = a.memory_peak_bytes || (a.max_rss_kb ? a.max_rss_kb * 1024 : 0);
    row(body, [String(a.number), a.stage || "", timeEl(a.started), a.ended ? timeEl(a.ended) : "running",
      durationText(a.duration_ms), exitText(a) || "",
      put(el("span"), a.reason || "", a.detail ? el("span", ` (${a.detail})`, { class: "muted" }) : null),
      el("span", durationText(cpu), { title: `user ${a.user_cpu_ms} ms, system ${a.system_cpu_ms} ms` }),
      bytesText(mem)]);
  }
  if (log.length === 0) row(body, [el("span", "No attempt yet.", { class: "muted" })]);
  return put(el("section"), el("h2", "Attempts"), tbl);
}

// The output box of task `id`: stdout and stderr of its latest attempt, read from where it left
// off every 2 s while the task is pending or running and the tab is visible.
function outputView(id) {
  const box = el("div", "", { id: "task-output", class: "output" });
  const streams = [
    { name: "stdout", stderr: false, pre: el("pre", "", { class: "log" }), offset: 0, attempt: null },
    { name: "stderr", stderr: true, pre: el("pre", "", { class: "log log-stderr" }), offset: 0, attempt: null },
  ];
  const error = el("p", "", { class: "error" });
  error.hidden = true;
  box.append(error);
  for (const s of streams) box.append(el("h3", s.name), s.pre);
  const gen = generation;
  let busy = false;
  // Reads what each stream has beyond its offset (a fresh attempt starts the stream again).
  const pull = async () => {
    if (busy || gen !== generation || document.hidden) return;
    busy = true;
    try {
      for (const s of streams) {
        for (let i = 0; i < 64; i++) {
          const a = await read("logs", { id, stderr: s.stderr, offset: s.offset });
          if (gen !== generation) return;
          if (s.attempt !== null && s.attempt !== a.attempt) {  // a new attempt: its output from 0
            s.attempt = a.attempt; s.offset = 0; s.pre.textContent = ""; continue;
          }
          s.attempt = a.attempt;
          if (!a.data) break;
          const atEnd = s.pre.scrollTop + s.pre.clientHeight >= s.pre.scrollHeight - 4;
          s.pre.append(a.data);
          if (atEnd) s.pre.scrollTop = s.pre.scrollHeight;  // follow the end unless scrolled up
          s.offset = a.offset;
          if (a.eof) break;
        }
        s.pre.classList.toggle("empty", s.pre.textContent === "");
      }
      error.hidden = true;
    } catch (e) {
      error.textContent = `output: ${e.message}`;
      error.hidden = false;
    } finally { busy = false; }
  };
  pull();
  pageTimers.push(setInterval(() => {
    if (ACTIVE_STATES.includes(box.dataset.state)) pull();
  }, 2000));
  return box;
}

// ---- jobs ----

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const MACROS = { "@hourly": "every hour", "@daily": "at 00:00 every day", "@midnight": "at 00:00 every day",
  "@weekly": "at 00:00 every Sunday", "@monthly": "at 00:00 on day 1 of every month",
  "@yearly": "at 00:00 on 1 January every year", "@annually": "at 00:00 on 1 January every year" };

// A cron schedule in words when it is simple ("30 2 * * *" -> "at 02:30 every day"), else null.
function scheduleWords(schedule) {
  const s = schedule.trim();
  if (MACROS[s]) return MACROS[s];
  let m = s.match(/^@every\s+(.+)$/);
  if (m) return `every ${m[1]}`;
  const f = s.split(/\s+/);
  if (f.length !== 5) return null;
  const [min, hour, dom, mon, dow] = f;
  const num = (x) => /^\d+$/.test(x);
  const pad = (x) => String(x).padStart(2, "0");
  if (mon !== "*") return null;
  if (min === "*" && hour === "*" && dom === "*" && dow === "*") return "every minute";
  if ((m = min.match(/^\*\/(\d+)$/)) && hour === "*" && dom === "*" && dow === "*") return `every ${m[1]} minutes`;
  if (num(min) && hour === "*" && dom === "*" && dow === "*") return `at minute ${min} of every hour`;
  if (num(min) && (m = hour.match(/^\*\/(\d+)$/)) && dom === "*" && dow === "*") return `at minute ${min} of every ${m[1]} hours`;
  if (!num(min) || !num(hour)) return null;
  const at = `at ${pad(hour)}:${pad(min)}`;
  if (dom === "*" && dow === "*") return `${at} every day`;
  if (dom === "*" && num(dow) && Number(dow) <= 7) return `${at} every ${DAYS[Number(dow)]}`;
  if (dom === "*" && dow === "1-5") return `${at} on weekdays`;
  if (num(dom) && dow === "*") return `${at} on day ${dom} of every month`;
  return null;
}

// The schedule cell: the cron text, its words when simple, and the time zone.
function scheduleEl(job) {
  const words = scheduleWords(job.schedule);
  const zone = job.timezone || "tqd's local time";
  return put(el("span"), el("code", job.schedule),
    el("span", words ? ` ${words} (${zone})` : ` (${zone})`, { class: "muted" }));
}

// A live countdown to `iso` ("in 3 h 2 min"), updated every second by the page's ticker.
function countdownEl(iso) {
  if (!iso) return el("span", "–", { class: "muted" });
  const span = el("span", "", { class: "countdown", "data-at": iso });
  tickCountdown(span);
  return put(el("span"), timeEl(iso), " ", span);
}

// Sets a countdown element's text from the time left.
function tickCountdown(span) {
  const ms = new Date(span.dataset.at).getTime() - Date.now();
  span.textContent = ms >= 0 ? `(in ${durationText(Math.max(1000, Math.round(ms / 1000) * 1000))})` : "(due)";
}

// A strip of coloured squares, one per recent run (oldest left), each linking to its task.
function runStrip(tasks) {
  const strip = el("span", "", { class: "strip" });
  for (const t of tasks.slice().reverse()) {
    strip.append(link(`/tasks/${t.id}`, "", {
      class: `square sq-${t.state}`,
      title: `task ${t.id}: ${t.state}${t.exit_code !== null && t.exit_code !== undefined ? ` (exit ${t.exit_code})` : ""}, ${new Date(t.created).toLocaleString()}`,
    }));
  }
  if (tasks.length === 0) strip.append(el("span", "no runs yet", { class: "muted" }));
  return strip;
}

// Whether job `j` fires: enabled in its file ("enabled") and not disabled at run time
// ("disabled", set by job_enable).
function jobOn(j) {
  return j.enabled && !j.disabled;
}

// Every job in force (all pages), with the load errors of the last load.
async function allJobs() {
  const jobs = [];
  let errors = [];
  let after = "";
  for (;;) {
    const answer = await read("jobs", after ? { after } : {});
    jobs.push(...answer.jobs);
    errors = answer.errors || [];
    if (!answer.more || answer.jobs.length === 0) return { jobs, errors, errorsLeftOut: answer.errors_left_out || 0 };
    after = answer.jobs[answer.jobs.length - 1].name;
  }
}

// The jobs page (every job), or one job's page with its settings and its runs as tasks.
async function drawJobs(name) {
  const gen = generation;
  const { jobs, errors, errorsLeftOut } = name
    ? await read("jobs", { name }).then((a) => ({ jobs: a.jobs, errors: a.errors || [], errorsLeftOut: a.errors_left_out || 0 }))
    : await allJobs();
  const runs = await Promise.all(jobs.map((j) => read("list", { label: `job:${j.name}`, limit: name ? 100 : 20 })));
  const [t, body] = table(["JOB", "SCHEDULE", "NEXT", "LAST RUNS", "STATE", ""], { id: "jobs" });
  jobs.forEach((j, i) => {
    row(body, [
      link(`/jobs/${encodeURIComponent(j.name)}`, j.name),
      scheduleEl(j),
      jobOn(j) ? countdownEl(j.next) : el("span", "disabled", { class: "muted" }),
      runStrip(runs[i].tasks.slice(0, 20)),
      jobStateEl(j),
      put(el("span", "", { class: "actions" }),
        button("run now", "run", () => change("job_run", { name: j.name })),
        !j.disabled
          ? button("disable", "disable", () => change("job_enable", { name: j.name, enabled: false }))
          : button("enable", "enable", () => change("job_enable", { name: j.name, enabled: true }))),
    ], { "data-job": j.name });
  });
  if (jobs.length === 0) row(body, [el("span", "No job is in force.", { class: "muted" })]);
  const detail = name && jobs[0] ? [
    facts([
      ["command", jobs[0].stages && jobs[0].stages.length ? `${jobs[0].stages.length} stages` : el("code", jobs[0].command || commandText(jobs[0]))],
      ["defined in", `${jobs[0].file}:${jobs[0].line}`],
      ["queue", jobs[0].queue],
      ["user", jobs[0].user],
      ["overlap", jobs[0].overlap],
      ["missed runs", jobs[0].misfire],
      ["expect success within", jobs[0].expect_success_within_ms ? durationText(jobs[0].expect_success_within_ms) : null],
      ["last fired", jobs[0].last_fired ? timeEl(jobs[0].last_fired) : null],
      ["environment", envView(jobs[0].env)],
    ]),
    el("h2", "Runs"),
    taskTable(runs[0].tasks),
  ] : [];
  if (!render(gen,
    put(el("h1"), name ? put(el("span"), link("/jobs", "Jobs"), ` / ${name}`) : "Jobs"),
    t, ...detail, errorList(errors, errorsLeftOut))) return;
  pageTimers.forEach(clearInterval);
  pageTimers = [setInterval(() => document.querySelectorAll(".countdown").forEach(tickCountdown), 1000)];
}

// The job's health: overdue (its dead man's switch), from the last good file, or its last result.
function jobStateEl(j) {
  const span = el("span");
  if (j.overdue) span.append(el("span", "overdue", { class: "badge bad", title: "no run succeeded within expect_success_within" }), " ");
  if (j.from_last_good) span.append(el("span", "last good file", { class: "badge warn", title: "its file has errors; the last good version is in force" }), " ");
  if (!jobOn(j)) span.append(el("span", "disabled", { class: "badge", title: j.disabled ? "disabled at run time" : "enabled = false in its file" }), " ");
  if (j.last_state) span.append(stateEl(j.last_state));
  return span;
}

// The job files' load errors, with file:line.
function errorList(errors, leftOut) {
  if (errors.length === 0) return null;
  const list = el("ul", "", { class: "load-errors" });
  for (const e of errors) {
    list.append(put(el("li"), el("code", `${e.file}:${e.line}`), " ",
      el("span", e.message.replace(`${e.file}:${e.line}: `, ""), { class: "error" }),
      e.kept ? el("span", " (its last good version stays in force)", { class: "muted" }) : null));
  }
  if (leftOut) list.append(el("li", `and ${leftOut} more`, { class: "muted" }));
  return put(el("section"), el("h2", "Load errors"), list);
}

// ---- live updates ----

// Follows tqd's events: the page is drawn again (at most every 500 ms) when a task changes;
// the stream is closed while the tab is hidden and opened again when it shows.
function follow() {
  const live = document.getElementById("live");
  let source = null;
  let pending = false;
  const open = () => {
    source = new EventSource("/api/events");
    source.onopen = () => { live.classList.add("on"); live.textContent = "live"; };
    source.onerror = () => { live.classList.remove("on"); live.textContent = "reconnecting"; };
    source.onmessage = () => {
      if (pending) return;
      pending = true;
      setTimeout(() => { pending = false; redraw(); }, 500);
    };
    live.textContent = "connecting";
  };
  const close = () => {
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

// Starts the console: the error banner, routing, the stats sampler and the event stream.
function start() {
  const banner = document.getElementById("flash");
  banner.addEventListener("click", () => { banner.hidden = true; });
  interceptLinks();
  route();
  // The overview samples when it draws; other pages sample here, so the history keeps going.
  setInterval(() => {
    if (location.pathname === "/") redraw(); else sample().catch(() => {});
  }, SAMPLE_MS);
  follow();
}

start();
