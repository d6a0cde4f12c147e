// The tournament page: when the round that seats this player starts, go to the table
// (once per round, so coming back to this page does not send the player away again).
(function () {
  "use strict";
  function goToTable() {
    var live = document.getElementById("trn-live");
    if (!live) { return; }
    var url = live.getAttribute("data-go");
    var key = live.getAttribute("data-go-key");
    if (!url || !key) { return; }
    var seen = "trn-went-" + key;
    try {
      if (window.sessionStorage.getItem(seen)) { return; }
      window.sessionStorage.setItem(seen, "1");
    } catch (e) { /* no storage: still go */ }
    window.location.assign(url);
  }
  document.addEventListener("htmx:wsAfterMessage", goToTable);
})();
