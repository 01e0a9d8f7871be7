"""Whether a framework mixes the prompts into its decode steps, and what a cycle pays when it does not.

The replica rules (tco/sizing/replica_rules.py) give each decode cycle r = ISL/OSL prompt tokens per sequence. A
framework that *mixes* them into the decode steps (chunked prefill with decode in one batch: vLLM V1, TensorRT-LLM's
in-flight batching) runs the prompt tokens' GEMMs in the same pass as the decode tokens', so they share one weight
read: the GEMMs of a cycle cost

    max(W / BW, b · g)                                  g = (S/A + r) · 2 · N_a / peak per sequence

A framework that runs each prefill as a step of its own (vLLM 0.6 with multi-step scheduling, SGLang without
``--enable-mixed-chunk``) stalls every decode while the prompt runs alone: the decode step reads the weights for the
decode tokens only, and the prefill step's GEMMs add, with no weight read to hide under:

    max(W / BW, b · g · h) + b · g · (1 − h),          h = (S/A) / (S/A + r)

h is the decode tokens' share of the GEMM FLOPs (1/(1 + r) without speculative decoding). The prefill step is
compute-bound when its tokens pass the GEMM's ridge point, P · 2 · N_a / peak ≥ W / BW, i.e. P ≥ bytes per weight ·
peak / (2 · BW): for H100 in BF16 at the shipped shares 2 × 989e12 × 0.54 / (2 × 3.35e12 × 0.95) ≈ 170 tokens, below
one ShareGPT prompt (231 on average) and far below a prefill batch at load, so the prefill step costs its FLOPs,
b · r · 2 · N_a / peak per cycle. Its attention, collectives and per-sequence
costs are the cycle's other terms already (the rules charge the prompt's attention and all-reduces in every case);
what this leaves out is the prefill step's own fixed cost (t0 + layers · t_layer, once per prefill step), small
beside its GEMMs at these prompt lengths.

With the share m of the prompt that rides in the decode steps (1 mixed, 0 separate; PREFILL_MIX_SHARE) the share of
the GEMMs under the weight read is m + (1 − m) · h; m = 1 gives the mixed cycle bit for bit.

The mixed form spreads the prompts evenly over the cycles. A framework that mixes them whole (TensorRT-LLM without
its opt-in chunked context) or in chunks past the ridge point carries, when fewer than one prompt arrives per step
(n = b/OSL < 1), a compute-bound prompt in a share n of the steps, and saves only those steps' weight read:
docs/calibration.md (Frameworks, "Rows outside ±25 %": NIM03) measures that form, not applied here.
"""

from __future__ import annotations

from tco.expr import Expr, In, Row

PREFILL_MIX_SHARE: dict[str, float] = {
    "generic": 1.0, "trtllm": 1.0, "vllm": 1.0, "sglang": 0.0,
    "vllm-0.6": 0.0, "vllm-0.8": 1.0, "sglang-0.3": 0.0, "sglang-0.4": 0.0,
}
"""Share of the prompt tokens a framework (a scenario's ``[inference] framework``) or a version era (a benchmark row's
``framework_version``) runs inside its decode steps [-]: 1 mixed, 0 in prefill steps of their own.

* trtllm (and "generic", TensorRT-LLM's fit): in-flight batching, "sequences in the context phase can be processed
  together with sequences in the generation phase" (TensorRT-LLM docs, "Paged Attention, IFB, and Request Scheduling",
  nvidia.github.io/TensorRT-LLM/features/paged-attention-ifb-scheduler.html): 1.
* vllm-0.6: vLLM 0.6.0's V0 engine schedules a step of prefills or a step of decodes; chunked prefill, the mode that
  mixes them, was off below 32K context and refused with multi-step scheduling ("ValueError: Chunked prefill is not
  supported with multi-step (--num-scheduler-steps > 1)", vllm-project/vllm issue 8274, 2024-09-08, vLLM 0.6.0; the
  rows VLM01–06 ran ``--num-scheduler-steps 10``): 0.
* vllm-0.8 and "vllm" (V1, the default engine since 0.8): "removes the traditional distinction between 'prefill' and
  'decode' phases ... chunked-prefill scheduling is seamlessly implemented: with a fixed token budget" (vLLM blog,
  "vLLM V1: A Major Upgrade to vLLM's Core Architecture", 2025-01-27): 1.
* sglang-0.3, sglang-0.4 and "sglang": mixing is the opt-in ``--enable-mixed-chunk`` ("Enabling mixing prefill and
  decode in a batch when using chunked prefill", default False: sgl-project/sglang pull request 1013, "Mixed style of
  chunked prefill", 2024-08; issue 2273, 2024-11-30: "SGLang supports this mode by adding `--enable-mixed-chunk`"; still
  ``enable_mixed_chunk: bool = False`` in python/sglang/srt/server_args.py of 2026), and the rows SGL01–19 do not set
  it; a prefill batch (chunks of up to ``chunked_prefill_size`` tokens) runs alone while the decodes wait: 0."""


def prefill_mix_share(framework: str, version: str = "") -> float:
    """The share for a run's version era if the table has it, else for its framework (TensorRT-LLM's when unknown).

    >>> prefill_mix_share("vllm", "vllm-0.6"), prefill_mix_share("vllm"), prefill_mix_share("", "")
    (0.0, 1.0, 1.0)
    """
    return PREFILL_MIX_SHARE.get(version, PREFILL_MIX_SHARE.get(framework or "trtllm", 1.0))


def _h(ratio: Expr | float) -> Expr:
    """The decode tokens' share of a cycle's GEMM FLOPs [-] = (S/A) / (S/A + r)."""
    s_a = In("spec_tokens") / In("spec_accept")
    return s_a / (s_a + ratio)


def hidden_share() -> Expr:
    """Share of a cycle's GEMM FLOPs that run in the decode steps, under their weight read [-] = m + (1 − m) · h."""
    m = In("prefill_mix")
    return m + (1 - m) * _h(Row("ratio"))


def split(gemm: Expr, extra: Expr) -> tuple[Expr, Expr]:
    """A cycle's GEMM time per sequence g and its time per sequence outside the weight read p, as the batch rules take
    them: (g · share, p + g · (1 − share)), the share the ``hide`` row."""
    return gemm * Row("hide"), extra + gemm * (1 - Row("hide"))
