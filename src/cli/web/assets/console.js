// The console's script: draws the page from the JSON API and keeps it live from the event
// stream. No framework, no build step.
"use strict";

const csrf = document.querySelector('meta[name="tq-csrf"]').content;
const readOnly = document.querySelector('meta[name="tq-read-only"]').content === "true";

// GET /api/TYPE with `body` as its q argument; the parsed answer.
async function read(type, body = {}) {
  const r = await fetch(`/api/${type}?q=${encodeURIComponent(JSON.stringify(body))}`);
  const answer = await r.json();
  if (!answer.ok) throw new Error(answer.error.message);
  return answer;
}

// POST /api/TYPE with `body`; the parsed answer.
async function change(type, body) {
  const r = await fetch(`/api/${type}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify(body),
  });
  const answer = await r.json();
  if (!answer.ok) throw new Error(answer.error.message);
  return answer;
}

// An element `tag` with `text` and attributes `attrs`.
function el(tag, text = "", attrs = {}) {
  const e = document.createElement(tag);
  e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

// The command of a task as one line.
function commandText(t) {
  if (t.shell) return t.shell;
  return (t.argv || []).join(" ");
}

// A table of tasks, with cancel on those still pending or running.
function taskTable(tasks) {
  const table = el("table", "", { id: "tasks" });
  const head = table.createTHead().insertRow();
  for (const h of ["ID", "STATE", "QUEUE", "OWNER", "COMMAND", ""]) head.appendChild(el("th", h));
  const body = table.createTBody();
  for (const t of tasks) {
    const row = body.insertRow();
    row.dataset.id = t.id;
    row.appendChild(el("td", String(t.id)));
    row.appendChild(el("td", t.state, { class: `state state-${t.state}` }));
    row.appendChild(el("td", t.queue));
    row.appendChild(el("td", t.owner ? t.owner.name : ""));
    row.appendChild(el("td", commandText(t), { class: "command" }));
    const actions = row.insertCell();
    if (!readOnly && (t.state === "pending" || t.state === "running")) {
      const b = el("button", "cancel", { "data-action": "cancel" });
      b.addEventListener("click", () => change("cancel", { ids: [t.id] }).catch(showError));
      actions.appendChild(b);
    }
  }
  return table;
}

function showError(e) {
  const main = document.getElementById("main");
  main.prepend(el("p", String(e.message || e), { class: "error" }));
}

async function drawTasks() {
  const main = document.getElementById("main");
  const answer = await read("list", { limit: 100 });
  main.replaceChildren(el("h1", "Tasks"), taskTable(answer.tasks));
}

// Follows tqd's events: the page is drawn again when a task changes (paused while hidden).
function follow(draw) {
  let source = null;
  let pending = false;
  const open = () => {
    source = new EventSource("/api/events");
    source.onopen = () => document.getElementById("live").classList.add("on");
    source.onerror = () => document.getElementById("live").classList.remove("on");
    source.onmessage = () => {
      if (pending) return;
      pending = true;
      setTimeout(() => { pending = false; draw().catch(showError); }, 200);
    };
    document.getElementById("live").textContent = "live";
  };
  const close = () => {
    if (source) source.close();
    source = null;
    document.getElementById("live").textContent = "paused";
    document.getElementById("live").classList.remove("on");
  };
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) close();
    else { open(); draw().catch(showError); }
  });
  open();
}

drawTasks().catch(showError);
follow(drawTasks);
