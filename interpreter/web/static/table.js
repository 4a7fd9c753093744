// The web table: sends actions (POST, with the move number the table was drawn at) and swaps in
// the table the server renders for this viewer, pushed over a WebSocket after every change.
// Plain JavaScript, no library, no build step.
(function () {
  "use strict";
  const layout = document.querySelector(".layout");
  const token = layout.dataset.token;
  const base = "/t/" + token;
  const holder = document.getElementById("table");
  const conn = document.getElementById("conn");
  let move = Number(holder.querySelector(".tbl").dataset.move);
  let lastError = "";

  // a table older than the one shown is dropped (an answer may arrive after a newer push)
  function show(html, newMove) {
    if (html === undefined || (typeof newMove === "number" && newMove < move)) return;
    const log = holder.querySelector("#log");
    const atEnd = !log || log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
    holder.innerHTML = html;
    move = Number(holder.querySelector(".tbl").dataset.move);
    const newLog = holder.querySelector("#log");
    if (newLog && atEnd) newLog.scrollTop = newLog.scrollHeight;  // follow the log unless scrolled back
    if (lastError) say(lastError);
    highlight();
  }

  function say(text) {
    const box = document.getElementById("message");
    if (!box) return;
    box.textContent = text;
    box.hidden = !text;
  }

  async function send(action) {
    lastError = "";
    say("");
    let res, body;
    try {
      res = await fetch(base + "/act", {method: "POST", headers: {"Content-Type": "application/json"},
                                        body: JSON.stringify({action: action, move: move})});
      body = await res.json();
    } catch (e) {
      lastError = "The server cannot be reached; your action was not sent. It will be retried when you click again.";
      say(lastError);
      return;
    }
    if (body.html !== undefined) show(body.html, body.move);
    if (!res.ok) {
      lastError = body.error || ("refused (" + res.status + ")");
      say(lastError);
    }
  }

  holder.addEventListener("click", function (e) {
    const button = e.target.closest("button.act[data-action]");
    if (button) { send(button.dataset.action); return; }
    const card = e.target.closest("button.card.clickable");
    if (card) {
      const acts = JSON.parse(card.dataset.acts || "[]");
      const verb = holder.querySelector(".tbl").dataset.verb;
      if (acts.length === 1) { send(acts[0]); return; }
      if (acts.length > 1) {  // several ways to play this card: point at them
        holder.querySelectorAll("button.act").forEach(function (b) {
          b.classList.toggle("suggested", acts.indexOf(b.dataset.action) >= 0);
        });
        say("This card can be played in several ways: choose one of the outlined buttons.");
        return;
      }
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
      const names = Array.from(form.querySelectorAll("input[name=pick]:checked")).map(function (x) { return x.value; });
      send(form.dataset.verb + (names.length ? " " + names.join(" ") : ""));
    }
  });

  // the rule-flow diagram, the step the game waits at outlined
  const diagram = document.getElementById("diagram");
  function highlight() {
    if (!diagram) return;
    const line = holder.querySelector(".tbl").dataset.line;
    diagram.querySelectorAll("a.current").forEach(function (a) { a.classList.remove("current"); });
    if (!line) return;
    const links = diagram.querySelectorAll("a");
    let first = null;
    links.forEach(function (a) {
      const href = a.getAttribute("href") || a.getAttributeNS("http://www.w3.org/1999/xlink", "href") || "";
      if (href.endsWith("#L" + line)) { a.classList.add("current"); if (!first) first = a; }
    });
    if (first && diagram.dataset.follow !== "no") {
      const box = first.getBoundingClientRect(), outer = diagram.getBoundingClientRect();
      if (box.top < outer.top || box.bottom > outer.bottom) {
        diagram.scrollTop += box.top - outer.top - outer.height / 3;
      }
    }
  }
  if (diagram) {
    fetch(base + "/diagram.svg").then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (svg) {
        diagram.innerHTML = svg.slice(svg.indexOf("<svg"));
        diagram.querySelectorAll("a").forEach(function (a) {
          const href = a.getAttribute("href") || a.getAttributeNS("http://www.w3.org/1999/xlink", "href");
          if (href && href.indexOf("spec#") === 0) a.setAttributeNS("http://www.w3.org/1999/xlink", "href", base + "/" + href);
        });
        highlight();
      })
      .catch(function () { diagram.innerHTML = "<p class='sub'>The diagram could not be drawn.</p>"; });
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
  highlight();
  connect();
})();
