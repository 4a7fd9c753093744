"""The web table (``rulebook serve``): play, playtest remotely and watch games in a browser.

- :mod:`.app`: the Starlette application (lobby, tables, WebSocket updates, replays, diagrams);
- :mod:`.rooms`: live games (State, bots, move numbers, listeners);
- :mod:`.render`: what one seat or a spectator is shown, through :mod:`interpreter.view` only;
- :mod:`.store`: games, seats and actions in any SQLAlchemy database (SQLite by default).

Needs the ``web`` extra (``pip install -e '.[web]'``). Nothing here knows any game.
"""
