// The hosts page (/hosts): the hosts of the store (SPEC 12), live, silent, stopped or fenced,
// with the age of each one's last heartbeat, what it runs of its max_running, its version and
// start.
"use strict";

const HOSTS_REFRESH_MS = 5 * 1000;  // heartbeats age without events: drawn again so often

// The hosts page.
async function drawHosts() {
  const gen = generation;
  const answer = await read("hosts");
  const [t, body] = table(["HOST", "STATE", "HEARTBEAT", "RUNNING", "VERSION", "STARTED"], { id: "hosts" });
  for (const h of answer.hosts) {
    const state = h.state === "live" ? el("span", "live", { class: "badge" })
      : el("span", h.state, { class: h.state === "fenced" ? "badge bad" : "badge warn" });
    row(body, [
      put(el("span"), h.name, h.this ? el("span", " (this host)", { class: "muted" }) : null),
      state,
      answer.shared ? `${durationText(h.heartbeat_age_ms)} ago` : el("span", "–", { class: "muted", title: "one host needs no heartbeat" }),
      `${h.running}/${h.max_running}`,
      h.version,
      timeEl(h.started),
    ], { "data-host": h.name, "data-state": h.state });
  }
  render(gen,
    el("h1", "Hosts"),
    el("p", answer.shared
      ? `Several hosts share this store: one silent past its lease of ${durationText(answer.lease_ms)} is fenced and its running tasks are run again elsewhere.`
      : "The store is this machine's own: one host.", { class: "note" }),
    t);
  if (gen === generation && pageTimers.length === 0) pageTimers.push(setInterval(redraw, HOSTS_REFRESH_MS));
}
