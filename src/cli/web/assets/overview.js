// The overview (/): per queue the tasks by state with pause and resume, the resource units,
// and charts of the daemon's stats sampled while the console is open.
"use strict";

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
    ], { "data-queue": q.name });
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
