/* Table talk (快捷语): the 💬 button opens the panel of phrases and emotes (sent by the
 * table's socket, games/live/consumer.py); a phrase shows by its seat for a few
 * seconds, then fades. The panel stays open across the socket's redraws of it, and
 * closes after a phrase is sent, on Escape, or on a tap elsewhere. */
(function () {
  "use strict";
  var open = false;

  function panel() { return document.getElementById("tbl-talk"); }

  function show(state) {
    open = state;
    var p = panel();
    if (p) { p.hidden = !open; }
    document.querySelectorAll("[data-talk-toggle]").forEach(function (b) { b.setAttribute("aria-expanded", String(open)); });
    if (open && p) {
      var first = p.querySelector("button");
      if (first) { first.focus(); }
    }
  }

  /* The viewer's own seat spans the table's width: its bubble goes beside its plate when
   * there is room on the right, else above the plate. */
  function placeOwn(bubble) {
    var play = document.getElementById("play");
    var seat = bubble.parentElement;
    var number = bubble.id.replace("tbl-talk-", "");
    var plate = document.getElementById("tbl-plate-" + number);
    if (!play || !seat || !plate || play.getAttribute("data-me") === "0") { return; }
    if (String(play.getAttribute("data-me")) !== number) { return; }
    var s = seat.getBoundingClientRect();
    var p = plate.getBoundingClientRect();
    var room = window.innerWidth - p.right - 16;
    if (room >= Math.min(bubble.offsetWidth, 224)) {
      bubble.classList.add("is-beside");
      bubble.style.left = (p.right - s.left + 10) + "px";
      bubble.style.top = (p.top - s.top + p.height / 2) + "px";
      bubble.style.bottom = "auto";
    } else {
      bubble.classList.remove("is-beside");
      bubble.style.left = (p.left - s.left + p.width / 2) + "px";
      bubble.style.top = (p.top - s.top - 8) + "px";
      bubble.style.bottom = "auto";
    }
  }

  function fadeBubbles() {
    document.querySelectorAll(".seat-talk.is-on").forEach(function (bubble) {
      placeOwn(bubble);
      if (bubble.talkTimer) { return; }
      var seconds = parseFloat(bubble.getAttribute("data-talk-until")) || 4;
      bubble.talkTimer = window.setTimeout(function () {
        bubble.classList.remove("is-on");
        bubble.classList.add("is-gone");
        window.setTimeout(function () { if (!bubble.classList.contains("is-on")) { bubble.textContent = ""; } }, 400);
      }, seconds * 1000);
    });
  }

  document.addEventListener("click", function (event) {
    var target = event.target;
    if (target.closest("[data-talk-toggle]")) { show(!open); return; }
    if (open && !target.closest("#tbl-talk")) { show(false); }
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && open) {
      show(false);
      var toggle = document.querySelector("[data-talk-toggle]");
      if (toggle) { toggle.focus(); }
    }
  });
  document.addEventListener("htmx:wsBeforeSend", function (event) {
    var form = event.detail && event.detail.elt;
    if (form && form.id === "talk-form") { window.setTimeout(function () { show(false); }, 0); }
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    var p = panel();
    if (p) { p.hidden = !open; }
    fadeBubbles();
  });
})();
