/* "Open in the course hub" links (book/_ext/course_hub.py): shown only when
 * the book is served by the course's hub (course_hub_config.js says where). */
(function () {
  "use strict";
  function show() {
    var hub = window.kernelCourseHub;
    if (!hub || typeof hub.open !== "string") { return; }
    document.querySelectorAll(".course-hub[data-open]").forEach(function (box) {
      var link = box.querySelector("a.course-hub-open");
      link.href = hub.open + box.dataset.open;
      box.hidden = false;
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", show);
  } else {
    show();
  }
})();
