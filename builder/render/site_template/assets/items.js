/* Released items, explored: formulas rendered with the vendored KaTeX (loaded only on pages
   whose front matter says sealboard_math), the item browser's filters and sort with their
   state in the URL (so a view can be shared), and the item × model grid drawn on a canvas
   from the JSON embedded in its page (data/<benchmark>/grid.json). The page source keeps
   every formula's TeX: KaTeX changes only what the browser shows. */
(function () {
  "use strict";

  /* ---- math ------------------------------------------------------------------ */
  var DELIMITERS = [
    { left: "$$", right: "$$", display: true },
    { left: "\\[", right: "\\]", display: true },
    { left: "\\(", right: "\\)", display: false },
    { left: "$", right: "$", display: false },
  ];
  function renderMath() {
    if (typeof katex === "undefined" || typeof renderMathInElement === "undefined") return;
    // Only the item texts (question, transcripts): prose elsewhere may hold a "$" price.
    document.querySelectorAll(".sb-math").forEach(function (el) {
      renderMathInElement(el, { delimiters: DELIMITERS, throwOnError: false });
    });
    // A gold answer written as bare TeX (\frac{\pi}{3}) beside its exact text in <code>.
    document.querySelectorAll(".sb-tex[data-tex]").forEach(function (el) {
      katex.render(el.dataset.tex, el, { throwOnError: false });
    });
  }

  /* ---- the item browser -------------------------------------------------------- */
  function setURL(params) {
    var q = params.toString();
    history.replaceState(null, "", location.pathname + (q ? "?" + q : "") + location.hash);
  }
  function setupItems(table) {
    var selects = document.querySelectorAll("[data-sb-filter]");
    var none = document.querySelector("[data-sb-filter-none]");
    var count = document.querySelector("[data-sb-count]");
    var rows = table.tBodies[0].rows;
    var params = new URLSearchParams(location.search);
    selects.forEach(function (s) {
      var v = params.get(s.dataset.sbFilter);
      if (v !== null && [].some.call(s.options, function (o) { return o.value === v; })) s.value = v;
    });
    if (none) none.checked = params.get("none") === "1";
    function apply() {
      var p = new URLSearchParams(location.search), shown = 0;
      selects.forEach(function (s) { if (s.value) p.set(s.dataset.sbFilter, s.value); else p.delete(s.dataset.sbFilter); });
      if (none && none.checked) p.set("none", "1"); else p.delete("none");
      [].forEach.call(rows, function (tr) {
        var ok = true;
        selects.forEach(function (s) {
          var want = s.value, have = tr.dataset[s.dataset.sbFilter] || "";
          if (want && (s.dataset.sbFilter === "language" ? have.split(" ").indexOf(want) < 0 : have !== want)) ok = false;
        });
        if (none && none.checked && tr.dataset.none !== "1") ok = false;
        tr.hidden = !ok;
        if (ok) shown += 1;
      });
      if (count) count.textContent = shown + " of " + rows.length + " items";
      setURL(p);
    }
    selects.forEach(function (s) { s.addEventListener("change", apply); });
    if (none) none.addEventListener("change", apply);
    apply();
    if (typeof Tablesort === "undefined") return;
    // Ties (equal solve rates) keep the page's own order (by id) whatever was sorted
    // before, so a shared address shows exactly the view it was copied from.
    var original = [].slice.call(rows);
    table.addEventListener("beforeSort", function () {
      original.forEach(function (tr) { table.tBodies[0].appendChild(tr); });
    });
    var sorter = new Tablesort(table);
    var head = params.get("sort") && table.querySelector('thead th[data-key="' + CSS.escape(params.get("sort")) + '"]');
    if (head) {  // tablesort flips the current order: preset the opposite of the wanted one
      head.setAttribute("aria-sort", params.get("dir") === "desc" ? "ascending" : "descending");
      sorter.current = head;
      sorter.sortTable(head);
    }
    table.addEventListener("afterSort", function () {
      var th = table.querySelector("thead th[aria-sort]"), p = new URLSearchParams(location.search);
      if (!th) return;
      p.set("sort", th.dataset.key);
      p.set("dir", th.getAttribute("aria-sort") === "ascending" ? "asc" : "desc");
      setURL(p);
    });
  }

  /* ---- the item × model grid ---------------------------------------------------- */
  var CELL = 10, GAP = 1, LABEL = 116;
  function verdictColour(c, n, dark) {
    if (c === null || !n) return dark ? "#3a3f4b" : "#e4e6eb";
    if (c === n) return dark ? "#3fb27f" : "#1a8f5a";
    if (c === 0) return dark ? "#e0605e" : "#c8403e";
    return dark ? "#e9b949" : "#e3a51a";
  }
  function setupGrid(box) {
    var data = JSON.parse(box.querySelector("[data-sb-grid-data]").textContent);
    var canvas = box.querySelector("[data-sb-grid-canvas]");
    var tip = box.querySelector("[data-sb-grid-tip]");
    var items = data.items, models = data.models, step = CELL + GAP;
    var ratio = window.devicePixelRatio || 1;
    var w = LABEL + models.length * step, h = items.length * step;
    canvas.width = Math.ceil(w * ratio);
    canvas.height = Math.ceil(h * ratio);
    canvas.style.width = w + "px";
    canvas.style.height = h + "px";
    canvas.dataset.cell = String(step);
    canvas.dataset.label = String(LABEL);
    function draw() {
      var ctx = canvas.getContext("2d"), dark = document.body.getAttribute("data-md-color-scheme") === "slate";
      var fg = getComputedStyle(document.body).getPropertyValue("--md-default-fg-color").trim() || "#222";
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.clearRect(0, 0, w, h);
      ctx.font = "9px ui-monospace, SFMono-Regular, Menlo, monospace";
      ctx.textBaseline = "middle";
      ctx.fillStyle = fg;
      items.forEach(function (it, j) { ctx.fillText(it.id, 0, j * step + CELL / 2, LABEL - 6); });
      models.forEach(function (m, i) {
        for (var j = 0; j < items.length; j++) {
          ctx.fillStyle = verdictColour(m.correct[j], m.samples[j], dark);
          ctx.fillRect(LABEL + i * step, j * step, CELL, CELL);
        }
      });
    }
    function cellAt(ev) {
      var r = canvas.getBoundingClientRect();
      var x = ev.clientX - r.left - LABEL, y = ev.clientY - r.top;
      if (x < 0 || y < 0) return null;
      var i = Math.floor(x / step), j = Math.floor(y / step);
      if (i >= models.length || j >= items.length || x - i * step >= CELL || y - j * step >= CELL) return null;
      return { model: models[i], item: items[j], j: j };
    }
    function href(cell) { return "items/" + encodeURIComponent(cell.item.page) + ".html#" + cell.model.anchor; }
    canvas.addEventListener("mousemove", function (ev) {
      var cell = cellAt(ev);
      canvas.style.cursor = cell ? "pointer" : "default";
      if (!cell) return;
      var c = cell.model.correct[cell.j], n = cell.model.samples[cell.j];
      tip.textContent = cell.item.id + " · " + cell.model.model + " (" + cell.model.lab + ") · " +
        (c === null ? "no result" : c + " of " + n + " sample(s) correct");
    });
    canvas.addEventListener("click", function (ev) {
      var cell = cellAt(ev);
      if (cell && cell.model.correct[cell.j] !== null) location.href = href(cell);
    });
    draw();
    // Redraw when the reader switches the palette (Material sets the body's scheme).
    new MutationObserver(draw).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  }

  function init() {
    renderMath();
    var items = document.querySelector("table[data-sb-items]");
    if (items) setupItems(items);
    document.querySelectorAll("[data-sb-grid]").forEach(setupGrid);
    document.querySelectorAll("table.sb-model-items[data-anchor]").forEach(function (t) {
      t.querySelectorAll("tbody a").forEach(function (a) { a.hash = t.dataset.anchor; });  // open at this model's row
      if (typeof Tablesort !== "undefined") new Tablesort(t);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init); else init();
})();
