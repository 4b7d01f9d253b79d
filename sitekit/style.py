"""The site's one figure style: what each thing is drawn in, on every plot, diagram and explorable.

Colours are the Okabe–Ito palette (distinguishable with every common colour-vision deficiency),
completed by three mid-luminance tones for the patterns it runs out on; each reads on Material's
light and dark backgrounds. Every entry also has its own line style and marker, so no figure relies
on colour alone. Text, axes and neutral lines (formulas, thresholds, predictions) are drawn in
`currentColor`, and legend boxes in the page's background colour: an inline SVG then follows the
reader's colour scheme, whichever way Material toggles it.

Type: a figure is inline SVG with its text kept as text, so the page's own face sets it: `themed` names the
body's font stack (Source Serif 4, which the site serves, then the serif faces after it). matplotlib lays the
text out with DejaVu Serif, a serif it ships with (so every machine draws the same bytes), a little wider
than Source Serif 4, so a label never needs more room on the page than the layout gave it. Sizes are set
for the screen: a plot drawn MAX_WIDTH wide fills the content column at about 1.55 times its size, so the
9 px text here shows near 14 px, the caption's size, below the 16 px of the prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Look:
    """How one thing is drawn: colour, matplotlib line style and marker, and its name in legends."""

    color: str
    line: str
    marker: str
    label: str

    def kw(self, label: str | None = None, marker: bool = True) -> dict[str, object]:
        """Keyword arguments for `ax.plot`."""
        out: dict[str, object] = {"color": self.color, "linestyle": self.line, "label": label or self.label}
        if marker:
            out["marker"] = self.marker
        return out


# A sentinel drawn by matplotlib and rewritten to CSS afterwards; no figure uses these colours.
INK = "#010203"  # -> currentColor: text, axes, ticks, grid, neutral lines
PAPER = "#fdfcfb"  # -> the page background: legend boxes

LOOKS: dict[str, Look] = {
    # architectures
    "plain": Look("#D55E00", "--", "s", "plain"),  # vermillion
    "residual": Look("#0072B2", "-", "o", "residual"),  # blue
    "dense": Look("#999933", "-.", "D", "dense (concatenation)"),  # olive
    "highway": Look("#44AA99", "-", "h", "highway"),  # teal
    "pre-norm": Look("#CC79A7", "-", "^", "pre-norm"),  # reddish purple
    "post-norm": Look("#7A7A7A", ":", "v", "post-norm"),  # grey, unlike He init beside it
    "peri-norm": Look("#4477AA", "--", "p", "peri-norm"),  # Tol blue
    "deepnorm": Look("#CC3311", "-.", ">", "DeepNorm"),  # Tol red: far from ReZero's bluish green beside it
    "wide": Look("#7E57C2", "--", "P", "wide"),  # violet
    "drop-path": Look("#AA4499", "-.", "X", "drop-path"),  # purple
    "post-norm + warm-up": Look("#DDAA33", "--", "<", "post-norm + warm-up"),  # gold, near post-norm
    "scaled": Look("#33BBEE", "--", "8", "1/√L scaled"),  # cyan
    "inverse": Look("#332288", ":", "s", "1/L scaled"),  # indigo
    "shallow": Look("#882255", ":", "<", "plain, shallow"),  # wine
    "hyper-connections": Look("#EE3377", "-", "*", "hyper-connections"),  # magenta
    "sinkhorn": Look("#997700", "--", "o", "Sinkhorn-constrained"),  # dark yellow
    # initialisations
    "default": Look("#56B4E9", "-", "d", "PyTorch default init"),  # sky blue
    "he": Look("#E69F00", "-.", "*", "He init"),  # orange
    "zero": Look("#009E73", "-", "v", "zeroed last layer"),  # bluish green
    # schedules
    "warm-up": Look("#CC6677", "-.", "H", "warm-up"),  # rose
    # lenses: how a trained stream is read
    "logit lens": Look("#EE7733", "--", "d", "logit lens"),  # Tol orange: legible on dark too
    "shift-only lens": Look("#6699CC", "-.", "s", "shift only"),  # greyish blue
    "tuned lens": Look("#117733", "-", "D", "tuned lens"),  # dark green
    # neither: predictions, formulas, thresholds, references
    "neutral": Look(INK, ":", "x", "predicted"),
}


def look(name: str) -> Look:
    """The look of one named thing; an unknown name is an error, so no figure invents a colour."""
    if name not in LOOKS:
        raise KeyError(f"sitekit/style.py has no look {name!r}; add it to LOOKS (known: {sorted(LOOKS)})")
    return LOOKS[name]


# The body's font stack (docs/assets/css/site.css, `--md-text-font-family`): what a figure's text is set in.
FONT_STACK = "'Source Serif 4', Georgia, 'Noto Serif', 'Liberation Serif', 'DejaVu Serif', serif"

RC = {
    "svg.hashsalt": "residual-stream",
    "svg.fonttype": "none",
    "font.family": "serif",
    "font.serif": ["DejaVu Serif"],
    "mathtext.fontset": "dejavuserif",
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "xtick.labelsize": 8.5,
    "ytick.labelsize": 8.5,
    "legend.fontsize": 8.5,
    "legend.facecolor": PAPER,
    "legend.edgecolor": INK,
    "legend.framealpha": 0.85,
    "text.color": INK,
    "axes.labelcolor": INK,
    "axes.edgecolor": INK,
    "axes.titlecolor": INK,
    "xtick.color": INK,
    "ytick.color": INK,
    "grid.color": INK,
    "grid.alpha": 0.18,
    "axes.grid": True,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.facecolor": "none",
    "figure.facecolor": "none",
    "savefig.facecolor": "none",
    "savefig.transparent": True,
    "figure.dpi": 100,
    "lines.linewidth": 2,
    "lines.markersize": 6,
    "patch.edgecolor": INK,
}

# The widest a figure is drawn (inches). The content column at 1280 px is about 750 px, so a figure this wide
# shows at about 1.55 times its size there (a narrower one a little more): its 8.5 to 9 px text at 13 to 16 px.
MAX_WIDTH = 6.8
# A notebook's plot is shown at the size it was drawn (sitekit/figures.py `notebook_svg`): its text keeps
# the sizes a reader's notebook shows.
NOTEBOOK_SIZES = {
    "font.size": 12,
    "axes.titlesize": 12,
    "axes.labelsize": 12,
    "xtick.labelsize": 12,
    "ytick.labelsize": 12,
    "legend.fontsize": 11,
}


def apply(agg: bool = True) -> None:
    """Set matplotlib to the site's style (fixed SVG salt, the colours above); the build draws with Agg,
    a notebook (agg=False) keeps its inline backend."""
    import matplotlib

    if agg:
        matplotlib.use("Agg")
    matplotlib.rcdefaults()
    matplotlib.rcParams.update(RC if agg else {**RC, **NOTEBOOK_SIZES})


_INK_RE = re.compile(re.escape(INK), re.I)
_PAPER_RE = re.compile(re.escape(PAPER), re.I)
_COMMENT_RE = re.compile(r"<!--.*?-->", re.S)
_FONT_RE = re.compile(r"font-family: [^;\"]*")


def themed(svg: str) -> str:
    """Rewrite the sentinel colours of a matplotlib SVG to CSS that follows the page's scheme.

    matplotlib also leaves each label's source (`<!-- $\\mathdefault{10^{4}}$ -->`) in a comment: dropped,
    since the SVG is inlined into a page, where Markdown's math extension would read it as a formula.
    """
    svg = _COMMENT_RE.sub("", svg)
    svg = _INK_RE.sub("currentColor", svg)
    svg = _FONT_RE.sub(f"font-family: {FONT_STACK}", svg)  # the page's face, whichever face laid it out
    return _PAPER_RE.sub("var(--md-default-bg-color, #fff)", svg)


__all__ = ["FONT_STACK", "INK", "LOOKS", "MAX_WIDTH", "PAPER", "Look", "apply", "look", "themed"]
