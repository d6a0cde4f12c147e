/* The live table's small helpers: think-time countdowns, the socket's state, and a
 * fresh render whenever the page may have missed a change. Everything else is htmx. */
(function () {
  "use strict";

  function tick() {
    var now = Date.now();
    document.querySelectorAll(".timer[data-deadline]").forEach(function (el) {
      var deadline = Date.parse(el.getAttribute("data-deadline"));
      if (isNaN(deadline)) { return; }
      var left = Math.max(0, Math.ceil((deadline - now) / 1000));
      el.textContent = left + " s";
      el.classList.toggle("timer-low", left <= 5);
    });
  }
  setInterval(tick, 250);

  /* Every change of the table reaches the page as one message for its new step
   * (data-seq of the public fragments). A jump of more than one step within a deal means
   * a message was missed (a busy channel layer may drop one): ask for a fresh render of
   * the whole table, which the socket answers at once. */
  var lastSeq = null;
  var lastDeal = null;
  document.addEventListener("htmx:wsAfterMessage", function (evt) {
    tick();
    var seats = document.getElementById("tbl-seats");
    var seq = seats ? parseInt(seats.getAttribute("data-seq"), 10) : NaN;
    var deal = seats ? seats.getAttribute("data-deal") : null;
    var turn = document.querySelector("#tbl-status .turn.is-mine");
    if (!isNaN(seq) && seq !== lastSeq && turn) {
      var announce = document.getElementById("play-announce");
      if (announce) { announce.textContent = turn.textContent; }
    }
    if (isNaN(seq)) { return; }
    var socket = evt.detail && evt.detail.socketWrapper;
    if (deal === lastDeal && lastSeq !== null && seq > lastSeq + 1 && socket) {
      socket.send(JSON.stringify({action: "refresh"}));
    }
    lastSeq = seq;
    lastDeal = deal;
  });

  document.addEventListener("htmx:wsOpen", function () {
    var c = document.getElementById("play-connection");
    if (c) { c.hidden = true; }
  });
  document.addEventListener("htmx:wsClose", function () {
    var c = document.getElementById("play-connection");
    if (c) { c.hidden = false; }
  });

  /* Keyboard: Enter plays the selection, Escape clears it (when focus is in the hand). */
  document.addEventListener("keydown", function (evt) {
    if (!evt.target.classList || !evt.target.classList.contains("hand-check")) { return; }
    var form = document.getElementById("play-form");
    if (!form) { return; }
    var value = evt.key === "Enter" ? "play" : (evt.key === "Escape" ? "clear" : null);
    if (!value) { return; }
    var button = form.querySelector('button[value="' + value + '"]');
    if (button && !button.disabled) { evt.preventDefault(); button.click(); }
  });
  tick();
})();
