"""Each part of a decode cycle at the peak and the bytes of the number format it runs in.

Three parts apart from the weights' one precision (docs/calibration.md, "Each part of the cycle at its own format's
peak"): the attention's products at the KV cache's format (below); the layers a checkpoint keeps wider than its weights
(ATTENTION_KEPT: their bytes, W = N · B + N_w · (B_w − B), and their GEMMs at their peak, N_a' = N_a + N_w · (peak /
peak_w − 1)); and a prompt's attention width where it differs from the decode's (DeepSeek's MLA, non-absorbed for
prompts: ``prompt_attn_dim``).

The replica rules (tco/sizing/replica_rules.py) charge the weight GEMMs at the dense peak of the model's weight
precision (``peak_tflops``), times r_4 = 0.78 for 4-bit weights on FP4 tensor cores, whose GEMMs reach less of their
peak than FP8 ones do of theirs (``gemm_peak``, tco.constants.FP4_GEMM_SHARE). The attention's score and value
products (QKᵀ and P·V over the KV cache, and a prompt's attention over itself) are not weight GEMMs: their operands are
the query and the cached keys and values, so they run in the KV cache's format, whatever the weights' (a BF16 KV cache
beside FP8 weights runs its attention at the BF16 peak, half the FP8 one). Their time is FLOPs / (peak_attn · η_c ·
GPUs), the compute of the replica scaled by peak_attn / peak:

    attention time = attention FLOPs / (fl · peak_attn / peak)

with the same fitted η_c (one share of peak for matrix work, whatever the format); a prompt's attention FLOPs are
first divided by r_a, its kernels' share of the peak over the GEMMs' (``prompt_attention``). The attention's format
is the KV cache's (ATTENTION_FORMAT), its peak the GPU's in that format (tco.sizing.peak_tflops: the next wider
format the GPU has when it lacks it, as for the weights).

>>> from tco.expr import Const, Env
>>> env = Env({"peak_tflops": 1979.0, "attn_tflops": 989.5, "fp4_gemm": 0.0}, 1)
>>> float(attention_compute(Const(8 * 1979e12 * 0.5)).np(env)) / 1e12     # 8 H100 at η_c 0.5, BF16 KV, FP8 weights
3958.0
"""

from __future__ import annotations

from tco.constants import FP4_GEMM_SHARE, PROMPT_ATTN_SHARE
from tco.expr import IF, Expr, In, Row

INPUTS: dict[str, str] = {
    "attn_tflops": "{p}inf_attn_tflops", "wide_params": "(in_wide_params_b*1000000000)", "wide_bytes": "in_wide_bytes",
    "wide_tflops": "{p}inf_wide_tflops", "attn_dim_prompt": "in_attn_dim_prompt", "fp4_gemm": "{p}inf_fp4_gemm",
}
"""The inputs these rules add to tco.sizing.replica_rules.INPUTS (name → the workbook's defined name)."""

ATTENTION_FORMAT: dict[str, str] = {"bf16": "bf16", "fp8": "fp8", "fp4": "fp8"}
"""Number format the attention's matrix products run in, by KV-cache format (scenario ``model.kv_precision``, a
benchmark row's ``kv_precision``):

* bf16 → bf16: the attention kernels read 16-bit keys and values and multiply at the 16-bit tensor rate; FP8 weights do
  not change that (TensorRT-LLM's blog "Pushing Latency Boundaries: Optimizing DeepSeek-R1 Performance on NVIDIA B200
  GPUs", NVIDIA/TensorRT-LLM docs/source/blogs/tech_blog/blog1_…md@56851033, "Precision Strategy": with the NVFP4
  checkpoint "TensorRT LLM already supports FP8 Attention while for this latency scenario low-precision attention
  computation doesn't help with performance so we choose to use bf16 precision for the Attention Modules").
* fp8 → fp8: an FP8 KV cache runs FP8 attention (the same blog links TensorRT-LLM's "FP8 KV cache and MLA", where the
  FP8 cache and FP8 attention kernels go together).
* fp4 → fp8: an NVFP4 KV cache is stored in 4 bits but "dequantisation back to FP8 is required before each attention
  computation" (NVIDIA Technical Blog, E. Alvarez, "Optimizing Inference for Long Context and Large Batch Sizes with
  NVFP4 KV Cache", 2025-12-08, as summarised at personal-wiki-ddd.pages.dev; the blog itself not read here): FP8.
"""


ATTENTION_KEPT: dict[tuple[str, str], str] = {("deepseek", "fp4"): "bf16"}
"""Format a checkpoint keeps its attention projections in when it is wider than the other weights, by (models.csv
``family``, weight precision); the parameters are models.csv ``attention_params_b``:

* (deepseek, fp4) → bf16: NVIDIA's NVFP4 checkpoints of DeepSeek-V3/R1 (nvidia/DeepSeek-R1-FP4, -0528-FP4) come from
  TensorRT Model Optimizer's DeepSeek recipe, which turns the quantizers of every attention module off
  (``mtq_cfg["quant_cfg"]["*attn*"] = {"enable": False}`` unless ``--mla_quant``; NVIDIA/TensorRT-Model-Optimizer
  examples/deepseek/ptq.py@103b1bb1) and, converting the FP8 original, dequantizes every FP8 weight to BF16 and
  re-quantizes to NVFP4 only the layers with a calibrated quantizer (examples/deepseek/quantize_to_nvfp4.py@1ef1d72a,
  ``convert_fp8_ckpt_to_nvfp4``): the MLA projections stay BF16, the dense FFNs, shared and routed experts NVFP4. The
  TensorRT-LLM team's B200 blog says the same of the deployed model: "64x Attention Modules bf16, 3x Dense FFN Layers
  nvfp4, 58x MoE FFN Layers nvfp4" (docs/source/blogs/tech_blog/blog1_…B200_GPUs.md@56851033, "Precision Strategy").

Not listed, so at the weights' precision: DeepSeek's own FP8 checkpoint, whose attention projections are FP8 block-scaled
like its experts (config.json ``quantization_config`` fp8, weight_block_size [128, 128]), and the FP8 dense checkpoints
(every linear layer of the transformer blocks FP8). The output head (lm_head) and the embedding stay BF16 in all of
them: tco.sizing.vocab_rules counts them apart."""


def kept_wide(family: str, precision: str, attention_params_b: float) -> tuple[float, str]:
    """Parameters a checkpoint keeps wider than its weights and their format [-]: (attention projections, format) where
    ATTENTION_KEPT lists the pair and the model gives them, else (0, '').

    >>> kept_wide("deepseek", "fp4", 11.413), kept_wide("deepseek", "fp8", 11.413), kept_wide("llama-3.1", "fp4", 0.0)
    ((11413000000.0, 'bf16'), (0.0, ''), (0.0, ''))
    """
    fmt = ATTENTION_KEPT.get((family, precision), "")
    return (attention_params_b * 1e9, fmt) if fmt and attention_params_b > 0 else (0.0, "")


def weight_bytes() -> Expr:
    """Bytes of the model's weights [B] = N · bytes + N_w · (bytes_w − bytes): the N_w parameters kept in a wider
    format take its bytes (the attention projections are shared weights, on every GPU under expert parallel)."""
    return In("params") * In("weight_bytes") + In("wide_params") * (In("wide_bytes") - In("weight_bytes"))


def gemm_share() -> Expr:
    """Share of the weights' format's dense peak their GEMMs reach over the share FP8 GEMMs reach of theirs [-]: r_4 =
    0.78 (tco.constants.FP4_GEMM_SHARE) where 4-bit weights run on FP4 tensor cores (``fp4_gemm``: B200's NVFP4 peak),
    else 1 (FP4 weights on a GPU without an FP4 peak run at the next wider format's, not measured here).

    The fitted η_c is one share of peak for the weight GEMMs, set by BF16 and FP8 rows; NVIDIA's AIConfigurator tables
    measure B200's NVFP4 GEMMs at 0.78 of the FP8 GEMMs' share at the same shapes (median of 96 pairs), so an NVFP4
    GEMM runs 2 · 0.78 = 1.56× an FP8 one, not the 2× of the peaks.

    >>> from tco.expr import Env
    >>> [float(gemm_share().np(Env({"fp4_gemm": f}, 1))) for f in (1.0, 0.0)]
    [0.78, 1.0]
    """
    return IF(In("fp4_gemm") > 0, FP4_GEMM_SHARE, 1)


def gemm_peak() -> Expr:
    """Peak the weights' GEMMs are charged at [TFLOPS] = peak · r_4 (``gemm_share``): B200's NVFP4 9,000 · 0.78 = 7,020;
    the replica's ``fl`` is GPUs · peak' · η_c, and the parts run in another format (the attention at peak_attn, the
    layers kept wider at peak_w, the head at peak_v) keep their own peak through their ratio to peak'.

    >>> from tco.expr import Env
    >>> float(gemm_peak().np(Env({"fp4_gemm": 1.0, "peak_tflops": 9000.0}, 1)))
    7020.0
    """
    return In("peak_tflops") * gemm_share()


def gemm_params() -> Expr:
    """Active parameters as the GEMMs' time counts them at the weights' peak [-] = N_a + N_w · (peak' / peak_w − 1): the
    N_w kept wider run at their own format's peak (a BF16 projection at 0.78 of a quarter of B200's NVFP4 rate counts
    4 · 0.78 = 3.12×; peak' the weights' GEMM peak, ``gemm_peak``)."""
    return In("active_params") + In("wide_params") * (gemm_peak() / In("wide_tflops") - 1)


def attention_format(kv_precision: str) -> str:
    """The format the attention's products run in for a KV-cache format (ATTENTION_FORMAT; the KV format if unlisted).

    >>> attention_format("bf16"), attention_format("fp8"), attention_format("fp4")
    ('bf16', 'fp8', 'fp8')
    """
    return ATTENTION_FORMAT.get(kv_precision, kv_precision)


def attention_compute(fl: Expr) -> Expr:
    """Effective compute of the replica for the attention's products [FLOP/s] = fl · peak_attn / peak': the GEMMs'
    effective compute `fl` (GPUs · peak' · η_c) at the attention format's peak instead of the weights' (``gemm_peak``)."""
    return fl * In("attn_tflops") / gemm_peak()


def attention_time(flops: Expr) -> Expr:
    """Time of `flops` attention FLOPs on the whole replica [s] = FLOPs / (fl · peak_attn / peak), fl the ``fl`` row."""
    return flops / attention_compute(Row("fl"))


def prompt_attn_dim() -> Expr:
    """Mean width of the score and value products per head for a prompt's tokens [-]: models.csv
    ``prompt_attention_head_dim`` where given (DeepSeek's MLA, run non-absorbed for prompts: (192 + 128)/2 = 160), else
    the decode width ``attn_dim``."""
    return IF(In("attn_dim_prompt") > 0, In("attn_dim_prompt"), In("attn_dim"))


def prompt_attention(flops: Expr) -> Expr:
    """A prompt's attention FLOPs as the GEMMs' share of peak counts them [FLOP] = FLOPs / r_a (PROMPT_ATTN_SHARE).

    The replica's one fitted η_c is the GEMMs' share; a prompt's causal attention kernels reach r_a = 0.89 of it at
    16,384 tokens (tco.constants.PROMPT_ATTN_SHARE: NVIDIA's AIConfigurator tables, median of the SGLang, vLLM and
    TensorRT-LLM kernels on H100/H200), so its FLOPs take 1/r_a as long: 8.4e9 FLOPs of a 32,000-token prompt's token on
    Llama 3.1 8B count 8.4e9 / 0.89 = 9.438e9. The decode's attention over the cache is not scaled (its GQA products are
    bound by the KV read, charged apart; no measured ratio for MLA decode here).

    >>> from tco.expr import Const, Env
    >>> round(float(prompt_attention(Const(8.4e9)).np(Env({}, 1))) / 1e9, 3)
    9.438
    """
    return flops / PROMPT_ATTN_SHARE
