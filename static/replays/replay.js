/* Replay page: play/pause with a speed control, keyboard shortcuts, copying the step link.
 *
 * Stepping itself is plain links with htmx attributes (templates/replays/_board.html):
 * every step is fetched from the server, which renders it from the action log. This file
 * only presses those links: the timer presses "Next", the keys press the matching link.
 * Without JavaScript the links still work as page loads. */
(function () {
  "use strict";

  var root = document.querySelector("[data-replay]");
  if (!root) {
    return;
  }
  var playButton = root.querySelector("[data-replay-play]");
  var playLabel = root.querySelector("[data-replay-play-label]");
  var speedSelect = root.querySelector("[data-replay-speed]");
  var announce = document.getElementById("replay-announce");
  var timer = null;

  function board() {
    return document.getElementById("replay-board");
  }

  function navLink(name) {
    var current = board();
    if (!current) {
      return null;
    }
    var link = current.querySelector('[data-replay-nav="' + name + '"]');
    // A disabled control is a <span aria-disabled="true">, not a link.
    return link && link.tagName === "A" ? link : null;
  }

  function go(name) {
    var link = navLink(name);
    if (!link) {
      return false;
    }
    link.click();
    return true;
  }

  function busy() {
    var current = board();
    return Boolean(current && current.classList.contains("htmx-request"));
  }

  function stepSeconds() {
    var value = speedSelect ? parseFloat(speedSelect.value) : 1;
    return isFinite(value) && value > 0 ? value : 1;
  }

  function showPlaying(playing) {
    if (!playButton) {
      return;
    }
    playButton.setAttribute("aria-pressed", playing ? "true" : "false");
    if (playLabel) {
      playLabel.textContent = playing ? playLabel.dataset.pause : playLabel.dataset.play;
    }
  }

  function tick() {
    if (busy()) {
      return; // the previous step is still on its way: wait for it
    }
    if (!go("next")) {
      pause();
    }
  }

  function play() {
    if (timer !== null) {
      return;
    }
    // At the end, play starts again from the deal as dealt.
    if (!navLink("next")) {
      go("first");
    }
    timer = window.setInterval(tick, stepSeconds() * 1000);
    showPlaying(true);
  }

  function pause() {
    if (timer !== null) {
      window.clearInterval(timer);
      timer = null;
    }
    showPlaying(false);
  }

  function toggle() {
    if (timer === null) {
      play();
    } else {
      pause();
    }
  }

  if (playButton) {
    playButton.addEventListener("click", toggle);
  }
  if (speedSelect) {
    speedSelect.addEventListener("change", function () {
      if (timer !== null) {
        pause();
        play();
      }
    });
  }

  function typingIn(target) {
    if (!target || !target.tagName) {
      return false;
    }
    var tag = target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || target.isContentEditable;
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || typingIn(event.target)) {
      return;
    }
    var handled = true;
    switch (event.key) {
      case "ArrowRight":
        pause();
        go("next");
        break;
      case "ArrowLeft":
        pause();
        go("prev");
        break;
      case "Home":
        pause();
        go("first");
        break;
      case "End":
        pause();
        go("last");
        break;
      case " ":
      case "Spacebar":
        toggle();
        break;
      case "m":
      case "M":
        // The analysis's "Next mistake" (only on an analysed deal).
        pause();
        handled = pressAnalysis("next-mistake");
        break;
      default:
        handled = false;
    }
    if (handled) {
      event.preventDefault();
    }
  });

  function pressAnalysis(name) {
    var current = board();
    var link = current && current.querySelector('[data-analysis-nav="' + name + '"]');
    if (!link || link.tagName !== "A") {
      return false;
    }
    link.click();
    return true;
  }

  // The analysis's progress arrives over its socket (#analysis-status, swapped out of
  // band); once it says the verdicts are ready, load the page again to show them.
  var status = document.getElementById("analysis-status");
  if (status && !status.hasAttribute("data-analysis-ready")) {
    document.body.addEventListener("htmx:wsAfterMessage", function () {
      var fresh = document.getElementById("analysis-status");
      if (fresh && fresh.hasAttribute("data-analysis-ready")) {
        window.location.reload();
      }
    });
  }

  // Copy the link to this step (the button lives in the swapped board).
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-replay-copy]") : null;
    if (!button) {
      return;
    }
    var field = board() && board().querySelector("[data-replay-share]");
    if (!field) {
      return;
    }
    var done = function () {
      button.dataset.copied = "true";
      if (announce) {
        announce.textContent = field.value;
      }
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, function () {
        field.select();
      });
    } else {
      field.select();
      try {
        document.execCommand("copy");
        done();
      } catch (error) {
        // Selecting the text is the fallback: the person copies it themselves.
      }
    }
  });

  // After each step: tell screen readers what happened, and mark the step in the log.
  document.body.addEventListener("htmx:afterSwap", function () {
    var current = board();
    if (!current) {
      return;
    }
    var summary = current.querySelector("[data-replay-summary]");
    if (announce && summary) {
      announce.textContent = summary.getAttribute("data-replay-summary");
    }
    var step = current.getAttribute("data-step");
    var items = root.querySelectorAll(".replay-log__list li");
    for (var i = 0; i < items.length; i++) {
      var here = items[i].getAttribute("data-step") === step;
      items[i].classList.toggle("is-current", here);
      if (here) {
        items[i].setAttribute("aria-current", "step");
        var list = items[i].parentNode;
        if (list.scrollTop > items[i].offsetTop || list.scrollTop + list.clientHeight < items[i].offsetTop + items[i].offsetHeight) {
          list.scrollTop = items[i].offsetTop - list.clientHeight / 2;
        }
      } else {
        items[i].removeAttribute("aria-current");
      }
    }
  });
})();
