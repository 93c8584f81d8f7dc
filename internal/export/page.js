// pi-go session export: branch navigation, filters and toggles, and the remainders of long tool
// outputs, which the page carries as inert text until they are opened.
(function () {
  "use strict";
  var body = document.body;
  var tree = document.getElementById("tree");
  var rows = document.getElementById("tree-rows");

  // A long output's remainder becomes its <pre>'s content on first opening ("toggle" does not
  // bubble, hence the capturing listener).
  document.addEventListener("toggle", function (ev) {
    var d = ev.target;
    if (!d.open || !d.classList || !d.classList.contains("more")) return;
    var text = d.querySelector(":scope > script[type='text/x-pi-more']");
    if (!text) return;
    d.querySelector(":scope > pre").innerHTML = text.textContent;
    text.remove();
  }, true);

  document.getElementById("controls").addEventListener("click", function (ev) {
    var b = ev.target.closest("button[data-toggle]");
    if (!b) return;
    var name = b.getAttribute("data-toggle");
    var on = body.classList.toggle(name);
    b.classList.toggle("pressed", on);
    if (name === "expand-tools") {
      document.querySelectorAll("details.more").forEach(function (d) { d.open = on; });
    }
  });

  // The tree's rows carry every entry's parent; the index is built on first use only.
  var parents = null, children = null;
  function index() {
    if (parents) return;
    parents = Object.create(null);
    children = Object.create(null);
    rows.querySelectorAll(".row").forEach(function (r) {
      var id = r.getAttribute("data-id"), p = r.getAttribute("data-p");
      parents[id] = p;
      (children[p] = children[p] || []).push(id);
    });
  }

  // branchThrough is the set of entries from the root to id, continued down to a leaf through the
  // latest child at each step.
  function branchThrough(id) {
    index();
    var on = Object.create(null);
    for (var x = id; x && !on[x]; x = parents[x]) on[x] = true;
    for (x = id; children[x] && children[x].length;) {
      x = children[x][children[x].length - 1];
      if (on[x]) break;
      on[x] = true;
    }
    return on;
  }

  function show(id) {
    var on = branchThrough(id);
    document.querySelectorAll("#entries > .e").forEach(function (a) {
      a.classList.toggle("off", !on[a.id.slice(2)]);
    });
    rows.querySelectorAll(".row").forEach(function (r) {
      var rid = r.getAttribute("data-id");
      r.classList.toggle("on", !!on[rid]);
      r.classList.toggle("sel", rid === id);
    });
    var el = document.getElementById("e-" + id);
    if (el) el.scrollIntoView({ block: "start" });
  }

  rows.addEventListener("click", function (ev) {
    var r = ev.target.closest(".row");
    if (!r) return;
    ev.preventDefault();
    var id = r.getAttribute("data-id");
    show(id);
    try { history.replaceState(null, "", "#e-" + id); } catch (e) { /* file: URLs may refuse */ }
  });

  var timer = 0;
  document.getElementById("tree-filter").addEventListener("input", function (ev) {
    clearTimeout(timer);
    var q = ev.target.value.toLowerCase();
    timer = setTimeout(function () {
      rows.querySelectorAll(".row").forEach(function (r) {
        r.classList.toggle("hide", q !== "" && r.textContent.toLowerCase().indexOf(q) < 0);
      });
    }, 150);
  });

  document.getElementById("tree-tools").addEventListener("change", function (ev) {
    tree.classList.toggle("tools", ev.target.checked);
  });

  if (location.hash.indexOf("#e-") === 0) {
    var target = document.getElementById(location.hash.slice(1));
    if (target && target.classList.contains("off")) show(location.hash.slice(3));
  }
  body.setAttribute("data-ready", "1");
})();
