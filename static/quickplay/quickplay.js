/* Quick play (R10.9): the waiting panel and the slim bar.
 *
 * The panel and the bar come from the server (the page, then the quick-play socket).
 * This script only makes them live: the time waited ticks every second, the invitation
 * link reads in full with the copy button, and once the server says the player is
 * seated (data-goto) the page goes to the table by itself. No polling: the socket
 * brings every change. */
(function () {
  "use strict";

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function shown(seconds) {
    return Math.floor(seconds / 60) + ":" + pad(seconds % 60);
  }

  function tick() {
    var now = Date.now();
    document.querySelectorAll(".qp-timer[data-waited]").forEach(function (el) {
      if (!el.qpSince) {
        el.qpSince = now - 1000 * (parseInt(el.getAttribute("data-waited"), 10) || 0);
      }
      el.textContent = shown(Math.max(0, Math.floor((now - el.qpSince) / 1000)));
    });
  }

  function goIfSeated() {
    var seated = document.querySelector("[data-goto]");
    if (seated && !window.qpLeaving) {
      window.qpLeaving = true;
      window.location.assign(seated.getAttribute("data-goto"));
    }
  }

  function fillInvites() {
    document.querySelectorAll("input[data-invite-path]").forEach(function (input) {
      var full = window.location.origin + input.getAttribute("data-invite-path");
      if (input.value !== full) { input.value = full; }
    });
  }

  function refresh() {
    goIfSeated();
    fillInvites();
    tick();
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-copy-invite]");
    if (!button) { return; }
    var input = button.parentElement.querySelector("input[data-invite-path]");
    if (!input) { return; }
    input.select();
    var done = function () { button.textContent = button.getAttribute("data-copied") || button.textContent; };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand("copy"); done(); });
    } else {
      document.execCommand("copy");
      done();
    }
  });

  ["htmx:wsAfterMessage", "htmx:afterSettle", "htmx:oobAfterSwap"].forEach(function (name) {
    document.addEventListener(name, refresh);
  });
  document.addEventListener("DOMContentLoaded", refresh);
  window.setInterval(tick, 1000);
})();
