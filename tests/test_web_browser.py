"""End-to-end tests of the web table in a real browser: headless Chromium (Debian's, at
/usr/bin/chromium; .ci/run installs it) driven by Playwright, against ``rulebook serve`` run as a
real server process.

Never skipped: without Chromium these tests fail and say how to install it.

Set ``RULEBOOK_WEB_SCREENSHOTS=DIR`` to keep the screenshots (docs/web/ holds the ones the docs
show); otherwise they go to the test's temporary folder.
"""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parent.parent
SPECS = ["specs/skull_king.yaml", "specs/ligretto_classic.yaml"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``rulebook serve`` in a child process (started again by :meth:`restart`, same database)."""

    def __init__(self, db: str, port: int, log: Path):
        self.db, self.port, self.proc, self.log = db, port, None, log
        self.url = f"http://127.0.0.1:{port}"

    def start(self):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "interpreter", "serve", *SPECS, "--port", str(self.port), "--db", self.db,
             "--bot-delay", "0", "--realtime-delay", "0.2", "--seed", "3"],
            cwd=ROOT, stdout=self.log.open("a"), stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(self.url + "/", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise AssertionError("rulebook serve exited: " + self.log.read_text())
            if time.monotonic() > deadline:
                raise AssertionError("rulebook serve did not answer within 60 s")
            time.sleep(0.2)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def restart(self):
        self.stop()
        self.start()


@pytest.fixture
def server(tmp_path):
    srv = Server(f"sqlite:///{tmp_path / 'games.db'}", free_port(), tmp_path / "server.log")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def browser():
    assert Path(CHROMIUM).exists(), ("the browser tests need Debian's Chromium at /usr/bin/chromium: "
                                     "apt-get install -y chromium (.ci/run installs it)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def shots(tmp_path):
    folder = Path(os.environ.get("RULEBOOK_WEB_SCREENSHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def new_page(browser, url):
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.set_default_timeout(20_000)
    page.goto(url)
    page.wait_for_selector("#conn.live")
    return page


def move(page) -> int:
    return int(page.locator(".tbl").get_attribute("data-move"))


def terminal(page) -> bool:
    return page.locator(".tbl").get_attribute("data-terminal") == "yes"


def my_cards(page) -> list:
    return [t.strip() for t in page.locator(".zone[data-zone=hand] .part.mine .card").all_inner_texts()]


def act(page) -> bool:
    """Click one legal action (a legal card if any, else the first button); True if it was taken."""
    if terminal(page) or page.locator("#actions button.act[data-action]").count() == 0:
        return False
    before = move(page)
    target = page.locator("#actions button.act[data-action]").first
    for card in page.locator("button.card.legal").all():  # a card played by a click on it
        if len(json.loads(card.get_attribute("data-acts") or "[]")) == 1:
            target = card
            break
    target.click()
    page.wait_for_function(f"""() => Number(document.querySelector('.tbl').dataset.move) > {before}
                              || !document.getElementById('message').hidden""")
    return move(page) > before


def test_whole_game_two_people_and_a_bot_in_the_browser(server, browser, shots):
    # the lobby: Skull King, 3 players, seat 2 a random bot
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    lobby = ctx.new_page()
    lobby.set_default_timeout(20_000)
    lobby.goto(server.url)
    lobby.select_option("#spec", "specs/skull_king.yaml")
    lobby.fill("#players", "3")
    lobby.fill("input[name=name0]", "Ada")
    lobby.fill("input[name=name1]", "Bo")
    lobby.select_option("#seat2", "random")
    assert lobby.locator(".seat-row[data-seat='3']").is_hidden()
    lobby.screenshot(path=str(shots / "lobby.png"))
    lobby.click("#create")
    lobby.wait_for_selector("a.spectator-link")
    links = {int(a.get_attribute("data-seat")): a.get_attribute("href") for a in lobby.locator("a.seat-link").all()}
    assert sorted(links) == [0, 1]  # the bot's seat has no link
    spectator_url = lobby.locator("a.spectator-link").get_attribute("href")

    ada, bo = new_page(browser, links[0]), new_page(browser, links[1])
    watch = new_page(browser, spectator_url)
    assert "spectator: public information only" in watch.inner_text("header")

    # round 1: a simultaneous, secret bid
    assert "everyone chooses at once" in ada.inner_text("#status")
    ada.click("#actions button.act[data-action='bid 1']")
    ada.wait_for_function("document.getElementById('status').textContent.includes('Waiting for the others')")
    assert "Bo" in ada.inner_text("#status")
    bo.wait_for_selector("#score tr:has-text('Ada') .badge.done")  # Bo sees that Ada has chosen...
    assert "bid 1" not in bo.inner_text("#log") and "bid 1" not in watch.inner_text("#log")  # ...not what
    for page in (ada, bo, watch):  # nobody's hand in anyone else's table
        others = set(my_cards(ada) + my_cards(bo)) - set(my_cards(page))
        hand_zone = page.inner_text(".zone[data-zone=hand]")
        assert not any(re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", hand_zone) for c in others)
    assert "face down" in watch.inner_text(".zone[data-zone=hand]")
    ada.screenshot(path=str(shots / "waiting.png"))
    bo.click("#actions button.act[data-action='bid 0']")

    refused = reloaded = restarted = False
    steps = 0
    while not (terminal(ada) and terminal(bo)):
        steps += 1
        assert steps < 3000, "the game did not end"
        for page in (ada, bo):
            # once: click a card of one's hand that may not be played now (must follow suit)
            illegal = page.locator("button.card.clickable:not(.legal)")
            if not refused and page.locator("button.card.legal").count() and illegal.count():
                before = move(page)
                illegal.first.click()
                page.wait_for_selector("#message:not([hidden])")
                assert page.inner_text("#message").startswith("refused: ")
                assert move(page) == before
                page.screenshot(path=str(shots / "refused.png"))
                refused = True
            act(page)
        m = move(ada)
        if not reloaded and m > 40:  # reload mid-game: the same seat, the same hand, the game goes on
            hand = my_cards(ada)
            ada.reload()
            ada.wait_for_selector("#conn.live")
            assert my_cards(ada) == hand
            reloaded = True
        if not restarted and m > 90:  # the server restarts mid-game: no game is lost
            ada.wait_for_selector("#diagram svg a.current", timeout=60_000)  # the step the game waits at
            ada.screenshot(path=str(shots / "table.png"))
            watch.screenshot(path=str(shots / "spectator.png"))
            server.restart()
            ada.wait_for_selector("#conn.live", timeout=30_000)
            bo.wait_for_selector("#conn.live", timeout=30_000)
            assert move(ada) >= m
            restarted = True
        if not any(p.locator("#actions button.act").count() for p in (ada, bo)):
            ada.wait_for_timeout(50)  # the bot's turn
    assert refused and reloaded and restarted
    watch.wait_for_function("document.querySelector('.tbl').dataset.terminal === 'yes'")
    for page in (ada, bo, watch):
        assert page.inner_text("#status").startswith("Game over.")
    ada.screenshot(path=str(shots / "game-over.png"))

    # the finished game as a replay: forward and back
    ada.click("#replay-link")
    assert "move 0 of 195" in ada.inner_text("#step")
    ada.click("#forward")
    ada.click("#forward")
    assert "move 2 of 195" in ada.inner_text("#step")
    ada.click("#back")
    assert "move 1 of 195" in ada.inner_text("#step")
    ada.goto(ada.url.split("?")[0] + "?step=100")
    ada.screenshot(path=str(shots / "replay.png"))


def test_realtime_phase_updates_live_in_the_browser(server, browser, shots):
    """Classic Ligretto (everyone plays at once): the bot's cards appear on a person's table
    without that person doing anything."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    lobby = ctx.new_page()
    lobby.set_default_timeout(20_000)
    lobby.goto(server.url)
    lobby.select_option("#spec", "specs/ligretto_classic.yaml")
    lobby.fill("#players", "2")
    lobby.fill("#options", "rounds=1")
    lobby.select_option("#seat1", "random")
    lobby.click("#create")
    lobby.wait_for_selector("a.seat-link")
    page = new_page(browser, lobby.locator("a.seat-link").first.get_attribute("href"))
    assert "real time" in page.inner_text(".tbl")
    first = move(page)
    page.wait_for_function(f"Number(document.querySelector('.tbl').dataset.move) > {first + 2}")
    page.wait_for_selector("#diagram svg", timeout=60_000)
    page.screenshot(path=str(shots / "realtime.png"))
    # the person plays in the same phase, first come, first served
    if page.locator("#actions button.act[data-action]").count() and not terminal(page):
        act(page)
