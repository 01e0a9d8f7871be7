"""Loaders of the hardware and model files: gpus.csv, models.csv, interconnect.csv."""

from __future__ import annotations

from tco.catalog.rows import Rows, all_given
from tco.catalog.types import Gpu, Interconnect, ModelArch
from tco.errors import Problem



def load_gpus(paths, problems):
    out = {}
    for p in paths:
        r = Rows(p, ("gpu", "memory_gb", "bandwidth_tbs", "bf16_dense_tflops", "source", "as_of"))
        for line, row in r.rows:
            mem, bw, bf16 = (r.num(line, row, k, lo=0, hi=1e5, lo_open=True)
                             for k in ("memory_gb", "bandwidth_tbs", "bf16_dense_tflops"))
            opt = [r.num(line, row, k, False, lo=0, hi=1e6, lo_open=True)
                   for k in ("fp8_dense_tflops", "tdp_w", "interconnect_gbs", "fp4_dense_tflops")]
            name = r.text(line, row, "gpu")
            if mem is None or bw is None or bf16 is None or not name:
                continue
            out[name] = Gpu(name, mem, bw, bf16, opt[0], opt[1], row.get("interconnect", "pcie") or "pcie",
                            opt[2], row["source"], row["as_of"], opt[3], (row.get("generation") or "").strip().lower())
        problems += r.problems
    return out



def load_models(paths, problems):
    out = {}
    for p in paths:
        r = Rows(p, ("model", "params_b", "active_params_b", "layers", "kv_heads", "head_dim", "source", "as_of"))
        for line, row in r.rows:
            given = [r.num(line, row, k, lo=0, hi=1e5, lo_open=True) for k in ("params_b", "active_params_b")]
            given += [r.num(line, row, k, lo=1, hi=1e5, integer=True) for k in ("layers", "kv_heads", "head_dim")]
            ctx = r.num(line, row, "max_context_tokens", False, lo=1, hi=1e9, integer=True)
            vals = all_given(given)
            if vals is None or not r.text(line, row, "model"):
                continue
            if vals[1] > vals[0]:
                r.problems.append(Problem(str(p), "active_params_b", f"active parameters ({vals[1]:g} B) exceed the "
                                          f"total ({vals[0]:g} B)", line))
                continue
            extra = [r.num(line, row, k, False, lo=0, hi=1e7, integer=True)
                     for k in ("hidden_size", "experts", "experts_per_token", "attention_heads")]
            attn = r.num(line, row, "attention_head_dim", False, lo=0, hi=1e5)
            mtp = r.num(line, row, "mtp_modules", False, lo=0, hi=16, integer=True)
            moe_layers = r.num(line, row, "moe_layers", False, lo=0, hi=vals[2] if vals else 1e5, integer=True)
            attn_params = r.num(line, row, "attention_params_b", False, lo=0, hi=vals[1])
            prompt_dim = r.num(line, row, "prompt_attention_head_dim", False, lo=0, hi=1e5)
            hidden, experts, per_token, heads = (int(x or 0) for x in extra)
            if any(x is None and (row.get(k) or "").strip() for x, k in zip(extra, ("hidden_size", "experts",
                                                                                  "experts_per_token"))):
                continue  # a value given but refused: its problem is recorded
            if experts and not 1 <= per_token <= experts or per_token and not experts:
                r.problems.append(Problem(str(p), "experts_per_token", f"a mixture of experts routes each token to "
                                          f"1 to `experts` experts; got experts = {experts}, experts_per_token = "
                                          f"{per_token} (both empty or 0 for a dense model)", line))
                continue
            vocab = _vocabulary(r, p, line, row, hidden, vals[1])
            if vocab is None:
                continue
            out[row["model"]] = ModelArch(row["model"], row.get("family", ""), vals[0], vals[1], int(vals[2]),
                                          int(vals[3]), int(vals[4]), int(ctx) if ctx else None,
                                          row["source"], row["as_of"], hidden, experts, per_token, heads,
                                          float(attn or 0.0), int(mtp or 0), int(moe_layers or 0), float(attn_params or 0.0),
                                          float(prompt_dim or 0.0), *vocab)
        problems += r.problems
    return out



TIED = {"": False, "false": False, "no": False, "0": False, "true": True, "yes": True, "1": True}
"""Values of models.csv ``tied_embeddings`` (config.json tie_word_embeddings; empty: not tied)."""


def _vocabulary(r: Rows, p, line: int, row: dict, hidden: int, active_b: float) -> tuple[int, bool] | None:
    """(vocab_size, tied_embeddings) of a models.csv row, (0, False) when not given; None with a problem recorded when
    the vocabulary is not a count, has no hidden size to make a matrix of, or its matrices outweigh the active weights."""
    vocab = r.num(line, row, "vocab_size", False, lo=0, hi=1e7, integer=True)
    tied_text = (row.get("tied_embeddings") or "").strip().lower()
    if vocab is None and (row.get("vocab_size") or "").strip() or tied_text not in TIED:
        if tied_text not in TIED:
            r.problems.append(Problem(str(p), "tied_embeddings", f"must be true or false (config.json "
                                      f"tie_word_embeddings), got {row.get('tied_embeddings')!r}", line))
        return None
    n, tied = int(vocab or 0), TIED[tied_text]
    if n and not hidden:
        r.problems.append(Problem(str(p), "hidden_size", "vocab_size needs hidden_size: the embedding and the head "
                                  "are vocab_size × hidden_size", line))
        return None
    if n * hidden * (1 if tied else 2) > active_b * 1e9:
        r.problems.append(Problem(str(p), "vocab_size", f"the embedding and head ({n} × {hidden} each) outweigh the "
                                  f"active parameters ({active_b:g} B)", line))
        return None
    return n, tied


def load_interconnect(paths, problems):
    out = {}
    for p in paths:
        if not p.exists():
            continue
        r = Rows(p, ("key", "scale_out_gbps", "status", "source", "as_of"))
        for line, row in r.rows:
            # 1-100,000 Gb/s, as a benchmark row's network_gbps: a negative one was costed (exit 0), 1e-300 gave 0 tokens/s
            gbps = r.num(line, row, "scale_out_gbps", False, lo=1.0, hi=100_000.0)
            out[row["key"]] = Interconnect(row["key"], gbps, row["status"], row["source"], row["as_of"])
        problems += r.problems
    return out
