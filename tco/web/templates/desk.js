// The sales desk's small enhancements; the page works without them.
// 1. Only the users' curve fields of the chosen growth model are shown.
// 2. While the server computes, the form is dimmed and the pressed button says so.
(function () {
  "use strict";
  function showUsers() {
    var sel = document.querySelector('select[name="inference.users.model"]');
    if (!sel) { return; }
    document.querySelectorAll("[data-users]").forEach(function (el) {
      el.hidden = el.getAttribute("data-users") !== sel.value;
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    showUsers();
    var sel = document.querySelector('select[name="inference.users.model"]');
    if (sel) { sel.addEventListener("change", showUsers); }
    var form = document.getElementById("desk");
    if (!form) { return; }
    form.addEventListener("submit", function (ev) {
      var btn = ev.submitter;
      if (btn && btn.id === "recalc") {
        form.classList.add("busy");
        btn.textContent = btn.getAttribute("data-busy") || "…";
      }
    });
  });
})();
