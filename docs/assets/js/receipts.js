/* Receipts: a measured number (a.rcpt, written by sitekit/receipts.py) opens a small popover on hover, click,
   tap or Enter: what this number is and its value, the claim it supports and its kind, and the record behind
   it in a closed Details fold. On a phone (a narrow screen or a finger for a pointer) it is a sheet along the
   bottom of the screen. Focus alone opens nothing, so a keyboard reader tabs past a receipt in one stop; Tab
   from an open receipt enters its popover, Tab from the popover's last stop goes on to whatever follows the
   receipt, and Esc closes it and returns to the receipt. Without this script each receipt is a plain link to
   its row in the claims ledger. The ledger's filter box lives here too. No dependencies. */
(function () {
  "use strict";

  var SUP = { "0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵", "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹", "-": "⁻", "+": "" };
  var pop = null;      // the one popover element
  var owner = null;    // the receipt it belongs to
  var pinned = false;  // opened by click, tap or Enter: stays until dismissed
  var timer = 0;

  function records() {
    var el = document.getElementById("receipt-data");
    if (!el) return {};
    if (!el._records) {
      try { el._records = JSON.parse(el.textContent); } catch (e) { el._records = {}; }
    }
    return el._records;
  }

  /* 6.103515625e-05 -> "6.10352 × 10⁻⁵"; integers as they are. */
  function typeset(x) {
    if (typeof x !== "number") return String(x);
    if (Number.isInteger(x) && Math.abs(x) < 1e15) return String(x).replace("-", "−");
    var s = Math.abs(x) >= 1e-4 && Math.abs(x) < 1e6 ? String(Number(x.toPrecision(6))) : x.toExponential(5);
    s = s.replace(/\.?0+e/, "e").replace("-", "−");
    s = s.replace(/e([+-]?)(\d+)/, function (_, sign, exp) {
      return "\u202f×\u202f10" + (SUP[sign] || "") + exp.split("").map(function (d) { return SUP[d]; }).join("");
    });
    return s.replace(/^(−?)1\u202f×\u202f/, "$1");
  }

  /* "4.4 × 10⁻²⁹" -> 4.4e-29 (NaN for text that is not one number). */
  function untypeset(text) {
    var plain = "⁰¹²³⁴⁵⁶⁷⁸⁹";
    var s = text.replace(/−/g, "-").replace(/,/g, "").replace(/\u202f×\u202f10([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)/, function (_, e) {
      return "e" + e.replace("⁻", "-").replace("⁺", "").split("").map(function (c) { return plain.indexOf(c) >= 0 ? plain.indexOf(c) : c; }).join("");
    });
    if (/^10e/.test(s)) s = "1" + s.slice(2);
    var pct = /%$/.test(s);
    var x = Number(pct ? s.slice(0, -1) : s);
    return pct ? x / 100 : x;
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* Text with `code` spans, as nodes (never innerHTML); powers of ten as 10<sup>−29</sup>, as the page
     sets them (sitekit/typesetting.py powers_html), since Unicode superscripts fall back to another font. */
  function withCode(parent, text) {
    String(text).split("`").forEach(function (part, i) {
      if (part) i % 2 ? parent.appendChild(el("code", "", part)) : withPowers(parent, part);
    });
    return parent;
  }
  var PLAIN = { "⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8", "⁹": "9", "⁻": "−", "⁺": "+" };
  function withPowers(parent, text) {
    String(text).split(/(10[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)/).forEach(function (part, i) {
      if (i % 2 === 0) { if (part) parent.appendChild(document.createTextNode(part)); return; }
      parent.appendChild(document.createTextNode("10"));
      parent.appendChild(el("sup", "", part.slice(2).split("").map(function (c) { return PLAIN[c]; }).join("")));
    });
  }
  /* A receipt's text as the records write it: 10<sup>−29</sup> read back as 10⁻²⁹. */
  function shownText(node) {
    var out = "";
    node.childNodes.forEach(function (c) {
      if (c.nodeType === 3) out += c.nodeValue;
      else if (c.tagName === "SUP") out += c.textContent.replace("−", "-").split("").map(function (d) { return SUP[d] || d; }).join("");
      else out += shownText(c);
    });
    return out;
  }

  function row(dl, term, text) {
    dl.appendChild(el("dt", "", term));
    var dd = el("dd");
    withCode(dd, text);
    dl.appendChild(dd);
    return dd;
  }

  /* The three kinds of claim look different (shape and colour, and the words): a measured finding, an
     exact one, and an identity that holds by construction and so is no evidence. The receipt's class says
     which (k-measured, k-exact, k-identity); else the record's words do. */
  var KINDS = { "measured finding": "measured", "exact finding": "exact", "checked identity": "identity" };
  function kindOf(a, d) {
    var m = /(?:^|\s)k-(measured|exact|identity)(?:\s|$)/.exec(a.className);
    return m ? m[1] : KINDS[d.kind] || "measured";
  }
  var KIND_WORDS = { measured: "measured finding", exact: "exact finding", identity: "checked identity" };

  /* "tests/x/test_y.py::test_z" -> "test_z in tests/x/test_y.py" */
  function testWords(id) {
    var parts = String(id).split("::");
    return parts.length > 1 ? "`" + parts.slice(1).join(" › ") + "` in `" + parts[0] + "`" : "`" + id + "`";
  }

  /* The How we check page sits beside the ledger: "../../claims/#claim-x" -> "../../how-we-check/". */
  function howWeCheck(ledger) {
    return String(ledger).replace(/claims\/(?:index\.html)?(?:#.*)?$/, "how-we-check/");
  }

  /* A record without a title: its statement's opening words (the whole statement is under Details). */
  function shorter(text) {
    text = String(text);
    if (text.length <= 90) return text;
    var cut = text.lastIndexOf(" ", 80);
    return text.slice(0, cut > 40 ? cut : 80).replace(/[,;:(]+$/, "") + "…";
  }

  function link(text, href) {
    var a = el("a", "", text);
    a.href = href;
    return a;
  }

  /* The popover leads with what this number is and its value, then one line for the claim it supports and
     its kind; the record behind it (statement, margin, runs, counterfactuals, test) waits in a closed
     Details fold. A marker (no key) leads with the claim's title. */
  function build(a, d) {
    var box = el("div", "rcpt-pop");
    box.id = "rcpt-pop";
    box.setAttribute("role", "dialog");
    box.setAttribute("aria-labelledby", "rcpt-pop-head");
    var close = el("button", "rcpt-close", "×");
    close.type = "button";
    close.setAttribute("aria-label", "Close");
    close.addEventListener("click", function () { hide(true); });
    box.appendChild(close);
    var body = el("div", "rcpt-body");
    box.appendChild(body);

    var title = d.title || shorter(d.statement);
    var key = a.getAttribute("data-key");
    var what = key !== null && d.what && d.what[key];
    var head = el("p", "rcpt-head");
    head.id = "rcpt-pop-head";
    var shown = "";
    if (key !== null) {
      shown = shownText(a).trim();
      withCode(head.appendChild(el("span", "rcpt-what")), what || title);
      head.appendChild(document.createTextNode(": "));
      withPowers(head.appendChild(el("strong", "rcpt-value")), shown);
    } else {
      withCode(head, title);
    }
    body.appendChild(head);

    var kind = kindOf(a, d);
    var claim = el("p", "rcpt-claim");
    var badge = claim.appendChild(el("span", "rcpt-badge rcpt-badge--" + kind, KIND_WORDS[kind]));
    if (kind === "identity") badge.title = "holds by construction, not evidence";
    if (key !== null && what) {
      claim.appendChild(document.createTextNode(" "));
      withCode(claim.appendChild(el("span", "rcpt-title")), title);
    }
    if (kind === "identity") claim.appendChild(el("span", "rcpt-note", " Holds by construction, not evidence."));
    claim.appendChild(document.createTextNode(" "));
    claim.appendChild(link("What is this?", howWeCheck(d.ledger))).className = "rcpt-how";
    body.appendChild(claim);

    var more = el("details", "rcpt-details");
    more.appendChild(el("summary", "", "Details"));
    more.appendChild(withCode(el("p", "rcpt-statement"), d.statement));
    var dl = el("dl");
    if (key !== null) {
      var parts = [shown];
      var values = d.values || {};
      if (key in values && typeof values[key] === "number" && !Number.isInteger(values[key])) {
        var full = typeset(values[key]);
        if (full !== shown && untypeset(shown) !== values[key]) parts.push("recorded " + full);
      }
      var asserted = (d.asserted || []).indexOf(key) >= 0;
      var dd = row(dl, "This number", parts.join(", "));
      dd.setAttribute("data-key", key);
      dd.appendChild(el("span", "rcpt-asserted", asserted ? "; asserted by the check" : "; recorded by the run, not asserted"));
      withCode(dd.appendChild(el("span", "rcpt-key")), " (in the record as `" + key + "`)");
    }
    var extra = [];
    if (d.seeds) extra.push(d.seeds + " seeds");
    if (d.tolerance) extra.push("tolerance " + d.tolerance);
    if (extra.length) row(dl, "Over", extra.join(", "));
    if (d.margin) row(dl, "Result", d.margin).className = "rcpt-margin";
    if (d.experiment) row(dl, "Experiment", d.experiment).className = "rcpt-exp";
    (d.runs || []).forEach(function (r) {
      var text = r.device + ", torch " + r.torch + ", " + r.date;
      if (r.reused) text += typeof r.reused === "string" ? " (reused from the run of " + r.reused.slice(0, 10) + ")" : " (reused from an earlier run)";
      row(dl, "Verified", text).className = "rcpt-run";
    });
    if (d.device_independent) row(dl, "GPU", "its outcome cannot depend on the device, so a GPU run is not counted as a second check");
    (d.counterfactuals || []).forEach(function (c, i) {
      row(dl, i ? "" : "Fails on", c).className = "rcpt-cf";
    });
    if (d.test) row(dl, "Checked by", testWords(d.test)).className = "rcpt-test";
    more.appendChild(dl);
    var links = el("p", "rcpt-links");
    if (d.listing) {
      links.appendChild(link("Listing", d.listing));
      links.appendChild(document.createTextNode(" · "));
    }
    links.appendChild(link("Ledger row", d.ledger));
    more.appendChild(links);
    more.addEventListener("toggle", function () { if (pop === box && !sheet) place(owner, box, true); });
    body.appendChild(more);

    box.addEventListener("mouseenter", function () { clearTimeout(timer); });
    box.addEventListener("mouseleave", function () { if (!pinned) later(); });
    box.addEventListener("keydown", onPopKey);
    return box;
  }

  /* A phone (a narrow screen, or a finger for a pointer) gets a sheet along the bottom of the screen, at
     most 40 % of its height; elsewhere a popover under (or over) the receipt. */
  var SHEET = "(max-width: 44.9375em), (pointer: coarse)";
  var sheet = false;

  function place(a, box, keep) {
    if (sheet) {
      /* Keep the receipt in view above the sheet. */
      var r0 = a.getBoundingClientRect(), top = window.innerHeight - box.offsetHeight;
      if (r0.bottom > top - 8) window.scrollBy(0, r0.bottom - top + 16);
      return;
    }
    var r = a.getBoundingClientRect();
    var width = Math.min(368, document.documentElement.clientWidth - 16);
    box.style.width = width + "px";
    var left = Math.max(8, Math.min(r.left, document.documentElement.clientWidth - width - 8));
    box.style.left = left + window.scrollX + "px";
    /* Under the receipt where it fits, else over it; where neither fits, in the larger space, scrolling
       inside. Opening the Details fold keeps the side it is on (`keep`), so the fold's summary stays put. */
    var header = document.querySelector(".md-header");
    var ceiling = header ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
    var below = window.innerHeight - r.bottom - 14, above = r.top - ceiling - 14;
    box.style.maxHeight = "";
    var h = box.offsetHeight;
    var up = keep ? box.classList.contains("rcpt-up") : h > below && (h <= above || above > below);
    box.classList.toggle("rcpt-up", up);
    if (h > (up ? above : below)) box.style.maxHeight = Math.max(up ? above : below, 160) + "px";
    h = box.offsetHeight;
    box.style.top = (up ? r.top - 6 - h : r.bottom + 6) + window.scrollY + "px";
  }

  function show(a, pin) {
    clearTimeout(timer);
    if (owner === a && pop) { pinned = pinned || pin; return; }
    hide(false);
    var d = records()[a.getAttribute("data-claim")];
    if (!d) return;
    sheet = window.matchMedia(SHEET).matches;
    pop = build(a, d);
    if (sheet) pop.classList.add("rcpt-sheet");
    owner = a;
    pinned = pin;
    document.body.appendChild(pop);
    document.documentElement.classList.add("rcpt-open");  /* hides the Back to top pill (site.css) */
    place(a, pop);
    a.setAttribute("aria-expanded", "true");
    a.setAttribute("aria-controls", "rcpt-pop");
  }

  function hide(refocus) {
    clearTimeout(timer);
    if (!pop) return;
    var a = owner;
    pop.remove();
    pop = null;
    owner = null;
    pinned = false;
    document.documentElement.classList.remove("rcpt-open");
    a.setAttribute("aria-expanded", "false");
    a.removeAttribute("aria-controls");
    if (refocus) a.focus();
  }

  function later() {
    clearTimeout(timer);
    timer = setTimeout(function () { hide(false); }, 250);
  }

  /* What Tab can reach in the popover now: not the links inside a closed fold. */
  function stops() {
    return Array.prototype.filter.call(pop.querySelectorAll("a[href], button, summary"), function (n) {
      var fold = n.closest("details");
      return !fold || fold.open || n.parentNode === fold && n.tagName === "SUMMARY";
    });
  }

  /* The popover sits at the end of the body, so its links are not next to the receipt in the tab order:
     Shift+Tab from its first stop returns to the receipt, and Tab from its last puts focus back on the
     receipt without cancelling the key, so the browser's own Tab goes on from there (into a closed fold's
     summary, past hidden text) exactly as if the popover had never been opened. */
  function onPopKey(e) {
    if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); hide(true); return; }
    if (e.key !== "Tab") return;
    var inside = stops();
    var first = inside[0], last = inside[inside.length - 1];
    if (e.shiftKey && document.activeElement === first) { e.preventDefault(); owner.focus(); }
    else if (!e.shiftKey && document.activeElement === last) {
      var a = owner;
      hide(false);
      a.focus();
    }
  }

  function receiptOf(target) {
    return target && target.closest ? target.closest("a.rcpt") : null;
  }

  document.addEventListener("mouseover", function (e) {
    var a = receiptOf(e.target);
    if (a) { clearTimeout(timer); if (owner !== a) timer = setTimeout(function () { show(a, false); }, 120); }
  });
  document.addEventListener("mouseout", function (e) {
    var a = receiptOf(e.target);
    if (a && !pinned && !(pop && pop.contains(e.relatedTarget)) && receiptOf(e.relatedTarget) !== a) later();
  });
  document.addEventListener("focusin", function (e) {
    if (pop && !pop.contains(e.target) && e.target !== owner) hide(false);
  });
  document.addEventListener("click", function (e) {
    var a = receiptOf(e.target);
    if (a && !(e.ctrlKey || e.metaKey || e.shiftKey || e.altKey)) {
      e.preventDefault();
      if (a === owner && pinned) hide(false);  /* a second click or Enter closes it */
      else show(a, true);
    } else if (pop && !pop.contains(e.target)) {
      hide(false);
    }
  });
  document.addEventListener("keydown", function (e) {
    if (!pop) return;
    if (e.key === "Escape") {
      /* Back to the receipt only if the keyboard was there: a popover opened by hovering just closes. */
      var keyboard = document.activeElement === owner || pop.contains(document.activeElement);
      e.preventDefault();
      hide(keyboard);
    } else if (e.key === "Tab" && !e.shiftKey && pinned && document.activeElement === owner) {
      e.preventDefault();
      stops()[0].focus();
    }
  });
  /* A phone's address bar coming and going resizes the window: a sheet stays while the screen is still a
     phone's; a popover placed against the page closes. */
  window.addEventListener("resize", function () {
    if (pop && !(sheet && window.matchMedia(SHEET).matches)) hide(false);
  });

  /* The ledger: a filter box (hidden without this script), and the targeted row's group kept open. */
  function ledger() {
    var tools = document.querySelector(".ledger-tools");
    if (!tools) return;
    var input = document.getElementById("ledger-filter");
    var count = document.getElementById("ledger-count");
    var rows = Array.prototype.slice.call(document.querySelectorAll(".ledger-table tbody tr"));
    var text = rows.map(function (tr) {
      var group = tr.closest("details");
      return (tr.id + " " + tr.textContent + " " + group.querySelector("summary").textContent).toLowerCase();
    });
    tools.hidden = false;
    input.addEventListener("input", function () {
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      rows.forEach(function (tr, i) {
        var ok = words.every(function (w) { return text[i].indexOf(w) >= 0; });
        tr.hidden = !ok;
        if (ok) shown++;
      });
      document.querySelectorAll(".ledger-page").forEach(function (d) {
        d.hidden = !d.querySelector("tbody tr:not([hidden])");
        if (words.length && !d.hidden) d.open = true;
      });
      count.textContent = words.length ? shown + " of " + rows.length + " claims" : "";
    });
    openTarget();
  }

  function openTarget() {
    if (!location.hash) return;
    var t = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    var d = t && t.closest("details");
    if (d) d.open = true;
  }

  function init() {
    document.querySelectorAll("a.rcpt").forEach(function (a) {
      a.setAttribute("aria-haspopup", "dialog");
      a.setAttribute("aria-expanded", "false");
    });
    ledger();
  }

  window.addEventListener("hashchange", openTarget);
  if (window.document$ && window.document$.subscribe) {
    window.document$.subscribe(function () { hide(false); init(); });  /* Material's instant navigation */
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();

// A table or display equation wider than the column scrolls inside its own box (the wrapper Material puts
// around a table; on a phone the equation's .katex-display, site.css): give that box a tab stop and a name, so a
// keyboard can reach and scroll it (axe: scrollable-region-focusable). Only boxes that do scroll get one,
// checked after Material has wrapped the tables (its document$ fires per page), and again after the window is
// resized. Measuring a box lays out its block: all at once that was one long task on a slow phone, so the boxes
// are measured a few at a time, when idle.
(function () {
  var later = window.requestIdleCallback
    ? function (f) { window.requestIdleCallback(f, { timeout: 2000 }); }
    : function (f) { window.setTimeout(function () { f(null); }, 0); };

  var BOXES = ".md-typeset__scrollwrap, .md-typeset .katex-display";

  // An equation up to about a third wider than its column is set smaller to fit it (not below FIT of its
  // size, where it would be too small to read); only a wider one scrolls.
  var FIT = 0.62;

  function fit(wrap) {
    var math = wrap.querySelector(".katex");
    var ratio = wrap.clientWidth / wrap.scrollWidth;
    if (!math || ratio >= 1 || ratio < FIT) return;
    var size = parseFloat(window.getComputedStyle(math).fontSize);
    math.style.fontSize = (size * ratio * 0.97).toFixed(2) + "px";
  }

  function check(wrap) {
    if (wrap.classList.contains("katex-display") && wrap.scrollWidth > wrap.clientWidth + 1) fit(wrap);
    if (wrap.scrollWidth > wrap.clientWidth + 1 && !wrap.hasAttribute("tabindex")) {
      wrap.tabIndex = 0;
      wrap.setAttribute("role", "region");
      wrap.setAttribute("aria-label", wrap.classList.contains("katex-display") ? "Equation, scrolls sideways" : "Table, scrolls sideways");
    }
  }

  function reachable() {
    var wraps = Array.prototype.slice.call(document.querySelectorAll(BOXES));
    var i = 0;
    function step(idle) {  /* while the browser says it is idle (15 ms a turn where it cannot say) */
      var until = performance.now() + (idle && !idle.didTimeout ? Math.min(idle.timeRemaining(), 15) : 15);
      do check(wraps[i++]); while (i < wraps.length && performance.now() < until);
      if (i < wraps.length) later(step);
    }
    if (wraps.length) later(step);
  }
  /* A window made narrower (a phone turned upright, a desktop window dragged) can leave an equation wider than
     its column: check the boxes again once the resizing stops. */
  var resized;
  window.addEventListener("resize", function () {
    window.clearTimeout(resized);
    resized = window.setTimeout(reachable, 150);
  });
  /* A box in a closed fold has no width until the fold opens: check the boxes in a fold as it opens. */
  document.addEventListener("toggle", function (e) {
    if (e.target.open && e.target.querySelectorAll) e.target.querySelectorAll(BOXES).forEach(check);
  }, true);
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(reachable);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", reachable);
  } else {
    reachable();
  }
})();

// A table of sentences, one row per item, is a list of blocks on a phone (site.css, data-rs-stack): each
// cell gets its column's name (data-label) to lead its line. Marked from the text alone (no layout is
// read), as soon as the script runs, before the page is first drawn, so nothing moves once it is.
(function () {
  function words(cell) {
    var text = cell.textContent.trim();
    return text ? text.split(/\s+/).length : 0;
  }

  function sentences(table) {
    var cells = table.querySelectorAll("tbody td:not(:first-child)");
    if (!cells.length) return false;
    var chars = 0, most = 0;
    cells.forEach(function (td) { chars += td.textContent.trim().length; most = Math.max(most, words(td)); });
    return most >= 6 || chars / cells.length >= 20;
  }

  function stack() {
    document.querySelectorAll(".md-content .md-typeset table:not([class]):not([data-rs-stack])").forEach(function (table) {
      var heads = table.querySelectorAll("thead th");
      if (heads.length < 2 || !sentences(table)) return;
      var names = Array.prototype.map.call(heads, function (th) { return th.textContent.trim(); });
      table.querySelectorAll("tbody tr").forEach(function (tr) {
        Array.prototype.forEach.call(tr.children, function (td, i) {
          if (names[i]) td.setAttribute("data-label", names[i]);
        });
      });
      table.setAttribute("data-rs-stack", "");
    });
  }
  stack();
  if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(stack);
  else document.addEventListener("DOMContentLoaded", stack);
})();

// Print (site.css, @media print): every fold opens, the page prints in the light scheme, and each receipt is
// plain text followed by a superscript number that points into a list of the claims behind the page's
// numbers ("Receipts: 1. <claim> — <its ledger row>"), added at the end of the article. All of it is undone
// after printing.
(function () {
  var undo = [];

  function records() {
    var el = document.getElementById("receipt-data");
    try { return el ? JSON.parse(el.textContent) : {}; } catch (e) { return {}; }
  }

  function before() {
    if (undo.length) return;
    var article = document.querySelector(".md-content article") || document.querySelector(".md-content");
    if (!article) return;
    document.querySelectorAll(".md-content details:not([open])").forEach(function (d) {
      d.open = true;
      undo.push(function () { d.open = false; });
    });
    var body = document.body, scheme = body.getAttribute("data-md-color-scheme");
    if (scheme && scheme !== "default") {
      body.setAttribute("data-md-color-scheme", "default");
      undo.push(function () { body.setAttribute("data-md-color-scheme", scheme); });
    }
    var data = records(), numbers = {}, order = [];
    article.querySelectorAll("a.rcpt[data-claim]").forEach(function (a) {
      var id = a.getAttribute("data-claim");
      if (!(id in numbers)) { numbers[id] = order.length + 1; order.push(id); }
      var sup = document.createElement("sup");
      sup.className = "rcpt-n";
      sup.textContent = numbers[id];
      a.after(sup);
      undo.push(function () { sup.remove(); });
    });
    if (!order.length) return;
    var list = document.createElement("section");
    list.className = "rcpt-print";
    var head = document.createElement("h2");
    head.textContent = "Receipts";
    list.appendChild(head);
    var ol = document.createElement("ol");
    order.forEach(function (id) {
      var d = data[id] || {}, li = document.createElement("li");
      var url = new URL(d.ledger || "", location.href).href;
      li.textContent = (d.title || d.statement || id) + " — " + url;
      ol.appendChild(li);
    });
    list.appendChild(ol);
    article.appendChild(list);
    undo.push(function () { list.remove(); });
  }

  function after() {
    while (undo.length) undo.pop()();
  }

  window.addEventListener("beforeprint", before);
  window.addEventListener("afterprint", after);
})();
