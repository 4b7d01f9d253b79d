// Explorables: a slider and a toggle over values the claim tests recorded (results/cpu.json).
// The page carries those values as JSON inside the figure (sitekit/macros.py `figure`); this script
// only picks and draws them, it computes no data point. Without JavaScript the static figure stays.
// Hand-written SVG: two small line charts do not pay for a charting library's weight.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var SUP = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };
  var DASH = { "-": "", "--": "7 4", "-.": "7 3 2 3", ":": "2 3" };
  // A phone's column (about 358 px) gets a chart drawn for its width, so its 13 px text stays near 13 px
  // instead of shrinking or scrolling sideways (site.css); the same breakpoint as the page's layout.
  var NARROW = window.matchMedia("screen and (max-width: 44.9375em)").matches;
  var W = NARROW ? 360 : 640, H = 300, M = { l: 70, r: 18, t: 14, b: 46 };

  function svgEl(name, attrs, parent) {
    var node = document.createElementNS(NS, name);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (parent) parent.appendChild(node);
    return node;
  }
  function htmlEl(name, attrs, parent, text) {
    var node = document.createElement(name);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  // Text with its powers of ten set as exponents in the text's own font: <sup> in HTML, a raised
  // <tspan> in the chart (Unicode superscripts fall back to another font).
  var PLAIN = { "⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8", "⁹": "9", "⁻": "−" };
  function withPowers(parent, text, svg) {
    String(text).split(/(10[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)/).forEach(function (part, i) {
      if (i % 2 === 0) { if (part) parent.appendChild(document.createTextNode(part)); return; }
      var exp = part.slice(2).split("").map(function (c) { return PLAIN[c]; }).join("");
      parent.appendChild(document.createTextNode("10"));
      if (svg) svgEl("tspan", { "baseline-shift": "super", "font-size": "75%" }, parent).textContent = exp;
      else htmlEl("sup", {}, parent, exp);
    });
    return parent;
  }
  // A label with one-letter subscripts written "_ℓ": RMS(h_ℓ) sets the ℓ lowered and smaller.
  function withSubscripts(parent, text) {
    String(text).split(/_(.)/).forEach(function (part, i) {
      if (i % 2 === 0) { if (part) parent.appendChild(document.createTextNode(part)); return; }
      svgEl("tspan", { "baseline-shift": "sub", "font-size": "75%" }, parent).textContent = part;
    });
    return parent;
  }
  function power(e) {
    return "10" + String(e).split("").map(function (c) { return SUP[c]; }).join("");
  }
  // A recorded value to three significant digits, in the site's notation (4.43 × 10⁻²⁹).
  function fmt(v) {
    if (v === 0) return "0";
    var a = Math.abs(v);
    if (a >= 0.01 && a < 10000) return String(Number(v.toPrecision(3)));
    var parts = v.toExponential(2).split("e");
    return parts[0] + " × " + power(Number(parts[1]));
  }

  // One line chart: xs, series [{label, color, dash, values, lo, hi}], the marked index, axis labels, and
  // log (true: a log scale, as the reader or the data asks; a scale needs values above zero).
  function draw(svg, o) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var all = [];
    o.series.forEach(function (s) { all = all.concat(s.values, s.lo || [], s.hi || []); });
    var lo = Math.min.apply(null, all), hi = Math.max.apply(null, all);
    var log = Boolean(o.log) && lo > 0;
    var f = log ? Math.log10 : function (v) { return v; };
    // The axis runs from a labelled tick below the lowest value to a labelled tick above the highest, so
    // every point lies between two labels (a top left unlabelled hid how far the largest values reach).
    var step = log ? Math.max(1, Math.ceil((Math.ceil(f(hi)) - Math.floor(f(lo))) / 6)) : niceStep(hi / 5);
    var y0 = log ? Math.floor(f(lo) / step) * step : 0;
    var y1 = Math.max(y0 + step, Math.ceil(f(hi) / step - 1e-9) * step);
    var x0 = o.xs[0], x1 = o.xs[o.xs.length - 1];
    var X = function (x) { return M.l + ((x - x0) / (x1 - x0)) * (W - M.l - M.r); };
    var Y = function (v) { return H - M.b - ((f(v) - y0) / (y1 - y0)) * (H - M.t - M.b); };
    var axis = svgEl("g", { class: "rs-x-axis" }, svg);
    svgEl("line", { x1: M.l, y1: H - M.b, x2: W - M.r, y2: H - M.b }, axis);
    svgEl("line", { x1: M.l, y1: M.t, x2: M.l, y2: H - M.b }, axis);
    for (var k = 0; y0 + k * step <= y1 + 1e-9 * step; k++) {
      var t = y0 + k * step, v = log ? Math.pow(10, t) : t, y = Y(v);
      svgEl("line", { x1: M.l, y1: y, x2: W - M.r, y2: y, class: "rs-x-grid" }, axis);
      withPowers(svgEl("text", { x: M.l - 6, y: y, "text-anchor": "end", "dominant-baseline": "central" }, axis),
        log ? power(t) : String(Number(t.toPrecision(3))), true);
    }
    o.ticks.forEach(function (x) {
      svgEl("text", { x: X(x), y: H - M.b + 18, "text-anchor": "middle" }, axis).textContent = String(x);
    });
    withSubscripts(svgEl("text", { x: (M.l + W - M.r) / 2, y: H - 6, "text-anchor": "middle" }, axis), o.xlabel);
    withSubscripts(svgEl("text", { x: 14, y: (M.t + H - M.b) / 2, "text-anchor": "middle",
      transform: "rotate(-90 14 " + (M.t + H - M.b) / 2 + ")" }, axis), o.ylabel);
    var mx = X(o.xs[o.mark]);
    svgEl("line", { x1: mx, y1: M.t, x2: mx, y2: H - M.b, class: "rs-x-mark" }, svg);
    o.series.forEach(function (s) {
      var pts = o.xs.map(function (x, i) { return X(x).toFixed(1) + "," + Y(s.values[i]).toFixed(1); });
      if (s.lo) {
        var band = pts.map(function (_, i) { return X(o.xs[i]).toFixed(1) + "," + Y(s.hi[i]).toFixed(1); });
        for (var i = o.xs.length - 1; i >= 0; i--) band.push(X(o.xs[i]).toFixed(1) + "," + Y(s.lo[i]).toFixed(1));
        svgEl("polygon", { points: band.join(" "), style: "fill: " + s.color + "; opacity: 0.18" }, svg);
      }
      svgEl("polyline", { points: pts.join(" "), class: "rs-x-line",
        style: "stroke: " + s.color + "; stroke-dasharray: " + (DASH[s.dash] || "") }, svg);
      svgEl("circle", { cx: mx, cy: Y(s.values[o.mark]), r: 5, style: "fill: " + s.color }, svg);
    });
  }
  function niceStep(raw) {
    var p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3 ? 2 : m < 7 ? 5 : 10) * p;
  }

  // The shell every explorable shares: controls above, the chart, a live readout below.
  function shell(figure, label) {
    var box = htmlEl("div", { class: "rs-explorable" });
    var controls = htmlEl("div", { class: "rs-x-controls" }, box);
    var scroll = htmlEl("div", { class: "rs-x-scroll" }, box);
    var svg = svgEl("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": label, class: "rs-x-chart" }, scroll);
    var readout = htmlEl("dl", { class: "rs-x-readout", "aria-live": "polite" }, box);
    figure.insertBefore(box, figure.querySelector("figcaption"));
    figure.classList.add("rs-explorable-on");
    return { controls: controls, svg: svg, readout: readout };
  }
  function slider(parent, id, text, max, value) {
    var wrap = htmlEl("label", { class: "rs-x-slider", for: id }, parent);
    var name = htmlEl("span", {}, wrap, text);
    var input = htmlEl("input", { type: "range", id: id, min: 0, max: max, step: 1, value: value }, wrap);
    var shown = htmlEl("output", { for: id }, wrap);
    return { input: input, shown: shown, name: name };
  }
  // A series' line as drawn: its colour and its dash pattern, so no reader depends on colour alone.
  function swatch(parent, color, dash) {
    var svg = svgEl("svg", { width: 28, height: 10, "aria-hidden": "true", class: "rs-x-swatch" }, parent);
    svgEl("line", { x1: 0, y1: 5, x2: 28, y2: 5, style: "stroke: " + color + "; stroke-width: 3; stroke-dasharray: " +
      (DASH[dash] || "") }, svg);
    return svg;
  }
  function row(readout, ser, label, value, extra) {
    var key = ser.key;
    var dt = htmlEl("dt", {}, readout);
    swatch(dt, ser.color, ser.dash);
    dt.appendChild(document.createTextNode(" " + label));
    var dd = htmlEl("dd", { "data-series": key, "data-value": String(value) }, readout);
    withPowers(dd, fmt(value) + (extra || ""), false);
    return dd;
  }

  // The gradient highway: input-gradient norm against depth; the depth under a slider, default or He init.
  function depthSlider(figure, data) {
    var ui = shell(figure, "Input-gradient norm against depth for plain and residual stacks");
    var inits = Object.keys(data.inits);
    var state = { init: inits[0], index: data.inits[inits[0]].rows.length - 1 };
    var group = htmlEl("div", { class: "rs-x-toggle", role: "radiogroup", "aria-label": "initialisation" }, ui.controls);
    inits.forEach(function (init) {
      var id = figure.id + "-init-" + init;
      var radio = htmlEl("input", { type: "radio", name: figure.id + "-init", id: id, value: init }, group);
      radio.checked = init === state.init;
      htmlEl("label", { for: id }, group, data.init_labels[init]);
      radio.addEventListener("change", function () { state.init = init; update(); });
    });
    var s = slider(ui.controls, figure.id + "-depth", "depth L", data.inits[state.init].rows.length - 1, state.index);
    s.input.addEventListener("input", function () { state.index = Number(s.input.value); update(); });
    function update() {
      var rows = data.inits[state.init].rows;
      var xs = rows.map(function (r) { return r[0]; });
      var series = Object.keys(data.series).map(function (kind) {
        var c = data.series[kind];
        return { key: kind, label: kind, color: data.colors[kind], dash: data.dashes[kind],
          values: rows.map(function (r) { return r[c]; }), lo: rows.map(function (r) { return r[c + 1]; }),
          hi: rows.map(function (r) { return r[c + 2]; }) };
      });
      s.shown.textContent = String(xs[state.index]);
      s.input.setAttribute("aria-valuetext", "depth " + xs[state.index]);
      draw(ui.svg, { xs: xs, ticks: xs, series: series, mark: state.index, log: true,  // many decades apart
        xlabel: "depth L (blocks)", ylabel: "‖∂ℓ/∂x‖, median" });
      ui.readout.textContent = "";
      series.forEach(function (ser) {
        var i = state.index;
        row(ui.readout, ser, ser.label + " at L = " + xs[i] + " (" + data.init_labels[state.init] + ")",
          ser.values[i], "  (seeds: " + fmt(ser.lo[i]) + " to " + fmt(ser.hi[i]) + ")");
      });
    }
    update();
  }

  // The residual stream: the stream's size block by block; a slider over the block, a toggle per series,
  // and the scale of the y axis, linear or log, as the reader picks it.
  function blockSlider(figure, data) {
    var ui = shell(figure, "The stream's RMS relative to the input against the block index");
    var names = Object.keys(data.labels);
    var shown = {};
    var length = data.series[names[0]].length;
    var state = { index: length - 1, log: false };
    var scales = {};
    var group = htmlEl("div", { class: "rs-x-toggle", role: "group", "aria-label": "series shown" }, ui.controls);
    names.forEach(function (name, k) {
      var id = figure.id + "-series-" + k;
      var box = htmlEl("input", { type: "checkbox", id: id, value: name }, group);
      shown[name] = box.checked = name.indexOf("He") < 0;  // He's growth would flatten the others
      var label = htmlEl("label", { for: id }, group);
      swatch(label, data.colors[name], data.dashes[name]);
      label.appendChild(document.createTextNode(" " + data.labels[name]));
      box.addEventListener("change", function () {
        shown[name] = box.checked;
        if (box.checked && name.indexOf("He") >= 0) setScale(true);  // on a linear axis it flattens the rest
        update();
      });
    });
    var scale = htmlEl("div", { class: "rs-x-toggle", role: "radiogroup", "aria-label": "y axis scale" }, ui.controls);
    [false, true].forEach(function (log) {
      var id = figure.id + "-scale-" + (log ? "log" : "linear");
      var radio = htmlEl("input", { type: "radio", name: figure.id + "-scale", id: id, value: log ? "log" : "linear" },
        scale);
      radio.checked = log === state.log;
      htmlEl("label", { for: id }, scale, log ? "log scale" : "linear scale");
      radio.addEventListener("change", function () { state.log = log; update(); });
      scales[log] = radio;
    });
    function setScale(log) { state.log = log; scales[log].checked = true; }
    var s = slider(ui.controls, figure.id + "-block", "block ℓ", length - 1, state.index);
    s.input.addEventListener("input", function () { state.index = Number(s.input.value); update(); });
    function update() {
      var xs = data.series[names[0]].map(function (_, i) { return i; });
      var visible = names.filter(function (n) { return shown[n]; });
      var series = visible.map(function (n) {
        return { key: n, label: data.labels[n], color: data.colors[n], dash: data.dashes[n], values: data.series[n] };
      });
      s.shown.textContent = String(state.index);
      s.input.setAttribute("aria-valuetext", "block " + state.index);
      ui.readout.textContent = "";
      if (!series.length) { while (ui.svg.firstChild) ui.svg.removeChild(ui.svg.firstChild); return; }
      var ticks = xs.filter(function (x) { return x % 10 === 0; });
      draw(ui.svg, { xs: xs, ticks: ticks, series: series, mark: state.index, log: state.log,
        xlabel: "block ℓ", ylabel: "RMS(h_ℓ) / RMS(x), median" });
      series.forEach(function (ser) {
        row(ui.readout, ser, ser.label + " at ℓ = " + state.index, ser.values[state.index]);
      });
    }
    update();
  }

  var KINDS = { "depth-slider": depthSlider, "block-slider": blockSlider };
  function start() {
    document.querySelectorAll("figure[data-explorable]:not(.rs-explorable-on)").forEach(function (figure) {
      var script = figure.querySelector("script.rs-explorable-data");
      if (!script) return;
      var data = JSON.parse(script.textContent);
      if (KINDS[data.kind]) KINDS[data.kind](figure, data);
    });
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(start);
  } else {
    document.addEventListener("DOMContentLoaded", start);
  }
})();
