// gblint HTML report: folding the call trees, details on click, links between
// diagnostics and frames. One listener for the page; a fold touches only the
// rows of the folded subtree (rows are a flat list in preorder, each knowing
// the index of its last descendant), so a tree of thousands of rows stays fast.
(function () {
  "use strict";

  function rows(li) { return li.parentElement.children; }
  function folded(li) { return li.getAttribute("aria-expanded") === "false"; }

  function unfold(li) {
    if (!folded(li)) return;
    li.setAttribute("aria-expanded", "true");
    var all = rows(li), end = +li.dataset.end, j = +li.dataset.i + 1;
    while (j <= end) {
      var row = all[j];
      row.hidden = false;
      j = folded(row) ? +row.dataset.end + 1 : j + 1;
    }
  }

  function fold(li) {
    if (folded(li) || !li.hasAttribute("aria-expanded")) return;
    li.setAttribute("aria-expanded", "false");
    var all = rows(li), end = +li.dataset.end;
    for (var j = +li.dataset.i + 1; j <= end; j++) all[j].hidden = true;
  }

  function setAll(tree, open) {
    var all = tree.children;
    for (var j = 0; j < all.length; j++) {
      var row = all[j];
      if (row.hasAttribute("aria-expanded")) row.setAttribute("aria-expanded", open ? "true" : "false");
      row.hidden = !open && row.dataset.parent !== "-1";
    }
  }

  function openRegion(el) {
    var region = el.closest("details.region");
    if (region && !region.open) region.open = true;
  }

  function showInfo(li, show) {
    var info = li.querySelector(".info");
    info.hidden = !show;
    li.classList.toggle("selected", show);
    li.setAttribute("aria-selected", show ? "true" : "false");
  }

  function flash(el) {
    el.classList.remove("flash");
    void el.offsetWidth;  // restart the animation
    el.classList.add("flash");
  }

  function reveal(id) {
    var li = document.getElementById(id);
    if (!li) return;
    openRegion(li);
    var all = rows(li), chain = [], p = +li.dataset.parent;
    while (p >= 0) { chain.push(all[p]); p = +all[p].dataset.parent; }
    for (var k = chain.length - 1; k >= 0; k--) unfold(chain[k]);
    li.hidden = false;
    showInfo(li, true);
    li.scrollIntoView({block: "center"});
    flash(li);
  }

  function revealDiagnostic(id) {
    var d = document.getElementById(id);
    if (!d) return;
    openRegion(d);
    d.open = true;
    d.scrollIntoView({block: "center"});
    flash(d);
  }

  document.addEventListener("click", function (event) {
    var t = event.target;
    var el = t.closest(".tog");
    if (el) { var li = el.closest("li"); if (folded(li)) unfold(li); else fold(li); return; }
    el = t.closest(".fname");
    if (el) { var row = el.closest("li"); showInfo(row, row.querySelector(".info").hidden); return; }
    el = t.closest("a[data-node]");
    if (el) { event.preventDefault(); reveal(el.dataset.node); return; }
    el = t.closest("a[data-diag]");
    if (el) { event.preventDefault(); revealDiagnostic(el.dataset.diag); return; }
    el = t.closest("a[data-region]");
    if (el) {
      event.preventDefault();
      var region = document.getElementById(el.dataset.region);
      region.open = true;
      region.scrollIntoView({block: "start"});
      return;
    }
    el = t.closest("button[data-act]");
    if (el) { setAll(el.closest(".tree-pane").querySelector(".tree"), el.dataset.act === "expand"); }
  });

  document.documentElement.dataset.ready = "1";
}());
