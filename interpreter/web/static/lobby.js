// Lobby: show as many seat rows as players, and the options of the chosen game.
(function () {
  "use strict";
  const spec = document.getElementById("spec"), players = document.getElementById("players");
  function update() {
    const o = spec.options[spec.selectedIndex];
    players.min = o.dataset.min; players.max = o.dataset.max;
    const n = Number(players.value) || 0;
    document.querySelectorAll(".seat-row").forEach(function (row) {
      row.hidden = Number(row.dataset.seat) >= n;
    });
    document.querySelectorAll(".optdoc").forEach(function (d) { d.hidden = d.dataset.spec !== spec.value; });
  }
  spec.addEventListener("change", function () {
    const o = spec.options[spec.selectedIndex];
    const n = Number(players.value);
    if (n < Number(o.dataset.min) || n > Number(o.dataset.max)) players.value = o.dataset.min;
    update();
  });
  players.addEventListener("input", update);
  update();
})();
