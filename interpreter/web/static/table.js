// The web table: sends actions (POST, with the move number the table was drawn at) and swaps in
// the table the server renders for this viewer, pushed over a WebSocket after every change.
// Cards play by a click or a tap; keys: 1-9 play the n-th legal card or action, arrows move between
// them, Enter plays. A set choice selects cards one by one and asks the server, as the selection
// changes, whether it is a legal set. Plain JavaScript, no library, no build step.
(function () {
  "use strict";
  const layout = document.querySelector(".layout");
  const token = layout.dataset.token;
  const base = "/t/" + token;
  const holder = document.getElementById("table");
  const conn = document.getElementById("conn");
  const pageTitle = layout.dataset.title || document.title;
  let move = Number(holder.querySelector(".tbl").dataset.move);
  let lastError = "";

  function tbl() { return holder.querySelector(".tbl"); }

  // a table older than the one shown is dropped (an answer may arrive after a newer push)
  function show(html, newMove) {
    if (html === undefined || (typeof newMove === "number" && newMove < move)) return;
    const log = holder.querySelector("#log");
    const atEnd = !log || log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    const focused = document.activeElement && holder.contains(document.activeElement) ? focusKey(document.activeElement) : null;
    const picked = selection();  // a set being selected survives a new table
    holder.innerHTML = html;
    move = Number(tbl().dataset.move);
    if (picked.length) {
      picked.forEach(function (name) {
        const b = holder.querySelector('button.card.pickable[aria-pressed=false][data-pick="' + CSS.escape(name) + '"]');
        if (b) b.setAttribute("aria-pressed", "true");
      });
      verdict();
    }
    const newLog = holder.querySelector("#log");
    if (newLog && atEnd) newLog.scrollTop = newLog.scrollHeight;  // follow the log unless scrolled back
    if (lastError) say(lastError);
    if (focused) { const again = holder.querySelector(focused); if (again) again.focus(); }
    turnTitle();
    highlight();
  }

  function focusKey(el) {
    if (el.dataset.card) return 'button.card[data-card="' + CSS.escape(el.dataset.card) + '"]';
    if (el.dataset.action) return 'button.act[data-action="' + CSS.escape(el.dataset.action) + '"]';
    return null;
  }

  // "your turn" in the tab's title, so a player in another tab sees it
  function turnTitle() {
    const t = tbl();
    const mine = t.dataset.mine === "yes" && t.dataset.terminal !== "yes";
    document.title = (mine ? "● Your turn — " : "") + pageTitle;
  }

  function say(text) {
    const box = document.getElementById("message");
    if (!box) return;
    box.textContent = text;
    box.hidden = !text;
  }

  async function post(path, action) {
    const res = await fetch(base + path, {method: "POST", headers: {"Content-Type": "application/json"},
                                          body: JSON.stringify({action: action, move: move})});
    return [res, await res.json()];
  }

  // while an action is on its way the table is marked busy (aria-busy), so neither a screen reader
  // nor a script takes the buttons still drawn for the choice just made as a new choice
  async function send(action) {
    lastError = "";
    say("");
    holder.setAttribute("aria-busy", "true");
    let res, body;
    try {
      [res, body] = await post("/act", action);
    } catch (e) {
      lastError = "The server cannot be reached; your action was not sent. It will be retried when you click again.";
      say(lastError);
      return;
    } finally {
      holder.removeAttribute("aria-busy");
    }
    if (body.html !== undefined) show(body.html, body.move);
    if (!res.ok) {
      lastError = body.error || ("refused (" + res.status + ")");
      say(lastError);
    }
  }

  // a card or a square with several legal actions points at their buttons
  function several(acts, what) {
    holder.querySelectorAll("button.act").forEach(function (b) {
      b.classList.toggle("suggested", acts.indexOf(b.dataset.action) >= 0);
    });
    say("This " + what + " can be played in several ways: choose one of the outlined buttons.");
    const first = holder.querySelector("button.act.suggested");
    if (first) first.focus();
  }

  // -- a set choice: the selected cards, checked live -------------------------------------------
  let checking = 0;
  function selection() {
    return Array.from(holder.querySelectorAll("button.card.pickable[aria-pressed=true]")).map(function (b) { return b.dataset.pick; });
  }
  async function verdict() {
    const form = document.getElementById("set-choice");
    const out = document.getElementById("set-verdict");
    if (!form || !out) return;
    const names = selection();
    const low = Number(form.dataset.min || 0), high = form.dataset.max ? Number(form.dataset.max) : Infinity;
    out.className = "verdict";
    if (!names.length) { out.textContent = "Nothing selected yet."; return; }
    const text = form.dataset.verb + " " + names.join(" ");
    if (names.length < low) { out.textContent = names.join(", ") + ": " + (low - names.length) + " more card(s) needed."; out.classList.add("no"); return; }
    if (names.length > high) { out.textContent = "At most " + high + " cards."; out.classList.add("no"); return; }
    const ticket = ++checking;
    out.textContent = names.join(", ") + ": checking…";
    try {
      const [res, body] = await post("/check", text);
      if (ticket !== checking) return;  // the selection changed meanwhile
      out.textContent = res.ok && body.legal ? names.join(", ") + ": a legal set." : names.join(", ") + ": not a legal set — " + (body.reason || body.error);
      out.classList.add(res.ok && body.legal ? "ok" : "no");
    } catch (e) {
      out.textContent = "The server cannot be reached.";
    }
  }

  holder.addEventListener("click", function (e) {
    const button = e.target.closest("button.act[data-action]");
    if (button) { send(button.dataset.action); return; }
    const pick = e.target.closest("button.card.pickable");
    if (pick) {
      pick.setAttribute("aria-pressed", pick.getAttribute("aria-pressed") === "true" ? "false" : "true");
      verdict();
      return;
    }
    if (e.target.closest("#set-clear")) {
      holder.querySelectorAll("button.card.pickable").forEach(function (b) { b.setAttribute("aria-pressed", "false"); });
      verdict();
      return;
    }
    const cell = e.target.closest("button.sq[data-acts]");
    if (cell) {
      const acts = JSON.parse(cell.dataset.acts || "[]");
      if (acts.length === 1) send(acts[0]); else several(acts, "square");
      return;
    }
    const card = e.target.closest("button.card.clickable");
    if (card) {
      const acts = JSON.parse(card.dataset.acts || "[]");
      const verb = tbl().dataset.verb;
      if (acts.length === 1) { send(acts[0]); return; }
      if (acts.length > 1) { several(acts, "card"); return; }
      const first = holder.querySelector("button.act[data-action]");
      const word = first ? first.dataset.action.split(" ")[0] : "play";
      send((verb || word) + " " + card.dataset.card);  // the server says why it is not allowed
    }
  });

  holder.addEventListener("submit", function (e) {
    e.preventDefault();
    const form = e.target;
    if (form.id === "typed") {
      const text = form.querySelector("input").value.trim();
      if (text) send(text);
    } else if (form.id === "set-choice") {
      const names = selection();
      send(form.dataset.verb + (names.length ? " " + names.join(" ") : ""));
    }
  });

  // -- keyboard: 1-9 play the n-th legal card (then the buttons); arrows move; Enter plays ------
  function playable() {
    return Array.from(holder.querySelectorAll("button.card.legal, button.card.pickable, button.sq[data-acts], #actions button.act[data-action]"));
  }
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) return;
    const items = playable();
    if (!items.length) return;
    if (/^[1-9]$/.test(e.key)) {
      const item = items[Number(e.key) - 1];
      if (item) { e.preventDefault(); item.focus(); item.click(); }
    } else if (["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].indexOf(e.key) >= 0) {
      e.preventDefault();
      const at = items.indexOf(document.activeElement);
      const step = (e.key === "ArrowLeft" || e.key === "ArrowUp") ? -1 : 1;
      items[at < 0 ? 0 : (at + step + items.length) % items.length].focus();
    }
  });

  // -- the rules panel: the rule-flow diagram (the step the game waits at outlined) and rule tables
  const panel = document.getElementById("rules"), toggle = document.getElementById("rules-toggle");
  function openRules(open) {
    if (!panel) return;
    panel.hidden = !open;
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    if (open) { highlight(); document.getElementById("rules-close").focus(); } else toggle.focus();
  }
  if (toggle) toggle.addEventListener("click", function () { openRules(panel.hidden); });
  const closer = document.getElementById("rules-close");
  if (closer) closer.addEventListener("click", function () { openRules(false); });
  document.addEventListener("keydown", function (e) { if (e.key === "Escape" && panel && !panel.hidden) openRules(false); });

  const diagram = document.getElementById("diagram");
  function highlight() {
    if (!diagram) return;
    const line = tbl().dataset.line;
    diagram.querySelectorAll("a.current").forEach(function (a) { a.classList.remove("current"); });
    if (!line) return;
    const links = diagram.querySelectorAll("a");
    let first = null;
    links.forEach(function (a) {
      const href = a.getAttribute("href") || a.getAttributeNS("http://www.w3.org/1999/xlink", "href") || "";
      if (href.endsWith("#L" + line)) { a.classList.add("current"); if (!first) first = a; }
    });
    if (first && panel && !panel.hidden) {
      const box = first.getBoundingClientRect(), outer = panel.getBoundingClientRect();
      if (box.top < outer.top || box.bottom > outer.bottom) panel.scrollTop += box.top - outer.top - outer.height / 3;
    }
  }
  if (diagram) {
    fetch(base + "/diagram.svg").then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (svg) {
        diagram.innerHTML = svg.slice(svg.indexOf("<svg"));
        const drawn = diagram.querySelector("svg");
        if (drawn) { drawn.setAttribute("role", "img"); drawn.setAttribute("aria-label", "rule-flow diagram"); }
        diagram.querySelectorAll("a").forEach(function (a) {
          const href = a.getAttribute("href") || a.getAttributeNS("http://www.w3.org/1999/xlink", "href");
          if (href && href.indexOf("spec#") === 0) a.setAttributeNS("http://www.w3.org/1999/xlink", "href", base + "/" + href);
        });
        highlight();
      })
      .catch(function () { diagram.innerHTML = "<p class='sub'>The diagram could not be drawn.</p>"; });
    fetch(base + "/tables").then(function (r) { return r.ok ? r.text() : ""; })
      .then(function (html) { document.getElementById("rule-tables").innerHTML = html; }).catch(function () {});
  }

  // live updates: reconnect after a drop (a server restart loses no game)
  let delay = 250;
  function connect() {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + base + "/ws");
    ws.onopen = function () { conn.textContent = "live"; conn.className = "conn live"; delay = 250; };
    ws.onmessage = function (e) {
      const data = JSON.parse(e.data);
      if (data.error) { say(data.error); return; }
      show(data.html, data.move);
    };
    ws.onclose = function () {
      conn.textContent = "reconnecting…"; conn.className = "conn down";
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 4000);
    };
  }
  const log0 = holder.querySelector("#log");
  if (log0) log0.scrollTop = log0.scrollHeight;
  turnTitle();
  highlight();
  connect();
})();
