/* The header's language switcher (中文 / English).
 *
 * Everywhere it is a plain form: Django's set_language sets the cookie (and a signed-in
 * player's profile) and sends the browser back to the page, now in the other language.
 * On a page with a live table socket open, reloading would cost the socket its place, so
 * instead the choice is posted in the background, the table's socket is told (its next
 * fragments come in the new language, for this page only), and the rest of the page is
 * swapped for the same page drawn in the new language, leaving the live table alone. */
(function () {
  "use strict";

  var sockets = [];
  document.addEventListener("htmx:wsOpen", function (evt) {
    var wrapper = evt.detail && evt.detail.socketWrapper;
    if (wrapper && sockets.indexOf(wrapper) < 0) { sockets.push(wrapper); }
  });
  document.addEventListener("htmx:wsClose", function (evt) {
    var wrapper = evt.detail && evt.detail.socketWrapper;
    var at = sockets.indexOf(wrapper);
    if (at >= 0) { sockets.splice(at, 1); }
  });

  /* Replace ``old`` by ``fresh`` except the live part (``keep``), which stays as it is. */
  function swapAround(old, fresh, keep) {
    if (old === keep) { return; }
    if (!old.contains(keep)) {
      old.replaceWith(fresh);
      if (window.htmx) { window.htmx.process(fresh); }
      return;
    }
    var olds = Array.prototype.slice.call(old.children);
    var freshes = Array.prototype.slice.call(fresh.children);
    if (olds.length !== freshes.length) { return; }
    Array.prototype.forEach.call(old.attributes, function (a) {
      if (fresh.getAttribute(a.name) !== a.value && a.name !== "class" && a.name.indexOf("ws-") !== 0 && a.name.indexOf("hx-") !== 0) {
        if (fresh.hasAttribute(a.name)) { old.setAttribute(a.name, fresh.getAttribute(a.name)); }
      }
    });
    for (var i = 0; i < olds.length; i++) { swapAround(olds[i], freshes[i], keep); }
  }

  document.addEventListener("submit", function (evt) {
    var form = evt.target;
    if (!form.hasAttribute || !form.hasAttribute("data-language-switch")) { return; }
    var live = document.querySelector("[ws-connect]");
    if (!live || !sockets.length || !window.fetch) { return; }  // a plain submit does it
    evt.preventDefault();
    var button = evt.submitter;
    var language = button && button.value;
    if (!language) { return; }
    var data = new FormData(form);
    data.set("language", language);
    data.set("next", window.location.pathname + window.location.search);
    fetch(form.action, {method: "POST", body: data, credentials: "same-origin"})
      .then(function (response) {
        if (!response.ok) { throw new Error("status " + response.status); }
        return response.text();
      })
      .then(function (html) {
        sockets.forEach(function (s) { s.send(JSON.stringify({action: "language", language: language})); });
        var fresh = new DOMParser().parseFromString(html, "text/html");
        document.documentElement.lang = fresh.documentElement.lang;
        document.title = fresh.title;
        var keep = live;
        swapAround(document.body, fresh.body, keep);
        // Inside the live part, the socket redraws the table's fragments (#tbl-...); the
        // few fixed words around them ("Reconnecting...") come from the fresh page, and
        // what the screen reader last announced is not repeated in the old language.
        // The table's menu and its top bar sit inside the live part too (the menu holds
        // the log and auto play, which the socket swaps): they are taken from the fresh
        // page, the live fragments they hold moved over as they are.
        var drawer = document.getElementById("table-drawer");
        var freshDrawer = fresh.getElementById("table-drawer");
        if (drawer && freshDrawer && live.contains(drawer)) {
          var slots = document.getElementById("drawer-slots");
          var freshSlots = freshDrawer.querySelector("#drawer-slots");
          if (slots && freshSlots) { freshSlots.replaceWith(slots); }
          freshDrawer.className = drawer.className;
          drawer.replaceWith(freshDrawer);
          if (window.htmx) { window.htmx.process(freshDrawer); }
        }
        var bar = live.querySelector(".bar");
        var freshBar = fresh.querySelector("[ws-connect] .bar");
        if (bar && freshBar) {
          var expanded = bar.querySelector("[aria-expanded]");
          var freshToggle = freshBar.querySelector("[aria-expanded]");
          if (expanded && freshToggle) { freshToggle.setAttribute("aria-expanded", expanded.getAttribute("aria-expanded")); }
          bar.replaceWith(freshBar);
        }
        // The live part's own buttons (table talk's) hold only words and icons; their
        // handlers are delegated, so the fresh ones take their place as they are.
        var freshButtons = fresh.querySelectorAll("[ws-connect] > button");
        live.querySelectorAll(":scope > button").forEach(function (button, i) {
          var freshButton = freshButtons[i];
          if (!freshButton || freshButton.className !== button.className) { return; }
          freshButton.setAttribute("aria-expanded", button.getAttribute("aria-expanded") || "false");
          button.replaceWith(freshButton);
        });
        var freshLive = live.id ? fresh.getElementById(live.id) : null;
        if (freshLive) {
          freshLive.querySelectorAll("[id]").forEach(function (el) {
            var mine = document.getElementById(el.id);
            if (mine && el.id.indexOf("tbl-") !== 0 && !el.children.length && live.contains(mine)) {
              mine.textContent = el.textContent;
            }
          });
        }
      })
      .catch(function () {
        var field = document.createElement("input");
        field.type = "hidden";
        field.name = "language";
        field.value = language;
        form.appendChild(field);
        form.submit();
      });
  });
})();
