// The page of one task (/tasks/ID): its facts, stages and attempts, its environment's names
// (values when asked), and its output followed while it runs.
"use strict";

// The task page: facts, stages and attempts (redrawn on events), then its environment and
// output (drawn once; the output is extended every 2 s while the task runs).
async function drawTask(id) {
  const gen = generation;
  const t = (await read("status", { id })).task;
  if (gen !== generation) return;
  const main = document.getElementById("main");
  if (!document.getElementById("task-info")) {  // the environment and output are drawn once
    main.replaceChildren(el("div", "", { id: "task-info" }),
      put(el("section", "", { id: "task-env" }), el("h2", "Environment"), taskEnvView(t)),
      el("h2", "Output"), outputView(id));
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
      ["runs on", t.run_on ? `${t.run_on} only` : null],
      ["labels", t.labels && t.labels.length ? labelLinks(t.labels) : null],
      ["job", t.job ? link(`/jobs/${encodeURIComponent(t.job)}`, t.job) : null],
      ["priority", t.priority],
      ["created", timeEl(t.created)],
      ["finished", t.finished ? timeEl(t.finished) : null],
      // Until it ends, a task's exit is its last stage's or attempt's, not its own.
      ["exit", FINISHED_STATES.includes(t.state) ? exitText(t) : null],
      ["reason", t.reason],
      ["waiting", t.state === "pending" ? waitingText(t.waiting) : null],
    ]),
    stagesTable(t),
    attemptsTable(t));
  document.getElementById("task-output").dataset.state = t.state;
  pickerOptions(document.getElementById("output-attempt"), t);
}

// Adds to the attempt picker of the output box an option for each attempt of `t` it lacks.
function pickerOptions(picker, t) {
  for (const a of t.attempt_log || []) {
    if (picker.querySelector(`option[value="${a.number}"]`)) continue;
    picker.append(el("option", `attempt ${a.number}` + (a.stage ? ` (stage ${wireText(a.stage)})` : ""),
      { value: String(a.number) }));
  }
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
  if (w.cannot_start) return `cannot start: ${w.cannot_start}`;
  const why = [];
  if (w.not_started) why.push(`not started: ${w.not_started}`);
  if (w.held) why.push("held");
  if (w.queue_paused) why.push("queue paused");
  if (w.until) why.push(`until ${new Date(w.until).toLocaleString()}`);
  if (w.after && w.after.length) why.push(`after ${w.after.join(", ")}`);
  if (w.host) why.push(`waiting for host ${w.host.name} (${w.host.state})`);
  if (w.units) why.push(`units ${JSON.stringify(w.units)}`);
  if (w.user_max_running) why.push(`user's max_running ${w.user_max_running} reached`);
  return why.length ? why.join("; ") : "ready";
}

// The names of task `t`'s environment; "show values" asks tqd for the values (status with env).
function taskEnvView(t) {
  const names = (t.env_names || []).map(wireText);
  if (names.length === 0) return el("span", "none set", { class: "muted" });
  const list = el("ul", "", { class: "env" });
  const values = new Map();
  for (const name of names) {
    const v = el("code", "", { class: "env-value" });
    values.set(name, v);
    list.append(put(el("li"), el("code", name), v));
  }
  const toggle = el("button", "show values", { type: "button", class: "nav-button", id: "env-toggle" });
  let shown = false;
  toggle.addEventListener("click", async () => {
    shown = !shown;
    toggle.textContent = shown ? "hide values" : "show values";
    if (!shown) { for (const v of values.values()) v.textContent = ""; return; }
    try {
      const env = (await read("status", { id: t.id, env: true })).task.env || [];
      for (const entry of env.map(wireText)) {
        const i = entry.indexOf("=");
        const v = values.get(entry.slice(0, i));
        if (v) v.textContent = `=${entry.slice(i + 1)}`;
      }
    } catch (e) { flash(e); }
  });
  return put(el("div"), toggle, list);
}

// A byte string as the wire carries it (a string, or {"b64": ...} for bytes that are not UTF-8),
// as text: bytes that are not UTF-8 show as U+FFFD.
function wireText(v) {
  return typeof v === "string" ? v : new TextDecoder().decode(wireBytes(v));
}

// Turns a stream's chunks into text: characters split between chunks are joined, bytes that are
// not UTF-8 show as U+FFFD, and terminal escape sequences (colours, cursor moves) are left out,
// also when one is split between chunks.
class OutputText {
  constructor() {
    this.decoder = new TextDecoder("utf-8");
    this.carry = "";  // the start of an escape sequence the next chunk ends
  }
  // The text of `chunk` (as the wire carries it) to append.
  next(chunk) {
    let text = this.carry + this.decoder.decode(wireBytes(chunk), { stream: true });
    this.carry = "";
    const open = text.lastIndexOf("\x1b");
    if (open >= 0 && !/^\x1b(\[[0-?]*[ -\/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])/.test(text.slice(open))
        && text.length - open < 64) {
      this.carry = text.slice(open);
      text = text.slice(0, open);
    }
    return text.replace(/\x1b(\[[0-?]*[ -\/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])/g, "");
  }
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
  const toggle = el("button", "show values", { type: "button", class: "nav-button" });
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

// The attempts table: number, stage, host, started, ended, exit/signal, reason, cpu, memory.
function attemptsTable(t) {
  const log = t.attempt_log || [];
  const [tbl, body] = table(["#", "STAGE", "HOST", "STARTED", "ENDED", "DURATION", "EXIT", "REASON", "CPU", "MEMORY"]);
  for (const a of log) {
    const cpu = (a.user_cpu_ms || 0) + (a.system_cpu_ms || 0);
    const mem = a.memory_peak_bytes || (a.max_rss_kb ? a.max_rss_kb * 1024 : 0);
    row(body, [String(a.number), a.stage || "", a.host || "", timeEl(a.started), a.ended ? timeEl(a.ended) : "running",
      durationText(a.duration_ms), exitText(a) || "",
      put(el("span"), a.reason || "", a.detail ? el("span", ` (${a.detail})`, { class: "muted" }) : null),
      el("span", durationText(cpu), { title: `user ${a.user_cpu_ms} ms, system ${a.system_cpu_ms} ms` }),
      bytesText(mem)]);
  }
  if (log.length === 0) row(body, [el("span", "No attempt yet.", { class: "muted" })]);
  return put(el("section"), el("h2", "Attempts"), tbl);
}

// The output box of task `id`: stdout and stderr of its latest attempt, or of the attempt its
// picker names, read from where it left off every 2 s while the task is pending or running and
// the tab is visible.
function outputView(id) {
  const box = el("div", "", { id: "task-output", class: "output" });
  const picker = el("select", "", { id: "output-attempt", "aria-label": "attempt shown" });
  picker.append(el("option", "latest attempt", { value: "0" }));
  let chosen = 0;  // the attempt shown; 0: the latest
  const streams = [
    { name: "stdout", stderr: false, pre: el("pre", "", { class: "log" }), offset: 0, attempt: null, text: new OutputText() },
    { name: "stderr", stderr: true, pre: el("pre", "", { class: "log log-stderr" }), offset: 0, attempt: null, text: new OutputText() },
  ];
  const error = el("p", "", { class: "error" });
  error.hidden = true;
  box.append(error);
  box.append(put(el("label"), "Show ", picker));
  for (const s of streams) box.append(el("h3", s.name), s.pre);
  const gen = generation;
  let busy = false;
  // Starts stream `s` again from the beginning (another attempt).
  const restart = (s) => { s.offset = 0; s.pre.textContent = ""; s.text = new OutputText(); };
  // Reads what each stream has beyond its offset (a fresh attempt starts the stream again).
  const pull = async () => {
    if (busy || gen !== generation || document.hidden) return;
    busy = true;
    const pick = chosen;
    try {
      for (const s of streams) {
        for (let i = 0; i < 64; i++) {
          const a = await read("logs", { id, stderr: s.stderr, offset: s.offset, attempt: pick });
          if (gen !== generation || pick !== chosen) return;
          if (s.attempt !== null && s.attempt !== a.attempt) {  // a new attempt: its output from 0
            s.attempt = a.attempt; restart(s); continue;
          }
          s.attempt = a.attempt;
          if (!a.data) break;
          const atEnd = s.pre.scrollTop + s.pre.clientHeight >= s.pre.scrollHeight - 4;
          s.pre.append(s.text.next(a.data));
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
    } finally {
      busy = false;
      if (pick !== chosen) pull();  // the picker changed meanwhile
    }
  };
  picker.addEventListener("change", () => {
    chosen = Number(picker.value);
    for (const s of streams) { s.attempt = null; restart(s); }
    pull();
  });
  pull();
  pageTimers.push(setInterval(() => {
    if (ACTIVE_STATES.includes(box.dataset.state)) pull();
  }, 2000));
  return box;
}
