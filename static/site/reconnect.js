/* Sockets come back quickly after a connection cut (the lobby's, a table's, a replay's
 * analysis progress): htmx's ws extension retries with a backoff that doubles up to a
 * minute, so a page could sit offline for many seconds after the network came back.
 * Here the wait between tries is capped at a second, and a socket that is down retries
 * at once when the browser says it is online again or the page becomes visible. */
(function () {
  "use strict";

  var MAX_DELAY_MS = 1000;
  // Close codes after which the extension itself retries (abnormal closure, restarts).
  var RETRIED = [1006, 1011, 1012, 1013];

  function configure() {
    if (!window.htmx) { return; }
    window.htmx.config.wsReconnectDelay = function (retryCount) {
      // 250, 500, 1000 ms..., each drawn from its upper half so pages do not retry in step.
      var ceiling = Math.min(MAX_DELAY_MS, 250 * Math.pow(2, retryCount));
      return ceiling * (0.5 + Math.random() / 2);
    };
  }
  configure();
  document.addEventListener("DOMContentLoaded", configure);

  var down = [];
  document.addEventListener("htmx:wsOpen", function (evt) {
    var at = down.indexOf(evt.detail && evt.detail.socketWrapper);
    if (at >= 0) { down.splice(at, 1); }
  });
  document.addEventListener("htmx:wsClose", function (evt) {
    var detail = evt.detail || {};
    var code = detail.event && detail.event.code;
    if (detail.socketWrapper && RETRIED.indexOf(code) >= 0 && down.indexOf(detail.socketWrapper) < 0) {
      down.push(detail.socketWrapper);
    }
  });
  function retryNow() {
    if (document.visibilityState === "hidden") { return; }
    down.slice().forEach(function (wrapper) { wrapper.reconnect(); });
  }
  window.addEventListener("online", retryNow);
  document.addEventListener("visibilitychange", retryNow);
})();
