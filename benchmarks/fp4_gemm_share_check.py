"""NVFP4 GEMMs against FP8 GEMMs on B200, from NVIDIA AIConfigurator's measured tables: the source of
tco.constants.FP4_GEMM_SHARE (r_4; docs/calibration.md, "FP4 GEMMs on B200", beside MLP04–MLP06). Never read at runtime.

For B200 SXM under TensorRT-LLM 1.3.0rc20, SGLang 0.5.14 and vLLM 0.24.0 (H200 SXM printed for contrast, FP8 only:
Hopper has no FP4 tensor cores), the four GEMMs of a Llama 3.1 405B layer shard at TP4 and TP8 (hidden 16,384, FFN
53,248, 128 query and 8 KV heads of 128: QKV N = (128 + 16) · 128 / TP, K = 16,384; O N = 16,384, K = 16,384 / TP;
gate+up N = 2 · 53,248 / TP, K = 16,384; down N = 16,384, K = 53,248 / TP) at m = 1,024, 2,048, 4,096 and 8,192 tokens
(``gemm_perf``; K × N interpolated off the grid as benchmarks/attention_share_check.py does): each GEMM's achieved
TFLOPS 2 · m · N · K / latency as a share of its format's dense peak in tco/catalog/data/gpus.csv (B200: NVFP4 9,000,
FP8 4,500, BF16 2,250; H200: FP8 1,979, BF16 989.5), and the ratio r_4 = share(nvfp4) / share(fp8, per-tensor
scaled) of every (stack, TP, GEMM, m) pair, with its median.

    pip download aiconfigurator-core==0.12.0 --no-deps -d /tmp/aic   # Apache-2.0; needs pyarrow (the sweep extra)
    python benchmarks/fp4_gemm_share_check.py /tmp/aic/aiconfigurator_core-0.12.0-*.whl
"""

from __future__ import annotations

import statistics
import sys
import zipfile

from attention_share_check import _lerp, _table

PEAKS = {"b200_sxm": {"nvfp4": 9000.0, "fp8": 4500.0, "bfloat16": 2250.0}, "h200_sxm": {"fp8": 1979.0, "bfloat16": 989.5}}
"""Dense TFLOPS by format (tco/catalog/data/gpus.csv fp4_dense_tflops, fp8_dense_tflops, bf16_dense_tflops)."""
STACKS = ("trtllm/1.3.0rc20", "sglang/0.5.14", "vllm/0.24.0")
HIDDEN, FFN, HEADS, KV = 16384, 53248, 128, 8
MS = (1024, 2048, 4096, 8192)


def shapes(tp: int) -> dict[str, tuple[int, int]]:
    """(N, K) of the four GEMMs of one 405B layer shard at tensor parallel `tp`."""
    return {"qkv": ((HEADS + 2 * KV) * 128 // tp, HIDDEN), "o": (HIDDEN, HIDDEN // tp),
            "gate+up": (2 * FFN // tp, HIDDEN), "down": (HIDDEN, FFN // tp)}


def shares(d: dict, dtype: str, peak: float, tp: int) -> dict[tuple[str, int], float]:
    """Share of `peak` of each (GEMM, m) at `tp` for one format [-] (the fastest kernel where a stack lists two)."""
    best: dict[tuple[int, int, int], float] = {}
    for i in range(len(d["m"])):
        if d["gemm_dtype"][i] == dtype and d["m"][i] in MS:
            key = (d["m"][i], d["k"][i], d["n"][i])
            best[key] = min(best.get(key, float("inf")), d["latency"][i] * 1e-3)
    out = {}
    for m in MS:
        by_k: dict[int, dict[int, float]] = {}
        for (mm, k, n), s in best.items():
            if mm == m:
                by_k.setdefault(k, {})[n] = s
        for name, (n, k) in shapes(tp).items():
            secs = _lerp(k, {kk: _lerp(n, ns) for kk, ns in by_k.items()})
            out[(name, m)] = 2 * m * n * k / secs / 1e12 / peak
    return out


def main(wheel_path: str) -> None:
    from tco.constants import FP4_GEMM_SHARE

    ratios: list[float] = []
    with zipfile.ZipFile(wheel_path) as wheel:
        for gpu, peaks in PEAKS.items():
            for stack in STACKS:
                d = _table(wheel, f"{gpu}/gemm/{stack}/gemm_perf.parquet")
                for tp in (4, 8):
                    got = {fmt: shares(d, fmt, peak, tp) for fmt, peak in peaks.items()}
                    line = " | ".join(f"{fmt} {statistics.median(v.values()):.3f}" for fmt, v in got.items())
                    if "nvfp4" in got:
                        r = [got["nvfp4"][key] / got["fp8"][key] for key in got["fp8"]]
                        ratios += r
                        line += f" | r_4 {min(r):.2f}-{max(r):.2f}, median {statistics.median(r):.2f}"
                    print(f"{gpu} {stack} TP{tp} median share of peak: {line}")
    print(f"r_4 over {len(ratios)} pairs: median {statistics.median(ratios):.3f}, quartiles "
          + ", ".join(f"{q:.3f}" for q in statistics.quantiles(ratios, n=4)))
    print(f"tco.constants.FP4_GEMM_SHARE = {FP4_GEMM_SHARE.value}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])
