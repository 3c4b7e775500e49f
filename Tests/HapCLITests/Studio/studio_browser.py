#!/usr/bin/python3
"""Drives `hap studio`'s page in Debian's headless chromium (python3-selenium, chromedriver).

    studio_browser.py SCENARIO URL FOLDER [ARGS...]

URL is the first line `hap studio` printed (with its one-time token), FOLDER the folder the
studio serves (the copy of a pattern the scenario edits). Prints what it saw as one JSON object
on its last line and exits 0; on a failure prints `FAIL: why` and exits 1 (2: it could not run,
e.g. no selenium). StudioBrowserTests (Tests/HapCLITests/StudioBrowserTests.swift) run the
scenarios and check the files themselves too; scripts/bench.py's studio section runs the
`bench-*` ones. Every wait polls for an event with a deadline (10 s), never a fixed sleep.

Scenarios (see each function's docstring): events-drag, edit-steps, own-edits, outside, play, screenshot,
bench-ready, bench-edit, bench-click.
"""
import json, os, re, subprocess, sys, time

try:
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
except ImportError as error:  # the Swift test says so (a known issue, or a failure under CI)
    print(f"CANNOT: python3-selenium is not importable ({error})")
    sys.exit(2)

DEADLINE = 10.0


class Failure(Exception):
    pass


def fail(why):
    raise Failure(why)


def wait(condition, seconds=DEADLINE, every=0.005):
    """Polls condition() until it is truthy (returned) or `seconds` pass (None)."""
    end = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > end:
            return None
        time.sleep(every)


# ----------------------------------------------------------------------------------------------
# the browser

CSP_PROBE = """
window.__hapCSP = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__hapCSP.push(e.violatedDirective + ' blocked ' + (e.blockedURI || '(inline)') + ' at ' + e.sourceFile + ':' + e.lineNumber);
});
"""


class Browser:
    """One headless chromium with the studio open; collects the console as it goes."""

    def __init__(self, url):
        options = webdriver.ChromeOptions()
        for argument in ("--headless=new", "--no-sandbox", "--window-size=1400,900", "--disable-gpu",
                         "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions",
                         "--disable-background-networking", "--disable-component-update", "--disable-sync",
                         "--metrics-recording-only", "--no-default-browser-check", "--hide-scrollbars",
                         "--force-device-scale-factor=1"):
            options.add_argument(argument)
        options.binary_location = "/usr/bin/chromium"
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
        self.logs = []
        # Installed before any of the page's scripts runs (a DevTools script is outside the CSP).
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CSP_PROBE})
        self.url = url
        self.origin = re.match(r"(https?://[^/]+)", url).group(1)
        self.driver.get(url)
        self.wait_ready()

    def js(self, script, *arguments):
        return self.driver.execute_script(script, *arguments)

    def wait_ready(self):
        if not wait(lambda: self.js("return document.body && document.body.getAttribute('data-hap-ready')")):
            fail(f"the page did not become ready (body[data-hap-ready]) within {DEADLINE} s; console: {self.console()}")
        if not wait(lambda: self.js("const t = document.getElementById('timeline'); return t && t.getAttribute('data-hap-revision')")):
            fail("the timeline has no data-hap-revision")

    def revision(self):
        return int(self.js("return document.getElementById('timeline').getAttribute('data-hap-revision')") or 0)

    def pxps(self):
        return float(self.js("return document.getElementById('timeline').getAttribute('data-hap-px-per-second')"))

    def t0(self):
        return float(self.js("return document.getElementById('timeline').getAttribute('data-hap-t0')"))

    def events(self):
        return self.js("return document.querySelectorAll('[data-hap-event]').length")

    def element(self, selector):
        found = self.driver.find_elements(By.CSS_SELECTOR, selector)
        if not found:
            fail(f"no element {selector} in the page")
        return found[0]

    def rect(self, selector):
        return self.js("const r = document.querySelector(arguments[0]).getBoundingClientRect();"
                       "return {x: r.left, y: r.top, w: r.width, h: r.height, cx: r.left + r.width / 2, cy: r.top + r.height / 2};",
                       selector)

    def console(self):
        """Every console entry so far (get_log drains chromedriver's buffer; kept here)."""
        try:
            self.logs += self.driver.get_log("browser")
        except WebDriverException:
            pass
        return self.logs

    def check_console(self, allowed=()):
        """Fails on a console error other than an expected 4xx (a regex over the message in
        `allowed`), and on any CSP violation."""
        errors = []
        for entry in self.console():
            message = entry.get("message", "")
            if entry.get("level") != "SEVERE" and "Content Security Policy" not in message and "Refused to" not in message:
                continue
            expected = re.search(r"the server responded with a status of 4\d\d", message) and any(
                re.search(pattern, message) for pattern in allowed)
            if not expected:
                errors.append(f"{entry.get('source')}: {message}")
        violations = self.js("return window.__hapCSP || []") or []
        if errors or violations:
            fail("console errors: " + " | ".join(errors) + ("; CSP violations: " + " | ".join(violations) if violations else ""))
        return [e.get("message", "") for e in self.logs if e.get("level") == "SEVERE"]

    def key(self, *keys):
        ActionChains(self.driver).send_keys(*keys).perform()

    def chord(self, modifiers, key):
        chain = ActionChains(self.driver)
        for m in modifiers:
            chain.key_down(m)
        chain.send_keys(key)
        for m in reversed(modifiers):
            chain.key_up(m)
        chain.perform()

    def after_frames(self, count=2):
        """Returns after `count` animation frames have been drawn (an event, not a sleep)."""
        self.driver.set_script_timeout(DEADLINE)
        self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1]; let n = arguments[0];"
            "const step = () => (--n <= 0 ? done(true) : requestAnimationFrame(step)); requestAnimationFrame(step);", count)

    def resources(self, part):
        return self.js("return performance.getEntriesByType('resource').filter(e => e.name.includes(arguments[0]) && e.responseEnd > 0).length", part)

    def quit(self):
        try:
            self.driver.quit()
        except Exception:
            pass


# ----------------------------------------------------------------------------------------------
# files

def read(path):
    with open(path, "rb") as f:
        return f.read()


def parse(data):
    return json.loads(data.decode("utf-8-sig"))


def write_atomically(path, data):
    temporary = path + ".hap-test-tmp"
    with open(temporary, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.rename(temporary, path)


def write_in_place(path, data):
    with open(path, "r+b") as f:
        f.seek(0)
        f.write(data)
        f.truncate()
        f.flush()
        os.fsync(f.fileno())


def wait_file_change(path, before, seconds=DEADLINE):
    """Polls the file until its bytes differ from `before`: (bytes, seconds it took) or fails."""
    start = time.monotonic()
    data = wait(lambda: (lambda d: d if d != before else None)(read(path)), seconds, every=0.002)
    if data is None:
        fail(f"{os.path.basename(path)} did not change within {seconds} s")
    return data, time.monotonic() - start


def value_spans(data):
    """{JSON pointer: (start, end)} byte offsets of every value in `data` (a JSON text, trailing
    commas tolerated): where a number's text is in the file, found by a reader of our own."""
    spans, n = {}, len(data)

    def skip(i):
        while i < n and data[i] in b" \t\r\n":
            i += 1
        return i

    def string_end(i):
        i += 1
        while data[i] != 0x22:
            i += 2 if data[i] == 0x5C else 1
        return i + 1

    def value(i, pointer):
        i = skip(i)
        start = i
        if data.startswith(b"\xef\xbb\xbf", i):
            i = start = i + 3
        c = data[i]
        if c in b"{[":
            close = ord("}") if c == ord("{") else ord("]")
            i, k = skip(i + 1), 0
            while data[i] != close:
                if c == ord("{"):
                    end = string_end(i)
                    key = json.loads(data[i:end])
                    i = skip(end)
                    assert data[i] == ord(":"), f"':' expected at byte {i}"
                    i = value(i + 1, pointer + "/" + key.replace("~", "~0").replace("/", "~1"))
                else:
                    i = value(i, f"{pointer}/{k}")
                    k += 1
                i = skip(i)
                if data[i] == ord(","):
                    i = skip(i + 1)
            i += 1
        elif c == 0x22:
            i = string_end(i)
        else:
            while i < n and data[i] not in b" \t\r\n,]}":
                i += 1
        spans[pointer] = (start, i)
        return i

    value(0, "")
    return spans


def only_number_replaced(original, edited, pointer):
    """Checks `edited` is `original` with the text of the value at `pointer` replaced by a
    number and nothing else changed; returns (start, end, new text)."""
    start, end = value_spans(original)[pointer]
    tail = len(original) - end
    if not (edited[:start] == original[:start] and edited[len(edited) - tail:] == original[end:]):
        prefix = next((k for k in range(min(len(original), len(edited))) if original[k] != edited[k]), None)
        fail(f"the file changed outside {pointer}'s number (bytes {start}..{end}): first difference at byte {prefix}")
    text = edited[start:len(edited) - tail].decode()
    if not re.fullmatch(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", text):
        fail(f"{pointer} was written as {text!r}, not a JSON number")
    return start, end, text


def pointer_get(document, pointer):
    for part in pointer.strip("/").split("/"):
        document = document[int(part)] if isinstance(document, list) else document[part]
    return document


def pointer_set(document, pointer, value):
    parts = pointer.strip("/").split("/")
    for part in parts[:-1]:
        document = document[int(part)] if isinstance(document, list) else document[part]
    last = parts[-1]
    document[int(last) if isinstance(document, list) else last] = value


def entries(path):
    return parse(read(path))["Pattern"]


def transient_indices(pattern):
    return [k for k, e in enumerate(pattern) if isinstance(e, dict) and e.get("Event", {}).get("EventType") == "HapticTransient"]


# ----------------------------------------------------------------------------------------------
# scenarios

def events_drag(b, folder, name):
    """The page shows every event of the file (one [data-hap-event] per Pattern entry); a
    transient dragged 100 px right moves its Time by 100 / px-per-second (± a pixel's time) in
    the file within 1 s, and only that number's text changes."""
    path = os.path.join(folder, name)
    original = read(path)
    pattern = parse(original)["Pattern"]
    shown = b.events()
    if shown != len(pattern):
        fail(f"the page shows {shown} [data-hap-event] elements; the file's Pattern has {len(pattern)} entries")
    # A transient the pointer reaches at its centre (dense stems overlap), with room to its right.
    index = b.js("""
      const ids = arguments[0], room = arguments[1];
      const tl = document.getElementById('timeline').getBoundingClientRect();
      for (const i of ids.slice().reverse()) {
        const el = document.querySelector(`[data-hap-event="${i}"]`);
        if (!el) continue;
        const r = el.getBoundingClientRect();
        const x = Math.floor(r.left + r.width / 2), y = Math.floor(r.top + r.height / 2);
        if (x < tl.left + 20 || x + room > tl.right - 20) continue;
        const hit = document.elementFromPoint(x, y);
        if (hit && hit.closest('[data-hap-event]') === el) return i;
      }
      return null;""", transient_indices(pattern), 100)
    if index is None:
        fail("no transient of the file can be grabbed at its centre with 100 px of room to its right")
    pxps, t0, revision = b.pxps(), b.t0(), b.revision()
    pointer = f"/Pattern/{index}/Event/Time"
    old = pointer_get(parse(original), pointer)
    before_x = b.rect(f'[data-hap-event="{index}"]')["cx"]
    ActionChains(b.driver).click_and_hold(b.element(f'[data-hap-event="{index}"]')).move_by_offset(100, 0).release().perform()
    edited, took = wait_file_change(path, original)
    new = pointer_get(parse(edited), pointer)
    expected, tolerance = old + 100 / pxps, 1 / pxps
    if abs(new - expected) > tolerance + 1e-6:
        fail(f"{pointer} is {new} after a 100 px drag; expected {old} + 100 / {pxps} = {expected} (± {tolerance})")
    start, end, text = only_number_replaced(original, edited, pointer)
    if took > 1.0:
        fail(f"the file changed {took:.3f} s after the drag ended (at most 1 s)")
    if not wait(lambda: b.revision() > revision):
        fail("the page's data-hap-revision did not change after the edit")
    b.after_frames()
    after_x = b.rect(f'[data-hap-event="{index}"]')["cx"]
    if abs((after_x - before_x) - (new - old) * pxps) > 1.5 or b.pxps() != pxps:
        fail(f"the transient is drawn {after_x - before_x:.1f} px from where it was; its time moved {(new - old) * pxps:.1f} px")
    if b.events() != len(pattern):
        fail("the number of drawn entries changed with a drag")
    return {"entries": len(pattern), "shown": shown, "index": index, "pxps": pxps, "t0": t0, "old": old,
            "new": new, "expected": expected, "tolerance": tolerance, "start": start, "end": end, "text": text,
            "seconds": took, "console": b.check_console()}


def edit_steps(b, folder, name):
    """A curve point dragged, a transient added with the palette at the cursor, deleted
    (select + Delete), three undos (Ctrl+Z: the original bytes) and three redos
    (Ctrl+Shift+Z). Each state is saved to FOLDER/steps/ for the Swift test's byte checks."""
    path = os.path.join(folder, name)
    steps = os.path.join(folder, "steps")
    os.makedirs(steps, exist_ok=True)
    saved = []

    def save(label, data):
        saved.append(label)
        with open(os.path.join(steps, f"{len(saved):02d}-{label}.json"), "wb") as f:
            f.write(data)

    original = read(path)
    save("original", original)
    pattern = parse(original)["Pattern"]
    if b.events() != len(pattern):
        fail(f"the page shows {b.events()} entries; the file has {len(pattern)}")
    # (1) a curve point: the curve with the most points, a point inside it (not the first).
    curves = [k for k, e in enumerate(pattern) if "ParameterCurve" in e]
    if not curves:
        fail("the pattern has no ParameterCurve")
    n = max(curves, key=lambda k: len(pattern[k]["ParameterCurve"]["ParameterCurveControlPoints"]))
    points = pattern[n]["ParameterCurve"]["ParameterCurveControlPoints"]
    k = 1
    values = [p["ParameterValue"] for p in points]
    ref = next((j for j in range(len(points)) if j != k and values[j] != values[k]), None)
    if ref is None:
        fail("the curve's points all have one value: no scale to read")
    circles = b.js("return [...document.querySelectorAll('[data-hap-point]')].map(c => [c.getAttribute('data-hap-point'), +c.getAttribute('cx'), +c.getAttribute('cy')])")
    at = {c[0]: (c[1], c[2]) for c in circles}
    if f"{n}:{k}" not in at or f"{n}:{ref}" not in at:
        fail(f"curve {n}'s points are not drawn as [data-hap-point]: {sorted(at)}")
    per_px = (values[ref] - values[k]) / (at[f"{n}:{ref}"][1] - at[f"{n}:{k}"][1])  # value per px down
    pxps, revision = b.pxps(), b.revision()
    dx, dy = 40, -10
    ActionChains(b.driver).click_and_hold(b.element(f'[data-hap-point="{n}:{k}"]')).move_by_offset(dx, dy).release().perform()
    dragged, took = wait_file_change(path, original)
    wait(lambda: b.revision() > revision)
    after = parse(dragged)
    time_ptr = f"/Pattern/{n}/ParameterCurve/ParameterCurveControlPoints/{k}/Time"
    value_ptr = f"/Pattern/{n}/ParameterCurve/ParameterCurveControlPoints/{k}/ParameterValue"
    new_time, new_value = pointer_get(after, time_ptr), pointer_get(after, value_ptr)
    want_time, want_value = points[k]["Time"] + dx / pxps, values[k] + dy * per_px
    if abs(new_time - want_time) > 1 / pxps + 1e-6:
        fail(f"the point's Time is {new_time}; a {dx} px drag at {pxps} px/s makes {want_time} (± {1 / pxps})")
    if abs(new_value - want_value) > abs(per_px) + 1e-3:
        fail(f"the point's value is {new_value}; {-dy} px up at {-per_px} per px makes {want_value}")
    expect = parse(original)
    pointer_set(expect, time_ptr, new_time)
    pointer_set(expect, value_ptr, new_value)
    if after != expect:
        fail("the curve point's drag changed more than its Time and ParameterValue")
    save("point", dragged)
    # (2) the palette: the cursor set on the ruler 300 px in, then "Transient".
    ruler = b.rect("#ruler")
    timeline = b.rect("#timeline")
    x = 300
    ActionChains(b.driver).move_to_element_with_offset(b.element("#ruler"), int(timeline["x"] + x - ruler["cx"]), 0).click().perform()
    cursor = b.t0() + x / b.pxps()
    revision = b.revision()
    b.element("#add-transient").click()
    added, _ = wait_file_change(path, dragged)
    wait(lambda: b.revision() > revision)
    now = parse(added)["Pattern"]
    if len(now) != len(pattern) + 1 or now[:-1] != after["Pattern"]:
        fail(f"adding a transient made {len(now)} entries (expected {len(pattern) + 1}) or changed others")
    event = now[-1].get("Event", {})
    if event.get("EventType") != "HapticTransient" or abs(event.get("Time", -1) - cursor) > 1.5 / b.pxps():
        fail(f"the palette added {now[-1]}; expected a HapticTransient at the cursor, {cursor:.6f} s")
    if not wait(lambda: b.events() == len(pattern) + 1):
        fail("the added transient is not drawn")
    save("added", added)
    # (3) select it (a click), then Delete.
    new_index = len(pattern)
    b.after_frames()
    ActionChains(b.driver).click(b.element(f'[data-hap-event="{new_index}"]')).perform()
    revision = b.revision()
    b.key(Keys.DELETE)
    deleted, _ = wait_file_change(path, added)
    wait(lambda: b.revision() > revision)
    if parse(deleted) != after:
        fail("select + Delete did not leave the file as it was before the transient was added")
    if not wait(lambda: b.events() == len(pattern)):
        fail("the deleted transient is still drawn")
    save("deleted", deleted)
    # (4) undo three times, (5) redo three times: each the bytes of the state it returns to.
    history = [original, dragged, added, deleted]
    state = 3
    for label, keys, move in (("undo", [Keys.CONTROL], -1), ("redo", [Keys.CONTROL, Keys.SHIFT], 1)):
        for _ in range(3):
            before, revision = read(path), b.revision()
            b.chord(keys, "z")
            data, _ = wait_file_change(path, before)
            state += move
            if data != history[state]:
                fail(f"after {label} the file is not byte for byte the state {saved[state]}")
            if not wait(lambda: b.revision() > revision):
                fail(f"the page's revision did not change after {label}")
            save(f"{label}-{saved[state]}", data)
    if b.events() != len(parse(history[state])["Pattern"]):
        fail("after redo the page does not show the file's entries")
    return {"curve": n, "point": k, "pxps": pxps, "perPx": per_px, "time": [points[k]["Time"], new_time, want_time],
            "value": [values[k], new_value, want_value], "cursor": cursor, "steps": saved, "seconds": took,
            "console": b.check_console()}


def own_edits(b, folder, name, drags="5"):
    """The page's own edits are drawn from their answers: after each of a few drags of a
    transient (each waited for: the file written, the revision drawn, the plot redrawn), no
    GET /api/pattern was made (the `document` event of an edit the page made itself names a
    revision it already drew)."""
    path = os.path.join(folder, name)
    pattern = entries(path)
    index = transient_indices(pattern)[len(transient_indices(pattern)) // 2]
    b.js("performance.setResourceTimingBufferSize(10000); performance.clearResourceTimings()")
    fetched = []
    for k in range(int(drags)):
        before, revision = read(path), b.revision()
        b.js("window.hapStudioTimings.lastEditToRedraw = null")
        ActionChains(b.driver).click_and_hold(b.element(f'[data-hap-event="{index}"]')).move_by_offset(
            20 if k % 2 == 0 else -20, 0).release().perform()
        wait_file_change(path, before)
        if not wait(lambda: b.revision() > revision and b.js("return window.hapStudioTimings.lastEditToRedraw") is not None):
            fail(f"drag {k + 1}: the page did not draw the edit's revision and plot")
        fetched = b.js("return performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('/api/pattern'))")
        if fetched:
            fail(f"after {k + 1} drags the page fetched the whole document again {len(fetched)} time(s) ({fetched[0]}), "
                 "though every change was its own edit, drawn from the edit's answer")
    return {"drags": int(drags), "index": index, "console": b.check_console()}


def outside(b, folder, name, hap):
    """Another program rewrites the file (atomically by rename, then in place): the page
    redraws within 1 s. A syntax error and a negative Time show `hap validate`'s rule ids."""
    path = os.path.join(folder, name)
    original = read(path)
    document = parse(original)
    results = {}

    def rewrite(label, data, atomic, check):
        revision = b.revision()
        start = time.monotonic()
        (write_atomically if atomic else write_in_place)(path, data)
        if not wait(lambda: b.revision() > revision and check()):
            fail(f"{label}: the page did not show the new file within {DEADLINE} s (revision {b.revision()})")
        took = time.monotonic() - start
        results[label] = round(took, 4)
        return took

    # (1) atomically, by rename: one transient more.
    grown = json.loads(json.dumps(document))
    grown["Pattern"].append({"Event": {"Time": 0.05, "EventType": "HapticTransient", "EventParameters": [
        {"ParameterID": "HapticIntensity", "ParameterValue": 0.9}]}})
    count = len(grown["Pattern"])
    if rewrite("rename", json.dumps(grown, indent=2).encode(), True, lambda: b.events() == count) > 1:
        fail(f"the page showed the file renamed over it after {results['rename']} s (at most 1 s)")
    # (2) in place: that transient moved to 0.3 s.
    x_before = b.rect(f'[data-hap-event="{count - 1}"]')["cx"]
    grown["Pattern"][-1]["Event"]["Time"] = 0.3
    moved = lambda: abs(b.rect(f'[data-hap-event="{count - 1}"]')["cx"] - x_before - 0.25 * b.pxps()) < 1.5
    if rewrite("in place", json.dumps(grown, indent=2).encode(), False, moved) > 1:
        fail(f"the page showed the file rewritten in place after {results['in place']} s (at most 1 s)")

    def findings_shown(data, label, atomic):
        probe = os.path.join(folder, "probe-" + name)
        with open(probe, "wb") as f:
            f.write(data)
        report = json.loads(subprocess.run([hap, "validate", "--format", "json", probe], capture_output=True, text=True).stdout)
        os.remove(probe)
        rules = sorted({f["rule"] for f in report["files"][0]["findings"] if f["severity"] == "error"})
        if not rules:
            fail(f"{label}: hap validate finds no error in the file written")
        rewrite(label, data, atomic, lambda: all(b.js("return !!document.querySelector(`#findings [data-hap-finding='${arguments[0]}']`)", r) for r in rules))
        results[label + " rules"] = rules

    # (3) a syntax error, (4) a negative Time.
    text = json.dumps(grown, indent=2)
    findings_shown(text[:-2].encode(), "syntax error", False)
    negative = json.loads(text)
    negative["Pattern"][0][next(iter(negative["Pattern"][0]))]["Time"] = -0.5
    findings_shown(json.dumps(negative, indent=2).encode(), "negative time", True)
    # (5) the original again: its entries are drawn.
    rewrite("restored", original, True, lambda: b.events() == len(document["Pattern"]))
    # An invalid file cannot be rendered nor compared: those answers are 4xx, which this scenario caused.
    results["console"] = b.check_console(allowed=[r"/api/(render|compare|play)"])
    return results


def play(b, folder, name, how):
    """Plays from 0 (a click on data-hap-action=play, or Space) and waits for the page to see
    the playback end (its `stopped` event); the Swift test then stops the studio and compares
    the capture with `hap render`."""
    if b.js("return document.body.classList.contains('playing')"):
        fail("the page says it plays before anything was asked")
    if how == "space":
        # A click on the timeline gives it the keyboard (and sets the cursor there); Home puts
        # the cursor back at 0 s.
        b.element("#timeline").click()
        b.key(Keys.HOME)
        if not wait(lambda: b.js("return document.getElementById('clock').textContent.trim() === '0.000 s'")):
            fail("Home did not put the cursor at 0 s (the clock says %r)" % b.js("return document.getElementById('clock').textContent"))
        if b.js("return document.body.classList.contains('playing')"):
            fail("a click on the timeline started a playback")
        b.key(Keys.SPACE)
    else:
        b.element('[data-hap-action="play"]').click()
    start = time.monotonic()
    if not wait(lambda: b.js("return document.body.classList.contains('playing')")):
        fail("the page did not show a playback (body.playing) after play")
    duration = float(b.js("return (document.getElementById('status-rev').textContent.match(/([0-9.]+) s$/) || [0, 0])[1]") or 0)
    if not wait(lambda: not b.js("return document.body.classList.contains('playing')"), DEADLINE + duration):
        fail("the playback did not end (body.playing stayed)")
    timings = b.js("return window.hapStudioTimings")
    return {"how": how, "seconds": time.monotonic() - start, "timings": timings, "console": b.check_console()}


def screenshot(b, folder, name, out):
    """The timeline once drawn with its render (and its A/B verdict), one event selected."""
    if not wait(lambda: b.resources("/api/render") and b.resources("/api/compare")):
        fail("the page did not fetch its render and comparison")
    pattern = entries(os.path.join(folder, name))
    pick = next((k for k, e in enumerate(pattern) if e.get("Event", {}).get("EventType") == "HapticContinuous"),
                next((k for k, e in enumerate(pattern) if "Event" in e), None))
    if pick is not None:
        ActionChains(b.driver).click(b.element(f'[data-hap-event="{pick}"]')).perform()
        wait(lambda: b.js("return document.querySelector(`[data-hap-event='${arguments[0]}']`).classList.contains('selected')", pick))
    b.js("document.activeElement && document.activeElement.blur()")
    b.after_frames(3)
    if b.js("return document.body.classList.contains('playing')"):
        fail("a click to select started a playback")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    if not b.driver.save_screenshot(out):
        fail(f"cannot save {out}")
    return {"screenshot": out, "selected": pick, "console": b.check_console()}


# ---- for scripts/bench.py: figures only ------------------------------------------------------

def bench_ready(b, folder, runs):
    """window.hapStudioTimings.ready (ms from navigation to the first timeline drawn), per load."""
    ready = [b.js("return window.hapStudioTimings.ready")]
    for _ in range(int(runs) - 1):
        b.driver.get(b.origin + "/")
        b.wait_ready()
        ready.append(b.js("return window.hapStudioTimings.ready"))
    return {"ready": ready, "console": b.check_console()}


def bench_edit(b, folder, name, runs):
    """window.hapStudioTimings.lastEditToRedraw after each of `runs` drags of a transient."""
    pattern = entries(os.path.join(folder, name))
    index = transient_indices(pattern)[len(transient_indices(pattern)) // 2]
    got = []
    for k in range(int(runs)):
        b.js("window.hapStudioTimings.lastEditToRedraw = null")
        revision = b.revision()
        ActionChains(b.driver).click_and_hold(b.element(f'[data-hap-event="{index}"]')).move_by_offset(
            12 if k % 2 == 0 else -12, 0).release().perform()
        value = wait(lambda: b.js("return window.hapStudioTimings.lastEditToRedraw"))
        if value is None:
            fail("no lastEditToRedraw after a drag")
        wait(lambda: b.revision() > revision)
        got.append(value)
    return {"editToRedraw": got, "console": b.check_console()}


def bench_click(b, folder, name, runs):
    """Clicks play `runs` times, each after the last playback ended; the click times (the click
    events' timeStamp) as CLOCK_MONOTONIC ns, from the page clock's offset measured with the
    shortest of 30 round trips; and the playhead's frame rate of each playback."""
    offsets = []
    for _ in range(30):
        a = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        now = b.js("return performance.now()")
        z = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        offsets.append((z - a, (a + z) / 2 - now * 1e6))
    rtt, offset = min(offsets)
    # The clicks' times, and each playback's start and end as the page shows them (body.playing
    # on and off: a short pattern's playback may end between two polls).
    b.js("""window.__hapClicks = []; window.__hapPlays = {started: 0, ended: 0};
      document.querySelector('[data-hap-action="play"]').addEventListener('click', (e) => window.__hapClicks.push(e.timeStamp), true);
      let was = document.body.classList.contains('playing');
      new MutationObserver(() => {
        const now = document.body.classList.contains('playing');
        if (now && !was) window.__hapPlays.started++;
        if (!now && was) window.__hapPlays.ended++;
        was = now;
      }).observe(document.body, {attributes: true, attributeFilter: ['class']});""")
    clicks, fps = [], []
    button = b.element('[data-hap-action="play"]')
    for k in range(int(runs)):
        ActionChains(b.driver).click(button).perform()
        if not wait(lambda: b.js("return window.__hapPlays.ended") > k, 70):
            fail(f"playback {k + 1} did not start and end in the page: {b.js('return window.__hapPlays')}")
        fps.append(b.js("return window.hapStudioTimings.playheadFps"))
    stamps = b.js("return window.__hapClicks")
    clicks = [int(offset + s * 1e6) for s in stamps]
    return {"clicks": clicks, "roundTripMs": rtt / 1e6, "playheadFps": fps, "console": b.check_console()}


SCENARIOS = {
    "events-drag": events_drag, "edit-steps": edit_steps, "own-edits": own_edits, "outside": outside, "play": play,
    "screenshot": screenshot, "bench-ready": bench_ready, "bench-edit": bench_edit, "bench-click": bench_click,
}


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in SCENARIOS:
        print(f"usage: studio_browser.py {'|'.join(SCENARIOS)} URL FOLDER [ARGS...]")
        sys.exit(2)
    scenario, url, folder, rest = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    browser = None
    try:
        browser = Browser(url)
        result = SCENARIOS[scenario](browser, folder, *rest)
    except Failure as failure:
        print(f"FAIL: {failure}")
        if browser is not None:
            try:
                shot = os.path.join(folder, f"failure-{scenario}.png")
                browser.driver.save_screenshot(shot)
                print(f"(the page at the failure: {shot}, which StudioBrowserTests keeps in .build/studio-screenshots/; console: {browser.console()[-10:]})")
            except Exception:
                pass
        sys.exit(1)
    except WebDriverException as error:
        print(f"FAIL: the browser: {error.msg if hasattr(error, 'msg') else error}")
        sys.exit(1)
    finally:
        if browser is not None:
            browser.quit()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
