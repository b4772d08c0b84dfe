/* Sealboard pages: sort and filter board tables (state in the URL, so a view can be
   shared) and draw each board's chart from the JSON embedded in the page (the same numbers
   as the table and the board's data file). Sorting is tablesort's. The table never waits
   for the chart library: plotly.js (assets/plotly.min.js, 1.5 MB) is fetched only when a
   chart comes near the screen, and a chart follows the table's filters. */
(function () {
  "use strict";
  var SELF = document.currentScript ? document.currentScript.src : "";
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
    // Each row's submission id, from its model link (models/<id>.html): what the charts' rows carry.
    Array.prototype.forEach.call(table.tBodies[0].rows, function (tr, i) {
      tr.sbOrder = i;
      var a = tr.querySelector(".sb-model a[href]"), m = a && /models\/(.+)\.html$/.exec(a.getAttribute("href"));
      if (m) tr.dataset.sub = decodeURIComponent(m[1]);
    });
    var sorter = new Tablesort(table, { descending: true });
    sorter.current = table.querySelector("thead th[aria-sort]");  // rows come in rank order
    var box = table.closest(".sb-board-box");
    var form = box && box.querySelector("form.sb-filters");
    var params = new URLSearchParams(location.search);
    // Rows without a value in the sorted column go below every value, in both directions.
    table.addEventListener("afterSort", function () { if (sorter.current) missingLast(table, sorter.current.cellIndex); });
    var head = params.get("sort") && table.querySelector('thead th[data-key="' + CSS.escape(params.get("sort")) + '"]');
    if (head) {  // tablesort flips the current order: preset the opposite of the wanted one
      // The page marks its rank order as the current sort: one column is sorted, one arrow shows.
      if (sorter.current && sorter.current !== head) sorter.current.removeAttribute("aria-sort");
      head.setAttribute("aria-sort", params.get("dir") === "asc" ? "descending" : "ascending");
      sorter.current = head;
      sorter.sortTable(head);
    }
    table.addEventListener("afterSort", function () {
      var th = sorter.current, p = new URLSearchParams(location.search);
      if (!th || !th.hasAttribute("aria-sort")) return;
      p.set("sort", th.dataset.key);
      p.set("dir", th.getAttribute("aria-sort") === "ascending" ? "asc" : "desc");
      setURL(p);
    });
    picker(table, box);
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
      var keep = {};
      Array.prototype.forEach.call(table.tBodies[0].rows, function (tr) { if (!tr.hidden && tr.dataset.sub) keep[tr.dataset.sub] = 1; });
      box.dataset.shown = JSON.stringify(Object.keys(keep));
      document.querySelectorAll(".sb-chart").forEach(function (el) { if (el.dataset.drawn) plot(el); });
      var out = form.querySelector(".sb-count");
      if (out) out.textContent = shown === total ? total + " submissions" : shown + " of " + total + " shown";
      setURL(p);
    }
    form.addEventListener("input", apply);
    form.addEventListener("change", apply);
    apply();
    if (window.performance && performance.mark) performance.mark("sb-table-ready");
  }

  // A cell that shows no value: "not reported", "no items", withheld under the embargo, or
  // a dash. tablesort reads these as 0 (or as text), so sorting cost "cheapest first" once
  // listed every unreported cost before any real one; they are moved below every value
  // instead, whichever way the column is sorted, in the page's (rank) order among themselves.
  function missing(cell) {
    if (!cell) return true;
    if (cell.querySelector(".sb-na, .sb-suppressed")) return true;
    var t = cell.textContent.trim();
    return t === "" || t === "\u2014";
  }
  function missingLast(table, col) {
    var body = table.tBodies[0];
    Array.prototype.filter.call(body.rows, function (tr) { return missing(tr.cells[col]); })
      .sort(function (a, b) { return a.sbOrder - b.sbOrder; })  // the page's order (tablesort reverses ties)
      .forEach(function (tr) { body.appendChild(tr); });
  }

  // Every column that fits is shown (issue 41). A table wider than its box gives way in
  // this order, each step only while it still does not fit: breakdown columns go compact
  // (titles turned upright, interval and n under the value), the lab and extra columns go,
  // the interval bars go; only when the metrics alone still overflow (a phone) does a
  // picker choose where the run of metric columns starts, showing as many as fit from
  // there. Rank, model and the ranked metric always stay. What is hidden is named above the
  // table, and "All columns" brings the wide table back (it scrolls sideways in its box).
  // The choice is in the URL (?col=<key> or ?col=all); a resize fits again.
  function picker(table, box) {
    var wrap = table.closest(".sb-table-wrap"), head = table.tHead.rows[0].cells;
    if (!wrap) return;
    var lab = -1, aside = [], forest = [], metrics = [];
    Array.prototype.forEach.call(head, function (th, i) { if (th.dataset.key === "lab") lab = i; });
    Array.prototype.forEach.call(head, function (th, i) {
      if (th.dataset.key && th.dataset.key.indexOf("=") > 0) th.classList.add("sb-group");  // a breakdown column: field=value
      if (th.classList.contains("sb-rank") || th.classList.contains("sb-model") || i === 2) return;
      if (th.classList.contains("sb-forest")) forest.push(i);
      else if (lab >= 0 && i >= lab) aside.unshift(i);  // the last extra goes first, the lab last
      else metrics.push(i);
    });
    function key(i) { return head[i].dataset.key || String(i); }
    function text(el) { return el.textContent.replace(/\s+/g, " ").trim(); }
    // A column's name with its unit, the unit once ("Output tokens", not "Output tokens tokens").
    function title(i) {
      var th = head[i].cloneNode(true), unit = th.querySelector(".sb-unit");
      if (!unit) return text(th);
      unit.remove();
      var name = text(th), u = text(unit);
      return name.toLowerCase().indexOf(u.toLowerCase()) >= 0 ? name : name + " " + u;
    }
    function fits() { return table.scrollWidth <= wrap.clientWidth + 1; }
    function hide(i, off) { Array.prototype.forEach.call(table.rows, function (tr) { if (tr.cells[i]) tr.cells[i].classList.toggle("sb-off", off); }); }
    var bar = document.createElement("div"), note = document.createElement("span"), label = document.createElement("label"),
        select = document.createElement("select"), all = document.createElement("button");
    bar.className = "sb-fit";
    bar.hidden = true;
    note.className = "sb-fit-note";
    note.setAttribute("aria-live", "polite");
    label.className = "sb-pick";
    label.appendChild(document.createTextNode("Columns from "));
    select.setAttribute("aria-label", "First metric column shown");
    metrics.forEach(function (i) {
      var o = document.createElement("option");
      o.value = key(i);
      o.textContent = title(i);
      select.appendChild(o);
    });
    var every = document.createElement("option");
    every.value = "all";
    every.textContent = "All columns";
    select.appendChild(every);
    label.appendChild(select);
    all.type = "button";
    bar.appendChild(note);
    bar.appendChild(label);
    bar.appendChild(all);
    wrap.parentNode.insertBefore(bar, wrap);
    var mode = new URLSearchParams(location.search).get("col") || "";
    function apply() {
      Array.prototype.forEach.call(head, function (_, i) { hide(i, false); });
      table.classList.remove("sb-compact");
      table.classList.toggle("sb-all", mode === "all");
      var hidden = [], picking = false;
      if (mode !== "all" && !fits()) {
        table.classList.add("sb-compact");
        aside.concat(forest).forEach(function (i) { if (!fits()) { hide(i, true); hidden.push(i); } });
        if (!fits() && metrics.length) {
          picking = true;
          var from = Math.max(0, metrics.map(key).indexOf(mode));
          metrics.forEach(function (i) { hide(i, true); });
          var full = false;  // a contiguous run: the first column that does not fit ends it
          metrics.slice(from).forEach(function (i, n) {
            if (full) return;
            hide(i, false);
            if (n > 0 && !fits()) { hide(i, true); full = true; }
          });
          metrics.forEach(function (i) { if (head[i].classList.contains("sb-off")) hidden.push(i); });
          select.value = key(metrics[from]);
        }
      }
      // Named too: a column the style sheet hides on this screen (the bars, on a phone).
      hidden = Array.prototype.filter.call(head, function (th) { return getComputedStyle(th).display === "none"; })
        .map(function (th) { return th.cellIndex; });
      bar.hidden = !hidden.length && (mode !== "all" || fits());
      label.hidden = !picking;
      if (mode === "all") { select.value = "all"; note.textContent = "All columns: the table scrolls sideways. "; all.textContent = "Fit to screen"; }
      else {
        var shown = head.length - hidden.length;
        note.textContent = hidden.length ? "Showing " + shown + " of " + head.length + " columns; hidden to fit the screen: " +
          hidden.map(function (i) { return head[i].classList.contains("sb-forest") ? "95% interval bars" : title(i); }).join(", ") + ". " : "";
        all.textContent = "All columns";
      }
      table.dataset.hidden = String(hidden.length);
    }
    function choose(value) {
      mode = value;
      var p = new URLSearchParams(location.search);
      if (!value || (metrics.length && value === key(metrics[0]))) p.delete("col"); else p.set("col", value);
      setURL(p);
      apply();
    }
    select.addEventListener("change", function (ev) { ev.stopPropagation(); choose(select.value); });
    all.addEventListener("click", function () { choose(mode === "all" ? "" : "all"); });
    var pending = 0;
    window.addEventListener("resize", function () { cancelAnimationFrame(pending); pending = requestAnimationFrame(apply); });
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
      legend: { orientation: "h", x: 0, xanchor: "left", y: 1.02, yanchor: "bottom" },
      colorway: PALETTE,
      xaxis: { title: { text: text(spec.x_title) }, automargin: true, gridcolor: c.grid, zerolinecolor: c.grid },
      yaxis: { title: { text: text(spec.y_title) }, automargin: true, gridcolor: c.grid }
    };
    Object.keys(extra).forEach(function (k) {
      base[k] = (typeof extra[k] === "object" && base[k]) ? Object.assign(base[k], extra[k]) : extra[k];
    });
    return base;
  }
  // Fourteen distinguishable hues (Plotly's default has ten, so twelve exam-year lines
  // reused colours); each line also gets its own marker shape.
  var PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                 "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#ad494a", "#637939", "#7b4173"];
  var SYMBOLS = ["circle", "square", "diamond", "triangle-up", "x", "cross", "triangle-down"];
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
      var t = [{ type: "scatter", mode: "markers", name: "Submissions", x: s.points.map(function (p) { return p.value; }), y: y, customdata: full,
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
      var max = narrow(el) ? 18 : 42, lab = function (t) { return text(cut(String(t), max)); }, traces = s.series.map(function (r, i) {
        return { type: "scatter", mode: "lines+markers", x: s.x, y: r.y, name: lab(r.label), connectgaps: false,
                 line: { color: PALETTE[i % PALETTE.length] }, marker: { symbol: SYMBOLS[i % SYMBOLS.length], size: 7 },
                 customdata: each(s.x, text(r.label)), hovertemplate: "%{customdata}<br>%{x}: %{y:.1f}<extra></extra>" };
      }).concat(s.references.map(function (r) {
        return { type: "scatter", mode: "lines", x: s.x, y: r.y, name: text(r.label), line: { dash: "dot", color: c.fg, width: 1 } };
      }));
      return [traces, { height: el.clientWidth < 560 ? 560 : 480, showlegend: true, xaxis: { type: "category" } }];
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
      // Names go on the frontier's points, the picked (compare) or top-ranked ones, and on
      // every point of a small plot; declutter()
      // then hides any name that would overlap one already placed.
      var few = s.points.length <= 12, xs = function (l) { return l.map(function (p) { return p.x; }); },
          ys = function (l) { return l.map(function (p) { return p.y; }); };
      var t = [{ type: "scatter", mode: el.clientWidth >= 560 ? "markers+text" : "markers", name: "Submissions",
        x: xs(s.points), y: ys(s.points), customdata: s.points.map(function (p) { return text(p.label); }),
        text: s.points.map(function (p) { return few || p.frontier || p.named || p.tag ? text(p.label) : ""; }),
        textposition: s.points.map(function (_, i) { return i % 2 ? "bottom center" : "top center"; }), textfont: { size: 10 },
        marker: { color: s.points.map(function (p) { return p.named ? c.b : c.a; }), size: s.points.map(function (p) { return p.named ? 12 : 8; }), opacity: 0.8 },
        hovertemplate: "%{customdata}<br>%{x}, %{y:.1f}<extra></extra>" }];
      var front = s.points.filter(function (p) { return p.frontier; }).sort(function (a, b) { return a.x - b.x; });
      if (front.length > 1) t.push({ type: "scatter", mode: "lines", name: "Pareto frontier", x: xs(front), y: ys(front),
        line: { color: c.b, width: 1.5, shape: "hv" }, hoverinfo: "skip" });  // the staircase bounding what the frontier dominates
      if (s.references.length) t.push({ type: "scatter", mode: "markers", name: text(s.references[0].label),
        x: xs(s.references), y: ys(s.references), customdata: s.references.map(function (p) { return text(p.label); }),
        marker: { color: c.b, size: 11, symbol: "diamond" }, hovertemplate: "%{customdata}<br>%{x}, %{y:.1f}<extra></extra>" });
      return [t, { height: 440, showlegend: t.length > 1, xaxis: s.log_x ? { type: "log", dtick: 1, exponentformat: "none" } : {} }];
    }
  };
  // Hide every point name that overlaps one already shown (frontier names come first).
  function declutter(el) {
    var placed = [];
    el.querySelectorAll(".textpoint text").forEach(function (t) {
      if (!t.textContent) return;
      var r = t.getBoundingClientRect(), hit = placed.some(function (q) {
        return r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom;
      });
      t.style.display = hit ? "none" : "";
      if (!hit) placed.push(r);
    });
  }
  // The rows the table's filters leave (submission ids), or null when nothing is filtered.
  function shownRows() {
    var box = document.querySelector(".sb-board-box[data-shown]");
    if (!box) return null;
    var all = box.querySelectorAll("tbody tr[data-sub]").length, keep = JSON.parse(box.dataset.shown);
    return keep.length === all ? null : keep.reduce(function (o, k) { o[k] = 1; return o; }, {});
  }
  function filtered(spec) {
    var keep = shownRows();
    if (!keep) return spec;
    var out = Object.assign({}, spec), ok = function (p) { return !p.key || keep[p.key]; };
    ["points", "rows", "series"].forEach(function (k) { if (out[k]) out[k] = out[k].filter(ok); });
    if (out.type === "heatmap") {
      var rows = out.keys.map(function (k) { return !k || keep[k]; });
      out.y = out.y.filter(function (_, i) { return rows[i]; });
      out.z = out.z.filter(function (_, i) { return rows[i]; });
    }
    return out;
  }
  function empty(s) { return !((s.points || s.rows || s.series || s.y || []).length); }
  function plot(el) {
    if (typeof Plotly === "undefined" || !draw[el.spec.type]) return;
    var s = filtered(el.spec), c = colors();
    el.classList.toggle("sb-chart-empty", empty(s));
    if (empty(s)) { Plotly.purge(el); el.dataset.drawn = "1"; return; }
    var out = draw[s.type](s, el, c);
    Plotly.react(el, out[0], layout(s, el, c, out[1]), { displayModeBar: false, responsive: true }).then(function () {
      declutter(el);
      heatHead(el);
      if (!el.dataset.hooked) { el.dataset.hooked = "1"; el.on("plotly_afterplot", function () { declutter(el); heatHead(el); }); }
      el.dataset.drawn = "1";
    });
  }
  // A heatmap is as tall as its rows (the tiers board: 104 rows, 1,800 px), and plotly labels
  // its columns at the bottom only. So its column names are also set in a strip above it that
  // sticks under the site's header while the heatmap scrolls by (CSS .sb-heat-head), placed
  // over plotly's own columns after every draw. The bottom labels stay: a downloaded image has them.
  function heatHead(el) {
    var strip = el.parentNode.querySelector(".sb-heat-head"), ax = el._fullLayout && el._fullLayout.xaxis;
    if (!strip || !ax || !el.spec || el.spec.type !== "heatmap") return;
    var names = el._fullData && el._fullData[0] ? el._fullData[0].x : [], n = names.length, step = ax._length / Math.max(n, 1);
    strip.textContent = "";
    strip.hidden = !n || el.classList.contains("sb-chart-empty");
    var spans = names.map(function (name, i) {
      var sp = document.createElement("span");
      sp.textContent = String(name).replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");  // plotly's entities, back to text
      sp.style.left = (ax._offset + step * (i + 0.5)) + "px";
      strip.appendChild(sp);
      return sp;
    });
    // Upright when every name fits its column, else turned like plotly's own tick labels.
    var turn = spans.some(function (sp) { return sp.offsetWidth > step - 4; });
    strip.classList.toggle("sb-turned", turn);
    var tall = 0;
    spans.forEach(function (sp) { tall = Math.max(tall, sp.getBoundingClientRect().height); });
    strip.style.height = Math.ceil(tall + 6) + "px";
  }
  // plotly.js is fetched once, beside this script, when the first chart is near the screen.
  var plotlyReady = null;
  function loadPlotly() {
    if (typeof Plotly !== "undefined") return Promise.resolve();
    if (!plotlyReady) {
      plotlyReady = new Promise(function (ok, fail) {
        var tag = document.createElement("script");
        tag.src = SELF.replace(/sealboard\.js(\?.*)?$/, "plotly.min.js");
        tag.onload = ok;
        tag.onerror = fail;
        document.head.appendChild(tag);
      });
    }
    return plotlyReady;
  }
  var near = typeof IntersectionObserver === "undefined" ? null : new IntersectionObserver(function (seen) {
    seen.forEach(function (entry) {
      if (!entry.isIntersecting) return;
      near.unobserve(entry.target);
      loadPlotly().then(function () { plot(entry.target); });
    });
  }, { rootMargin: "200px 0px" });
  // A board's first paint stays light (issue 41: ≤ 600 KB): the chart library waits for the
  // visitor's first scroll, even for a chart already on the screen (a short board's), and
  // then comes for the charts near the screen. A "Draw the chart" button under each chart
  // draws it at once (a page too short to scroll). Without JavaScript, or printed undrawn,
  // the chart's box says where the figures are (CSS .sb-chart:not([data-drawn])::before).
  var scrolled = false, waiting = [];
  function watch(el) {
    if (scrolled) near.observe(el); else waiting.push(el);
  }
  window.addEventListener("scroll", function () {
    if (scrolled) return;
    scrolled = true;
    waiting.splice(0).forEach(function (el) { near.observe(el); });
  }, { passive: true });
  // Each chart can be saved as drawn (filters applied): PNG for slides, SVG for print.
  function downloads(el) {
    var bar = document.createElement("p"), now = document.createElement("button");
    bar.className = "sb-chart-save";
    now.type = "button";
    now.className = "sb-chart-draw";
    now.textContent = "Draw the chart";
    now.addEventListener("click", function () { loadPlotly().then(function () { if (!el.dataset.drawn) plot(el); }); });
    bar.appendChild(now);
    ["png", "svg"].forEach(function (format) {
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = "Download " + format.toUpperCase();
      b.dataset.format = format;
      b.addEventListener("click", function () {
        loadPlotly().then(function () {
          if (!el.dataset.drawn) plot(el);
          var name = (location.pathname.split("/").pop() || "chart").replace(/\.html$/, "") || "chart";
          Plotly.downloadImage(el, { format: format, filename: name, width: el.clientWidth, height: el.clientHeight });
        });
      });
      bar.appendChild(b);
    });
    el.parentNode.insertBefore(bar, el.nextSibling);
  }
  function setupChart(el) {
    if (el.dataset.setup) return;
    el.dataset.setup = "1";
    if (!el.spec) el.spec = JSON.parse(el.querySelector("script[type='application/json']").textContent);
    if (el.spec.type === "heatmap" && !el.parentNode.classList.contains("sb-heat")) {
      var wrap = document.createElement("div"), strip = document.createElement("div");
      wrap.className = "sb-heat";
      strip.className = "sb-heat-head";
      strip.hidden = true;
      strip.setAttribute("aria-hidden", "true");  // the same names as the chart's own axis
      el.parentNode.insertBefore(wrap, el);
      wrap.appendChild(strip);
      wrap.appendChild(el);
    }
    downloads(el);
    if (typeof Plotly !== "undefined" || !near) loadPlotly().then(function () { plot(el); });
    else watch(el);
  }

  /* ---- compare page ---------------------------------------------------------- */
  // 2–5 models on every board of a benchmark, from the boards' published figures embedded
  // in the page (render/compare.py). Δ is a difference of published values; its interval is
  // MOVER over the two published intervals: paired (ρ, the two models' item correlation,
  // published after a release: builder.scoring.paired) where the page has ρ for the pair,
  // else Newcombe's square-and-add (ρ = 0), labelled "not paired".
  //
  // Precision (issue 41): a figure carries two significant digits of its interval's
  // half-width (at least one decimal), so a slope of 0.076 [−0.036, 0.187] reads
  // "0.08 [−0.04, 0.19]", not "0.1 [−0.0, 0.2]"; a count is whole ("627", never "627.0");
  // a figure that rounds to zero has no sign. Separable: the interval, as computed from the
  // published figures before any rounding, lies wholly above 0 or wholly below it (an
  // interval that reaches 0 never is); its limit nearest 0 then gets as many more decimals
  // as it needs never to read as 0.
  var MAX_PLACES = 6;
  function whole(unit) { return unit === "count" || unit === "tokens"; }
  function places(unit, lo, hi) {
    if (whole(unit)) return 0;
    if (lo == null || hi == null || !(hi > lo)) return 1;
    // The half-width's exponent once rounded to two digits (0.0999… counts as 0.10).
    var exp = Number(((hi - lo) / 2).toExponential(1).split("e")[1]);
    return Math.min(MAX_PLACES, Math.max(1, 1 - exp));
  }
  function one(v, d) {
    if (v == null) return "—";
    var s = v.toFixed(d == null ? 1 : d);
    if (Number(s) === 0) s = s.replace("-", "");  // never "−0.0"
    return s.replace("-", "\u2212");
  }
  function signed(v, d) { var s = one(v, d); return Number(v.toFixed(d)) > 0 ? "+" + s : s; }
  function make(tag, cls, txt) { var e = document.createElement(tag); if (cls) e.className = cls; if (txt != null) e.textContent = txt; return e; }
  function diff(a, b, rho) {  // b minus a, each [value, lo, hi, ...]; rho: their correlation (0: unpaired)
    var d = b[0] - a[0];
    if (a[1] == null || a[2] == null || b[1] == null || b[2] == null) return [d, null, null];
    var bl = b[0] - b[1], bu = b[2] - b[0], al = a[0] - a[1], au = a[2] - a[0];
    return [d, d - Math.sqrt(Math.max(bl * bl + au * au - 2 * rho * bl * au, 0)),
               d + Math.sqrt(Math.max(bu * bu + al * al - 2 * rho * bu * al, 0))];
  }
  // ρ of submissions x and y on a board, or null when the page has none for the pair.
  function pairRho(b, data, x, y) {
    if (!b.paired) return null;
    var t = data.pairing[b.paired.table];
    if (!t.pos) { t.pos = {}; t.keys.forEach(function (k, i) { t.pos[k] = i; }); }
    var i = t.pos[x], j = t.pos[y], m = t.keys.length;
    if (i == null || j == null) return null;
    if (i > j) { var s = i; i = j; j = s; }
    return t.rho[i * m - i * (i + 1) / 2 + (j - i - 1)] / data.rho_scale;
  }
  function compareTable(b, keys, names, data) {
    var wrap = make("div", "sb-table-wrap"), t = make("table", "sb-board sb-compare-table"), cap = make("caption"), a = make("a", null, b.title);
    a.href = b.board + ".html";
    cap.appendChild(a);
    cap.appendChild(document.createTextNode(" · " + b.metric));
    t.appendChild(cap);
    var head = t.createTHead().insertRow();
    ["Model", "Rank", "Value [95% interval]", "Δ vs first [95% interval]"].forEach(function (h, i) {
      var th = make("th", i === 0 ? "sb-model" : null, h);
      // Not the model's name: Material's tooltips render a title as HTML (render/escaping.py).
      if (i === 3) th.title = "difference from the first model picked";
      head.appendChild(th);
    });
    var body = t.createTBody(), first = b.cells[keys[0]];
    keys.forEach(function (k, i) {
      var tr = body.insertRow(), c = b.cells[k];
      tr.dataset.sub = k;
      tr.appendChild(make("th", "sb-model", names[k].label)).setAttribute("scope", "row");
      if (!c) { var td = make("td", "sb-na", "not shown on this board"); td.colSpan = 3; tr.appendChild(td); return; }
      tr.appendChild(make("td", "sb-num", c[3] == null ? "—" : String(c[3]) + (c[4] !== c[5] ? " (" + c[4] + "–" + c[5] + ")" : "")));
      var vp = places(b.unit, c[1], c[2]), v = make("td", "sb-num", one(c[0], vp));
      if (c[1] != null) v.appendChild(make("span", "sb-ci", " [" + one(c[1], vp) + ", " + one(c[2], vp) + "]"));
      tr.appendChild(v);
      var dt = make("td", "sb-num sb-diff");
      if (i === 0) dt.textContent = "reference";
      else if (!first) dt.textContent = "—";
      else {
        var rho = pairRho(b, data, keys[0], k), d = diff(first, c, rho == null ? 0 : rho);
        var sep = d[1] != null && (d[1] > 0 || d[2] < 0), dp = places(b.unit, d[1], d[2]);
        if (sep) { var near = d[1] > 0 ? d[1] : d[2]; while (dp < MAX_PLACES && Number(near.toFixed(dp)) === 0) dp += 1; }
        dt.textContent = signed(d[0], dp);
        if (d[1] != null) {
          dt.appendChild(make("span", "sb-ci", " [" + one(d[1], dp) + ", " + one(d[2], dp) + "]"));
          if (sep) { dt.appendChild(make("strong", "sb-sep", " separable")); tr.dataset.separable = "1"; }
          var how = dt.appendChild(make("span", "sb-pairing", rho == null ? " not paired" : " paired, n = " + b.paired.n));
          how.title = rho == null ? "Newcombe's square-and-add of the two published intervals, as if independent"
            : "paired: Newcombe's method 10 (MOVER, item-clustered) over the " + b.paired.n + " items both models were graded on, item correlation " + rho.toFixed(3);
        }
        dt.dataset.diff = String(Math.round(d[0] * 1000) / 1000);
        dt.dataset.paired = rho == null ? "" : String(b.paired.n);
      }
      tr.appendChild(dt);
    });
    wrap.appendChild(t);
    return wrap;
  }
  function setupCompare(root) {
    if (root.dataset.ready) return;
    root.dataset.ready = "1";
    var data = JSON.parse(root.querySelector("script[type='application/json']").textContent);
    var selects = root.querySelectorAll("form select"), out = root.querySelector(".sb-compare-out"), names = {};
    data.models.forEach(function (m) { names[m.key] = m; });
    var want = new URLSearchParams(location.search).getAll("m").filter(function (k) { return names[k]; });
    (want.length ? want : data["default"]).forEach(function (k, i) { if (selects[i]) selects[i].value = k; });
    root.querySelector("form").addEventListener("submit", function (ev) { ev.preventDefault(); });
    function picked() {
      var seen = {}, keys = [];
      selects.forEach(function (s) { if (s.value && !seen[s.value]) { seen[s.value] = 1; keys.push(s.value); } });
      return keys;
    }
    function charts(keys) {
      var on = {}, head = data.boards.filter(function (b) { return b.board === data.headline; })[0];
      keys.forEach(function (k) { on[k] = 1; });
      document.querySelectorAll(".sb-compare-chart").forEach(function (c) {
        if (c.dataset.compare === "released") {
          c.spec = { type: "scatter", x_title: "Release date", y_title: head.title + ", " + head.metric, references: [], log_x: false,
            points: data.models.filter(function (m) { return m.released && head.cells[m.key]; }).map(function (m) {
              return { label: m.label, key: m.key, x: m.released, y: head.cells[m.key][0], named: !!on[m.key] };
            }).sort(function (a, b) { return (b.named ? 1 : 0) - (a.named ? 1 : 0); }) };
        } else if (data.cost) {
          c.spec = Object.assign({}, data.cost, { points: data.cost.points.map(function (p) { return Object.assign({}, p, { named: !!on[p.key] }); })
            .sort(function (a, b) { return (b.named ? 1 : 0) - (a.named ? 1 : 0); }) });
        }
        if (c.dataset.drawn) plot(c);
      });
    }
    function render() {
      var keys = picked(), p = new URLSearchParams(location.search);
      p.delete("m");
      keys.forEach(function (k) { p.append("m", k); });
      setURL(p);
      out.textContent = "";
      if (keys.length < 2) out.appendChild(make("p", null, "Pick at least two models."));
      else data.boards.forEach(function (b) { out.appendChild(compareTable(b, keys, names, data)); });
      charts(keys);
    }
    selects.forEach(function (s) { s.addEventListener("change", render); });
    render();
  }

  // tablesort sorts a column title on click and Enter; Space, the other key that presses a
  // button, sorts too (and does not scroll the page). One listener covers every sortable table.
  document.addEventListener("keydown", function (ev) {
    var th = ev.target;
    if ((ev.key !== " " && ev.key !== "Spacebar") || !th || th.tagName !== "TH" || th.getAttribute("role") !== "columnheader" || th.tabIndex < 0) return;
    ev.preventDefault();
    th.click();
  });

  /* ---- boxes that scroll, reachable by keyboard (issue 41) ----------------------- */
  // A box whose content overflows it (a wide table on a phone, a long code line, the item
  // grid) scrolls by keyboard only once it can take focus: tabindex 0, and, as a region, a
  // name for a screen reader (the table's caption, the box's own label, or the heading the
  // box sits under). Measured, not assumed: a box that fits takes no extra Tab stop.
  var SCROLLERS = ".sb-table-wrap, .sb-grid-scroll, .md-typeset__scrollwrap, .md-typeset pre > code, .md-typeset .katex-display";
  function heading(el) {
    for (var n = el; n && n !== document.body; n = n.parentElement) {
      for (var s = n.previousElementSibling; s; s = s.previousElementSibling) {
        if (/^H[1-4]$/.test(s.tagName)) return s.textContent.replace(/\u00b6/g, "").trim();
      }
    }
    return document.title;
  }
  function scrollName(el) {
    var cap = el.querySelector("caption"), named = el.querySelector("[aria-label]");
    return (cap && cap.textContent.trim()) || (named && named.getAttribute("aria-label")) || "Table: " + heading(el);
  }
  function reachable() {
    document.querySelectorAll(SCROLLERS).forEach(function (el) {
      var over = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
      if (over && !el.hasAttribute("tabindex")) {
        el.tabIndex = 0;
        el.dataset.sbScroll = "";
        el.classList.add("sb-scroll-focus");
        if (el.tagName !== "CODE" && !el.classList.contains("katex-display")) {
          el.setAttribute("role", "region");
          el.dataset.sbScroll = "region";
          if (!el.hasAttribute("aria-label")) { el.setAttribute("aria-label", scrollName(el)); el.dataset.sbScroll = "named"; }
        }
      } else if (!over && el.dataset.sbScroll !== undefined) {  // it fits now (the window grew)
        var set = el.dataset.sbScroll;
        el.removeAttribute("tabindex");
        if (set) el.removeAttribute("role");
        if (set === "named") el.removeAttribute("aria-label");
        delete el.dataset.sbScroll;
        el.classList.remove("sb-scroll-focus");
      }
    });
  }
  var resizing = 0;
  window.addEventListener("resize", function () {
    cancelAnimationFrame(resizing);
    resizing = requestAnimationFrame(reachable);
  });
  // Material wraps prose tables in its scroll box and KaTeX typesets after DOMContentLoaded.
  window.addEventListener("load", reachable);

  function init() {
    document.querySelectorAll("table.sb-board[data-sortable]").forEach(setupTable);
    document.querySelectorAll(".sb-compare").forEach(setupCompare);
    document.querySelectorAll(".sb-chart").forEach(setupChart);
    reachable();
  }
  if (typeof document$ !== "undefined") document$.subscribe(init);
  document.addEventListener("DOMContentLoaded", init);
  // Redraw in the other palette when the visitor switches it.
  new MutationObserver(function () { document.querySelectorAll(".sb-chart").forEach(function (el) { if (el.dataset.drawn) plot(el); }); })
    .observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
})();
