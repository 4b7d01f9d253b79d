"""Encyclopedia: the one record per entry behind every "Cite this entry" format.

BibTeX, CSL-JSON and RIS are all generated from ENTRIES below; nothing on a page is typed by hand.
Each entry's record holds the entry itself and the primary sources it asks readers to cite.
Run `python -m snippets.encyclopedia.citation [slug]` to print the three formats of one entry.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

# The address the site is published at: mkdocs.yml reads the same SITE_URL (the Pages workflow sets
# it). Without one, the entry's records carry no URL rather than an invented one; a test checks.
SITE_URL = os.environ.get("SITE_URL", "").strip()


# --8<-- [start:record]
@dataclass(frozen=True)
class Person:
    """One author, split the way every format needs it."""

    given: str
    family: str


@dataclass(frozen=True)
class Work:
    """A citable work; `authors` holds people, `organisation` a group author instead."""

    key: str
    kind: str  # "entry" (this encyclopedia entry) or "preprint" (an arXiv e-print)
    title: str
    year: int
    url: str
    authors: tuple[Person, ...] = ()
    organisation: str = ""
    container: str = ""  # the work this one is part of (the site, for an entry)
    arxiv: str = ""
    primary_class: str = ""
    note: str = ""


# --8<-- [end:record]


# --8<-- [start:works]
def entry(key: str, title: str, slug: str, site_url: str, year: int = 2026) -> Work:
    """The record of one entry of this site's encyclopedia, in a build published at site_url."""
    return Work(
        key=key,
        kind="entry",
        title=title,
        year=year,
        url=f"{site_url.rstrip('/')}/encyclopedia/{slug}/" if site_url else "",
        organisation="The Residual Stream contributors",
        container="The Residual Stream: an encyclopedia of residual connections",
    )


def arxiv(
    key: str,
    title: str,
    year: int,
    arxiv_id: str,
    cls: str,
    authors: str,
    note: str = "",
) -> Work:
    """An arXiv e-print; `authors` as "Given Family; Given Family"."""
    people = tuple(Person(*name.strip().rsplit(" ", 1)) for name in authors.split(";"))
    return Work(
        key=key,
        kind="preprint",
        title=title,
        year=year,
        url=f"https://arxiv.org/abs/{arxiv_id}",
        authors=people,
        arxiv=arxiv_id,
        primary_class=cls,
        note=note,
    )


HE_2015 = arxiv(
    "he2015deep",
    "Deep Residual Learning for Image Recognition",
    2015,
    "1512.03385",
    "cs.CV",
    "Kaiming He; Xiangyu Zhang; Shaoqing Ren; Jian Sun",
    note="Published in the Proceedings of CVPR 2016, pages 770-778",
)


def records(site_url: str = SITE_URL) -> dict[str, tuple[Work, ...]]:
    """One record per entry, keyed by its page name: the entry, then its primary sources.

    site_url is the address the build publishes ("" for none); only the entries' URLs
    depend on it.
    """
    return {
        "residual-stream": (
            entry(
                "residualstream2026", "The Residual Stream", "residual-stream", site_url
            ),
            HE_2015,
        ),
        "ensembles": (
            entry(
                "ensembles2026", "Residual Networks as Ensembles", "ensembles", site_url
            ),
            arxiv(
                "veit2016residual",
                "Residual Networks Behave Like Ensembles of Relatively Shallow Networks",
                2016,
                "1605.06431",
                "cs.CV",
                "Andreas Veit; Michael Wilber; Serge Belongie",
                note="Published in Advances in Neural Information Processing Systems 29"
                " (NeurIPS 2016)",
            ),
            arxiv(
                "huang2016deep",
                "Deep Networks with Stochastic Depth",
                2016,
                "1603.09382",
                "cs.LG",
                "Gao Huang; Yu Sun; Zhuang Liu; Daniel Sedra; Kilian Q. Weinberger",
                note="Published in the Proceedings of ECCV 2016",
            ),
        ),
        "scaled-branches": (
            entry(
                "scaledbranches2026",
                "Scaled and Zero-Initialised Branches",
                "scaled-branches",
                site_url,
            ),
            arxiv(
                "zhang2019fixup",
                "Fixup Initialization: Residual Learning Without Normalization",
                2019,
                "1901.09321",
                "cs.LG",
                "Hongyi Zhang; Yann N. Dauphin; Tengyu Ma",
                note="Published at ICLR 2019",
            ),
            arxiv(
                "de2020batch",
                "Batch Normalization Biases Residual Blocks Towards the Identity Function"
                " in Deep Networks",
                2020,
                "2002.10444",
                "cs.LG",
                "Soham De; Samuel L. Smith",
                note="Published in Advances in Neural Information Processing Systems 33"
                " (NeurIPS 2020)",
            ),
            arxiv(
                "bachlechner2020rezero",
                "ReZero is All You Need: Fast Convergence at Large Depth",
                2020,
                "2003.04887",
                "cs.LG",
                "Thomas Bachlechner; Bodhisattwa Prasad Majumder; Huanru Henry Mao;"
                " Garrison W. Cottrell; Julian McAuley",
            ),
        ),
        "normalisation-placement": (
            entry(
                "normplacement2026",
                "Normalisation Placement",
                "normalisation-placement",
                site_url,
            ),
            arxiv(
                "xiong2020layer",
                "On Layer Normalization in the Transformer Architecture",
                2020,
                "2002.04745",
                "cs.LG",
                "Ruibin Xiong; Yunchang Yang; Di He; Kai Zheng; Shuxin Zheng; Chen Xing;"
                " Huishuai Zhang; Yanyan Lan; Liwei Wang; Tie-Yan Liu",
                note="Published in the Proceedings of ICML 2020",
            ),
            arxiv(
                "liu2020understanding",
                "Understanding the Difficulty of Training Transformers",
                2020,
                "2004.08249",
                "cs.LG",
                "Liyuan Liu; Xiaodong Liu; Jianfeng Gao; Weizhu Chen; Jiawei Han",
                note="Published in the Proceedings of EMNLP 2020",
            ),
            arxiv(
                "wang2022deepnet",
                "DeepNet: Scaling Transformers to 1,000 Layers",
                2022,
                "2203.00555",
                "cs.CL",
                "Hongyu Wang; Shuming Ma; Li Dong; Shaohan Huang; Dongdong Zhang; Furu Wei",
            ),
            arxiv(
                "kim2025periln",
                "Peri-LN: Revisiting Normalization Layer in the Transformer Architecture",
                2025,
                "2502.02732",
                "cs.LG",
                "Jeonghoon Kim; Byeongchan Lee; Cheonbok Park; Yeontaek Oh; Beomjun Kim;"
                " Taehwan Yoo; Seongjin Shin; Dongyoon Han; Jinwoo Shin; Kang Min Yoo",
                note="Published in the Proceedings of ICML 2025",
            ),
        ),
        "hyper-connections": (
            entry(
                "hyperconnections2026",
                "Hyper-Connections",
                "hyper-connections",
                site_url,
            ),
            arxiv(
                "zhu2024hyper",
                "Hyper-Connections",
                2024,
                "2409.19606",
                "cs.LG",
                "Defa Zhu; Hongzhi Huang; Zihao Huang; Yutao Zeng; Yunyao Mao; Banggu Wu;"
                " Qiyang Min; Xun Zhou",
                note="Published in the Proceedings of ICLR 2025",
            ),
            arxiv(
                "xie2025mhc",
                "mHC: Manifold-Constrained Hyper-Connections",
                2025,
                "2512.24880",
                "cs.CL",
                "Zhenda Xie; Yixuan Wei; Huanqi Cao; Chenggang Zhao; Chengqi Deng; Jiashi Li;"
                " Damai Dai; Huazuo Gao; Jiang Chang; Kuai Yu; Liang Zhao; Shangyan Zhou; Zhean Xu;"
                " Zhengyan Zhang; Wangding Zeng; Shengding Hu; Yuqing Wang; Jingyang Yuan;"
                " Lean Wang; Wenfeng Liang",
            ),
        ),
        "depth-scaling": (
            entry("depthscaling2026", "Depth Scaling", "depth-scaling", site_url),
            arxiv(
                "chen2018neural",
                "Neural Ordinary Differential Equations",
                2018,
                "1806.07366",
                "cs.LG",
                "Ricky T. Q. Chen; Yulia Rubanova; Jesse Bettencourt; David Duvenaud",
                note="Published in Advances in NeurIPS 31 (2018)",
            ),
            arxiv(
                "marion2022scaling",
                "Scaling ResNets in the Large-depth Regime",
                2022,
                "2206.06929",
                "stat.ML",
                "Pierre Marion; Adeline Fermanian; Gérard Biau; Jean-Philippe Vert",
                note="Published in the Journal of Machine Learning Research 26 (2025)",
            ),
            arxiv(
                "dey2025completep",
                "Don't be lazy: CompleteP enables compute-efficient deep transformers",
                2025,
                "2505.01618",
                "cs.LG",
                "Nolan Dey; Bin Claire Zhang; Lorenzo Noci; Mufan Li; Blake Bordelon;"
                " Shane Bergsma; Cengiz Pehlevan; Boris Hanin; Joel Hestness",
                note="Published in Advances in NeurIPS 38 (2025)",
            ),
        ),
        "norm-free": (
            entry(
                "normfree2026",
                "Normalisation-Free and Zero-Initialised Branches",
                "norm-free",
                site_url,
            ),
            arxiv(
                "brock2021characterizing",
                "Characterizing signal propagation to close the performance gap in"
                " unnormalized ResNets",
                2021,
                "2101.08692",
                "cs.LG",
                "Andrew Brock; Soham De; Samuel L. Smith",
                note="Published in the Proceedings of ICLR 2021",
            ),
            arxiv(
                "hu2021lora",
                "LoRA: Low-Rank Adaptation of Large Language Models",
                2021,
                "2106.09685",
                "cs.CL",
                "Edward J. Hu; Yelong Shen; Phillip Wallis; Zeyuan Allen-Zhu; Yuanzhi Li;"
                " Shean Wang; Lu Wang; Weizhu Chen",
                note="Published in the Proceedings of ICLR 2022",
            ),
            arxiv(
                "peebles2022scalable",
                "Scalable Diffusion Models with Transformers",
                2022,
                "2212.09748",
                "cs.CV",
                "William Peebles; Saining Xie",
                note="Published in the Proceedings of ICCV 2023",
            ),
        ),
        "unet-skips": (
            entry("unetskips2026", "Long Skips: U-Nets", "unet-skips", site_url),
            arxiv(
                "ronneberger2015unet",
                "U-Net: Convolutional Networks for Biomedical Image Segmentation",
                2015,
                "1505.04597",
                "cs.CV",
                "Olaf Ronneberger; Philipp Fischer; Thomas Brox",
                note="Published in the Proceedings of MICCAI 2015",
            ),
            arxiv(
                "ho2020denoising",
                "Denoising Diffusion Probabilistic Models",
                2020,
                "2006.11239",
                "cs.LG",
                "Jonathan Ho; Ajay Jain; Pieter Abbeel",
                note="Published in Advances in NeurIPS 33 (2020)",
            ),
            arxiv(
                "bao2022all",
                "All are Worth Words: A ViT Backbone for Diffusion Models",
                2022,
                "2209.12152",
                "cs.CV",
                "Fan Bao; Shen Nie; Kaiwen Xue; Yue Cao; Chongxuan Li; Hang Su; Jun Zhu",
                note="Published in the Proceedings of CVPR 2023",
            ),
        ),
        "trained-stream": (
            entry(
                "trainedstream2026", "The Trained Stream", "trained-stream", site_url
            ),
            arxiv(
                "belrose2023eliciting",
                "Eliciting Latent Predictions from Transformers with the Tuned Lens",
                2023,
                "2303.08112",
                "cs.LG",
                "Nora Belrose; Zach Furman; Logan Smith; Danny Halawi; Igor Ostrovsky;"
                " Lev McKinney; Stella Biderman; Jacob Steinhardt",
            ),
            arxiv(
                "turner2023activation",
                "Activation Addition: Steering Language Models Without Optimization",
                2023,
                "2308.10248",
                "cs.CL",
                "Alexander Matt Turner; Lisa Thiergart; David Udell; Gavin Leech; Ulisse Mini;"
                " Monte MacDiarmid",
                note="Later versions are titled Steering Language Models With Activation"
                " Engineering",
            ),
        ),
        "variants": (
            entry(
                "variants2026",
                "Variants of the Residual Stream, Compared",
                "variants",
                site_url,
            ),
            arxiv(
                "pagliardini2024denseformer",
                "DenseFormer: Enhancing Information Flow in Transformers via Depth Weighted"
                " Averaging",
                2024,
                "2402.02622",
                "cs.CL",
                "Matteo Pagliardini; Amirkeivan Mohtashami; Francois Fleuret; Martin Jaggi",
                note="Published in Advances in NeurIPS 37 (2024)",
            ),
            arxiv(
                "zhou2024value",
                "Value Residual Learning",
                2024,
                "2410.17897",
                "cs.CL",
                "Zhanchao Zhou; Tianyi Wu; Zhiyun Jiang; Fares Obeid; Zhenzhong Lan",
                note="Published in the Proceedings of ACL 2025; first titled Value Residual"
                " Learning For Alleviating Attention Concentration In Transformers",
            ),
            arxiv(
                "menghani2024laurel",
                "LAuReL: Learned Augmented Residual Layer",
                2024,
                "2411.07501",
                "cs.LG",
                "Gaurav Menghani; Ravi Kumar; Sanjiv Kumar",
                note="Published in the Proceedings of ICML 2025",
            ),
            arxiv(
                "chowdhery2022palm",
                "PaLM: Scaling Language Modeling with Pathways",
                2022,
                "2204.02311",
                "cs.CL",
                "Aakanksha Chowdhery; Sharan Narang; Jacob Devlin; Maarten Bosma;"
                " Gaurav Mishra; Adam Roberts; Paul Barham; Hyung Won Chung; Charles Sutton;"
                " Sebastian Gehrmann; Parker Schuh; Kensen Shi; Sasha Tsvyashchenko;"
                " Joshua Maynez; Abhishek Rao; Parker Barnes; Yi Tay; Noam Shazeer;"
                " Vinodkumar Prabhakaran; Emily Reif; Nan Du; Ben Hutchinson; Reiner Pope;"
                " James Bradbury; Jacob Austin; Michael Isard; Guy Gur-Ari; Pengcheng Yin;"
                " Toju Duke; Anselm Levskaya; Sanjay Ghemawat; Sunipa Dev;"
                " Henryk Michalewski; Xavier Garcia; Vedant Misra; Kevin Robinson;"
                " Liam Fedus; Denny Zhou; Daphne Ippolito; David Luan; Hyeontaek Lim;"
                " Barret Zoph; Alexander Spiridonov; Ryan Sepassi; David Dohan;"
                " Shivani Agrawal; Mark Omernick; Andrew M. Dai;"
                " Thanumalayan Sankaranarayana Pillai; Marie Pellat; Aitor Lewkowycz;"
                " Erica Moreira; Rewon Child; Oleksandr Polozov; Katherine Lee;"
                " Zongwei Zhou; Xuezhi Wang; Brennan Saeta; Mark Diaz; Orhan Firat;"
                " Michele Catasta; Jason Wei; Kathy Meier-Hellstern; Douglas Eck; Jeff Dean;"
                " Slav Petrov; Noah Fiedel",
                note="Published in the Journal of Machine Learning Research 24 (2023)",
            ),
        ),
    }


ENTRIES = records()  # this build's records, at its SITE_URL
WORKS = ENTRIES["residual-stream"]
# --8<-- [end:works]


# --8<-- [start:bibtex]
def bibtex(w: Work) -> str:
    """BibTeX: people joined by `and`; a group author braced so it stays one name."""
    names = (
        " and ".join(f"{p.family}, {p.given}" for p in w.authors)
        or "{" + w.organisation + "}"
    )
    fields = {
        "author": names,
        "title": "{" + w.title + "}",
        "year": str(w.year),
    }
    if w.url:
        fields["url"] = w.url
    if w.kind == "entry":
        fields["howpublished"] = w.container
    else:
        fields.update(
            eprint=w.arxiv, archiveprefix="arXiv", primaryclass=w.primary_class
        )
        if w.note:
            fields["note"] = w.note
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items())
    return f"@misc{{{w.key},\n{body}\n}}"


# --8<-- [end:bibtex]


# --8<-- [start:csl]
def csl(w: Work) -> dict:
    """CSL-JSON item: each person a {family, given} object, the date as date-parts."""
    item = {
        "id": w.key,
        "title": w.title,
        "issued": {"date-parts": [[w.year]]},
    }
    if w.url:
        item["URL"] = w.url
    item["author"] = [{"family": p.family, "given": p.given} for p in w.authors] or [
        {"literal": w.organisation}
    ]
    if w.kind == "entry":
        item.update(type="entry-encyclopedia", **{"container-title": w.container})
    else:
        item.update(
            type="article",
            publisher="arXiv",
            number=w.arxiv,
            DOI=f"10.48550/arXiv.{w.arxiv}",
        )
        if w.note:
            item["note"] = w.note
    return item


# --8<-- [end:csl]


# --8<-- [start:ris]
def ris(w: Work) -> str:
    """RIS: one AU line per person as `Family, Given`; ER closes the record."""
    tags = [("TY", "ENCYC" if w.kind == "entry" else "UNPB"), ("TI", w.title)]
    tags += [("AU", f"{p.family}, {p.given}") for p in w.authors] or [
        ("AU", w.organisation)
    ]
    tags += [("PY", str(w.year))] + ([("UR", w.url)] if w.url else [])
    if w.kind == "entry":
        tags.append(("T2", w.container))
    else:
        tags += [
            ("DB", "arXiv"),
            ("AN", f"arXiv:{w.arxiv}"),
            ("DO", f"10.48550/arXiv.{w.arxiv}"),
        ]
        tags += [("N1", w.note)] if w.note else []
    return "\n".join(f"{t}  - {v}" for t, v in tags) + "\nER  - "


# --8<-- [end:ris]


@dataclass(frozen=True)
class Result:
    """The three formats, each holding every work of one entry's record."""

    bibtex: str
    csl_json: str
    ris: str


def measure(
    device: str = "cpu",
    seed: int = 0,
    slug: str = "residual-stream",
    site_url: str | None = None,
) -> Result:
    """Every format from one entry's record (device and seed are unused: nothing is random).

    site_url: generate the records a build published there would ("" for an unpublished build);
    None (the default) for this build's, at SITE_URL.
    """
    entries = ENTRIES if site_url is None else records(site_url)
    if slug not in entries:
        raise KeyError(
            f"no citation record for entry {slug!r}: add one to ENTRIES in {__file__}"
        )
    works = entries[slug]
    return Result(
        bibtex="\n\n".join(bibtex(w) for w in works),
        csl_json=json.dumps([csl(w) for w in works], indent=2, ensure_ascii=False),
        ris="\n\n".join(ris(w) for w in works) + "\n",
    )


if __name__ == "__main__":
    import sys

    r = measure(slug=sys.argv[1] if len(sys.argv) > 1 else "residual-stream")
    print(r.bibtex, r.csl_json, r.ris, sep="\n\n")
