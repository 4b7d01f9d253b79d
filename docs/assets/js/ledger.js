/* The claims ledger on a phone (narrower than 45em, where the page's tables stack): each page's group of
   claims starts folded, so the list of pages fits a screen or two; the group holding a linked row stays open
   (receipts.js opens it too). Wider screens keep every group open, as the page is built. No dependencies. */
(function () {
  function fold() {
    var groups = document.querySelectorAll("details.ledger-page");
    if (!groups.length || !window.matchMedia("(max-width: 44.9375em)").matches) return;
    var id = location.hash ? decodeURIComponent(location.hash.slice(1)) : "";
    var target = id && document.getElementById(id);
    groups.forEach(function (d) {
      if (!(target && d.contains(target))) d.open = false;
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fold);
  else fold();
})();
