"""Named constants of the model, each with its unit and source: the engine's rules use them as numbers, the
workbook writes them once in a constants block and refers to them by name (``c_s_per_h``), never as a literal
inside a formula.

>>> S_PER_H.value, S_PER_H.xl(None)
(3600.0, 'c_s_per_h')
"""

from __future__ import annotations

from dataclasses import dataclass

from tco.expr import Const


@dataclass(frozen=True, eq=False)
class Named(Const):
    """A constant with a name: numpy reads its value, the workbook its defined name."""

    name: str = ""
    unit: str = ""
    source: str = ""

    def xl(self, ctx) -> str:
        return self.name


S_PER_H = Named(3600.0, "c_s_per_h", "s/h", "definition (SI)")
H_PER_DAY = Named(24.0, "c_h_per_day", "h/d", "definition")
DAYS_PER_WEEK = Named(7.0, "c_days_per_week", "d/week", "definition")
MONTHS_PER_YEAR = Named(12.0, "c_months_per_year", "months/year", "definition")
HOURS_PER_MONTH = Named(730.0, "c_h_per_month", "h/month",
                        "8,760 h a year / 12: the hours a monthly price stands for, as the clouds count them (AWS's year of 8,760 h "
                        "= 12 × 730)")
BYTES_PER_KB = Named(1000.0, "c_bytes_per_kb", "B/kB", "SI prefix kilo = 10³ (as providers bill traffic)")
BYTES_PER_GB = Named(1e9, "c_bytes_per_gb", "B/GB", "SI prefix giga = 10⁹ (as providers bill traffic and memory)")
PER_BILLION = Named(1e9, "c_per_billion", "1/10⁹", "parameters are given in billions (10⁹)")
FLOPS_PER_TFLOPS = Named(1e12, "c_flop_per_tflop", "FLOP/TFLOP", "SI prefix tera = 10¹²")
TRAIN_FLOPS = Named(6.0, "c_train_flops_per_param_token", "FLOP/(param·token)",
                    "training compute C ≈ 6·N·D (Kaplan et al. 2020, Scaling Laws for Neural Language Models, §2.1)")
TRAIN_ATTN_FLOPS = Named(6.0, "c_train_attn_flops", "FLOP/(layer·token·position)",
                         "causal self-attention, forward and backward, per layer, token, attended position and unit "
                         "of query width: 2 products (Q·Kᵀ, scores·V) × 2 FLOP per multiply-add × 3 (forward, two "
                         "backward) / 2 (the causal mask leaves half the positions): Narayanan et al. 2021 (Megatron-LM, "
                         "arXiv:2104.04473, appendix) count 12·l·h·s unmasked; Megatron-Bridge's flop_utils halves it")
ADAM_BYTES = Named(16.0, "c_adam_bytes_per_param", "B/param",
                   "mixed-precision Adam: 2 + 2 + 12 = 16 B per parameter (Rajbhandari et al. 2020, ZeRO, §3.1)")
FROZEN_BYTES = Named(2.0, "c_frozen_bytes_per_param", "B/param", "frozen LoRA base weights in bf16: 2 B per parameter")
BELOW_ONE = Named(1e-9, "c_below_one", "replicas",
                  "tolerance under a whole replica: a load of 2.000000001 replicas needs 2, not 3 (tco.costs.fleet_rules)")
TOL_BRL = Named(0.01, "c_tol_brl", "R$", "tolerance of the checks on amounts: one centavo")
EPS = Named(1e-6, "c_eps", "-", "tolerance of the checks on counts, rates and capacities")
PROMPT_ATTN_SHARE = Named(0.89, "c_prompt_attn_share", "-",
                          "a prompt's attention kernels' share of the BF16 peak over the GEMMs' share (r_a): median of 18 "
                          "pairs, NVIDIA AIConfigurator (PyPI aiconfigurator-core 0.12.0, Apache-2.0) tables measured on H100 "
                          "and H200 SXM under SGLang 0.5.14 (FA3), vLLM 0.24.0 (FA3) and TensorRT-LLM 1.3.0rc20: causal "
                          "context attention of one 16,384-token BF16 prompt (context_attention_perf) against the four BF16 "
                          "GEMMs of a layer at 8,192 tokens (gemm_perf), Llama 3.1 8B, QwQ-32B TP2 and 70B TP4 shards; "
                          "FA3 0.87-0.99, TensorRT-LLM 0.67-0.71 (docs/calibration.md, SGL19)")
FP4_GEMM_SHARE = Named(0.78, "c_fp4_gemm_share", "-",
                       "an NVFP4 GEMM's share of the FP4 dense peak over an FP8 GEMM's share of the FP8 peak (r_4): "
                       "median of 96 pairs, NVIDIA AIConfigurator (PyPI aiconfigurator-core 0.12.0, Apache-2.0) "
                       "gemm_perf tables measured on B200 SXM under TensorRT-LLM 1.3.0rc20 (0.72-0.74 by TP), SGLang "
                       "0.5.14 (0.77-0.90) and vLLM 0.24.0 (0.80-0.91): nvfp4 against per-tensor fp8 at the Llama 3.1 "
                       "405B TP4 and TP8 shard shapes (QKV, O, gate+up, down; K x N interpolated off the grid) and m "
                       "1,024-8,192, against gpus.csv's dense peaks 9,000 and 4,500 TFLOPS "
                       "(benchmarks/fp4_gemm_share_check.py; docs/calibration.md, MLP04-MLP06); applied where 4-bit "
                       "weights run on FP4 tensor cores")
INPUT_CHANGED = Named(1e-12, "c_input_changed", "-", "relative difference at which an input counts as edited since the "
                      "run (a spreadsheet may read a 17-digit value back to 15 digits: not an edit)")

BYTES_PER_PARAM: dict[str, float] = {"bf16": 2.0, "fp8": 1.0, "fp4": 0.5625}
"""Bytes a weight or a KV-cache value takes in each number format (``tco.domain.Precision``) [B]: bf16 16 bits, fp8 8
bits; fp4 is NVFP4, 4-bit E2M1 values with one shared FP8 (E4M3) scale per 16-value block, 4 + 8/16 = 4.5 bits =
0.5625 B (NVIDIA Technical Blog, "Introducing NVFP4 for Efficient and Accurate Low-Precision Inference", 2025-06-24,
Table 1; the per-tensor FP32 scale is negligible). MXFP4 (OCP Microscaling Formats v1.0: 32-value blocks, an 8-bit
power-of-two scale) takes 4.25 bits, 0.53125 B: 0.5625 covers both. The serving replica rules (tco.sizing.replica)
read weight and KV bytes from this table."""

ALL = (S_PER_H, H_PER_DAY, DAYS_PER_WEEK, MONTHS_PER_YEAR, BYTES_PER_KB, BYTES_PER_GB, PER_BILLION, FLOPS_PER_TFLOPS,
       TRAIN_FLOPS, TRAIN_ATTN_FLOPS, ADAM_BYTES, FROZEN_BYTES, BELOW_ONE, TOL_BRL, EPS, HOURS_PER_MONTH, INPUT_CHANGED,
       PROMPT_ATTN_SHARE, FP4_GEMM_SHARE)
"""Every named constant, in the order the workbook lists them."""
