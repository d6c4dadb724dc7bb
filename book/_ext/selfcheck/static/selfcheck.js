/* Self-checks: check an answer in the page, say why, and remember (in this
 * browser only) which questions were answered right.  Nothing is sent
 * anywhere.  The markup is written by book/_ext/selfcheck/nodes_html.py. */
(function () {
  "use strict";

  var STORE = "kernel-methods:selfcheck:";

  // The same numbers as spec.parse_number: a decimal or a fraction a/b.
  var DECIMAL = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
  function parseNumber(text) {
    text = text.replace(/\u2212/g, "-").replace(/\s+/g, "");
    var parts = text.split("/");
    if (parts.length === 2 && DECIMAL.test(parts[0]) && DECIMAL.test(parts[1])
        && parseFloat(parts[1]) !== 0) {
      return parseFloat(parts[0]) / parseFloat(parts[1]);
    }
    return parts.length === 1 && DECIMAL.test(text) ? parseFloat(text) : null;
  }

  function remembered(key) {
    try { return window.localStorage.getItem(STORE + key) === "right"; }
    catch (e) { return false; }   // storage turned off: nothing is remembered
  }
  function remember(key) {
    try { window.localStorage.setItem(STORE + key, "right"); } catch (e) { /* off */ }
  }

  function textOf(el) {
    return (el.innerText || el.textContent || "").replace(/\s+/g, " ").trim();
  }

  // Show a choice's explanation, headed by a verdict in words (not colour alone).
  function reveal(choice, verdict, good) {
    var why = choice.querySelector(".selfcheck-why");
    var mark = choice.querySelector(".selfcheck-verdict");
    if (!mark) {
      mark = document.createElement("strong");
      mark.className = "selfcheck-verdict";
      var first = why.querySelector("p") || why;
      first.insertBefore(mark, first.firstChild);
    }
    mark.textContent = verdict ? verdict + " " : "";
    choice.classList.remove("is-right", "is-wrong");
    choice.classList.add(good ? "is-right" : "is-wrong");
    why.hidden = false;
    choice.hidden = false;
    var input = choice.querySelector("input");
    if (input) { input.setAttribute("aria-describedby", why.id); }
    var copy = why.cloneNode(true);
    copy.querySelector(".selfcheck-verdict").remove();
    copy.hidden = false;
    return textOf(copy);
  }

  // The live region shows the verdict and announces the explanations too,
  // which sighted readers see under the choices themselves.
  function say(box, verdict, explained) {
    var region = box.querySelector(".selfcheck-result");
    // Emptied first, so that the same message twice is announced twice.
    region.textContent = "";
    window.setTimeout(function () {
      var shown = document.createElement("span");
      shown.textContent = verdict;
      region.appendChild(shown);
      if (explained) {
        var spoken = document.createElement("span");
        spoken.className = "selfcheck-spoken";
        spoken.textContent = " " + explained;
        region.appendChild(spoken);
      }
    }, 50);
  }

  function letters(list) {
    var names = list.map(function (c) { return "(" + c.dataset.letter + ")"; });
    return names.length < 2 ? names.join("")
      : names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
  }

  function choices(box) {
    return Array.prototype.slice.call(box.querySelectorAll(".selfcheck-choice"));
  }

  function solved(box) {
    box.classList.add("is-solved");
    remember(box.dataset.key);
  }

  var judges = {
    choice: function (box) {
      var chosen = box.querySelector("input:checked");
      if (!chosen) { return ["Choose an answer first."]; }
      var choice = chosen.closest(".selfcheck-choice");
      var right = choice.dataset.correct === "true";
      var why = reveal(choice, right ? "Right." : "Not the answer.", right);
      if (right) {
        solved(box);
        return ["Right: (" + choice.dataset.letter + ") is the answer.", why];
      }
      return ["Not right: (" + choice.dataset.letter + ") is not the answer. Try another"
        + " choice.", why];
    },
    select: function (box) {
      var all = choices(box);
      var wrong = all.filter(function (c) {
        return c.querySelector("input").checked !== (c.dataset.correct === "true");
      });
      if (!wrong.length) {
        all.forEach(function (c) {
          reveal(c, c.dataset.correct === "true" ? "Applies." : "Does not apply.", true);
        });
        solved(box);
        var picked = all.filter(function (c) { return c.dataset.correct === "true"; });
        return ["Right: " + (picked.length ? letters(picked) + " apply, and no other."
          : "none of the choices applies.") + " Each choice's explanation is under it."];
      }
      var said = wrong.map(function (c) {
        var applies = c.dataset.correct === "true";
        return "(" + c.dataset.letter + ") " + reveal(
          c, applies ? "This one applies." : "This one does not apply.", false);
      });
      return ["Not yet: " + letters(wrong) + (wrong.length > 1 ? " are" : " is")
        + " not right. Change " + (wrong.length > 1 ? "them" : "it") + " and check again.",
        said.join(" ")];
    },
    number: function (box) {
      var typed = box.querySelector(".selfcheck-number input").value;
      var value = parseNumber(typed);
      if (value === null) { return ["Enter a number, such as 0.5, -2 or 3/4."]; }
      var tolerance = parseFloat(box.dataset.tolerance) || 0;
      var all = choices(box);
      var near = function (c) {
        return c.dataset.value !== "other"
          && Math.abs(value - parseFloat(c.dataset.value)) <= tolerance + 1e-12;
      };
      var hit = all.filter(function (c) { return c.dataset.correct === "true" && near(c); })[0]
        || all.filter(near)[0]
        || all.filter(function (c) { return c.dataset.value === "other"; })[0];
      all.forEach(function (c) { if (c !== hit) { c.hidden = true; } });
      var right = hit.dataset.correct === "true";
      var why = reveal(hit, right ? "Right." : "Not right.", right);
      if (right) {
        solved(box);
        return ["Right: " + typed.trim() + " is the answer.", why];
      }
      return ["Not right: " + typed.trim() + " is not the answer. Try again.", why];
    },
  };

  function showAll(box) {
    var kind = box.dataset.kind;
    choices(box).forEach(function (c) {
      var right = c.dataset.correct === "true";
      if (kind === "number") {
        reveal(c, right ? "The answer." : "", right);
      } else if (kind === "select") {
        reveal(c, right ? "Applies." : "Does not apply.", right);
      } else {
        reveal(c, right ? "The answer." : "Not the answer.", right);
      }
    });
  }

  function init(box) {
    var form = box.querySelector(".selfcheck-form");
    if (!form) { return; }
    if (remembered(box.dataset.key)) {
      box.classList.add("is-solved");
      var note = document.createElement("p");
      note.className = "selfcheck-progress";
      note.textContent = "You answered this one right before (remembered by this browser only).";
      box.querySelector(".selfcheck-title").insertAdjacentElement("afterend", note);
    }
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var message = judges[box.dataset.kind](box);
      say(box, message[0], message[1]);
    });
    // Enter on a radio button or check box checks the answer, as in a text field.
    form.addEventListener("keydown", function (event) {
      var target = event.target;
      if (event.key === "Enter" && target.matches("input[type=radio], input[type=checkbox]")) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
    var details = box.querySelector(".selfcheck-reveal");
    if (details) {
      details.addEventListener("toggle", function () {
        if (details.open) { showAll(box); }
      });
    }
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll(".selfcheck"), init);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
