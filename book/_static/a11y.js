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
  function markWideInlineFormulas() {
    // An inline formula wider than the line it sits in would be cut off at
    // the column edge: it becomes a box of its own that scrolls (book.css).
    // Formulas in a table are left alone: the table scrolls as a whole.
    document.querySelectorAll(
      "article mjx-container:not([display='true'])").forEach(function (m) {
      if (m.closest("table")) { return; }
      m.classList.remove("wide-inline");
      var block = m.parentElement.closest("p, li, dd, td, div, section");
      if (!block) { return; }
      var style = getComputedStyle(block);
      var inner = block.clientWidth - parseFloat(style.paddingLeft) -
        parseFloat(style.paddingRight);
      if (m.getBoundingClientRect().width > inner + 1) {
        m.classList.add("wide-inline");
      }
    });
  }
  function frameTables() {
    // A table in a frame that shows, when the table is wider than the
    // column, a line saying so and a shadow on the side with more columns.
    document.querySelectorAll("article table").forEach(function (table) {
      var frame = table.parentElement;
      if (!frame.classList.contains("scroll-frame")) {
        frame = document.createElement("div");
        frame.className = "scroll-frame";
        var hint = document.createElement("p");
        hint.className = "scroll-hint";
        hint.textContent = "The table is wider than the page: scroll it sideways " +
          "for more columns \u2192";
        table.parentElement.insertBefore(frame, table);
        frame.appendChild(hint);
        frame.appendChild(table);
        table.addEventListener("scroll", function () { edges(table, frame); });
      }
      edges(table, frame);
    });
  }
  function edges(table, frame) {
    var scrolls = table.scrollWidth > table.clientWidth + 1;
    frame.classList.toggle("scrolls", scrolls);
    frame.style.setProperty("--table-top", table.offsetTop + "px");
    frame.classList.toggle("more-right", scrolls &&
      table.scrollLeft + table.clientWidth < table.scrollWidth - 1);
    frame.classList.toggle("more-left", scrolls && table.scrollLeft > 1);
  }
  function scrollBoxesReachable() {
    markWideInlineFormulas();
    frameTables();
    // A box wider than its content area scrolls; give it a tab stop and a
    // name so a keyboard user can scroll it with the arrow keys.
    var boxes = document.querySelectorAll(
      "article figure, article .math, article mjx-container[display='true'], " +
      "article mjx-container.wide-inline, " +
      "article div.highlight pre, article table, article .cell_output");
    boxes.forEach(function (box) {
      var style = getComputedStyle(box);
      var scrolls = ["auto", "scroll"].indexOf(style.overflowX) >= 0 &&
        box.scrollWidth > box.clientWidth + 1;
      // The class draws the edge shadow (book.css), also on a formula,
      // which MathJax has already given a tab stop and its own semantics.
      box.classList.toggle("scrolls-sideways", scrolls);
      if (scrolls && !box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
        if (!box.hasAttribute("aria-label") && !box.hasAttribute("role")) {
          box.setAttribute("role", "region");
          box.setAttribute("aria-label", "Scrollable content");
        }
      }
    });
  }
  // A formula inside a self-check's choice is read with its label; MathJax's
  // own tab stop on it (for its menu) would put a stop between the choices.
  function quietChoiceFormulas() {
    document.querySelectorAll(".selfcheck label mjx-container").forEach(function (m) {
      if (!m.classList.contains("scrolls-sideways")) m.setAttribute("tabindex", "-1");
    });
  }
  function run() { nameFromContent(); scrollBoxesReachable(); quietChoiceFormulas(); }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", run);
  } else {
    run();
  }
  window.addEventListener("load", run);
  window.addEventListener("resize", scrollBoxesReachable);
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    MathJax.startup.promise.then(function () {
      scrollBoxesReachable();
      quietChoiceFormulas();
    });
  }
})();
