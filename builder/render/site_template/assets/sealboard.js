/* Draw each board's chart from the JSON embedded in the page (the same numbers as the
   table and the board's data file). Works with mkdocs-material instant navigation. */
(function () {
  // Plotly reads a subset of HTML in labels (<a>, <b>, <br>); model names are data, not
  // markup, so their angle brackets are passed as entities (Plotly displays them as text).
  function text(s) { return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"); }
  function draw(el) {
    if (el.dataset.drawn || typeof Plotly === "undefined") return;
    var spec = JSON.parse(el.querySelector("script[type='application/json']").textContent);
    var scale = spec.unit === "fraction" || spec.unit === "difference" ? 100 : 1;
    var pts = spec.points.slice().reverse();
    var trace = {
      type: "bar", orientation: "h",
      y: pts.map(function (p) { return text(p.label); }),
      x: pts.map(function (p) { return p.value * scale; }),
      error_x: {
        type: "data", symmetric: false,
        array: pts.map(function (p) { return p.hi == null ? 0 : (p.hi - p.value) * scale; }),
        arrayminus: pts.map(function (p) { return p.lo == null ? 0 : (p.value - p.lo) * scale; })
      },
      hovertemplate: "%{y}: %{x:.1f}<extra></extra>"
    };
    var shapes = spec.references.map(function (r) {
      return { type: "line", x0: r.value * scale, x1: r.value * scale, yref: "paper", y0: 0, y1: 1,
               line: { dash: "dot", width: 1 } };
    });
    var notes = spec.references.map(function (r) {
      return { x: r.value * scale, yref: "paper", y: 1.02, text: text(r.label), showarrow: false, font: { size: 10 } };
    });
    Plotly.newPlot(el, [trace], {
      height: 80 + 22 * pts.length, margin: { l: 20, r: 20, t: 24, b: 36 }, yaxis: { automargin: true },
      xaxis: { title: text(spec.metric) + (scale === 100 ? " (%)" : ""), zeroline: true },
      shapes: shapes, annotations: notes, paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)"
    }, { displayModeBar: false, responsive: true });
    el.dataset.drawn = "1";
  }
  function drawAll() { document.querySelectorAll(".sb-chart").forEach(draw); }
  if (typeof document$ !== "undefined") { document$.subscribe(drawAll); }
  else { document.addEventListener("DOMContentLoaded", drawAll); }
})();
