"""Time the PDF proposal for each example scenario and print the figures.

    python benchmarks/bench_proposal.py [--repeat N]

Splits the time into building the presentation context (formatting + the SVG/HTML charts),
rendering the HTML (Jinja2) and laying out + writing the PDF (WeasyPrint). The engine run is
timed separately and is not part of the proposal's figure.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def bench(path: Path, repeat: int) -> dict:
    from tco.report.proposal.weasy import weasyprint

    HTML = weasyprint().HTML  # imported as the proposal imports it (proposal_weasy), not with a library search
    from tco.catalog import load_catalog
    from tco.engine import run_scenario
    from tco.report import json_out, proposal
    from tco.scenario import load

    t0 = time.perf_counter()
    scenario, sha, lines = load(str(path))
    res = run_scenario(scenario, load_catalog(), file=str(path), lines=lines)
    from tco import analysis

    res = analysis.enrich(res)  # as `python -m tco run` does: break-evens, sensitivity, decomposition
    json_out.build(res, sha, str(path))  # the JSON is written on every run too
    engine = time.perf_counter() - t0
    ctx_t, html_t, pdf_t, total_t, pages, size = [], [], [], [], 0, 0
    theme = proposal.load_theme()
    for _ in range(repeat):
        a = time.perf_counter()
        ctx = proposal.context(res, [path], theme)
        b = time.perf_counter()
        html = proposal.render_html(ctx)
        c = time.perf_counter()
        document = HTML(string=html, base_url=proposal.TEMPLATES.as_uri() + "/",
                        url_fetcher=proposal.templates_only_fetcher()).render()
        document.write_pdf()
        d = time.perf_counter()
        pdf2 = proposal.render(res, [path])  # the public path end to end, attachments included
        e = time.perf_counter()
        ctx_t.append(b - a)
        html_t.append(c - b)
        pdf_t.append(d - c)
        total_t.append(e - d)
        pages, size = len(document.pages), len(pdf2)
    med = statistics.median
    return {"scenario": path.stem, "engine_s": engine, "context_charts_s": med(ctx_t), "html_s": med(html_t),
            "weasyprint_s": med(pdf_t), "render_total_s": med(total_t), "pages": pages, "kb": size / 1024}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    print(f"{'scenario':<18} {'engine':>7} {'charts+ctx':>10} {'html':>6} {'weasyprint':>10} {'render':>7} "
          f"{'pages':>5} {'size':>8}   (seconds, median of {args.repeat})")
    for path in sorted((ROOT / "scenarios").glob("*.toml")):
        r = bench(path, args.repeat)
        print(f"{r['scenario']:<18} {r['engine_s']:7.2f} {r['context_charts_s']:10.2f} {r['html_s']:6.3f} "
              f"{r['weasyprint_s']:10.2f} {r['render_total_s']:7.2f} {r['pages']:5d} {r['kb']:6.0f} kB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
