"""Whole games of the seed games at the web table, in a real browser: two people (two Chromium
pages, clicking) and a bot, from the lobby's form to "Game over", one game per spec; prints each
game's moves and seconds. Too slow for the test suite for some games (tests/test_web_browser.py
plays a whole Skull King game and the first moves of every seed game).

    PYTHONPATH=. python tools/web_whole_games.py [SPEC...]      # default: the six seed games

A person clicks a legal card when there is one with a single action, else the first action
button; in a set choice, they select the first cards of a name they hold at least the set's minimum
of (the table checks it live) and confirm if the table says it is a legal set, else they send the
first action button (e.g. "stop-melding"). Needs Debian's Chromium at /usr/bin/chromium and Playwright.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from test_web_browser import (ARGS, CHROMIUM, SEED_GAMES, Server, act, create_game, free_port,  # noqa: E402
                              open_seat, terminal)


def person_moves(page) -> bool:
    """One move of the person at ``page`` (see the module's doc); True if one was taken."""
    form = page.locator("#set-choice")
    if form.count() and not terminal(page):
        low = int(form.get_attribute("data-min") or 1)
        picks = page.locator("button.card.pickable")
        names = [b.get_attribute("data-pick") for b in picks.all()]
        name = next((n for n in names if names.count(n) >= low), None)
        if name is not None:
            for i in [i for i, n in enumerate(names) if n == name][:low]:
                picks.nth(i).click()
            page.wait_for_function("!/checking|Nothing/.test(document.getElementById('set-verdict').textContent)")
            if "a legal set" in page.inner_text("#set-verdict"):
                before = int(page.locator(".tbl").get_attribute("data-move"))
                page.click("#set-confirm")
                page.wait_for_function(f"Number(document.querySelector('.tbl').dataset.move) > {before}"
                                       " || !document.getElementById('message').hidden")
                return True
            page.click("#set-clear")
    if page.locator(".tbl.realtime").count():  # redrawn many times a second: clicked in the page itself
        before = int(page.locator(".tbl").get_attribute("data-move"))
        clicked = page.evaluate("""() => {
            const card = [...document.querySelectorAll('button.card.legal')]
                .find(b => JSON.parse(b.dataset.acts || '[]').length === 1);
            const target = card || document.querySelector('#actions button.act[data-action]');
            if (target) target.click();
            return !!target; }""")
        if clicked:
            page.wait_for_timeout(100)
        return clicked and int(page.locator(".tbl").get_attribute("data-move")) > before
    return act(page)


def main(specs) -> int:
    from playwright.sync_api import sync_playwright
    folder = Path(tempfile.mkdtemp(prefix="rulebook-web-games-"))
    server = Server(f"sqlite:///{folder / 'games.db'}", free_port(), folder / "server.log", specs=list(SEED_GAMES))
    server.start()
    failed = 0
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            for spec in specs:
                players, options, _ = SEED_GAMES[spec]
                links = create_game(server, spec, players, ["human", "human", "random"], options, ("Ada", "Bo", "Cy"))
                pages = [open_seat(browser, links[0]), open_seat(browser, links[1])]
                start = time.monotonic()
                while not all(terminal(pg) for pg in pages):
                    if time.monotonic() - start > 1800:
                        break
                    moved = False
                    for pg in pages:
                        moved = person_moves(pg) or moved
                    if not moved:
                        pages[0].wait_for_timeout(50)  # the bot's turn, or the other page catching up
                done = all(terminal(pg) for pg in pages)
                failed += not done
                status = pages[0].inner_text("#status")
                print(f"{spec}: {'finished' if done else 'NOT finished'} after "
                      f"{pages[0].locator('.tbl').get_attribute('data-move')} moves in "
                      f"{time.monotonic() - start:.0f} s — {status}", flush=True)
                for pg in pages:
                    pg.context.close()
            browser.close()
    finally:
        server.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or list(SEED_GAMES)))
