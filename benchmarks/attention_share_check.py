"""A prompt's attention kernels against the GEMMs, from NVIDIA AIConfigurator's measured tables: the source of
tco.constants.PROMPT_ATTN_SHARE (r_a; docs/calibration.md, "Rows outside ±25 %", SGL19). Never read at runtime.

For H100 and H200 SXM under SGLang 0.5.14 (FA3), vLLM 0.24.0 (FA3) and TensorRT-LLM 1.3.0rc20, and three layer
shards (Llama 3.1 8B; QwQ-32B at TP2; Llama 3.1 70B at TP4): the causal BF16 context attention of one prompt of
4,096, 8,192 and 16,384 tokens (``context_attention_perf``: batch 1, BF16 query and KV, no window), its share of
the 989.5 TFLOPS BF16 peak with the causal FLOPs 2 · heads · 128 · s², over the share of the layer's four BF16
GEMMs at m = 8,192 tokens (``gemm_perf``; K × N interpolated off the grid), and the medians of that ratio.

    pip download aiconfigurator-core==0.12.0 --no-deps -d /tmp/aic   # Apache-2.0; needs pyarrow (the sweep extra)
    python benchmarks/attention_share_check.py /tmp/aic/aiconfigurator_core-0.12.0-*.whl
"""

from __future__ import annotations

import io
import statistics
import sys
import zipfile

PEAK_BF16 = 989.5  # TFLOPS, H100/H200 SXM dense BF16 (tco/catalog/data/gpus.csv)
ROOT = "aiconfigurator_core/systems/data/"
SHARDS = {"8B": (4096, 32, 8, 14336, 1), "QwQ-32B TP2": (5120, 40, 8, 27648, 2), "70B TP4": (8192, 64, 8, 28672, 4)}
"""hidden, query heads, KV heads, FFN width, TP (head dim 128): models.csv llama-3.1-8b, qwq-32b, llama-3.1-70b."""
STACKS = {"sglang": ("sglang/0.5.14", "fa3", "sglang_torch_linear"),
          "vllm": ("vllm/0.24.0", "vllm_flash_attn_fa3", "torch.nn.functional.linear"),
          "trtllm": ("trtllm/1.3.0rc20", "torch_flow", "torch_flow")}
LENGTHS = (4096, 8192, 16384)
M = 8192


def _table(wheel: zipfile.ZipFile, path: str) -> dict:
    import pyarrow.parquet as pq

    return pq.read_table(io.BytesIO(wheel.read(ROOT + path))).to_pydict()


def _lerp(x: float, xs: dict) -> float:
    if x in xs:
        return xs[x]
    lo, hi = max(v for v in xs if v < x), min(v for v in xs if v > x)
    return xs[lo] + (xs[hi] - xs[lo]) * (x - lo) / (hi - lo)


def gemm_share(d: dict, kernel: str, hidden: int, heads: int, kv: int, ffn: int, tp: int) -> tuple[float, float]:
    """The layer's four BF16 GEMMs at m = 8,192 [share of peak, seconds]: QKV, O, gate+up, down."""
    rows = [i for i in range(len(d["m"])) if d["gemm_dtype"][i] == "bfloat16" and d["kernel_source"][i] == kernel
            and d["m"][i] == M]
    by_k: dict[int, dict[int, float]] = {}
    for i in rows:
        by_k.setdefault(d["k"][i], {})[d["n"][i]] = d["latency"][i] * 1e-3
    shapes = [((heads + 2 * kv) * 128 // tp, hidden), (hidden, heads * 128 // tp), (2 * ffn // tp, hidden),
              (hidden, ffn // tp)]
    secs = sum(_lerp(k, {kk: _lerp(n, ns) for kk, ns in by_k.items()}) for n, k in shapes)
    return sum(2 * M * n * k for n, k in shapes) / secs / 1e12 / PEAK_BF16, secs


def attention_share(d: dict, kernel: str, heads: int, kv: int, isl: int) -> tuple[float, float]:
    """Causal BF16 context attention of one isl-token prompt [share of peak, seconds]."""
    hit = [d["latency"][i] * 1e-3 for i in range(len(d["latency"])) if d["kernel_source"][i] == kernel
           and d["num_heads"][i] == heads and d["num_key_value_heads"][i] == kv and d["head_dim"][i] == 128
           and d["isl"][i] == isl and d["batch_size"][i] == 1 and d["attn_dtype"][i] == "bfloat16"
           and d["kv_cache_dtype"][i] == "bfloat16" and d["window_size"][i] == 0]
    if len(hit) != 1:
        raise SystemExit(f"{kernel}: {len(hit)} rows for {heads}/{kv} heads at {isl} tokens")
    return 2 * heads * 128 * isl * isl / hit[0] / 1e12 / PEAK_BF16, hit[0]


def main(wheel_path: str) -> None:
    from tco.constants import PROMPT_ATTN_SHARE

    ratios: dict[int, list[float]] = {s: [] for s in LENGTHS}
    with zipfile.ZipFile(wheel_path) as wheel:
        for gpu in ("h100_sxm", "h200_sxm"):
            for stack, (version, attn_kernel, gemm_kernel) in STACKS.items():
                g = _table(wheel, f"{gpu}/gemm/{version}/gemm_perf.parquet")
                a = _table(wheel, f"{gpu}/attention/{version}/context_attention_perf.parquet")
                for name, (hidden, heads, kv, ffn, tp) in SHARDS.items():
                    gs, gsec = gemm_share(g, gemm_kernel, hidden, heads, kv, ffn, tp)
                    cells = []
                    for s in LENGTHS:
                        share, sec = attention_share(a, attn_kernel, heads // tp, kv // tp, s)
                        ratios[s].append(share / gs)
                        cells.append(f"{s}: {sec * 1e6:,.0f} µs {share:.3f} r {share / gs:.2f}")
                    print(f"{gpu} {stack} {version} {name}: GEMMs {gsec * 1e6:,.0f} µs {gs:.3f} | " + " | ".join(cells))
    for s, r in ratios.items():
        print(f"r at {s:,} tokens: {min(r):.2f}-{max(r):.2f}, median {statistics.median(r):.2f} ({len(r)} pairs)")
    print(f"tco.constants.PROMPT_ATTN_SHARE = {PROMPT_ATTN_SHARE.value}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])
