/* Sealboard pages: sort and filter board tables (state in the URL, so a view can be
   shared) and draw each board's chart from the JSON embedded in the page (the same numbers
   as the table and the board's data file). Sorting is tablesort's; plotly.js is present
   only on pages that chart. */
(function () {
  "use strict";
  // Plotly reads a subset of HTML in labels (<a>, <b>, <br>); model names are data, not
  // markup, so their angle brackets are passed as entities (Plotly displays them as text).
  function text(s) { return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"); }
  // A hovertemplate is itself a template: "%{x}" in a model name would be evaluated there.
  // So no label is ever joined into one: labels go in customdata (or the trace's name, read
  // as %{fullData.name}), whose values Plotly shows as they are, and every hovertemplate
  // below is a constant.
  function each(list, value) { return list.map(function () { return value; }); }

  /* ---- tables ---------------------------------------------------------------- */
  function setURL(params) {
    var q = params.toString();
    history.replaceState(null, "", location.pathname + (q ? "?" + q : "") + location.hash);
  }
  function setupTable(table) {
    if (table.dataset.ready || typeof Tablesort === "undefined") return;
    table.dataset.ready = "1";
    var sorter = new Tablesort(table, { descending: true });
    sorter.current = table.querySelector("thead th[aria-sort]");  // rows come in rank order
    var box = table.closest(".sb-board-box");
    var form = box && box.querySelector("form.sb-filters");
    var params = new URLSearchParams(location.search);
    var head = params.get("sort") && table.querySelector('thead th[data-key="' + CSS.escape(params.get("sort")) + '"]');
    if (head) {  // tablesort flips the current order: preset the opposite of the wanted one
      head.setAttribute("aria-sort", params.get("dir") === "asc" ? "descending" : "ascending");
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
    if (!form) return;
    form.addEventListener("submit", function (ev) { ev.preventDefault(); });
    Array.prototype.forEach.call(form.elements, function (el) {
      var v = params.get(el.name);
      if (v === null) return;
      if (el.type === "checkbox") el.checked = v === el.value; else el.value = v;
    });
    function apply() {
      var p = new URLSearchParams(location.search), want = {}, shown = 0, total = 0;
      Array.prototype.forEach.call(form.elements, function (el) {
        if (!el.name) return;
        var v = el.type === "checkbox" ? (el.checked ? el.value : "") : el.value.trim();
        if (v) { p.set(el.name, v); want[el.name] = v; } else { p.delete(el.name); }
      });
      Array.prototype.forEach.call(table.tBodies[0].rows, function (tr) {
        if (tr.hasAttribute("data-ref")) return;  // reference rows always stay for comparison
        var d = tr.dataset, ok =
          (!want.q || tr.textContent.toLowerCase().indexOf(want.q.toLowerCase()) >= 0) &&
          (!want.lab || d.lab === want.lab) && (!want.family || d.family === want.family) &&
          (!want.reasoning || d.reasoning === want.reasoning) && (!want.tts || d.tts === want.tts) &&
          (!want.open || d.open === "1");
        tr.hidden = !ok;
        total += 1; shown += ok ? 1 : 0;
      });
      var out = form.querySelector(".sb-count");
      if (out) out.textContent = shown === total ? total + " submissions" : shown + " of " + total + " shown";
      setURL(p);
    }
    form.addEventListener("input", apply);
    form.addEventListener("change", apply);
    apply();
  }

  /* ---- charts ---------------------------------------------------------------- */
  function colors() {  // marks readable on both palettes (the theme's primary is too dark on slate)
    var cs = getComputedStyle(document.body), dark = document.body.getAttribute("data-md-color-scheme") === "slate";
    function v(name, dflt) { return cs.getPropertyValue(name).trim() || dflt; }
    return { fg: v("--md-default-fg-color", "#222"), grid: v("--md-default-fg-color--lightest", "#ddd"),
             a: dark ? "#8ab4f8" : "#2f5597", b: dark ? "#f6ad55" : "#c8550f" };
  }
  function layout(spec, el, c, extra) {
    var base = {
      font: { color: c.fg, size: el.clientWidth < 560 ? 10 : 12 },
      paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
      margin: { l: 8, r: 12, t: 8, b: 8 }, showlegend: false, hoverlabel: { namelength: -1 },
      legend: { orientation: "h", x: 0, y: -0.12, yanchor: "top" },
      xaxis: { title: { text: text(spec.x_title) }, automargin: true, gridcolor: c.grid, zerolinecolor: c.grid },
      yaxis: { title: { text: text(spec.y_title) }, automargin: true, gridcolor: c.grid }
    };
    Object.keys(extra).forEach(function (k) {
      base[k] = (typeof extra[k] === "object" && base[k]) ? Object.assign(base[k], extra[k]) : extra[k];
    });
    return base;
  }
  function narrow(el) { return el.clientWidth < 560; }
  function cut(s, max) { return s.length > max ? s.slice(0, max - 1) + "…" : s; }
  // Long model names would leave a 390 px plot no room to draw: on a phone a name takes two
  // short lines (split at a space or after a hyphen), so names that start alike ("Gemini-2.5-Flash (Think) ·
  // TTS", "Gemini-2.5-Flash · TTS") still read apart; rows are taller to hold them.
  function label(el) {
    var max = narrow(el) ? 18 : 42;
    return function (s) {
      s = String(s);
      if (s.length <= max || !narrow(el)) return text(cut(s, max));
      var at = Math.max(s.lastIndexOf(" ", max), s.lastIndexOf("-", max - 1) + 1);  // after a space or a hyphen
      if (at < 6) at = max;
      return text(s.slice(0, at).trim()) + "<br>" + text(cut(s.slice(at).trim(), max));
    };
  }
  function rowH(el) { return narrow(el) ? 28 : 20; }
  function rowsAxis(el, labels) {  // rows by position: names that shorten alike stay apart
    var lab = label(el);
    return { tickmode: "array", tickvals: labels.map(function (_, i) { return i; }), ticktext: labels.map(lab),
             autorange: "reversed", zeroline: false, showgrid: false };
  }
  function idx(list) { return list.map(function (_, i) { return i; }); }
  function refLines(refs, lo, hi) {
    return refs.map(function (r) {
      return { type: "scatter", mode: "lines", x: [r.value, r.value], y: [lo, hi], name: text(r.label),
               customdata: [text(r.label), text(r.label)],
               line: { dash: "dot", width: 1.5 }, hovertemplate: "%{customdata}: %{x:.1f}<extra></extra>" };
    });
  }
  var draw = {
    dots: function (s, el, c) {
      var y = idx(s.points), full = s.points.map(function (p) { return text(p.label); });
      var t = [{ type: "scatter", mode: "markers", x: s.points.map(function (p) { return p.value; }), y: y, customdata: full,
        marker: { color: c.a, size: 7 }, hovertemplate: "%{customdata}: %{x:.1f}<extra></extra>",
        error_x: { type: "data", symmetric: false, color: c.a,
          array: s.points.map(function (p) { return p.hi == null ? 0 : p.hi - p.value; }),
          arrayminus: s.points.map(function (p) { return p.lo == null ? 0 : p.value - p.lo; }) } }];
      return [t.concat(refLines(s.references, y[0], y[y.length - 1])),
              { height: 90 + rowH(el) * y.length, showlegend: s.references.length > 0, yaxis: rowsAxis(el, s.points.map(function (p) { return p.label; })) }];
    },
    heatmap: function (s, el, c) {
      var narrow = el.clientWidth < 560;
      return [[{ type: "heatmap", z: s.z, x: s.x.map(function (x) { return text(narrow ? x.split(" ")[0] : x); }),
        y: idx(s.y), customdata: s.y.map(function (y) { return s.x.map(function () { return text(y); }); }),
        colorscale: "Viridis", hoverongaps: false, xgap: 1, ygap: 1,
        colorbar: { title: { text: text(s.z_title), side: "right" }, thickness: 10, outlinewidth: 0 },
        hovertemplate: "%{customdata}<br>%{x}: %{z:.1f}<extra></extra>" }],
        { height: 140 + (narrow ? 26 : 16) * s.y.length, yaxis: rowsAxis(el, s.y), xaxis: { type: "category", tickangle: -45 } }];
    },
    lines: function (s, el, c) {
      // Legend entries stay on one line: two-line entries outgrow the legend's room below the plot.
      var max = narrow(el) ? 18 : 42, lab = function (t) { return text(cut(String(t), max)); }, traces = s.series.map(function (r) {
        return { type: "scatter", mode: "lines+markers", x: s.x, y: r.y, name: lab(r.label), connectgaps: false,
                 customdata: each(s.x, text(r.label)), hovertemplate: "%{customdata}<br>%{x}: %{y:.1f}<extra></extra>" };
      }).concat(s.references.map(function (r) {
        return { type: "scatter", mode: "lines", x: s.x, y: r.y, name: text(r.label), line: { dash: "dot", color: c.fg, width: 1 } };
      }));
      return [traces, { height: el.clientWidth < 560 ? 560 : 480, showlegend: true, legend: { y: -0.25 }, xaxis: { type: "category" } }];
    },
    pairs: function (s, el, c) {
      var y = idx(s.rows), seg = { x: [], y: [] };
      s.rows.forEach(function (r, i) { seg.x.push(r.a, r.b, null); seg.y.push(y[i], y[i], null); });
      function pts(key, name, color) {
        return { type: "scatter", mode: "markers", name: text(name), x: s.rows.map(function (r) { return r[key]; }), y: y,
                 marker: { color: color, size: 8 }, customdata: s.rows.map(function (r) { return text(r.label); }),
                 hovertemplate: "%{customdata}<br>%{fullData.name}: %{x:.1f}<extra></extra>" };
      }
      return [[{ type: "scatter", mode: "lines", x: seg.x, y: seg.y, line: { color: c.grid, width: 3 }, hoverinfo: "skip", showlegend: false },
               pts("a", s.a, c.a), pts("b", s.b, c.b)],
              { height: 110 + rowH(el) * y.length, showlegend: true, yaxis: rowsAxis(el, s.rows.map(function (r) { return r.label; })) }];
    },
    arrows: function (s, el, c) {
      var y = idx(s.rows), seg = { x: [], y: [] };
      s.rows.forEach(function (r, i) { seg.x.push(r.a, r.b, null); seg.y.push(y[i], y[i], null); });
      return [[{ type: "scatter", mode: "lines", x: seg.x, y: seg.y, line: { color: c.a, width: 2 }, hoverinfo: "skip", showlegend: false },
               { type: "scatter", mode: "markers", name: text(s.a), x: s.rows.map(function (r) { return r.a; }), y: y,
                 marker: { color: c.grid, line: { color: c.a, width: 1.5 }, size: 7 }, customdata: s.rows.map(function (r) { return text(r.label); }),
                 hovertemplate: "%{customdata}<br>%{fullData.name}: %{x:.1f}<extra></extra>" },
               { type: "scatter", mode: "markers", name: text(s.b), x: s.rows.map(function (r) { return r.b; }), y: y,
                 marker: { color: c.a, size: 10, symbol: s.rows.map(function (r) { return r.b >= r.a ? "triangle-right" : "triangle-left"; }) },
                 customdata: s.rows.map(function (r) { return text(r.label); }),
                 hovertemplate: "%{customdata}<br>%{fullData.name}: %{x:.1f}<extra></extra>" }],
              { height: 110 + rowH(el) * y.length, showlegend: true, yaxis: rowsAxis(el, s.rows.map(function (r) { return r.label; })) }];
    },
    scatter: function (s, el, c) {
      var named = s.points.length <= 25 && el.clientWidth >= 560;  // label the dots when they fit
      var t = [{ type: "scatter", mode: named ? "markers+text" : "markers", textposition: "top center", textfont: { size: 9 },
        name: "Submissions", x: s.points.map(function (p) { return p.x; }),
        y: s.points.map(function (p) { return p.y; }), text: s.points.map(function (p) { return text(p.label); }),
        marker: { color: c.a, size: 8, opacity: 0.8 }, hovertemplate: "%{text}<br>%{x}, %{y:.1f}<extra></extra>" }];
      if (s.references.length) t.push({ type: "scatter", mode: "markers", name: text(s.references[0].label),
        x: s.references.map(function (p) { return p.x; }), y: s.references.map(function (p) { return p.y; }),
        marker: { color: c.b, size: 11, symbol: "diamond" } });
      return [t, { height: 440, showlegend: s.references.length > 0, xaxis: s.log_x ? { type: "log", dtick: 1, exponentformat: "none" } : {} }];
    }
  };
  function plot(el) {
    if (typeof Plotly === "undefined" || !draw[el.spec.type]) return;
    var c = colors(), out = draw[el.spec.type](el.spec, el, c);
    Plotly.react(el, out[0], layout(el.spec, el, c, out[1]), { displayModeBar: false, responsive: true });
    el.dataset.drawn = "1";
  }
  function setupChart(el) {
    if (el.spec) return;
    el.spec = JSON.parse(el.querySelector("script[type='application/json']").textContent);
    plot(el);
  }

  function init() {
    document.querySelectorAll("table.sb-board[data-sortable]").forEach(setupTable);
    document.querySelectorAll(".sb-chart").forEach(setupChart);
  }
  if (typeof document$ !== "undefined") document$.subscribe(init);
  document.addEventListener("DOMContentLoaded", init);
  // plotly.js is deferred: draw once it is there, and again when the palette changes.
  window.addEventListener("load", function () {
    document.querySelectorAll(".sb-chart").forEach(function (el) { setupChart(el); if (!el.dataset.drawn) plot(el); });
  });
  new MutationObserver(function () { document.querySelectorAll(".sb-chart").forEach(function (el) { if (el.spec) plot(el); }); })
    .observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
})();
