// Run after window.MathJax holds the configuration (coursegrader/apps/feedback_page.py):
// whatever TeX a student writes, the typeset maths carries no link, style, class
// or id of theirs.  The configuration's macros already make \mmlToken, \href,
// \class, \style and \cssId drop their attributes; these two steps hold even if
// some other macro sets one.
(function (config) {
  // attributes of the MathML tree that a formula may not set
  var UNSAFE = ["href", "style", "class", "id"];

  function stripAttributes(args) {
    args.data.root.walkTree(function (node) {
      var attributes = node.attributes && node.attributes.getAllAttributes();
      if (attributes) {
        UNSAFE.forEach(function (name) { delete attributes[name]; });
      }
    });
  }

  // the typeset output: an <a> becomes its content; only a <use> of one of
  // MathJax's own glyphs (href="#...") keeps an address
  function unlink(math) {
    var root = math.typesetRoot;
    if (!root || !root.querySelectorAll) {
      return;
    }
    root.querySelectorAll("a").forEach(function (a) {
      a.replaceWith.apply(a, Array.prototype.slice.call(a.childNodes));
    });
    root.querySelectorAll("[href], [*|href]").forEach(function (element) {
      ["href", "xlink:href"].forEach(function (name) {
        var value = element.getAttribute(name);
        if (value !== null && !(element.localName === "use" && value.charAt(0) === "#")) {
          element.removeAttribute(name);
        }
      });
    });
  }

  config.startup = {
    ready: function () {
      MathJax.startup.defaultReady();
      MathJax.startup.document.inputJax.forEach(function (jax) {
        if (jax.postFilters) {
          jax.postFilters.add(stripAttributes);
        }
      });
    },
  };
  config.options = {
    renderActions: {
      // after the output is made (150) and its hidden MathML added (153),
      // before it goes into the page (200)
      unlink: [160,
        function (doc) { for (var math of doc.math) { unlink(math); } },
        function (math) { unlink(math); }],
    },
  };
})(window.MathJax);
