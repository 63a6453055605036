"""reportpage: reading widecol_report's pages, and rendering them in
Debian's headless Chromium, for tests/harness/report_check.py,
tests/harness/report_browser.py, bench/report.py and `make report`.

Page parses a page's data-* attributes by section and design.  Chromium
runs the browser the way the tests need it: headless, a new empty
profile, no first-run work or background networking; render() returns
the DOM after the page's scripts ran, the page's console messages and
the requests the page made (read from Chromium's net log: requests made
for the page carry its file:// origin, the browser's own carry none).
"""
import html.parser
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--hide-scrollbars", "--mute-audio"]


class Page(html.parser.HTMLParser):
    """The data-* attributes of a report, by section and design, and the
    text of each section's parts."""

    def __init__(self, text=None):
        super().__init__(convert_charrefs=True)
        self.section = None
        self.design = None
        self.rows = []      # (section, design, tag, attrs)
        self.text = {}      # (section, design) -> text
        self.src = []       # [section, design, text of a p.src]
        self.shapes = {}    # section -> what it shows: svg shapes, table
        #                     rows, key bytes, code, tags with figures
        self.sections = []  # section ids, in page order
        self._in_src = False
        if text is not None:
            self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.section = a.get("id")
            self.design = None
            self.sections.append(self.section)
        if tag == "div" and "data-design" in a:
            self.design = a["data-design"]
        if self.section and (tag in ("rect", "tr", "span", "line", "pre")
                             or any(k.startswith("data-") for k in a)):
            self.shapes[self.section] = self.shapes.get(self.section, 0) + 1
        if any(k.startswith("data-") for k in a):
            self.rows.append((self.section, self.design, tag, a))
        if tag == "p" and a.get("class") == "src":
            self._in_src = True
            self.src.append([self.section, self.design, ""])

    def handle_endtag(self, tag):
        if tag == "p":
            self._in_src = False

    def handle_data(self, data):
        if self._in_src:
            self.src[-1][2] += data
        key = (self.section, self.design)
        self.text[key] = self.text.get(key, "") + data

    def attrs(self, section, design, name):
        """The attributes of the tags of a section and design that have
        data attribute name."""
        return [a for s, d, t, a in self.rows if s == section and d == design and name in a]

    def calls(self, section, design):
        """The SQL a section quotes for a design (its p.src lines)."""
        return [t.strip() for s, d, t in self.src if s == section and d == design]


def chromium():
    """The Chromium binary, or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Rendered:
    def __init__(self, dom, console, requests, seconds):
        self.dom = dom
        self.console = console
        self.requests = requests
        self.seconds = seconds


def render(path, screenshot=None, size=(1280, 2400), timeout=120):
    """Renders the file at path: its DOM after scripts, console messages,
    the URLs the page requested, and the seconds Chromium took.  With
    screenshot, also a PNG of the first size[1] pixels at that width."""
    profile = tempfile.mkdtemp(prefix="wc-chromium-")
    netlog = os.path.join(profile, "net.json")
    url = "file://" + os.path.abspath(path)
    try:
        args = [chromium()] + CHROMIUM_FLAGS + [
            "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0",
            "--log-net-log=" + netlog, "--window-size=%d,%d" % size]
        start = time.time()
        res = subprocess.run(args + ["--dump-dom", url], capture_output=True, text=True,
                             timeout=timeout)
        seconds = time.time() - start
        console = [line for line in res.stderr.splitlines() if ":CONSOLE" in line]
        requests = page_requests(netlog)
        if screenshot:
            subprocess.run(args + ["--screenshot=" + os.path.abspath(screenshot), url],
                           capture_output=True, timeout=timeout, check=True)
        return Rendered(res.stdout, console, requests, seconds)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def page_requests(netlog):
    """URLs of the requests the page made, from a Chromium net log: a
    request's start names its initiator, and the browser's own requests
    (updates, sign-in) have 'not an origin'."""
    try:
        log = json.load(open(netlog))
    except (OSError, ValueError):
        # Chromium ends the log when it exits; a log cut short still holds
        # its events up to the last complete one.
        text = open(netlog).read().rstrip().rstrip(",")
        log = json.loads(text + "]}")
    start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    out = []
    for e in log["events"]:
        p = e.get("params", {})
        if e["type"] == start_job and "url" in p and p.get("initiator") != "not an origin":
            out.append(p["url"])
    return out


def section_screenshots(text, directory, width=1100):
    """A PNG of each section of the page text, as directory/<id>.png: the
    page with that section alone, at its own height (read from the DOM
    after a first render)."""
    head, rest = text.split("<section ", 1)
    sections = re.findall(r"<section .*?</section>", "<section " + rest, re.S)
    tail = text[text.rindex("</section>") + len("</section>"):]
    out = []
    tmp = tempfile.mkdtemp(prefix="wc-sections-")
    try:
        for sec in sections:
            sid = re.match(r'<section id="([^"]+)"', sec).group(1)
            page = os.path.join(tmp, sid + ".html")
            measure = ("<script>document.body.setAttribute('data-height', "
                       "document.documentElement.scrollHeight);</script>")
            open(page, "w", encoding="utf-8").write(head + sec + tail.replace(
                "</body>", measure + "</body>"))
            dom = render(page, size=(width, 800)).dom
            height = int(re.search(r'data-height="(\d+)"', dom).group(1))
            png = os.path.join(directory, sid + ".png")
            render(page, screenshot=png, size=(width, height + 8))
            out.append(png)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out
