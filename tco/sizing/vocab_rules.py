"""The vocabulary matrices apart from the model's body: the input embedding and the output head (lm_head).

``params_b`` counts every weight, and the replica rules (tco/sizing/replica_rules.py) read most of them every decode step
at the model's precision. Two matrices of vocab V × hidden d are not like the rest (docs/calibration.md, "The
embedding and the output head"):

* the **input embedding** is held in memory, but a step only gathers the rows of its tokens: it is neither read whole
  nor multiplied in a GEMM;
* the **output head** (unless tied to the embedding, then it is that one matrix) is read every step and is a GEMM of
  2 · V · d FLOPs for each position whose logits are computed: each sequence's decode token (and each verified draft
  token), not a prompt's tokens (vLLM V1 computes logits at ``logits_indices``, the last scheduled token of each request:
  ``sample_hidden_states = hidden_states[logits_indices]``, vllm/v1/worker/gpu_model_runner.py; TensorRT-LLM returns
  one row of logits per sequence unless ``return_context_logits``, its Llama 4 unit test asserting
  ``len(past_seen_tokens) == logits.shape[0]`` for three context and two generation requests);
* quantized checkpoints keep both in BF16 (VOCAB_KEPT).

With N_e = V·d (0 when tied), N_h = V·d, B the weights' bytes per parameter, B_v the vocabulary's and peak_v its peak:

    held bytes                 W_h = W + (N_e + N_h) · (B_v − B)          (W: precision_rules.weight_bytes)
    bytes read per step        W_r = W_h − N_e · B_v
    GEMM parameters, decode    P_d = N_a' − N_e + N_h · (peak / peak_v − 1)   (N_a': precision_rules.gemm_params)
    GEMM parameters, prompt    P_p = N_a' − N_e − N_h

Both matrices are outside the routed experts, so with expert parallel every GPU holds them (the shared weights of
replica_rules.weights_read); N − N_a is unchanged, and so is the experts' share (N − N_a)/(1 − k/E). Training keeps
6 · N · D over every parameter (the convention of tco.sizing.training_rules). Llama 3.1 8B in FP8 on H100
(V·d = 128,256 × 4,096 = 525,336,576; FP8 peak twice BF16's):

>>> from tco.expr import Env
>>> env = Env({"params": 8.03e9, "active_params": 8.03e9, "weight_bytes": 1.0, "wide_params": 0.0, "wide_bytes": 1.0,
...            "wide_tflops": 1979.0, "peak_tflops": 1979.0, "embed_params": 525336576.0, "head_params": 525336576.0,
...            "vocab_bytes": 2.0, "vocab_tflops": 989.5, "fp4_gemm": 0.0}, 1)
>>> [round(float(f().np(env)) / 1e9, 4) for f in (held_bytes, read_bytes, decode_params, prompt_params)]
[9.0807, 8.03, 8.03, 6.9793]
"""

from __future__ import annotations

from tco.expr import Expr, In
from tco.sizing import precision_rules as prec

INPUTS: dict[str, str] = {
    "embed_params": "(in_embed_params_b*1000000000)", "head_params": "(in_head_params_b*1000000000)",
    "vocab_bytes": "in_vocab_bytes", "vocab_tflops": "{p}inf_vocab_tflops",
}
"""The inputs these rules add to tco.sizing.replica_rules.INPUTS (name → the workbook's defined name)."""

VOCAB_KEPT: dict[str, str] = {"fp8": "bf16", "fp4": "bf16"}
"""Format a checkpoint keeps its embedding and output head in, by weight precision (unlisted: the weights' own):

* NVIDIA's ModelOpt checkpoints (FP8 and NVFP4: nvidia/Llama-3.1-8B-Instruct-FP8, Llama-3.3-70B-Instruct-FP4,
  DeepSeek-R1-FP4) come from TensorRT Model Optimizer, whose every quantization config switches the head's quantizers
  off (``_default_disabled_quantizer_cfg`` with ``"*lm_head*": {"enable": False}``, merged into FP8_DEFAULT_CFG and the
  NVFP4 configs: NVIDIA/TensorRT-Model-Optimizer modelopt/torch/quantization/config.py@09914046), and its export writes
  ``"exclude_modules": ["lm_head"]`` for FP8 and NVFP4 into hf_quant_config.json (modelopt/torch/export/
  unified_export_hf.py, ``_export_hf_checkpoint``, an early-2025 version). Their model cards: "Only the weights and activations
  of the linear operators within transformers blocks are quantized" (nvidia/Llama-3.1-405B-Instruct-FP8 README,
  nvidia-modelopt v0.15.1): the embedding, outside the blocks, stays BF16 too.
* Neural Magic / Red Hat AI checkpoints (llm-compressor): ``QuantizationModifier: targets: [Linear], ignore: [lm_head],
  scheme: FP8`` (neuralmagic/Llama-3.2-1B-Instruct-FP8 recipe.yaml@fb49430c); the embedding is not a Linear. The
  files say the same: neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8 ships 5 GB + 4.08 GB of safetensors = 9.08 GB
  (Hugging Face file list, 2024), against 6.979e9 B of FP8 body + 2 × 525,336,576 × 2 B of BF16 embedding and head =
  9.080e9 B (all FP8 would be 8.03 GB).
* DeepSeek's own FP8 checkpoint (block-scaled FP8 linear layers) keeps ``embed`` and ``head`` in BF16: its reference
  model builds them in the default dtype (deepseek-ai/DeepSeek-V3 inference/model.py, ``ParallelEmbedding`` and
  ``ColumnParallelLinear(args.dim, args.vocab_size, dtype=torch.get_default_dtype())``).

Applied by precision to every family: the FP8 checkpoints of Qwen3-235B-A22B and Llama 4 Maverick in the calibration set
were not read for their head's format here (the rule is the producers' default above, not a per-checkpoint fact)."""


def vocab_format(precision: str) -> str:
    """The format a checkpoint of `precision` keeps its embedding and head in (VOCAB_KEPT; the weights' own if unlisted).

    >>> vocab_format("fp8"), vocab_format("fp4"), vocab_format("bf16")
    ('bf16', 'bf16', 'bf16')
    """
    return VOCAB_KEPT.get(precision, precision)


def vocab_params(vocab_size: int, hidden: int, tied: bool) -> tuple[float, float]:
    """(embedding, head) parameters [-] = (V·d, V·d), the embedding 0 when tied (the head is that one matrix); (0, 0)
    when the catalog gives no vocabulary (the body then counts them, as before).

    >>> vocab_params(128256, 4096, False), vocab_params(128256, 4096, True), vocab_params(0, 4096, False)
    ((525336576.0, 525336576.0), (0.0, 525336576.0), (0.0, 0.0))
    """
    n = float(vocab_size) * float(hidden)
    return (0.0 if tied else n, n)


def embed_bytes() -> Expr:
    """Bytes of the input embedding [B] = N_e · B_v: held, never read whole by a step."""
    return In("embed_params") * In("vocab_bytes")


def held_bytes() -> Expr:
    """Bytes the weights take in memory [B] = W + (N_e + N_h) · (B_v − B): the embedding and head at their format."""
    return prec.weight_bytes() + (In("embed_params") + In("head_params")) * (In("vocab_bytes") - In("weight_bytes"))


def read_bytes() -> Expr:
    """Bytes of the weights a step reads [B] = W_h − N_e · B_v: all but the embedding."""
    return held_bytes() - embed_bytes()


def decode_params() -> Expr:
    """Active parameters as a decode token's GEMMs count them at the weights' peak [-] = N_a' − N_e + N_h · (peak /
    peak_v − 1): no GEMM for the embedding, the head at its format's peak (BF16 at half FP8's counts 2×)."""
    return prec.gemm_params() - In("embed_params") + In("head_params") * (prec.gemm_peak() / In("vocab_tflops") - 1)


def prompt_params() -> Expr:
    """Active parameters a prompt token's GEMMs run [-] = N_a' − N_e − N_h: neither the embedding nor the head (the
    logits of a prompt's last token are its first decode step's)."""
    return prec.gemm_params() - In("embed_params") - In("head_params")
