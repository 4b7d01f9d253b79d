/* Receipts: a measured number (a.rcpt, written by sitekit/receipts.py) opens a small popover with the
   record behind it, on hover, click, tap or Enter. Focus alone opens nothing, so a keyboard reader tabs
   past a receipt in one stop; Tab from an open receipt enters its popover, Tab from the popover's last
   link goes on to whatever follows the receipt, and Esc closes it. Without this script each receipt is a
   plain link to its row in the claims ledger. The ledger's filter box lives here too. No dependencies. */
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

  function build(a, d) {
    var box = el("div", "rcpt-pop");
    box.id = "rcpt-pop";
    box.setAttribute("role", "dialog");
    box.setAttribute("aria-label", "Receipt");
    var close = el("button", "rcpt-close", "×");
    close.type = "button";
    close.setAttribute("aria-label", "Close the receipt");
    close.addEventListener("click", function () { hide(true); });
    box.appendChild(close);
    box.appendChild(withCode(el("p", "rcpt-statement"), d.statement));
    var dl = el("dl");
    var key = a.getAttribute("data-key");
    if (key !== null) {
      var shown = shownText(a);
      var parts = [shown];
      if (key in d.values && typeof d.values[key] === "number" && !Number.isInteger(d.values[key])) {
        var full = typeset(d.values[key]);
        if (full !== shown && untypeset(shown) !== d.values[key]) parts.push("recorded " + full);
      }
      var asserted = (d.asserted || []).indexOf(key) >= 0;
      var dd = row(dl, asserted ? "Value" : "Reading", parts.join(", "));
      dd.setAttribute("data-key", key);
      dd.appendChild(el("span", "rcpt-key", " (" + key + ")"));
      dd.appendChild(el("span", "rcpt-asserted", asserted ? " asserted by the check" : " recorded by the run, not asserted"));
    }
    var extra = [];
    if (d.seeds) extra.push(d.seeds + " seeds");
    if (d.tolerance) extra.push("tolerance " + d.tolerance);
    if (extra.length) row(dl, "Over", extra.join(", "));
    if (d.kind) row(dl, "Kind", d.kind).className = "rcpt-kind";
    if (d.margin) row(dl, "Margin", d.margin).className = "rcpt-margin";
    if (d.experiment) row(dl, "Experiment", d.experiment).className = "rcpt-exp";
    d.runs.forEach(function (r) {
      var text = r.device + ", torch " + r.torch + ", " + r.date;
      if (r.reused) text += typeof r.reused === "string" ? " (reused from the run of " + r.reused.slice(0, 10) + ")" : " (reused from an earlier run)";
      row(dl, "Verified", text).className = "rcpt-run";
    });
    if (d.device_independent) row(dl, "CUDA", "device-independent: not counted as verified on CUDA");
    d.counterfactuals.forEach(function (c, i) {
      row(dl, i ? "" : "Fails on", c).className = "rcpt-cf";
    });
    box.appendChild(dl);
    var links = el("p", "rcpt-links");
    if (d.listing) {
      var listing = el("a", "", "Listing");
      listing.href = d.listing;
      links.appendChild(listing);
      links.appendChild(document.createTextNode(" · "));
    }
    var ledger = el("a", "", "Ledger row");
    ledger.href = d.ledger;
    links.appendChild(ledger);
    links.appendChild(el("span", "rcpt-test", " " + d.test));
    box.appendChild(links);
    box.addEventListener("mouseenter", function () { clearTimeout(timer); });
    box.addEventListener("mouseleave", function () { if (!pinned) later(); });
    box.addEventListener("keydown", onPopKey);
    return box;
  }

  function place(a, box) {
    var r = a.getBoundingClientRect();
    var width = Math.min(352, document.documentElement.clientWidth - 16);
    box.style.width = width + "px";
    var left = Math.max(8, Math.min(r.left, document.documentElement.clientWidth - width - 8));
    box.style.left = left + window.scrollX + "px";
    box.style.top = r.bottom + window.scrollY + 6 + "px";
    var h = box.offsetHeight;
    if (r.bottom + 6 + h > window.innerHeight && r.top - 6 - h > 0) {
      box.style.top = r.top + window.scrollY - 6 - h + "px";
    }
  }

  function show(a, pin) {
    clearTimeout(timer);
    if (owner === a && pop) { pinned = pinned || pin; return; }
    hide(false);
    var d = records()[a.getAttribute("data-claim")];
    if (!d) return;
    pop = build(a, d);
    owner = a;
    pinned = pin;
    document.body.appendChild(pop);
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
    a.setAttribute("aria-expanded", "false");
    a.removeAttribute("aria-controls");
    if (refocus) a.focus();
  }

  function later() {
    clearTimeout(timer);
    timer = setTimeout(function () { hide(false); }, 250);
  }

  /* The popover sits at the end of the body, so its links are not next to the receipt in the tab order:
     Shift+Tab from its first link returns to the receipt, and Tab from its last puts focus back on the
     receipt without cancelling the key, so the browser's own Tab goes on from there (into a closed fold's
     summary, past hidden text) exactly as if the popover had never been opened. */
  function onPopKey(e) {
    if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); hide(true); return; }
    if (e.key !== "Tab") return;
    var inside = pop.querySelectorAll("a[href], button");
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
      pop.querySelector("a[href], button").focus();
    }
  });
  window.addEventListener("resize", function () { if (pop) hide(false); });

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

// A table wider than the column scrolls inside the wrapper Material puts around it: give that wrapper a tab
// stop and a name, so a keyboard can reach and scroll it (axe: scrollable-region-focusable). Only wrappers that
// do scroll get one, checked after Material has wrapped the tables (its document$ fires per page). Measuring a
// wrapper lays out its block, which a phone skips while it is off screen (content-visibility in site.css): all
// at once that was one long task on a slow phone, so the wrappers are measured a few at a time, when idle.
(function () {
  var later = window.requestIdleCallback
    ? function (f) { window.requestIdleCallback(f, { timeout: 2000 }); }
    : function (f) { window.setTimeout(function () { f(null); }, 0); };

  function check(wrap) {
    if (wrap.scrollWidth > wrap.clientWidth + 1 && !wrap.hasAttribute("tabindex")) {
      wrap.tabIndex = 0;
      wrap.setAttribute("role", "region");
      wrap.setAttribute("aria-label", "Table, scrolls sideways");
    }
  }

  function reachable() {
    var wraps = Array.prototype.slice.call(document.querySelectorAll(".md-typeset__scrollwrap"));
    var i = 0;
    function step(idle) {  /* while the browser says it is idle (15 ms a turn where it cannot say) */
      var until = performance.now() + (idle && !idle.didTimeout ? Math.min(idle.timeRemaining(), 15) : 15);
      do check(wraps[i++]); while (i < wraps.length && performance.now() < until);
      if (i < wraps.length) later(step);
    }
    if (wraps.length) later(step);
  }
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(reachable);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", reachable);
  } else {
    reachable();
  }
})();
