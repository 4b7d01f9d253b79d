// Typeset math with the KaTeX copy served from this site (no other host is contacted).
// Material's instant navigation swaps pages without a reload, so typeset on every page change.
function typesetMath() {
  document.querySelectorAll(".arithmatex").forEach(function (el) {
    renderMathInElement(el, {
      delimiters: [
        { left: "\\(", right: "\\)", display: false },
        { left: "\\[", right: "\\]", display: true },
      ],
      throwOnError: true,
    });
  });
}
if (typeof document$ !== "undefined") {
  document$.subscribe(typesetMath);
} else {
  document.addEventListener("DOMContentLoaded", typesetMath);
}
