"""Every formula the Methodology page shows is the code's: each is evaluated here, from a
reading of its TeX coded independently (scipy.stats for Student's t and the beta quantiles),
on a few cells, and compared with what builder.scoring.uncertainty computes.

The page is rendered by its own function and converted by Python-Markdown with the
extensions a new instance's mkdocs.yml turns on (builder/scaffold/files/mkdocs.yml), so the
formulas are read from the HTML a visitor gets: KaTeX's input (``data-tex``) must survive
Markdown exactly, and Markdown must add no emphasis the text did not ask for (issue 40: the
docstrings went through Markdown unescaped, ``z²/4n<em>²)) / (1 + z²/n</em>)``).
"""

from __future__ import annotations

import html
import math
import re
from pathlib import Path
from types import SimpleNamespace

import markdown
import numpy as np
import pytest
import yaml

from builder.render.formulas import tex_markdown
from builder.render.pages import methodology_page
from builder.scaffold import init as scaffold
from builder.scoring import METHODOLOGY, REGRADING, SUPPRESSION
from builder.scoring import uncertainty as U
from tests.scoring.reference_stats import Z, scipy_stats

NONE = np.array([None], dtype=object)


def _extensions() -> dict[str, dict]:
    """name -> options, as mkdocs.yml lists them (a name, or a one-key mapping)."""
    text = (Path(scaffold.__file__).parent / "files" / "mkdocs.yml").read_text()
    out: dict[str, dict] = {}
    for ext in yaml.safe_load(text.replace("{title}", "t"))["markdown_extensions"]:
        out.update(ext if isinstance(ext, dict) else {ext: {}})
    return out


def to_html(text: str) -> str:
    ext = _extensions()
    return markdown.markdown(text, extensions=list(ext), extension_configs={k: v for k, v in ext.items() if v})


@pytest.fixture(scope="module")
def page() -> tuple[str, str]:
    source = methodology_page(SimpleNamespace(benchmarks=[]), {})
    _, front, body = source.split("---", 2)
    return front, to_html(body)


def shown(page_html: str) -> list[str]:
    """Every formula on the page as KaTeX receives it (the data-tex attribute, unescaped)."""
    return [html.unescape(t) for t in re.findall(r'<span class="sb-tex" data-tex="([^"]*)"><code>', page_html)]


# ---- one independent reading per formula, keyed by the TeX the page shows --------------
# A formula edited in the code no longer matches its key here, so the test fails until its
# reading is checked again; a formula added to the page without one fails too.


def t975(n_minus_1: float) -> float:
    return float(scipy_stats().t.ppf(0.975, n_minus_1))


def wilson_limits(p: float, trials: float) -> tuple[float, float]:
    # (p̂ + z²/2n* ± z √(p̂(1−p̂)/n* + z²/4n*²)) / (1 + z²/n*)
    root = Z * math.sqrt(p * (1 - p) / trials + Z**2 / (4 * trials**2))
    return ((p + Z**2 / (2 * trials) - root) / (1 + Z**2 / trials), (p + Z**2 / (2 * trials) + root) / (1 + Z**2 / trials))


def page_interval(a: np.ndarray, d: np.ndarray) -> tuple[float, float]:
    """The interval of the rate Σa/Σd, formula by formula as the page states them."""
    n = len(a)
    p = a.sum() / d.sum()  # rate
    v = n / (n - 1) * (((a - p * d) / d.sum()) ** 2).sum()  # variance
    n_eff = p * (1 - p) / v if (v > 0 and 0 < p < 1) else float(n)  # n_eff, or n when V says nothing
    trials = n_eff * (Z / t975(n - 1)) ** 2  # korn_graubard
    lo, hi = wilson_limits(p, trials)  # wilson
    x = p * trials
    if x < 10 or trials - x < 10:  # small_counts
        lo = min(lo, scipy_stats().beta.ppf(0.025, x, trials - x + 1) if x > 0 else 0.0)  # lower
        hi = max(hi, scipy_stats().beta.ppf(0.975, x + 1, trials - x) if trials - x > 0 else 1.0)  # upper
    return max(lo, 0.0), min(hi, 1.0)


# Cells (correct samples of d per item): mid rates, the small-count edges, 0 and 1, one item
# scoring alike.
CELLS = [
    (np.array([3, 2, 0, 1, 3, 0, 2, 1, 0, 3, 1, 2, 0.0]), 3.0),
    (np.array([1.0] + [0.0] * 23), 1.0),
    (np.array([0.0] * 24), 1.0),
    (np.array([2.0] * 40), 2.0),
    (np.array([1, 1, 0, 1] * 30, dtype=float), 1.0),
    (np.array([3.0] * 77 + [2.0]), 3.0),
]


def _ratio(a: np.ndarray, d: float) -> U.Estimate:
    n = len(a)
    return U.ratio(a[None, :], np.full((1, n), d), np.ones((1, n), dtype=bool), NONE.copy())


def check_rate_chain() -> None:
    for a, d in CELLS:
        est = _ratio(a, d)
        assert est.value[0] == pytest.approx(a.sum() / (d * len(a)))
        assert (est.lo[0], est.hi[0]) == pytest.approx(page_interval(a, np.full(len(a), d)), abs=2e-6)


def check_variance() -> None:
    for a, d in CELLS:
        n, p = len(a), a.sum() / (d * len(a))
        v = n / (n - 1) * (((a - p * d) / (d * n)) ** 2).sum()
        infl = _ratio(a, d).infl
        assert infl is not None
        assert float((infl**2).sum()) == pytest.approx(v, rel=1e-12, abs=1e-18)


def check_z() -> None:
    assert round(U.Z, 5) == 1.95996 and U.Z == pytest.approx(Z, abs=1e-12)


def check_korn_graubard_13() -> None:
    t = float(U.t975(np.array([12.0]))[0])
    assert round(t, 3) == 2.179 == round(t975(12), 3)
    assert round((Z / t975(12)) ** 2, 2) == 0.81


def check_wilson() -> None:
    for p in (0.0, 0.02, 0.3, 0.5, 0.97, 1.0):
        for trials in (3.7, 21.5, 78.0, 336.6):
            lo, hi = U.wilson(np.array([p]), np.array([trials]))
            assert (lo[0], hi[0]) == pytest.approx(tuple(min(max(x, 0.0), 1.0) for x in wilson_limits(p, trials)), abs=1e-12)


def check_at_0() -> None:
    for trials in (10.5, 21.5, 45.0, 47.0, 336.6):
        _, hi = U.wilson(np.array([0.0]), np.array([trials]))
        assert hi[0] == pytest.approx(Z**2 / (trials + Z**2), rel=1e-12)  # wilson_at_0
        _, cp = U.clopper_pearson(np.array([0.0]), np.array([trials]))
        assert cp[0] == pytest.approx(1 - 0.025 ** (1 / trials), rel=1e-10)  # cp_at_0
        assert cp[0] == pytest.approx(scipy_stats().beta.ppf(0.975, 1, trials), rel=1e-10)


def check_linear_and_mover() -> None:
    rng = np.random.default_rng(40)
    items = 30
    a = rng.integers(0, 4, size=(3, items)).astype(float)
    d = np.full((3, items), 3.0)
    est = U.ratio(a, d, np.ones((3, items), dtype=bool), np.array([None] * 3, dtype=object))
    terms = [(1.0, est.take(np.array([0]))), (-1.0, est.take(np.array([1]))), (0.5, est.take(np.array([2])))]
    combined = U.linear(terms)
    # linear: θ̂ = Σ c_j θ̂_j
    theta = sum(c * e.value[0] for c, e in terms)
    assert combined.value[0] == pytest.approx(theta)
    # distances: e_j⁻ = c_jθ̂_j − lower(c_jθ_j), e_j⁺ = upper(c_jθ_j) − c_jθ̂_j (a negative c swaps the limits)
    lows = [min(c * e.lo[0], c * e.hi[0]) for c, e in terms]
    highs = [max(c * e.lo[0], c * e.hi[0]) for c, e in terms]
    e_minus = [c * e.value[0] - lo for (c, e), lo in zip(terms, lows)]
    e_plus = [hi - c * e.value[0] for (c, e), hi in zip(terms, highs)]
    # ρ_jk: the correlation of the two estimates' item influences
    infl = [c * e.infl[0] for c, e in terms if e.infl is not None]
    rho = np.array([[float(x @ y / math.sqrt((x @ x) * (y @ y))) for y in infl] for x in infl])
    # mover: θ̂ ∓ √(Σ_jk ρ_jk e_j^∓ e_k^∓)
    lower = theta - math.sqrt(sum(rho[j, k] * e_minus[j] * e_minus[k] for j in range(3) for k in range(3)))
    upper = theta + math.sqrt(sum(rho[j, k] * e_plus[j] * e_plus[k] for j in range(3) for k in range(3)))
    assert (combined.lo[0], combined.hi[0]) == pytest.approx((lower, upper), abs=1e-12)


def check_wald() -> None:
    rng = np.random.default_rng(6)
    for n in (5, 13, 80):
        infl = rng.normal(size=(1, n)) / n
        est = U.wald(np.array([1.5]), infl, np.arange(n), np.array([n]), NONE.copy())
        v = float((infl**2).sum())
        assert (est.lo[0], est.hi[0]) == pytest.approx(
            (1.5 - t975(n - 1) * math.sqrt(v), 1.5 + t975(n - 1) * math.sqrt(v)), abs=2e-5 * math.sqrt(v)
        )


READINGS = {
    r"\hat p = \frac{\sum_i a_i}{\sum_i d_i}": check_rate_chain,
    r"V = \frac{n}{n-1} \sum_i \left(\frac{a_i - \hat p\, d_i}{\sum_k d_k}\right)^2": check_variance,
    r"n_{\mathrm{eff}} = \frac{\hat p (1 - \hat p)}{V}": check_rate_chain,
    r"n^* = n_{\mathrm{eff}} \left(\frac{z}{t_{n-1}}\right)^2": check_rate_chain,
    r"z = 1.95996": check_z,
    r"t_{12} = 2.179, \text{ so } n^* = 0.81\, n_{\mathrm{eff}}": check_korn_graubard_13,
    r"\Bigl(\hat p + \frac{z^2}{2n^*} \pm z \sqrt{\frac{\hat p (1 - \hat p)}{n^*} + \frac{z^2}{4 n^{*2}}}\Bigr) \Big/ \Bigl(1 + \frac{z^2}{n^*}\Bigr)": check_wilson,
    r"x^* = \hat p\, n^* < 10 \ \text{or}\ n^* - x^* < 10": check_rate_chain,
    r"\text{lower} = \min\bigl(\text{Wilson's},\ B^{-1}(0.025;\ x^*,\ n^* - x^* + 1)\bigr)": check_rate_chain,
    r"\text{upper} = \max\bigl(\text{Wilson's},\ B^{-1}(0.975;\ x^* + 1,\ n^* - x^*)\bigr)": check_rate_chain,
    r"\frac{z^2}{n^* + z^2}": check_at_0,
    r"1 - 0.025^{1/n^*}": check_at_0,
    r"\hat\theta = \sum_j c_j \hat\theta_j": check_linear_and_mover,
    r"e_j^- = c_j \hat\theta_j - \mathrm{lower}(c_j \theta_j),\ e_j^+ = \mathrm{upper}(c_j \theta_j) - c_j \hat\theta_j": check_linear_and_mover,
    r"\hat\theta \mp \sqrt{\textstyle\sum_{j,k} \rho_{jk}\, e_j^{\mp} e_k^{\mp}}": check_linear_and_mover,
    r"\hat\theta \pm t_{n-1} \sqrt{V}": check_wald,
}

# A symbol in the prose (":math:`n^*`"), or a symbol set to 0 or another symbol: not a
# formula, nothing to evaluate. Anything with an operator must be a checked formula.
SYMBOL = r"(?:\\[a-z]+|[A-Za-z])(?:[_^](?:\{(?:[^{}=]|\{[^{}=]*\})*\}|[A-Za-z0-9*]))*"
BARE = re.compile(rf"{SYMBOL}(?: - {SYMBOL})?(?: = (?:0|1|{SYMBOL}))?")


def test_every_formula_on_the_page_has_a_reading_and_agrees_with_the_code(page):
    formulas = [t for t in shown(page[1]) if not BARE.fullmatch(t) or re.search(r"\\(?:frac|sqrt|sum|pm|mp)\b", t)]
    assert set(formulas) == set(READINGS), set(formulas) ^ set(READINGS)
    assert set(formulas) == set(U.FORMULAS.values())  # each formula the code defines is on the page
    for check in {READINGS[t] for t in formulas}:
        check()


def test_katex_gets_every_formula_whole_and_markdown_adds_no_emphasis(page):
    front, body = page
    assert "sealboard_math: true" in front  # main.html loads KaTeX on this page only so
    # each cited formula reaches KaTeX exactly, and its code-span fallback too
    texts = shown(body)
    assert len(texts) > len(U.FORMULAS)
    fallbacks = [html.unescape(t) for t in re.findall(r'<span class="sb-tex" data-tex="[^"]*"><code>(.*?)</code></span>', body)]
    assert fallbacks == texts
    # no emphasis but what the texts ask for with *…*
    sources = " ".join((METHODOLOGY + REGRADING + SUPPRESSION).split())
    for em in re.findall(r"<em>(.*?)</em>", body, re.S):
        assert f"*{' '.join(em.split())}*" in sources, em
    assert ":formula:" not in body and ":math:" not in body


def test_a_hostile_formula_still_reaches_katex_whole():
    tex = r"\frac{a}{b} *x* _y_ [l](u) ![i](j) <b> & 'q' \\ \(z\) <http://h>"
    out = to_html(f"x {tex_markdown(tex)} y")
    assert shown(out) == [tex]
    with pytest.raises(ValueError, match="backtick"):
        tex_markdown("a`b")


@pytest.mark.parametrize("items", [13, 24, 48, 49, 78, 339])
def test_at_zero_the_published_limit_is_the_larger_of_wilson_and_clopper_pearson(items, page):
    """The page: at p̂ = 0 the upper limit is the larger of Wilson's and Clopper–Pearson's,
    Clopper–Pearson's on boards of up to 48 items, Wilson's on larger ones (issue 40: it
    said Wilson's was always the wider)."""
    trials = items * (Z / t975(items - 1)) ** 2
    wilson_hi = Z**2 / (trials + Z**2)
    cp_hi = 1 - 0.025 ** (1 / trials)
    est = _ratio(np.zeros(items), 1.0)
    assert (est.lo[0], est.hi[0]) == pytest.approx((0.0, max(wilson_hi, cp_hi)), abs=1e-6)
    assert (cp_hi > wilson_hi) == (items <= 48)
    full = _ratio(np.ones(items), 1.0)  # at p̂ = 1, one minus it
    assert (full.lo[0], full.hi[0]) == pytest.approx((1 - max(wilson_hi, cp_hi), 1.0), abs=1e-6)
    text = " ".join(page[1].split())
    assert "Clopper–Pearson's on boards of up to 48 items" in text and "Wilson's on larger ones" in text
    if items == 24:
        assert (round(cp_hi, 3), round(wilson_hi, 3)) == (0.157, 0.151)
        assert "at 24 items 0.157, where Wilson's is 0.151" in text
    if items == 339:
        assert round(est.hi[0], 3) == 0.011 and "at 339 items 0.011" in text


def test_the_vendored_katex_parses_every_formula_on_the_page(page, tmp_path):
    """KaTeX (the site's own copy, run by node) reads each formula without an error, so none
    is shown as red source text."""
    import json
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    katex = Path(scaffold.__file__).parents[1] / "render" / "site_template" / "assets" / "katex" / "katex.min.js"
    (tmp_path / "f.json").write_text(json.dumps(shown(page[1])))
    script = (
        "const k = require(process.argv[1]); const bad = [];"
        "for (const t of JSON.parse(require('fs').readFileSync(process.argv[2]))) {"
        " try { k.renderToString(t, {throwOnError: true}); } catch (e) { bad.push(t + ': ' + e.message); } }"
        "console.log(JSON.stringify(bad));"
    )
    out = subprocess.run([node, "-e", script, str(katex), str(tmp_path / "f.json")], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []
