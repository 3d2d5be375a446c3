// The overview (/): per queue the tasks by state with pause and resume, the resource units,
// and charts of tqd's own history of the last hour (a sample a minute).
"use strict";

const HOUR_MS = 3600 * 1000;
const REFRESH_MS = 30 * 1000;  // the overview is drawn again so often without events

// The overview: queues with their counts, resources, and charts of tqd's last hour.
async function drawOverview() {
  const gen = generation;
  const [stats, queues, resources] = await Promise.all([
    read("stats").then((a) => a.stats), read("queue", { action: "list" }), read("resources")]);
  const history = intervals(stats.history || []);
  render(gen,
    el("h1", "Overview"),
    queueTable(queues.queues, stats.tasks || []),
    queues.more ? el("p", "More queues exist than tqd lists at once.", { class: "note" }) : null,
    el("h2", "Resources"),
    resourceTable(resources.resources || []),
    el("h2", "The last hour"),
    el("p", "From tqd's own history, a sample a minute since it started.", { class: "note" }),
    put(el("div", "", { class: "charts" }), finishedChart(history), waitChart(history),
      runningChart(stats.history || [])),
    history.length === 0 ? el("p", "tqd has been up less than two minutes: the charts fill as it runs.", { class: "muted" }) : null);
}

// The queues with counts by state, running/concurrency, paused, and pause/resume buttons.
function queueTable(queues, counts) {
  const byQueue = new Map();
  for (const c of counts) {
    if (!byQueue.has(c.queue)) byQueue.set(c.queue, {});
    byQueue.get(c.queue)[c.state] = c.count;
  }
  const [t, body] = table(["QUEUE", "RUNNING", "PAUSED", ...ALL_STATES.map((s) => s.toUpperCase()), ""], { id: "queues" });
  // "(other)" is no queue: its counts are the queues tqd.toml does not name, together, and no
  // filter finds them; those queues' own rows say where their tasks are counted.
  const countCells = (q) => ALL_STATES.map((s) => {
    const n = (byQueue.get(q) || {})[s];
    if (!n) return "";
    if (q === "(other)") return el("span", String(n), { class: `state-${s}` });
    return link(`/tasks?queue=${encodeURIComponent(q)}&state=${s}`, String(n), { class: `state-${s}` });
  });
  const counted = (q) => q.counted_apart === false
    ? [el("span", "counted in (other)", { class: "muted", title: "tqd counts the tasks of queues tqd.toml does not name together" }), ...ALL_STATES.slice(1).map(() => "")]
    : countCells(q.name);
  for (const q of queues) {
    const action = q.paused
      ? button("resume", "resume", () => change("queue", { action: "resume", name: q.name }))
      : button("pause", "pause", () => change("queue", { action: "pause", name: q.name }));
    row(body, [
      link(`/tasks?queue=${encodeURIComponent(q.name)}`, q.name),
      `${q.running}/${q.concurrency === null ? "∞" : q.concurrency}`,
      q.paused ? el("span", "paused", { class: "badge warn" }) : "no",
      ...counted(q),
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

// What happened between each two samples of tqd's history: {at (the later sample's time),
// succeeded, failed, wait (mean queue wait of the starts in it, seconds, or null), minutes}.
function intervals(history) {
  const out = [];
  for (let i = 1; i < history.length; i++) {
    const a = history[i - 1], b = history[i];
    const starts = b.wait_count - a.wait_count;
    out.push({
      at: b.at,
      succeeded: Math.max(0, b.succeeded - a.succeeded),
      failed: Math.max(0, b.failed - a.failed),
      wait: starts > 0 ? (b.wait_sum_s - a.wait_sum_s) / starts : null,
      minutes: Math.max(1, (b.at - a.at) / 60000),
    });
  }
  return out;
}

// The x of time `at` on a chart of the hour up to `newest` (both tqd's times).
function xOf(at, newest) {
  return 360 - ((newest - at) / HOUR_MS) * 360;
}

// Bars of the tasks that succeeded and failed in each minute of the history.
function finishedChart(history) {
  const max = Math.max(1, ...history.map((d) => d.succeeded + d.failed));
  const [box, s] = chartFrame("tasks finished a minute: succeeded, failed", max);
  const newest = history.length ? history[history.length - 1].at : 0;
  const bar = 360 / 60;
  for (const d of history) {
    const x = xOf(d.at, newest);
    const hOk = (d.succeeded / max) * 100, hFail = (d.failed / max) * 100;
    const title = svg("title");
    title.textContent = `${new Date(d.at).toLocaleTimeString()}: ${d.succeeded} succeeded, ${d.failed} failed`;
    const g = svg("g");
    g.append(title,
      svg("rect", { x: x - bar, y: 110 - hOk, width: bar - 0.5, height: hOk, class: "bar-ok" }),
      svg("rect", { x: x - bar, y: 110 - hOk - hFail, width: bar - 0.5, height: hFail, class: "bar-failed" }));
    s.append(g);
  }
  return box;
}

// Bars of the mean queue wait (ready to started) of the starts in each minute of the history.
function waitChart(history) {
  const waits = history.filter((d) => d.wait !== null);
  const max = Math.max(0.001, ...waits.map((d) => d.wait));
  const [box, s] = chartFrame("queue wait, mean of a minute's starts", durationText(Math.round(max * 1000)));
  const newest = history.length ? history[history.length - 1].at : 0;
  const bar = 360 / 60;
  for (const d of waits) {
    const h = (d.wait / max) * 100;
    const title = svg("title");
    title.textContent = `${new Date(d.at).toLocaleTimeString()}: ${durationText(Math.round(d.wait * 1000))}`;
    const g = svg("g");
    g.append(title, svg("rect", { x: xOf(d.at, newest) - bar, y: 110 - h, width: bar - 0.5, height: h, class: "bar-wait" }));
    s.append(g);
  }
  return box;
}

// A line of how many tasks were running at each sample of the history.
function runningChart(history) {
  const max = Math.max(1, ...history.map((p) => p.running));
  const [box, s] = chartFrame("tasks running", max);
  const newest = history.length ? history[history.length - 1].at : 0;
  const points = history.map((p) => `${xOf(p.at, newest).toFixed(1)},${(110 - (p.running / max) * 100).toFixed(1)}`);
  if (points.length > 1) s.append(svg("polyline", { points: points.join(" "), class: "line-running" }));
  return box;
}
