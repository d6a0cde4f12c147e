/* The live table's helpers around htmx: think-time countdowns, the connection banner, a
 * fresh render whenever the page may have missed a change, the hand as a fan (sizing,
 * swipe selection, one Tab stop with arrow keys), plays sliding in, short sounds, the
 * drawer and the settlement overlay. Everything the server decides arrives as htmx
 * fragments; nothing here changes what a player may do. */
(function () {
  "use strict";

  var MIN_STRIP = 24.5;        // px: each card's visible strip stays at 24 px or more
  var STRIP_SHARE = 0.62;      // at most this share of a card shows when the hand is short

  function play() { return document.getElementById("play"); }

  /* ---- countdown ---------------------------------------------------------------- */
  function tick() {
    var now = Date.now();
    document.querySelectorAll(".timer[data-deadline]").forEach(function (el) {
      var deadline = Date.parse(el.getAttribute("data-deadline"));
      if (isNaN(deadline)) { return; }
      var left = Math.max(0, Math.ceil((deadline - now) / 1000));
      // The page's language writes the unit ("{n} s", "{n} 秒").
      el.textContent = (el.getAttribute("data-format") || "{n} s").replace("{n}", String(left));
      el.classList.toggle("timer-low", left <= 5);
    });
  }
  setInterval(tick, 250);

  /* ---- the hand as a fan -------------------------------------------------------- */
  function layoutHand() {
    var root = play();
    var hand = document.querySelector("#tbl-hand .hand");
    if (!root || !hand) { return; }
    var cards = hand.querySelectorAll("label.card");
    var n = cards.length;
    if (!n) { return; }
    var face = cards[0].querySelector(".card-face");
    var width = (face && face.offsetWidth) || 50;
    var groups = hand.querySelectorAll(".hand-group").length;
    var avail = hand.parentElement.clientWidth - Math.max(0, groups - 1) * 8 - 2;
    var strip = width * STRIP_SHARE;
    if (n > 1) {
      var rows = 1;
      var perRow = n;
      while (rows < 4 && (avail - width) / Math.max(1, perRow - 1) < MIN_STRIP) {
        rows += 1;
        perRow = Math.ceil(n / rows);
      }
      strip = Math.min(width * STRIP_SHARE, Math.floor((avail - width) / Math.max(1, perRow - 1) * 10) / 10 - 0.2);
    }
    root.style.setProperty("--strip", Math.max(MIN_STRIP, strip) + "px");
  }
  window.addEventListener("resize", layoutHand);

  /* Roving focus: the hand is one Tab stop; arrow keys move between its cards. */
  var focusedCard = null;
  function rove() {
    var checks = Array.prototype.slice.call(document.querySelectorAll("#tbl-hand .hand-check"));
    if (!checks.length) { return; }
    var current = checks.filter(function (c) { return c.value === focusedCard; })[0] || checks[0];
    checks.forEach(function (c) { c.tabIndex = c === current ? 0 : -1; });
  }
  document.addEventListener("focusin", function (evt) {
    if (evt.target.classList && evt.target.classList.contains("hand-check")) { focusedCard = evt.target.value; rove(); }
  });

  document.addEventListener("keydown", function (evt) {
    var target = evt.target;
    if (evt.key === "Escape") {
      var drawer = document.getElementById("table-drawer");
      if (drawer && drawer.classList.contains("is-open")) { toggleDrawer(false); return; }
    }
    if (!target.classList || !target.classList.contains("hand-check")) { return; }
    var checks = Array.prototype.slice.call(document.querySelectorAll("#tbl-hand .hand-check"));
    var i = checks.indexOf(target);
    var next = null;
    if (evt.key === "ArrowRight" || evt.key === "ArrowDown") { next = checks[Math.min(checks.length - 1, i + 1)]; }
    else if (evt.key === "ArrowLeft" || evt.key === "ArrowUp") { next = checks[Math.max(0, i - 1)]; }
    else if (evt.key === "Home") { next = checks[0]; }
    else if (evt.key === "End") { next = checks[checks.length - 1]; }
    if (next) { evt.preventDefault(); next.focus(); return; }
    /* Enter plays the selection (or gives the tribute / return), Escape clears it. */
    var form = document.getElementById("play-form");
    if (!form) { return; }
    var values = evt.key === "Enter" ? ["play", "tribute", "return"] : (evt.key === "Escape" ? ["clear"] : []);
    for (var k = 0; k < values.length; k++) {
      var button = form.querySelector('button[value="' + values[k] + '"]');
      if (button && !button.disabled) { evt.preventDefault(); button.click(); return; }
    }
  });

  /* Tap toggles a card; pressing and sliding across cards (finger or mouse) sets every
   * card passed over to the state the first one took. */
  var drag = null;
  var swallowClick = false;
  function checkOf(label) {
    var check = label && document.getElementById(label.getAttribute("for"));
    return check && !check.disabled ? check : null;
  }
  function cardAt(x, y) {
    var el = document.elementFromPoint(x, y);
    return el && el.closest ? el.closest("#tbl-hand .hand label.card") : null;
  }
  document.addEventListener("pointerdown", function (evt) {
    var label = evt.target.closest && evt.target.closest("#tbl-hand .hand label.card");
    if (!label || evt.button > 0) { return; }
    var check = checkOf(label);
    swallowClick = true;
    evt.preventDefault();
    if (!check) { return; }
    check.checked = !check.checked;
    drag = {on: check.checked, seen: {}};
    drag.seen[check.id] = true;
    focusedCard = check.value;
    rove();
  });
  document.addEventListener("pointermove", function (evt) {
    if (!drag) { return; }
    var check = checkOf(cardAt(evt.clientX, evt.clientY));
    if (check && !drag.seen[check.id]) { drag.seen[check.id] = true; check.checked = drag.on; }
  });
  function endDrag() { drag = null; }
  document.addEventListener("pointerup", endDrag);
  document.addEventListener("pointercancel", endDrag);
  document.addEventListener("click", function (evt) {
    if (swallowClick && evt.target.closest && evt.target.closest("#tbl-hand .hand label.card")) {
      evt.preventDefault();
    }
    swallowClick = false;
  }, true);

  /* ---- plays slide in; sounds ---------------------------------------------------- */
  var lastPlays = {};
  var audio = null;
  function soundOn() { var root = play(); return root && root.getAttribute("data-sound") === "on"; }
  function beep(notes) {
    if (!soundOn()) { return; }
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      var t = audio.currentTime;
      notes.forEach(function (note) {
        var osc = audio.createOscillator();
        var gain = audio.createGain();
        osc.type = note[3] || "sine";
        osc.frequency.value = note[0];
        gain.gain.setValueAtTime(0.0001, t + note[1]);
        gain.gain.exponentialRampToValueAtTime(0.18, t + note[1] + 0.01);
        gain.gain.exponentialRampToValueAtTime(0.0001, t + note[1] + note[2]);
        osc.connect(gain).connect(audio.destination);
        osc.start(t + note[1]);
        osc.stop(t + note[1] + note[2] + 0.02);
      });
    } catch (e) { /* no audio on this device */ }
  }
  var SOUNDS = {
    turn: [[660, 0, 0.12], [880, 0.12, 0.16]],
    bomb: [[110, 0, 0.35, "sawtooth"], [82, 0.05, 0.4, "square"]],
    over: [[523, 0, 0.14], [659, 0.14, 0.14], [784, 0.28, 0.3]]
  };
  function sideOf(seat) {
    var root = play();
    var me = parseInt(root.getAttribute("data-me"), 10) || 1;
    return ["from-me", "from-right", "from-top", "from-left"][(seat - me + 4) % 4];
  }
  function markNewPlays(first) {
    var bomb = false;
    document.querySelectorAll("#tbl-seats .seat").forEach(function (seat) {
      var number = parseInt(seat.getAttribute("data-seat"), 10);
      seat.classList.add(sideOf(number));
      var move = seat.querySelector(".seat-last .move");
      var key = move ? Array.prototype.map.call(move.querySelectorAll("[data-card]"), function (c) {
        return c.getAttribute("data-card");
      }).join(",") : "";
      if (key && key !== lastPlays[number] && !first) {
        move.classList.add("is-new");
        if (move.classList.contains("move-bomb")) { bomb = true; }
      }
      lastPlays[number] = key;
    });
    return bomb;
  }

  /* ---- after every render ---------------------------------------------------------- */
  var lastSeq = null;
  var lastDeal = null;
  var wasMyTurn = false;
  var wasOver = false;
  var dismissed = null;
  /* The pass, suggestion and play buttons are drawn disabled and follow the status's
   * data-turn ("lead", "follow" or empty): the status comes with every step, so the
   * controls need not be sent again each time the turn moves. Off while offline. */
  function syncTurnButtons() {
    var status = document.getElementById("tbl-status");
    var turn = status ? status.getAttribute("data-turn") : "";
    var offline = Boolean(play() && play().classList.contains("is-offline"));
    document.querySelectorAll("#tbl-controls button[data-turn]").forEach(function (b) {
      var need = b.getAttribute("data-turn");
      var allowed = need === "follow" ? turn === "follow" : turn === "lead" || turn === "follow";
      b.disabled = offline || !allowed;
      b.removeAttribute("data-offline");
    });
  }

  function afterRender(first) {
    syncTurnButtons();
    tick();
    layoutHand();
    rove();
    var bomb = markNewPlays(first);
    var settlement = document.querySelector("#tbl-trick .settlement");
    if (settlement && settlement.getAttribute("data-deal") === dismissed) { settlement.hidden = true; }
    var myTurn = Boolean(document.querySelector("#tbl-status .turn.is-mine"));
    if (!first) {
      if (bomb) { beep(SOUNDS.bomb); }
      else if (settlement && !wasOver) { beep(SOUNDS.over); }
      else if (myTurn && !wasMyTurn) { beep(SOUNDS.turn); }
    }
    wasMyTurn = myTurn;
    wasOver = Boolean(settlement);
  }

  /* Every change of the table reaches the page as one message for its new step: the
   * regions that changed, always with #tbl-status, whose data-seq and data-deal name the
   * step the page now shows. A jump of more than one step within a deal means a message
   * was missed (a busy channel layer may drop one): ask for a fresh render of the whole
   * table, which the socket answers at once. */
  function shownStep() {
    var status = document.getElementById("tbl-status");
    return status ? {deal: status.getAttribute("data-deal"), seq: status.getAttribute("data-seq")} : null;
  }

  /* A move names the step its player saw (R9.1: a page behind is refused as stale), read
   * from #tbl-status as the move leaves, not from a copy in the form. */
  document.addEventListener("htmx:wsConfigSend", function (evt) {
    var form = evt.target && evt.target.closest ? evt.target.closest("[data-step]") : null;
    var step = shownStep();
    if (form && step) {
      evt.detail.parameters.deal = step.deal;
      evt.detail.parameters.seq = step.seq;
    }
  });

  document.addEventListener("htmx:wsAfterMessage", function (evt) {
    afterRender(false);
    var step = shownStep();
    var seq = step ? parseInt(step.seq, 10) : NaN;
    var deal = step ? step.deal : null;
    var turn = document.querySelector("#tbl-status .turn.is-mine");
    if (!isNaN(seq) && seq !== lastSeq) {
      // A screen reader hears each play as it is made (the newest line of the log, which
      // names the seat and the play) and then, when it is so, that it is your turn.
      var words = [];
      var newest = document.querySelector("#tbl-log .log-list li:last-child");
      if (newest && !newest.classList.contains("muted") && lastSeq !== null && deal === lastDeal) {
        words.push(newest.textContent.replace(/\s+/g, " ").trim());
      }
      if (turn) { words.push(turn.textContent.replace(/\s+/g, " ").trim()); }
      var announce = document.getElementById("play-announce");
      if (announce && words.length) { announce.textContent = words.join(". "); }
    }
    if (isNaN(seq)) { return; }
    var socket = evt.detail && evt.detail.socketWrapper;
    if (deal === lastDeal && lastSeq !== null && seq > lastSeq + 1 && socket) {
      socket.send(JSON.stringify({action: "refresh"}));
    }
    lastSeq = seq;
    lastDeal = deal;
  });

  /* ---- connection state ------------------------------------------------------------ */
  function setOffline(offline) {
    var root = play();
    var banner = document.getElementById("play-connection");
    if (banner) { banner.hidden = !offline; }
    if (!root) { return; }
    root.classList.toggle("is-offline", offline);
    root.querySelectorAll("#tbl-controls button, #tbl-controls select, #tbl-hand input").forEach(function (el) {
      if (offline && !el.disabled) { el.disabled = true; el.setAttribute("data-offline", "1"); }
      else if (!offline && el.hasAttribute("data-offline")) { el.disabled = false; el.removeAttribute("data-offline"); }
    });
    syncTurnButtons();
  }
  document.addEventListener("htmx:wsOpen", function () { setOffline(false); });
  document.addEventListener("htmx:wsClose", function () { setOffline(true); });
  document.addEventListener("htmx:wsError", function () { setOffline(true); });

  /* ---- drawer, sound switch, settlement ------------------------------------------- */
  function toggleDrawer(open) {
    var drawer = document.getElementById("table-drawer");
    if (!drawer) { return; }
    var isOpen = typeof open === "boolean" ? open : !drawer.classList.contains("is-open");
    drawer.classList.toggle("is-open", isOpen);
    document.querySelectorAll(".drawer-toggle").forEach(function (b) { b.setAttribute("aria-expanded", String(isOpen)); });
    if (isOpen) {
      var first = drawer.querySelector("a, button");
      if (first) { first.focus(); }
    } else {
      var toggle = document.querySelector(".drawer-toggle");
      if (toggle) { toggle.focus(); }
    }
  }
  /* The card counter: one tap opens or closes it; the page keeps it so through every
   * step and reload (#tbl-counter is swapped each step; the open state is on #play). */
  function setCounter(open) {
    var root = play();
    if (!root) { return; }
    root.classList.toggle("counter-open", open);
    document.querySelectorAll("[data-counter-toggle]").forEach(function (b) { b.setAttribute("aria-expanded", String(open)); });
    try { localStorage.setItem("guandan-counter", open ? "open" : "closed"); } catch (e) { /* private mode */ }
  }

  document.addEventListener("click", function (evt) {
    var t = evt.target.closest ? evt.target : null;
    if (!t) { return; }
    if (t.closest("[data-drawer-toggle]")) { toggleDrawer(); return; }
    if (t.closest("[data-counter-toggle]")) { setCounter(!play().classList.contains("counter-open")); return; }
    var sound = t.closest("[data-sound-toggle]");
    if (sound) {
      var root = play();
      var on = root.getAttribute("data-sound") !== "on";
      root.setAttribute("data-sound", on ? "on" : "off");
      sound.setAttribute("aria-pressed", String(on));
      try { localStorage.setItem("guandan-sound-" + (root.getAttribute("data-me") === "0" ? "watch" : "play"), on ? "on" : "off"); } catch (e) { /* private mode */ }
      if (on) { beep(SOUNDS.turn); }
      return;
    }
    var close = t.closest("[data-dismiss-settlement]");
    if (close) {
      var settlement = close.closest(".settlement");
      dismissed = settlement.getAttribute("data-deal");
      settlement.hidden = true;
    }
  });

  function init() {
    var root = play();
    if (!root) { return; }
    /* The drawer (the table's menu) joins #play, and the log and auto play go into it:
     * inside #play, the socket still swaps them by id and auto play's form still sends
     * over the socket (htmx's ws-send looks for its ws-connect among the ancestors). */
    var drawer = document.getElementById("table-drawer");
    if (drawer) { root.appendChild(drawer); }
    var slots = document.getElementById("drawer-slots");
    ["tbl-more", "tbl-log"].forEach(function (id) {
      var el = document.getElementById(id);
      if (slots && el) { slots.appendChild(el); }
    });
    try {
      var saved = localStorage.getItem("guandan-sound-" + (root.getAttribute("data-me") === "0" ? "watch" : "play"));
      if (saved) {
        root.setAttribute("data-sound", saved);
        document.querySelectorAll("[data-sound-toggle]").forEach(function (b) { b.setAttribute("aria-pressed", String(saved === "on")); });
      }
    } catch (e) { /* private mode */ }
    try {
      if (document.querySelector("[data-counter-toggle]") && localStorage.getItem("guandan-counter") === "open") { setCounter(true); }
    } catch (e) { /* private mode */ }
    afterRender(true);
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); } else { init(); }
})();
