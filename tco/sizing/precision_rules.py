"""Each part of a decode cycle at the peak of the number format it runs in.

The replica rules (tco/sizing/replica_rules.py) charge the weight GEMMs at the dense peak of the model's weight
precision (``peak_tflops``). The attention's score and value products (QKᵀ and P·V over the KV cache, and a prompt's
attention over itself) are not weight GEMMs: their operands are the query and the cached keys and values, so they run
in the KV cache's format, whatever the weights' (a BF16 KV cache beside FP8 weights runs its attention at the BF16
peak, half the FP8 one). Their time is FLOPs / (peak_attn · η_c · GPUs), the compute of the replica scaled by
peak_attn / peak:

    attention time = attention FLOPs / (fl · peak_attn / peak)

with the same fitted η_c (one share of peak for matrix work, whatever the format). The attention's format is the KV
cache's (ATTENTION_FORMAT), its peak the GPU's in that format (tco.sizing.peak_tflops: the next wider format the GPU
has when it lacks it, as for the weights).

>>> from tco.expr import Const, Env
>>> env = Env({"peak_tflops": 1979.0, "attn_tflops": 989.5}, 1)
>>> float(attention_compute(Const(8 * 1979e12 * 0.5)).np(env)) / 1e12     # 8 H100 at η_c 0.5, BF16 KV, FP8 weights
3958.0
"""

from __future__ import annotations

from tco.expr import Expr, In, Row

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


def attention_format(kv_precision: str) -> str:
    """The format the attention's products run in for a KV-cache format (ATTENTION_FORMAT; the KV format if unlisted).

    >>> attention_format("bf16"), attention_format("fp8"), attention_format("fp4")
    ('bf16', 'fp8', 'fp8')
    """
    return ATTENTION_FORMAT.get(kv_precision, kv_precision)


def attention_compute(fl: Expr) -> Expr:
    """Effective compute of the replica for the attention's products [FLOP/s] = fl · peak_attn / peak: the GEMMs'
    effective compute `fl` (GPUs · peak · η_c) at the attention format's peak instead of the weights'."""
    return fl * In("attn_tflops") / In("peak_tflops")


def attention_time(flops: Expr) -> Expr:
    """Time of `flops` attention FLOPs on the whole replica [s] = FLOPs / (fl · peak_attn / peak), fl the ``fl`` row."""
    return flops / attention_compute(Row("fl"))
