// The tasks page (/tasks): filters in the address, paging, cancel or retry of one task, and
// cancel, retry or clean of every task the filters match.
"use strict";

// The filters of the tasks page, read from the address (?state=&queue=&label=&user=&text=&before=).
function taskFilters() {
  const p = new URLSearchParams(location.search);
  const f = {};
  for (const k of ["state", "queue", "label", "user", "text", "before"]) if (p.get(k)) f[k] = p.get(k);
  return f;
}

// The list request body for filters `f` (tqd looks for the text in each task's command).
function listBody(f) {
  const body = {};
  for (const k of ["state", "queue", "label", "user"]) if (f[k]) body[k] = f[k];
  if (f.text) body.command = f.text;
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
  const results = document.getElementById("task-results");
  results.replaceChildren(
    put(el("div", "", { class: "toolbar" }),
      el("span", `${answer.tasks.length} on this page${answer.more ? ", more older" : ""}`, { class: "muted" }),
      bulkButton("cancel all matching", "cancel-matching", "cancel", ACTIVE_STATES, f),
      bulkButton("retry all matching", "retry-matching", "retry", RETRYABLE_STATES, f),
      bulkButton("clean all matching", "clean-matching", "clean", FINISHED_STATES, f)),
    taskTable(answer.tasks),
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
  if (answer.more) {
    nav.append(button0("older →", () => setFilters(Object.assign({}, f, { before: String(answer.next_before_id) }))));
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
  const [t, body] = table(["ID", "STATE", "QUEUE", "OWNER", "STAGE", "COMMAND", "CREATED", "WHEN", ""], { id: "tasks" });
  for (const task of tasks) {
    const command = commandText(task);
    row(body, [
      link(`/tasks/${task.id}`, String(task.id)),
      stateEl(task.state),
      task.queue,
      task.owner ? task.owner.name : "",
      stageText(task),
      el("span", command, { class: "command", title: command }),
      timeEl(task.created),
      el("span", task.state === "pending" ? waitingText(task.waiting) || "" : "", { class: "when" }),
      put(el("span", "", { class: "actions" }), ...taskButtons(task, false)),
    ], { "data-id": String(task.id) });
  }
  if (tasks.length === 0) row(body, [el("span", "No task matches.", { class: "muted" })]);
  return t;
}

// The buttons task `t` allows: cancel while active; hold or release while pending; retry (and
// retry from start for a task with stages, when `full`) once failed or cancelled. Each asks
// first where it ends or starts work, and says what it did.
function taskButtons(t, full) {
  const out = [];
  if (ACTIVE_STATES.includes(t.state)) {
    out.push(button("cancel", "cancel", () => change("cancel", { ids: [t.id] }),
      { ask: `Cancel task ${t.id}${t.state === "running" ? " (it is running: TERM, then KILL)" : ""}?`, done: `Task ${t.id} cancelled.` }));
  }
  if (t.state === "pending") {
    out.push(t.held
      ? button("release", "release", () => change("hold", { ids: [t.id], release: true }), { done: `Task ${t.id} released.` })
      : button("hold", "hold", () => change("hold", { ids: [t.id], release: false }), { done: `Task ${t.id} held: it starts once released.` }));
  }
  if (RETRYABLE_STATES.includes(t.state)) {
    out.push(button("retry", "retry", () => change("retry", { ids: [t.id] }),
      { ask: `Run task ${t.id} again?`, done: `Task ${t.id} queued again.` }));
    if (full && t.stages && t.stages.length > 0) {
      out.push(button("retry from start", "retry-from-start", () => change("retry", { ids: [t.id], from_start: true }),
        { ask: `Run task ${t.id} again from its first stage?`, done: `Task ${t.id} queued again from its first stage.` }));
    }
  }
  return out;
}
