"""The prompts' GEMMs in a decode cycle: in the decode steps (mixed) or in prefill steps of their own.

The replica rules (tco/sizing/replica_rules.py) give each decode cycle r = ISL/OSL prompt tokens per sequence: per
cycle b / OSL requests finish and as many prompts of ISL tokens arrive. Write w = W / BW for the weight read,
g_d = b · (S/A) · 2 · N_a / peak for the decode tokens' GEMMs and g_p = b · r · 2 · N_a / peak for the prompt tokens'
(S/A = 1 without speculative decoding). Spreading every prompt evenly over the cycles would cost max(w, g_d + g_p),
the prompt hidden under the weight read; no framework does that. A prompt enters whole (TensorRT-LLM's in-flight
batching without chunked context, its default; a prefill batch of SGLang or vLLM 0.6) or in chunks of thousands of
tokens (vLLM V1's token budget), far past the GEMM's ridge point P = bytes per weight · peak / (2 · BW) (H100 in BF16
or H200 in FP8 at the shipped shares: 118–170 tokens), so the step that carries it runs at the compute roofline.

Per step A · b / OSL requests end and as many prompts arrive (A tokens kept per step, 1 without speculative
decoding), so a share n = min(1, A · b / OSL) of the steps carry one; per cycle (a generated token) its GEMMs are
g_p / n. Over the period of 1/n steps the cycle's GEMMs with their weight read cost, exactly for n ≤ 1:

* decode-only steps, a share 1 − n: max(w, g_d) each;
* a framework that runs the prompt **inside a decode step** (m = 1): that step costs max(w, g_d + g_p / n), so
  n · max(w, g_d + g_p/n) = max(n·w, n·g_d + g_p): compute-bound past the ridge point, it saves its weight read;
* a framework that runs **prefill steps of its own** (m = 0): every decode step max(w, g_d), and the prefill step
  max(w, g_p / n) once per 1/n steps, n · max(w, g_p/n) = max(n·w, g_p) (a prompt below the ridge point reads the
  weights for itself).

    gemm = (1 − m·n) · max(w, g_d) + m · max(n·w, n·g_d + g_p) + (1 − m) · max(n·w, g_p)

With n = 1 and m = 1 it is max(w, g_d + g_p), the evenly spread form; m = 1 is never slower than m = 0 (the
difference is n·max(w, g_d) + max(n·w, g_p) − max(n·w, n·g_d + g_p) ≥ 0). At n = 1 several prompts share a step: the
form holds with g_p the step's prompt GEMMs.

The batch's closed form (``limit``) solves the same cycle for b, exact while b ≤ OSL/A. Left out: the prefill step's
own fixed cost (t0 + layers · t_layer once per prefill step, m = 0) and a chunk smaller than the prompt (vLLM V1's
token budget, ``max_num_batched_tokens`` 8,192 on H100/H200 and 2,048 on smaller GPUs for its API server; TensorRT-LLM's
``max_num_tokens`` 8,192 with chunked context off by default): a prompt of k chunks makes k · n steps carry prompt
tokens, each saving a weight read; the prompt's attention, collectives and per-sequence costs are the cycle's other
terms.
"""

from __future__ import annotations

from tco.expr import IF, MAX, MIN, Expr, In, Row
from tco.sizing import vocab_rules as vocab

PREFILL_MIX_SHARE: dict[str, float] = {
    "generic": 1.0, "trtllm": 1.0, "vllm": 1.0, "sglang": 0.0,
    "vllm-0.6": 0.0, "vllm-0.8": 1.0, "sglang-0.3": 0.0, "sglang-0.4": 0.0,
}
"""Whether a framework (a scenario's ``[inference] framework``) or a version era (a benchmark row's ``framework_version``)
runs the prompts inside its decode steps, m [-]: 1 in the decode steps (the step that carries a prompt reads the
weights once for both), 0 in prefill steps of their own while the decodes wait.

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
  it; a prefill batch (chunks of up to ``chunked_prefill_size`` 8,192 tokens) runs alone while the decodes wait: 0."""


def prefill_mix_share(framework: str, version: str = "") -> float:
    """The share for a run's version era if the table has it, else for its framework (TensorRT-LLM's when unknown).

    >>> prefill_mix_share("vllm", "vllm-0.6"), prefill_mix_share("vllm"), prefill_mix_share("", "")
    (0.0, 1.0, 1.0)
    """
    return PREFILL_MIX_SHARE.get(version, PREFILL_MIX_SHARE.get(framework or "trtllm", 1.0))


def hidden_share() -> Expr:
    """The decode tokens' share of a cycle's GEMM FLOPs, h [-] = (S/A)·P_d / ((S/A)·P_d + r·P_p): g_d = gemm_s · h, g_p =
    gemm_s · (1 − h); P_d, P_p the parameters a decode and a prompt token multiply (tco.sizing.vocab_rules: the output
    head only for decode tokens), (S/A) / (S/A + r) when they are equal. The busiest expert-parallel GPU's extra
    expert work, (1 + r)·(imb − 1)·N_ae, is split the same way (its own split is (S/A) / (S/A + r): a few per cent of
    the head's share apart)."""
    s_a = In("spec_tokens") / In("spec_accept") * vocab.decode_params()
    return s_a / (s_a + Row("ratio") * vocab.prompt_params())


def prompt_steps(batch: Expr) -> Expr:
    """Share of the steps that carry a prompt (or a prefill step of its own), n [-] = min(1, A · b / OSL): a step
    ends A · b / OSL requests and as many prompts arrive."""
    return MIN(1, In("spec_accept") * batch / In("out_tokens"))


def _mean(w: Expr, g_d: Expr, g_p: Expr, n: Expr) -> Expr:
    """The GEMMs of a cycle with their weight read, averaged over the steps [s] = (1 − m·n) · max(w, g_d)
    + m · max(n·w, n·g_d + g_p) + (1 − m) · max(n·w, g_p): decode-only steps, steps that carry a prompt (g_p/n
    of prompt GEMMs each), prefill steps of their own."""
    m = In("prefill_mix")
    return (1 - m * n) * MAX(w, g_d) + m * MAX(n * w, n * g_d + g_p) + (1 - m) * MAX(n * w, g_p)


def cycle_at(batch: Expr, w: Expr, gemm: Expr, extra: Expr, a_0: Expr) -> Expr:
    """The cycle of the batch's closed form at ``batch`` [s]: the GEMMs (``_mean``, per-sequence GEMM time ``gemm``
    split by the ``hide`` row) plus batch · (s + p) + a_0."""
    n = prompt_steps(batch)
    return (_mean(w, batch * gemm * Row("hide"), batch * gemm * (1 - Row("hide")), n)
            + batch * (Row("slope") + extra) + a_0)


def limit(budget: Expr, w: Expr, a_0: Expr, gemm: Expr, extra: Expr) -> Expr:
    """Largest batch whose cycle ``cycle_at`` fits ``budget`` [seq], exact while b ≤ OSL/A (n < 1): the cycle is the
    largest of three forms (the module's docstring), each bounding b:

    * the weights alone: w + b · (s + p + (1 − m) · max(w/O, g_p)) + a_0, O = OSL/A;
    * every step compute-bound: b · (g_d + g_p + s + p + (1 − m) · max(0, w/O − g_p)) + a_0;
    * the steps that carry a prompt compute-bound, the others reading the weights, a quadratic in b:
      (m · g_d / O) · b² + (s + p + g_p + (1 − m) · max(0, w/O − g_p) − m · w/O) · b + w + a_0 − budget ≤ 0, its
      root 2c / (B + √(B² + 4·A·c)), c = budget − w − a_0 (the stable form; A = 0 at m = 0 gives c / B); past
      b = O (a prompt in every step) the first two hold alone.

    g_d, g_p are per sequence (gemm · h, gemm · (1 − h)), s the ``slope`` row, p ``extra``."""
    g_d, g_p = gemm * Row("hide"), gemm * (1 - Row("hide"))
    m, o = In("prefill_mix"), In("out_tokens") / In("spec_accept")
    s = Row("slope") + extra
    lin = s + g_p + (1 - m) * MAX(0, w / o - g_p)
    c = budget - w - a_0
    weights = c / (s + (1 - m) * MAX(w / o, g_p))
    qa, qb = m * g_d / o, lin - m * w / o
    quad = 2 * MAX(c, 0) / MAX(qb + MAX(qb * qb + 4 * qa * MAX(c, 0), 0) ** 0.5, 1e-30)
    return MIN(weights, IF(quad <= o, quad, weights), (budget - a_0) / (g_d + lin))


def _parts(w: Expr) -> tuple[Expr, Expr, Expr, Expr]:
    """(g_d, g_p, n, m) of the cycle at the chosen batch."""
    return (Row("gemm_s") * Row("hide"), Row("gemm_s") * (1 - Row("hide")), prompt_steps(Row("batch")),
            In("prefill_mix"))


def gemm_time(w: Expr) -> Expr:
    """The GEMMs of a cycle with their weight read at the chosen batch [s] (``_mean``)."""
    g_d, g_p, n, _ = _parts(w)
    return _mean(w, g_d, g_p, n)


def gemm_weights(w: Expr) -> Expr:
    """The part of ``gemm_time`` that is reading the weights [s]: each kind of step's weight read when it outlasts
    that step's GEMMs, else 0 (the rest of ``gemm_time`` is compute)."""
    g_d, g_p, n, m = _parts(w)
    return ((1 - m * n) * IF(w >= g_d, w, 0) + m * IF(n * w >= n * g_d + g_p, n * w, 0)
            + (1 - m) * IF(n * w >= g_p, n * w, 0))
