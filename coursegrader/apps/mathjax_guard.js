// Run after window.MathJax holds the configuration (coursegrader/apps/feedback_page.py):
// whatever TeX a student writes, the typeset maths carries no link, style, class
// or id of theirs.  The configuration's macros already make \mmlToken, \href,
// \class, \style and \cssId drop their attributes; these two steps hold even if
// some other macro sets one.  A formula moves nothing, and draws no rule or
// negative space, further than a few em: past that the command is shown as its
// TeX, in red, as an unknown macro is (the page's style sheet, math_clip.css,
// clips each formula to its own box in any case).
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

  // how far a formula may move, or draw a rule or a negative space, in em
  var REACH = 3;
  var RULE_WIDTH = 10;

  // each command's arguments read as em, and whether they stay within bounds
  var BOUNDED = {
    RaiseLower: function (parser, name) {
      return Math.abs(parser.em(parser.GetDimen(name))) <= REACH;
    },
    MoveLeftRight: function (parser, name) {
      return Math.abs(parser.em(parser.GetDimen(name))) <= REACH;
    },
    Hskip: function (parser, name) {
      return parser.em(parser.GetDimen(name)) >= -REACH;
    },
    rule: function (parser, name) {
      var raise = parser.GetBrackets(name);
      var width = parser.em(parser.GetDimen(name));
      var height = parser.em(parser.GetDimen(name));
      return Math.abs(raise ? parser.em(raise) : 0) <= REACH && Math.abs(width) <= RULE_WIDTH
        && Math.abs(height) <= REACH;
    },
    Rule: function (parser, name) {
      var width = parser.em(parser.GetDimen(name));
      var height = parser.em(parser.GetDimen(name));
      var depth = parser.em(parser.GetDimen(name));
      return Math.abs(width) <= RULE_WIDTH && Math.abs(height) <= REACH
        && Math.abs(depth) <= REACH;
    },
  };

  // every macro of MathJax's base package made by one of BOUNDED's methods reads
  // its arguments first: within bounds it runs as before, past them the command
  // and its arguments are shown as text
  function boundMacros() {
    var tex = MathJax._.input.tex;
    var macros = tex.MapHandler.MapHandler.getMap("macros");
    var toEm = tex.ParseUtil.default.dimen2em;
    var methods = tex.base.BaseMethods.default;
    Object.keys(BOUNDED).forEach(function (method) {
      var original = methods[method];
      macros.map.forEach(function (macro, cs) {
        if (macro.func !== original) {
          return;
        }
        macros.add(cs, new tex.Symbol.Macro(cs, function (parser, name) {
          var start = parser.i;
          var within = BOUNDED[method]({
            GetDimen: parser.GetDimen.bind(parser),
            GetBrackets: parser.GetBrackets.bind(parser),
            em: toEm,
          }, name);
          if (within) {
            parser.i = start;
            return original.apply(this, arguments);
          }
          parser.Push(parser.create("token", "mtext", {mathcolor: "red"},
                                    (name + parser.string.slice(start, parser.i)).trim()));
        }, macro.args));
      });
    });
  }

  config.startup = {
    ready: function () {
      boundMacros();
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
