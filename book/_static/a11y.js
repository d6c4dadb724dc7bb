// Accessible names that match what a reader sees (WCAG 2.5.3, label in name),
// and keyboard access to every box that scrolls sideways (WCAG 2.1.1).
(function () {
  "use strict";
  function nameFromContent() {
    // Buttons and toggles whose visible text already names them: a different
    // aria-label would hide that text from speech-input users.
    document.querySelectorAll(
      "summary[aria-label], .search-button-field[aria-label]"
    ).forEach(function (el) { el.removeAttribute("aria-label"); });
    // The colour-mode button shows one icon with a tooltip title; the button's
    // own label says what it does, so the icons are decoration.
    document.querySelectorAll(".theme-switch-button .theme-switch").forEach(
      function (icon) {
        icon.setAttribute("aria-hidden", "true");
        icon.removeAttribute("title");
        icon.removeAttribute("aria-labelledby");
        icon.removeAttribute("role");
        icon.querySelectorAll("title").forEach(function (t) { t.remove(); });
      });
    // In the bibliography each entry is a list item; the links back to where
    // an entry is cited are ordinary links inside it, not list children.
    document.querySelectorAll(".citation-list > .citation").forEach(
      function (entry) { entry.setAttribute("role", "listitem"); });
    document.querySelectorAll(".citation-list [role='doc-backlink']").forEach(
      function (link) { link.removeAttribute("role"); });
  }
  function scrollBoxesReachable() {
    // A box wider than its content area scrolls; give it a tab stop and a
    // name so a keyboard user can scroll it with the arrow keys.
    var boxes = document.querySelectorAll(
      "article figure, article .math, article mjx-container[display='true'], " +
      "article div.highlight pre, article table, article .cell_output");
    boxes.forEach(function (box) {
      var style = getComputedStyle(box);
      var scrolls = ["auto", "scroll"].indexOf(style.overflowX) >= 0 &&
        box.scrollWidth > box.clientWidth + 1;
      if (scrolls && !box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
        box.classList.add("scrolls-sideways");
        if (!box.hasAttribute("aria-label") && !box.hasAttribute("role")) {
          box.setAttribute("role", "region");
          box.setAttribute("aria-label", "Scrollable content");
        }
      }
    });
  }
  function run() { nameFromContent(); scrollBoxesReachable(); }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", run);
  } else {
    run();
  }
  window.addEventListener("load", run);
  window.addEventListener("resize", scrollBoxesReachable);
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    MathJax.startup.promise.then(scrollBoxesReachable);
  }
})();
