"""Mixture-of-experts terms of the replica rules (tco/sizing/replica_rules.py): which layers carry experts, the fixed
cost of their blocks, and how an expert-parallel replica moves the experts' tokens between its GPUs.

* **MoE layers** (models.csv ``moe_layers``): only they run an MoE block and exchange tokens. Llama 4 Maverick
  interleaves dense and MoE layers (``interleave_moe_layer_step`` 2: 24 of 48); DeepSeek-V3/R1 keep their first three
  layers dense (``first_k_dense_replace`` 3: 58 of 61); Qwen3-235B-A22B and Mixtral have experts in every layer.
* **The MoE block's kernels under expert parallel**: the router GEMM and top-k, the AllGather of every rank's tokens
  (padded to the largest rank's count), their permutation and quantization, the grouped GEMMs and activation, the
  ReduceScatter and the finalize (un-permute, weighted sum): as many small kernels again as the rest of the layer, so
  each MoE layer of an expert-parallel replica costs one more t_layer, the calibration's fixed cost per layer (no
  parameter of its own). Under tensor parallel one fused MoE kernel and the layer's two all-reduces are what the fit's
  t_layer already holds (the Mixtral rows are fitted with it; an extra t_layer there too made the dense rows'
  leave-one-out worse, docs/calibration.md).
* **The host's cost per sequence under attention data-parallel**: every rank runs its own executor loop over its own
  requests (TensorRT-LLM's PyExecutor fetches ``new_requests_cur_rank``, schedules and samples only its rank's
  ``active_requests``; the request queue spreads new requests over the ranks by a heap on their active tokens, up to
  ``expected_num_active_requests`` = ⌈all active / ranks⌉ each: ``executor_request_queue.py``,
  ``_balance_requests_across_ranks``), so the G loops each serve b/G sequences side by side: t_seq × b/G a step, not
  t_seq × b as one tensor-parallel loop serving the whole batch.
* **The exchange inside one server** is AllGather + ReduceScatter: TensorRT-LLM's EP traces, "for EP4/EP8
  Reduce/Scatter is used, while for EP>8 All2All is used" (NVIDIA/TensorRT-LLM docs/source/blogs/tech_blog/
  blog4_Scaling_Expert_Parallelism_in_TensorRT-LLM.md, Figure 24), as its MoE layers gather every attention-DP rank's
  tokens (``modeling_llama.py``, pull request 4065: the hidden states padded to the largest rank's token count and
  routed on every rank). Each GPU then receives every other GPU's tokens and returns their outputs: (p − 1)/p of the
  group's tokens × 2·d bytes each way, whatever k. **Across servers** an all-to-all sends each token to its k experts
  only: (p − 1)/p of a part's tokens × k (DeepSeek-V3 technical report arXiv:2412.19437 §3.2.2).
* **The busiest rank's port**: each rank's tokens reach every other rank through its own link (NVLink via NVSwitch, one
  port per GPU each way; the NIC across servers), so the exchange lasts as long as the rank with the most tokens takes
  to send them (AllGather) and to take their sums back (ReduceScatter): (p − 1) × n_max, not (p − 1) × the mean. Under
  attention data-parallel the decode tokens are even (the request queue balances the ranks) and the prompts are not:
  the busiest rank holds f times its share of the prompt tokens (replica_rules.prompt_imbalance), and its exchange
  carries the (f − 1) shares beyond the mean (replica_rules.prompt_extra). TensorRT-LLM pads every rank's tokens to
  that maximum outright where the gathered activations carry scale factors (NVFP4) or the MoE backend is not CUTLASS
  (``modeling_deepseekv3.py``, ``modeling_qwen3_moe.py``: ``use_dp_padding``, ``max(all_rank_num_tokens)``); the
  variable-size gather of the CUTLASS FP8 path still waits for the busiest rank's port.

>>> from tco.expr import Const, Env
>>> env = Env({"experts": 128.0, "experts_k": 1.0, "moe_layers": 24.0, "layer_over": 1e-4}, 1)
>>> round(float(block_overhead(Const(1)).np(env)), 6)        # Maverick, expert parallel: 24 MoE blocks × 100 µs
0.0024
>>> float(block_overhead(Const(0)).np(env))                    # tensor parallel: in the layers' own t_layer
0.0
>>> round(float(sequence_overhead(Const(1), Const(8)).np(Env({"seq_over": 8e-6}, 1))) * 1e6, 3)  # 8 µs over 8 ranks
1.0
>>> float(token_share(Const(8), Const(1)).np(env)), float(token_share(Const(2), Const(2)).np(env))
(1.0, 0.5)
"""

from __future__ import annotations

from tco.expr import AND, IF, Expr, In


def moe_layers() -> Expr:
    """Layers with routed experts [-]: models.csv moe_layers (every layer when it is empty); 0 for a dense model."""
    return IF(AND(In("experts") > 0, In("experts_k") > 0), In("moe_layers"), 0)


def block_overhead(ep: Expr) -> Expr:
    """Fixed cost of a step's MoE blocks beyond the layers' own [s] = MoE layers × t_layer under expert parallel (`ep`
    1), 0 under tensor parallel and for a dense model."""
    return IF(ep.eq(1), moe_layers() * In("layer_over"), 0)


def sequence_overhead(ep: Expr, gpus: Expr) -> Expr:
    """Host time a step spends per sequence of the replica's batch [s] = t_seq / G under attention data-parallel (`ep` 1:
    G ranks, each its own loop over b/G sequences, side by side), t_seq otherwise (one loop serves every sequence)."""
    return In("seq_over") / IF(ep.eq(1), gpus, 1)


def token_share(parts: Expr, nodes: Expr) -> Expr:
    """Tokens each GPU moves in one direction of an MoE layer's exchange, per token of the expert-parallel group and
    over (p − 1)/p [-]: 1 inside one server (AllGather + ReduceScatter move every token of the group), k/p across
    servers (an all-to-all moves a part's tokens to their k experts)."""
    return IF(nodes <= 1, 1, In("experts_k") / parts)


def exchange(message: Expr, parts: Expr, link: Expr, lat: Expr) -> Expr:
    """A step's exchanges over all MoE layers [s] = MoE layers × 2·(α + (p − 1)/p · n / B): dispatch and combine (or
    AllGather and ReduceScatter) of n bytes per GPU each; 0 on one part."""
    return IF(parts <= 1, 0, moe_layers() * 2 * (lat + (parts - 1) / parts * message / link))


def per_sequence(parts: Expr, nodes: Expr, tokens: Expr, act: Expr, link: Expr) -> Expr:
    """The exchanges' time per sequence of the batch [s] = MoE layers × 2 · (p − 1)/p · tokens × share × activations / B
    (`tokens` each sequence adds to a step); 0 on one part."""
    return IF(parts <= 1, 0, moe_layers() * 2 * (parts - 1) / parts * tokens * token_share(parts, nodes) * act / link)


def prompt_exchange(act: Expr, parts: Expr, nodes: Expr, link: Expr, lat: Expr) -> Expr:
    """One prompt's exchanges, alone on one GPU of the group [s]: its `act` bytes of activations go to the other GPUs
    (padded to it, every GPU's share is gathered: n = p × act × share), or to its tokens' k experts across servers."""
    return exchange(act * parts * token_share(parts, nodes), parts, link, lat)
