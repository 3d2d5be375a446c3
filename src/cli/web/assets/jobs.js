// The jobs page (/jobs, /jobs/NAME): schedules in cron and in words, the next firing with a
// countdown, the last runs, run now, enable and disable, and the job files' load errors.
"use strict";

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
  // A job's runs carry its label; the task's job names it too (a label alone once could be a
  // user's own, before the prefix was reserved).
  const runs = await Promise.all(jobs.map((j) => read("list", { label: `job:${j.name}`, limit: name ? 100 : 20 })
    .then((a) => ({ tasks: a.tasks.filter((t) => t.job === j.name) }))));
  const [t, body] = table(["JOB", "SCHEDULE", "NEXT", "LAST RUNS", "STATE", ""], { id: "jobs" });
  jobs.forEach((j, i) => {
    row(body, [
      link(`/jobs/${encodeURIComponent(j.name)}`, j.name),
      scheduleEl(j),
      jobOn(j) ? countdownEl(j.next) : el("span", "disabled", { class: "muted" }),
      runStrip(runs[i].tasks.slice(0, 20)),
      jobStateEl(j),
      put(el("span", "", { class: "actions" }),
        button("run now", "run", () => change("job_run", { name: j.name }),
          { ask: `Run job ${j.name} now (as its overlap allows)?`, done: `Job ${j.name} started.` }),
        // A job its file disables (enabled = false) is turned on in its file, not here.
        j.enabled === false ? null
          : !j.disabled
            ? button("disable", "disable", () => change("job_enable", { name: j.name, enabled: false }),
              { ask: `Disable job ${j.name}? It fires no more until enabled.`, done: `Job ${j.name} disabled.` })
            : button("enable", "enable", () => change("job_enable", { name: j.name, enabled: true }), { done: `Job ${j.name} enabled.` })),
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
