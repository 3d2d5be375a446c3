#!/usr/bin/python3
"""tq web in a real browser: Debian's chromium, driven through chromedriver by python3-selenium,
against a real tqd and real `tq web` consoles that this test starts on a temporary socket, state
directory and free loopback ports.

Checks what a user of the console relies on: nothing answers without the token, a change without
the CSRF token is refused, tasks submitted with `tq submit` appear and change state on an open
page without a reload, the buttons act through tqd (cancel, retry, run now), a failed task's
output is shown, a second user's console shows that user's tasks only, and a read-only console
draws no buttons and refuses changes. Saves a screenshot of each page.

Usage: web_browser_test.py --bin-dir DIR [--screenshots DIR]
Prints [tq-skip] and exits 0 when the browser or its driver is not installed.
"""

import argparse
import http.client
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
TIMEOUT_S = 30  # the longest any condition is waited for (a loaded 2-core machine)

try:
    from selenium import webdriver
    from selenium.common.exceptions import (NoAlertPresentException,
                                            StaleElementReferenceException)
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
except ImportError:
    webdriver = None

ARGS = None  # the command line, read in main()


def wait_for(condition, what, timeout_s=TIMEOUT_S):
    """Returns condition()'s first true value, polled until timeout_s; fails naming `what`."""
    deadline = time.monotonic() + timeout_s
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except (StaleElementReferenceException, NoAlertPresentException) as e:
            last_error = e  # the page redrew under us, or its dialog is not up yet: look again
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}"
                         + (f" (last: {last_error})" if last_error else ""))


class Daemon:
    """A tqd of its own in a temporary directory: socket, state, jobs directory (with
    `job_files`, name to text), tqd.toml (with `config_toml` after jobs_dir), log."""

    def __init__(self, job_files, config_toml=""):
        self.dir = tempfile.mkdtemp(prefix="tq-browser-")
        self.socket = os.path.join(self.dir, "tq.sock")
        self.state = os.path.join(self.dir, "state")
        jobs = os.path.join(self.dir, "jobs")
        os.mkdir(self.state, 0o700)
        os.mkdir(jobs, 0o700)
        for name, text in job_files.items():
            with open(os.path.join(jobs, name), "w") as f:
                f.write(text)
        config = os.path.join(self.dir, "tqd.toml")
        with open(config, "w") as f:
            f.write(f'jobs_dir = "{jobs}"\n{config_toml}')
        # A copy of tq that any user may run, in a directory whose socket others may reach, and
        # beside it the tq-web that its `tq web` runs.
        self.tq_copy = os.path.join(self.dir, "tq")
        for name in ("tq", "tq-web"):
            copy = os.path.join(self.dir, name)
            shutil.copy(os.path.join(ARGS.bin_dir, name), copy)
            os.chmod(copy, 0o755)
        os.chmod(self.dir, 0o711)
        self.log = open(os.path.join(self.dir, "tqd.log"), "w")
        self.process = subprocess.Popen(
            [os.path.join(ARGS.bin_dir, "tqd"), "-v", "--socket", self.socket, "--state",
             self.state, "--config", config],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        wait_for(lambda: self.process.poll() is not None or
                 self.tq(["ping"], check=False).returncode == 0, "tqd to answer a ping")
        if self.process.poll() is not None:
            raise AssertionError("tqd did not start:\n" + self.log_text())

    def log_text(self):
        with open(os.path.join(self.dir, "tqd.log")) as f:
            return f.read()

    def tq(self, args, user=None, check=True):
        """Runs `tq ARGS` on this daemon (as `user`, a pwd entry, when given) in a small
        environment of its own, so tasks and screenshots show only that."""
        who = user or pwd.getpwuid(os.getuid())
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": who.pw_dir, "LANG": "C.UTF-8",
               "USER": who.pw_name}
        kwargs = {"cwd": "/tmp"}
        if user is not None:
            kwargs.update(user=user.pw_uid, group=user.pw_gid, extra_groups=[])
        r = subprocess.run([self.tq_copy, "--socket", self.socket, *args], capture_output=True,
                           text=True, timeout=TIMEOUT_S, env=env, **kwargs)
        if check and r.returncode != 0:
            raise AssertionError(f"tq {' '.join(args)} exited {r.returncode}: {r.stderr}")
        return r

    def submit(self, command, user=None, flags=()):
        """The id of a new task running `sh -c COMMAND`, submitted with `flags`."""
        return int(self.tq(["submit", *flags, "--", "sh", "-c", command],
                           user=user).stdout.strip())

    def state_of(self, task_id):
        return json.loads(self.tq(["status", "--json", str(task_id)]).stdout)["state"]

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class Console:
    """A `tq web` on a free loopback port, as root or as `user`, with extra `flags`."""

    def __init__(self, daemon, flags=(), user=None):
        kwargs = {}
        if user is not None:
            kwargs = dict(user=user.pw_uid, group=user.pw_gid, extra_groups=[], cwd="/")
        self.process = subprocess.Popen(
            [daemon.tq_copy, "--socket", daemon.socket, "web", "--listen", "127.0.0.1:0", *flags],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            **kwargs)
        line = self.process.stdout.readline().strip()
        prefix = "tq web: http://127.0.0.1:"
        if not line.startswith(prefix):
            raise AssertionError(f"tq web printed {line!r}; stderr: {self.process.stderr.read()}")
        self.port = int(line[len(prefix):].split("/")[0])
        self.base = f"http://127.0.0.1:{self.port}"
        # Each printed token signs in once, and each sign-in prints the next: a thread keeps the
        # latest address.
        self.changed = threading.Condition()
        self.latest = line[line.index("http://"):]
        self.used = None
        threading.Thread(target=self._read_sign_ins, daemon=True).start()

    def _read_sign_ins(self):
        for line in self.process.stdout:
            if "/login?token=" in line:
                with self.changed:
                    self.latest = line[line.index("http://"):].strip()
                    self.changed.notify_all()

    @property
    def login_url(self):
        """The address of the next sign-in (waits for tq web to print it after the last one)."""
        with self.changed:
            if not self.changed.wait_for(lambda: self.latest != self.used, timeout=TIMEOUT_S):
                raise AssertionError("tq web printed no next sign-in address")
            self.used = self.latest
            return self.latest

    def http(self, method, path, body=None, headers=None):
        """(status, body text) of one request made outside the browser."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT_S)
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        text = r.read().decode()
        c.close()
        return r.status, text

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError("tq web did not end on TERM")
        self.process.stderr.close()
        if code != 0:
            raise AssertionError(f"tq web exited {code} on TERM")


def make_user():
    """A throwaway user (named as the C++ tests name theirs, so their sweep removes leftovers)."""
    name = f"tqt{os.getpid()}x{int(time.time() * 1000) % 100000}"
    subprocess.run(["/usr/sbin/useradd", "--no-create-home", "--user-group", "--home-dir",
                    "/nonexistent", "--shell", "/bin/sh", name], check=True, timeout=TIMEOUT_S)
    return pwd.getpwnam(name)


def remove_user(user):
    subprocess.run(["/usr/sbin/userdel", user.pw_name], timeout=TIMEOUT_S)


def new_browser(javascript=True):
    """A headless chromium (with JavaScript turned off when `javascript` is false)."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1280,900", "--lang=en-US"):
        options.add_argument(flag)
    if not javascript:
        options.add_experimental_option(
            "prefs", {"profile.managed_default_content_settings.javascript": 2})
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    browser.set_page_load_timeout(TIMEOUT_S)
    return browser


# Queues of tqd.toml: the overview counts their tasks apart (others are counted together).
QUEUES = """[queues.backup]
concurrency = 1
[queues.reports]
concurrency = 4
"""

NIGHTLY_JOB = """[[job]]
name = "nightly-report"
schedule = "30 2 * * *"
timezone = "Europe/Berlin"
command = "echo report"
"""


class ConsoleInBrowser(unittest.TestCase):
    """One tqd, one browser, and the consoles each case needs."""

    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon({"nightly.toml": NIGHTLY_JOB}, QUEUES)
        cls.console = Console(cls.daemon)
        cls.browser = new_browser()

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        cls.console.stop()
        cls.daemon.stop()

    # ---- helpers ----

    def open(self, console, path):
        """Signs the browser into `console` and opens `path` there."""
        self.browser.get(console.login_url)
        self.browser.get(console.base + path)

    def find(self, css):
        return self.browser.find_elements(By.CSS_SELECTOR, css)

    def click(self, css, what):
        """Clicks the first element `css` matches once the page has one, finding it again when
        the page redrew it between the find and the click."""
        def found_and_clicked():
            found = self.find(css)
            if found:
                found[0].click()
            return bool(found)
        wait_for(found_and_clicked, what)

    def text_of(self, css):
        """The text of the first element `css` matches, or "" while the page has none."""
        found = self.find(css)
        return found[0].text if found else ""

    def row_state(self, task_id):
        """The state word in the tasks table's row of `task_id`, or None while it has none."""
        cells = self.find(f'#tasks tr[data-id="{task_id}"] .state')
        return cells[0].text if cells else None

    def fetch(self, method, path, body, headers):
        """(status, text) of fetch() run in the page, with the browser's own cookies."""
        return self.browser.execute_async_script(
            """const [method, path, body, headers, done] = arguments;
               fetch(path, {method, body, headers}).then(
                 async (r) => done([r.status, await r.text()]), (e) => done([0, String(e)]));""",
            method, path, body, headers)

    def screenshot(self, name, browser=None):
        """Saves what `browser` (the shared one by default) shows as NAME.png."""
        if ARGS.screenshots:
            os.makedirs(ARGS.screenshots, exist_ok=True)
            (browser or self.browser).save_screenshot(
                os.path.join(ARGS.screenshots, name + ".png"))

    # ---- cases ----

    def test_nothing_answers_without_the_token_and_changes_need_csrf(self):
        c = self.console
        self.assertEqual(c.http("GET", "/")[0], 401)
        self.assertEqual(c.http("GET", "/tasks")[0], 401)
        self.assertEqual(c.http("GET", "/api/list")[0], 401)
        self.assertEqual(c.http("GET", "/login?token=" + "0" * 64)[0], 403)
        # The browser without the session sees the sign-in refusal, not the console.
        self.browser.delete_all_cookies()
        self.browser.get(c.base + "/tasks")
        self.assertIn("Sign in", self.browser.find_element(By.TAG_NAME, "body").text)
        self.assertEqual(self.find("#tasks"), [])
        # Signed in, the page loads; a POST with the session but no CSRF token is refused.
        self.open(c, "/tasks")
        wait_for(lambda: self.find("#tasks"), "the tasks table")
        victim = self.daemon.submit("sleep 600")
        status, text = self.fetch("POST", "/api/cancel", json.dumps({"ids": [victim]}),
                                  {"Content-Type": "application/json"})
        self.assertEqual(status, 403, text)
        self.assertEqual(self.daemon.state_of(victim), "running")
        self.daemon.tq(["cancel", str(victim)])

    def test_submitted_tasks_appear_and_change_state_without_a_reload(self):
        self.open(self.console, "/tasks")
        wait_for(lambda: self.find("#tasks"), "the tasks table")
        self.browser.execute_script("window.tqNotReloaded = true;")
        wait_for(lambda: self.find("#live.on"), "the live event stream")
        task = self.daemon.submit("sleep 600")
        wait_for(lambda: self.row_state(task) == "running", f"task {task} shown running")
        self.screenshot("tasks")
        self.daemon.tq(["cancel", str(task)])
        wait_for(lambda: self.row_state(task) == "cancelled", f"task {task} shown cancelled")
        self.assertTrue(self.browser.execute_script("return window.tqNotReloaded === true;"))

    def test_cancel_and_retry_buttons_act_through_tqd(self):
        task = self.daemon.submit("sleep 600")
        wait_for(lambda: self.daemon.state_of(task) == "running", f"task {task} running")
        self.open(self.console, f"/tasks/{task}")
        # Asked first: dismissed, nothing happens.
        self.click('#task-info button[data-action="cancel"]', "the cancel button")
        alert = wait_for(lambda: self.browser.switch_to.alert, "the confirmation")
        self.assertIn(f"Cancel task {task}", alert.text)
        alert.dismiss()
        self.assertEqual(self.daemon.state_of(task), "running")
        self.click('#task-info button[data-action="cancel"]', "the cancel button")
        wait_for(lambda: self.browser.switch_to.alert, "the confirmation").accept()
        wait_for(lambda: self.daemon.state_of(task) == "cancelled",
                 f"tq status to say task {task} is cancelled")
        wait_for(lambda: f"Task {task} cancelled." in self.text_of("#flash"), "the success message")
        self.click('#task-info button[data-action="retry"]', "the retry button")
        wait_for(lambda: self.browser.switch_to.alert, "the confirmation").accept()
        wait_for(lambda: self.daemon.state_of(task) == "running",
                 f"tq status to say task {task} runs again")
        self.daemon.tq(["cancel", str(task)])

    def test_hold_and_release_buttons_and_the_when_column(self):
        task = self.daemon.submit("true", flags=["--delay", "1h"])
        self.open(self.console, "/tasks")
        hold = f'#tasks tr[data-id="{task}"] button[data-action="hold"]'
        wait_for(lambda: self.find(hold), "the hold button")
        self.assertIn("until", self.text_of(f'#tasks tr[data-id="{task}"] .when'))
        self.click(hold, "the hold button")
        held = lambda: json.loads(self.daemon.tq(["status", "--json", str(task)]).stdout)["held"]
        wait_for(held, f"task {task} held")
        release = f'#tasks tr[data-id="{task}"] button[data-action="release"]'
        wait_for(lambda: "held" in self.text_of(f'#tasks tr[data-id="{task}"] .when'), "WHEN: held")
        self.click(release, "the release button")
        wait_for(lambda: not held(), f"task {task} released")
        self.daemon.tq(["cancel", str(task)])

    def test_clean_all_matching_asks_with_the_count_and_cleans_those_only(self):
        kept = self.daemon.submit("echo bulk-keep")
        cleaned = [self.daemon.submit("echo bulk-clean-me") for _ in range(2)]
        for task in [kept, *cleaned]:
            wait_for(lambda: self.daemon.state_of(task) == "succeeded", f"task {task} succeeded")
        self.open(self.console, "/tasks?state=succeeded&text=BULK-CLEAN")
        wait_for(lambda: len(self.find("#tasks tr[data-id]")) == 2, "the two matching tasks")
        self.click('button[data-action="clean-matching"]', "the clean-matching button")
        alert = wait_for(lambda: self.browser.switch_to.alert, "the confirmation")
        self.assertIn("clean 2 succeeded task(s)", alert.text)
        alert.accept()

        def listed():
            return self.daemon.tq(["list", "--json", "--command", "bulk-"]).stdout
        wait_for(lambda: "bulk-clean-me" not in listed(), "the matching tasks cleaned")
        self.assertIn("bulk-keep", listed())

    def test_a_failed_tasks_output_is_shown(self):
        task = self.daemon.submit("echo boom-before-failing; echo on-stderr >&2; exit 3")
        wait_for(lambda: self.daemon.state_of(task) == "failed", f"task {task} failed")
        self.open(self.console, f"/tasks/{task}")
        wait_for(lambda: "boom-before-failing" in self.text_of("#task-output"),
                 "the failed task's output on its page")
        wait_for(lambda: "exit 3" in self.text_of("#task-info"), "the failed task's exit status")
        info = self.text_of("#task-info")
        self.assertIn("failed", info)
        self.assertIn("exit 3", info)
        self.screenshot("task")

    def test_an_earlier_attempts_output_is_shown_when_picked(self):
        task = self.daemon.submit('echo "output-of-attempt-$TQ_ATTEMPT"; exit 3',
                                  flags=("--retries", "1", "--backoff-base", "1s"))
        wait_for(lambda: self.daemon.state_of(task) == "failed", f"task {task} failed twice")
        self.open(self.console, f"/tasks/{task}")
        wait_for(lambda: "output-of-attempt-2" in self.text_of("#task-output"),
                 "the latest attempt's output")
        wait_for(lambda: self.find('#output-attempt option[value="1"]'), "attempt 1 to pick")
        Select(self.find("#output-attempt")[0]).select_by_value("1")

        def first_shown():
            text = self.text_of("#task-output")
            return "output-of-attempt-1" in text and "output-of-attempt-2" not in text
        wait_for(first_shown, "the first attempt's output alone")
        Select(self.find("#output-attempt")[0]).select_by_value("0")
        wait_for(lambda: "output-of-attempt-2" in self.text_of("#task-output"),
                 "the latest attempt's output again")

    def test_run_now_on_a_job_creates_a_run(self):
        def runs():
            return self.daemon.tq(["list", "--json", "--label",
                                   "job:nightly-report"]).stdout.splitlines()
        before = len(runs())
        self.open(self.console, "/jobs")
        run_now = '#jobs tr[data-job="nightly-report"] button[data-action="run"]'
        wait_for(lambda: self.find(run_now), "the run-now button")
        self.assertIn("every day", self.text_of('#jobs tr[data-job="nightly-report"]'))
        self.click(run_now, "the run-now button")
        wait_for(lambda: self.browser.switch_to.alert, "the confirmation").accept()
        wait_for(lambda: len(runs()) == before + 1, "a run of nightly-report")
        # The run appears in the job's strip of last runs.
        wait_for(lambda: self.find('#jobs tr[data-job="nightly-report"] .strip a'),
                 "the run in the job's strip")
        self.screenshot("jobs")

    def test_overview_shows_the_queues(self):
        done = self.daemon.submit("true", flags=["--queue", "reports"])
        failed = self.daemon.submit("exit 1", flags=["--queue", "reports"])
        later = self.daemon.submit("true", flags=["--queue", "reports", "--delay", "1h"])
        running = self.daemon.submit("sleep 600", flags=["--queue", "backup"])
        for task, state in ((done, "succeeded"), (failed, "failed"), (running, "running"),
                            (later, "pending")):
            wait_for(lambda: self.daemon.state_of(task) == state, f"task {task} {state}")
        self.open(self.console, "/")
        for queue in ("default", "reports", "backup"):
            wait_for(lambda: self.find(f'#queues tr[data-queue="{queue}"]'), f"queue {queue}")
        wait_for(lambda: "1/1" in self.text_of('#queues tr[data-queue="backup"]'),
                 "the backup queue's running task")
        wait_for(lambda: self.find('#queues tr[data-queue="reports"] a.state-failed'),
                 "the reports queue's failed task counted")
        wait_for(lambda: self.find("svg"), "the charts")
        self.screenshot("overview")
        self.daemon.tq(["cancel", str(running), str(later)])

    def test_hosts_page_lists_this_host_live(self):
        hosts = json.loads(self.daemon.tq(["hosts", "--json"]).stdout)["hosts"]
        self.assertEqual(len(hosts), 1)
        name = hosts[0]["name"]
        self.open(self.console, "/")
        self.click('header nav a[href="/hosts"]', "the Hosts link")
        cell = f'#hosts tr[data-host="{name}"]'
        wait_for(lambda: self.find(cell), f"host {name}")
        self.assertEqual(self.find(cell)[0].get_attribute("data-state"), "live")
        self.assertIn("(this host)", self.text_of(cell))
        self.assertIn("one host", self.text_of("main"))
        self.screenshot("hosts")

    def test_without_javascript_the_plain_pages_show_tasks_read_only(self):
        task = self.daemon.submit("echo plain-output; exit 4")
        wait_for(lambda: self.daemon.state_of(task) == "failed", f"task {task} failed")
        browser = new_browser(javascript=False)
        try:
            browser.get(self.console.login_url)
            browser.get(self.console.base + f"/tasks/{task}")
            browser.find_element(By.ID, "plain-link").click()
            wait_for(lambda: "plain-output" in browser.find_element(By.ID, "task-output").text,
                     "the plain page's output")
            self.assertIn("exit 4", browser.find_element(By.TAG_NAME, "main").text)
            self.assertEqual(browser.find_elements(By.TAG_NAME, "button"), [])
            # The filter form works by GET, and the rows link to the tasks.
            browser.get(self.console.base + "/plain/tasks")
            field = browser.find_element(By.CSS_SELECTOR, 'form.filters input[name="text"]')
            field.send_keys("PLAIN-OUTPUT")
            field.submit()
            wait_for(lambda: "text=PLAIN-OUTPUT" in browser.current_url, "the filtered address")
            links = [a.get_attribute("href") for a in
                     browser.find_elements(By.CSS_SELECTOR, "#tasks a")]
            self.assertEqual(links, [f"{self.console.base}/plain/tasks/{task}"])
            self.screenshot("plain-tasks", browser)
        finally:
            browser.quit()

    def test_a_read_only_console_has_no_buttons_and_refuses_changes(self):
        task = self.daemon.submit("sleep 600")
        console = Console(self.daemon, ["--read-only"])
        try:
            for path in ("/", "/tasks", f"/tasks/{task}", "/jobs"):
                self.open(console, path)
                wait_for(lambda: self.find("main h1"), f"the page {path}")
                wait_for(lambda: self.find("#tasks, #task-info dl, #jobs, #queues"),
                         f"the content of {path}")
                actions = self.find("button[data-action]")
                self.assertEqual([b.text for b in actions], [], f"buttons on {path}")
            csrf = self.browser.execute_script(
                'return document.querySelector("meta[name=tq-csrf]").content;')
            status, text = self.fetch("POST", "/api/cancel", json.dumps({"ids": [task]}),
                                      {"Content-Type": "application/json", "X-CSRF-Token": csrf})
            self.assertEqual(status, 403, text)
            self.assertEqual(self.daemon.state_of(task), "running")
        finally:
            console.stop()
            self.daemon.tq(["cancel", str(task)])

    def test_a_second_users_console_shows_that_users_tasks_only(self):
        if os.geteuid() != 0 or not os.access("/usr/sbin/useradd", os.X_OK):
            self.skipTest("needs root and useradd to make a second user")
        roots = self.daemon.submit("sleep 600")
        user = make_user()
        try:
            theirs = self.daemon.submit("sleep 600", user=user)
            console = Console(self.daemon, user=user)
            try:
                self.open(console, "/tasks")
                wait_for(lambda: self.row_state(theirs) == "running", "their task on the page")
                shown = [r.get_attribute("data-id") for r in self.find("#tasks tr[data-id]")]
                self.assertEqual(shown, [str(theirs)])
                self.open(console, f"/tasks/{roots}")
                wait_for(lambda: self.find("#flash:not([hidden])"), "the refusal of root's task")
                self.assertNotIn("sleep 600", self.find("main")[0].text)
            finally:
                console.stop()
            self.daemon.tq(["cancel", str(theirs)])
        finally:
            remove_user(user)
            self.daemon.tq(["cancel", str(roots)])


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin-dir", required=True, help="where tq and tqd were built")
    parser.add_argument("--screenshots", help="where to save a screenshot of each page")
    ARGS, rest = parser.parse_known_args()
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if webdriver is None:
        missing.append("python3-selenium")
    if missing:
        print(f"[tq-skip] not installed: {', '.join(missing)} (scripts/deps.sh installs them)")
        return 0
    result = unittest.main(argv=[sys.argv[0], "-v", *rest], exit=False).result
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
