"""The replica terms as rules: one declaration that the engine evaluates with numpy (one value per layout
tried) and the Sizing sheet writes as live formulas (one column per layout) with the values as cache.

The physics and its sources are in tco/sizing/replica.py's docstring. Each term is a ``Rule`` of tco.expr over three
given rows per layout (``tp`` GPUs per server, ``nodes`` servers, ``ep`` 1 when the servers split the experts) and the
named inputs of ``INPUTS``. The batch is the closed form of the cycle a + s·b (two passes for the expert-touch share);
the terms of the chosen batch are the direct sums, so the figures do not depend on the closed form's rounding.

>>> [r.key for r in RULES][:4]
['gpus', 'weights_b', 'expert_b', 'held_b']
"""

from __future__ import annotations

from tco.expr import AND, IF, INT, LN, MAX, MIN, Const, Expr, In, Row, Rule, evaluate
from tco.sizing import moe_rules as moe, precision_rules as prec, vocab_rules as vocab
from tco.sizing.prefill_rules import cycle_at, gemm_time, gemm_weights, hidden_share, limit

INPUTS: dict[str, str] = {
    "params": "(in_params_b*1000000000)", "active_params": "(in_active_params_b*1000000000)",
    "weight_bytes": "in_weight_bytes", "kv_bytes": "in_kv_bytes", "layers": "in_layers", "hidden": "in_hidden",
    "kv_heads": "in_kv_heads", "head_dim": "in_head_dim", "heads": "in_heads", "attn_dim": "in_attn_dim",
    "experts": "in_experts", "experts_k": "in_experts_k", "moe_layers": "in_moe_layers",
    "in_tokens": "in_in_tokens", "out_tokens": "in_out_tokens", "target_tps": "in_target_tps", "ttft": "in_ttft",
    "max_batch": "in_max_batch", "mem_usable": "in_mem_usable", "bw_eff": "in_bw_eff", "fl_eff": "in_fl_eff",
    "link_eff": "in_link_eff", "overhead": "in_overhead", "seq_over": "in_seq_over", "coll_lat": "in_coll_lat",
    "layer_over": "in_layer_over", "spec_tokens": "in_spec_tokens", "spec_accept": "in_spec_accept",
    "kv_reserve": "in_kv_reserve", "prefill_mix": "in_prefill_mix", **prec.INPUTS, **vocab.INPUTS,
    "memory_gb": "{p}inf_mem", "bandwidth_tbs": "{p}inf_bw", "peak_tflops": "{p}inf_tflops",
    "link_gbs": "{p}inf_link", "network_gbps": "{p}inf_net", "link_lat": "{p}inf_link_lat",
    "net_lat": "{p}inf_net_lat", "link_share": "{p}inf_link_share",
}
"""Input name → the workbook's defined name (``{p}`` is the option's prefix ``in_o<i>_``). Numpy reads the
same names from ``inputs_of`` (tco.sizing.replica): ``target_tps`` and ``ttft`` are 0 for no target."""

BOUND_TERMS = ("memory", "max-batch", "latency-ttft", "latency-bandwidth", "latency-compute", "latency-interconnect",
               "latency-overhead")
"""What stops the batch, in the order of the ``bound`` rule's code (1-based)."""

TP, NODES, EP = Row("tp"), Row("nodes"), Row("ep")
PP = AND(NODES > 1, EP.eq(0))
G = TP * NODES
"""GPUs of the replica."""
L, D, K, E = In("layers"), In("hidden"), In("experts_k"), In("experts")
ISL, OSL = In("in_tokens"), In("out_tokens")
OVER = In("overhead") + In("layers") * In("layer_over") + moe.block_overhead(Row("ep"))
"""Fixed cost of a step [s] = t0 + layers × t_layer (+ MoE layers × t_layer under expert parallel, tco.sizing.moe_rules)."""
LINK_LAT = In("link_lat") + In("coll_lat")
"""α of one collective inside a server [s]: the interconnect's (tco.sizing.replica.LINK_LATENCY_SECONDS) plus the
calibration's extra latency per collective (0 in the shipped fit)."""
NET_LAT = In("net_lat") + In("coll_lat")
"""α of one collective or pipeline hop between servers [s] (tco.sizing.replica.NETWORK_LATENCY_SECONDS)."""
CTX, RESERVED = ISL + OSL / 2, ISL + In("kv_reserve") * OSL
"""L̄ = ISL + OSL/2 mean resident context; ISL + r·OSL the KV held per sequence, r by framework (KV_RESERVE_SHARE)."""
ACTIVATION_BYTES = 2.0  # activations travel between GPUs in 16-bit [B per element]
ACT = D * ACTIVATION_BYTES
"""Activations of one token [B]."""
NO_TTFT = 1e300
S_SPEC, A_SPEC = In("spec_tokens"), In("spec_accept")
"""Speculative decoding (MTP): S = 1 + n positions each sequence verifies per step (n draft tokens), A = the tokens
it keeps per step, 1 + a + … + aⁿ for acceptance a per draft token (both 1 without it). A step reads the weights
and the KV cache once and yields A tokens, so the cycle (time per generated token) is the step over A."""


def allreduce(message: Expr, gpus: Expr, link: Expr, lat: Expr = LINK_LAT) -> Expr:
    """Ring all-reduce [s] = α + 2·(p − 1)/p · n / B, 0 on one GPU (Patarasuk & Yuan 2009)."""
    return IF(gpus <= 1, 0, lat + 2 * (gpus - 1) / gpus * message / link)


def alltoall(message: Expr, parts: Expr, link: Expr, lat: Expr = NET_LAT) -> Expr:
    """Expert dispatch + combine [s] = 2·(α + (p − 1)/p · n / B), 0 on one part (DeepSeek-V3 §3.2.2)."""
    return IF(parts <= 1, 0, 2 * (lat + (parts - 1) / parts * message / link))


def touched(tokens: Expr) -> Expr:
    """Share of a layer's experts that `tokens` routed independently and uniformly to k of E experts
    touch [-] = 1 − (1 − k/E)^tokens; 1 for a dense model."""
    return IF(AND(E > 0, K > 0), 1 - (1 - K / E) ** tokens, 1)


def touch_share(batch: Expr) -> Expr:
    """The expert-touch share of one weight read at a batch: tokens = b·(1 + r), per micro-batch under PP."""
    return touched(batch * (S_SPEC + Row("ratio") * A_SPEC) / IF(PP, NODES, 1))


def imbalance(batch: Expr) -> Expr:
    """Load of the busiest GPU over the mean under expert parallel [-] = 1 + √(2·ln G / μ), μ = b·(1 + r)·k/G
    token-expert pairs per GPU: the expected maximum of μ·G pairs thrown uniformly on G GPUs (Raab & Steger 1998,
    "Balls into bins: a simple and tight analysis", RANDOM'98, Theorem 1, case μ ≫ ln G); 1 without expert
    parallel, on one GPU or for a dense model."""
    mu = MAX(batch * (S_SPEC + Row("ratio") * A_SPEC) * K / G, 1)
    return IF(AND(EP.eq(1), E > 0, K > 0), 1 + (2 * LN(G) / mu) ** 0.5, 1)


def prompt_imbalance(batch: Expr) -> Expr:
    """Prompt work of the busiest GPU over its even share under expert parallel [-] = min(G, 1 + √(2·ln G / μ_p)),
    μ_p = b / (G · OSL) prompts per GPU per step: attention is data-parallel, so a prompt's attention and dense
    layers run on the one GPU that holds its sequence, and every GPU waits for the busiest at each layer's
    all-to-all (balls into bins again, Raab & Steger 1998; at most all G shares on one GPU). 1 for a
    tensor-parallel replica, whose GPUs share every prompt."""
    mu = batch * A_SPEC / (G * OSL)
    return IF(AND(EP.eq(1), G > 1), MIN(G, 1 + (2 * LN(G) / MAX(mu, 1e-9)) ** 0.5), 1)


def prompt_extra(ratio: Expr, f: Expr) -> Expr:
    """Extra time per sequence of the busiest GPU's prompt tokens beyond their even share [s] = (f − 1) × (r · (2 · (N_a −
    N_ae) + attention at ISL/2) / FLOP/s + their exchange through its own port, tco.sizing.moe_rules)."""
    work = ratio * 2 * (vocab.prompt_params() - active_expert_params()) / Row("fl")
    port = moe.per_sequence(_ep_parts(), NODES, ratio, ACT, _ep_link())  # (f − 1) = 0 without expert parallel
    attention = prec.attention_time(prec.prompt_attention(ratio * attention_flops(ISL / 2, prec.prompt_attn_dim())))
    return (f - 1) * (work + port + attention)


def expert_params() -> Expr:
    """Parameters in routed experts [-] = (N − N_a)/(1 − k/E): the inactive share of the experts is all
    that is not active (0 for a dense model)."""
    return IF(AND(E > 0, K > 0, K < E), (In("params") - In("active_params")) / (1 - K / E), 0)


def active_expert_params() -> Expr:
    """Routed-expert parameters one token uses [-] = k/E of the experts' (0 for a dense model)."""
    return IF(E > 0, expert_params() * K / E, 0)


def kv_bytes() -> Expr:
    """KV cache per token [B] = 2 (K and V) × layers × KV heads × head dim × bytes per element."""
    return 2 * L * In("kv_heads") * In("head_dim") * In("kv_bytes")


def kv_replicas() -> Expr:
    """Copies of each KV head a tensor-parallel replica keeps [-] = max(1, TP / KV heads): TP GPUs beyond the
    KV heads hold the same heads again (vLLM and TensorRT-LLM replicate KV heads when tp > num_kv_heads; an MLA
    latent, one head, is on every GPU); expert parallel runs attention data-parallel, one copy."""
    return IF(EP.eq(1), 1, MAX(1, TP / In("kv_heads")))


def attention_flops(context: Expr, width: Expr = In("attn_dim")) -> Expr:
    """Attention score and value FLOPs of one token at a context [FLOP] = 4 · layers · heads · d_attn · context:
    2 FLOPs per multiply-add for QKᵀ and for A·V over each query head (Hoffmann et al. 2022, Chinchilla,
    Appendix F, with heads × head dim for d); d_attn is the mean of the score and value widths per head (128 for
    Llama; (576 + 512)/2 for DeepSeek's absorbed MLA, arXiv:2405.04434 §2.1.3)."""
    return 4 * L * In("heads") * width * context


def gemm_flops(ratio: Expr, imb: Expr) -> Expr:
    """Weight (GEMM) FLOPs per generated token with its share of the prompt [FLOP] = 2·(P_d + r·P_p + (1 + r)·(imb − 1)·
    N_ae): decode and prompt tokens' parameters (tco.sizing.vocab_rules: no embedding GEMM, the head only for decode
    tokens); the busiest expert-parallel GPU does imb times its share of the routed experts' work."""
    return 2 * (S_SPEC / A_SPEC * vocab.decode_params() + ratio * vocab.prompt_params()
                + (S_SPEC / A_SPEC + ratio) * (imb - 1) * active_expert_params())


def attn_flops(ratio: Expr, charged: bool = False) -> Expr:
    """Attention FLOPs per generated token with its share of the prompt [FLOP] = attention at L̄ + r × attention at ISL/2
    (a prompt token attends to ISL/2 on average); `charged`: the prompt's part ÷ its kernels' share ratio (prec.prompt_attention)."""
    prompt = ratio * attention_flops(ISL / 2, prec.prompt_attn_dim())
    return attention_flops(CTX) * S_SPEC / A_SPEC + (prec.prompt_attention(prompt) if charged else prompt)


def flops_per_token(ratio: Expr) -> Expr:
    """FLOPs per generated token with its share of the prompt [FLOP] = 2·(P_d + r·P_p) + 4·layers·heads·d_attn·(L̄ + r·ISL/2)."""
    return gemm_flops(ratio, Const(1)) + attn_flops(ratio)


def weights_read(touch: Expr) -> Expr:
    """Weight bytes one cycle reads over the replica [B]: not the embedding (vocab_rules), nor the experts not touched;
    with expert parallel every GPU reads the shared weights and its 1/G of the touched experts."""
    shared = Row("weights_b") - Row("expert_b") - vocab.embed_bytes()
    return IF(EP.eq(1), G * shared + Row("expert_b") * touch, shared + Row("expert_b") * touch)


def _limit(budget: Expr, a_w: Expr, a_0: Expr, gemm: Expr, extra: Expr) -> Expr:
    """Largest batch whose cycle (prefill_rules.cycle_at, weights a_w − a_0) fits `budget` [seq]."""
    return limit(budget, a_w - a_0, a_0, gemm, extra)


def batch_limit(a_w: Expr, gemm: Expr, extra: Expr) -> Expr:
    """Largest whole batch with the cycle meeting the targets [seq] = max(1, floor(min(b_max, b_tps, b_ttft)))."""
    a_0 = Row("a0")
    b_ttft = IF(In("ttft") > 0, _limit(In("ttft") - Row("prefill"), a_w, a_0, gemm, extra), Row("b_max"))
    return MAX(1, INT(MIN(Row("b_max"), _limit(1 / In("target_tps"), a_w, a_0, gemm, extra), b_ttft) + 1e-9))


def meets_tps(cycle: Expr) -> Expr:
    return 1 / cycle >= In("target_tps") * (1 - 1e-9)


def meets_ttft(ttft: Expr) -> Expr:
    """Met when there is no target (0); AND of the one value makes it TRUE/FALSE in the workbook."""
    return AND(IF(In("ttft") > 0, ttft <= In("ttft") * (1 + 1e-9), 1))


def _tokens() -> Expr:
    """Tokens a step carries [-] = b · (S + r · A)."""
    return Row("batch") * (S_SPEC + Row("ratio") * A_SPEC)


def _ep_parts() -> Expr:
    """Parts an expert all-to-all spans: the servers when the replica spans servers, else its GPUs."""
    return IF(NODES > 1, NODES, TP)


def _ep_link() -> Expr:
    return IF(NODES > 1, Row("net"), Row("link"))


def _ep_lat() -> Expr:
    return IF(NODES > 1, NET_LAT, LINK_LAT)


def _collectives() -> Expr:
    """All-reduces, all-to-alls and pipeline hops of the chosen batch's cycle [s]."""
    per_node = _tokens() / NODES * ACT
    expert = moe.exchange(_tokens() * moe.token_share(_ep_parts(), NODES) * ACT, _ep_parts(), _ep_link(), _ep_lat())
    tensor = (2 * L * allreduce(per_node, TP, Row("link"))
              + IF(NODES > 1, NODES * (NET_LAT + per_node / Row("net")), 0))
    return IF(EP.eq(1), expert, tensor) / A_SPEC


def _prefill() -> Expr:
    """One prompt alone [s]: weights once (every stage for pipeline parallel) or the GEMMs, whichever is longer;
    attention; the dense part on one server's tensor-parallel GPUs (one GPU under expert parallel, whose attention
    is data-parallel; its experts on all G), 2 all-reduces per layer, the pipeline hops or the all-to-alls, t0."""
    act = ISL * ACTIVATION_BYTES * D
    expert = 2 * active_expert_params() * ISL
    dense = 2 * (vocab.prompt_params() - active_expert_params()) * ISL
    peak = Row("fl") / Row("gpus")
    attention = prec.prompt_attention(attention_flops(ISL / 2, prec.prompt_attn_dim()) * ISL)  # ÷ r_a, as in attn_flops
    attention = attention / prec.attention_compute(peak * IF(EP.eq(1), 1, TP))
    compute = IF(EP.eq(1), dense / peak + expert / Row("fl"), (dense + expert) / (peak * TP)) + attention
    weights = weights_read(Const(1)) / Row("bw")
    return (MAX(weights, compute) + IF(EP.eq(1), 0, 2 * L * allreduce(act, TP, Row("link")))
            + IF(PP, (NODES - 1) * (NET_LAT + act / Row("net")), 0)
            + IF(EP.eq(1), moe.prompt_exchange(act, _ep_parts(), NODES, _ep_link(), _ep_lat()), 0) + OVER)


def _bound() -> Expr:
    """Code of what stops the batch (BOUND_TERMS): the smallest limit of the pass that set it, then the largest term."""
    a_w = IF(Row("ok2"), Row("a2"), Row("a1"))
    a_0 = Row("a0")
    g, p = IF(Row("ok2"), Row("g2"), Row("g1")), IF(Row("ok2"), Row("p2"), Row("p1"))
    tps = _limit(1 / In("target_tps"), a_w, a_0, g, p)
    ttft = IF(In("ttft") > 0, _limit(In("ttft") - Row("prefill"), a_w, a_0, g, p), NO_TTFT)
    terms = [Row(k) for k in ("mem_s", "cmp_s", "coll_s", "overhead_s")]
    largest = MAX(*terms)
    by_term = IF(terms[0].eq(largest), 4, IF(terms[1].eq(largest), 5, IF(terms[2].eq(largest), 6, 7)))
    return IF(Row("b_max") <= MIN(tps, ttft), IF(Row("b_mem") <= In("max_batch"), 1, 2), IF(ttft < tps, 3, by_term))


def _rules() -> tuple[Rule, ...]:
    """The replica's rules in the order they are computed (each reads only those above it)."""
    return _replica_resources() + _sequence_terms() + _collective_terms() + _batch_passes() + _cycle_terms() + _outcomes()


def _replica_resources() -> tuple[Rule, ...]:
    """The replica's GPUs, the weights it holds, its memory, bandwidth, compute and links."""
    w, we = Row("weights_b"), Row("expert_b")
    return (
        Rule("gpus", G, "GPU", "GPUs of one replica"),
        Rule("weights_b", vocab.held_bytes(), "B", "weights held (layers, embedding and head a checkpoint keeps wider in their format)"),
        Rule("expert_b", expert_params() * In("weight_bytes"), "B", "weights in routed experts (0 for a dense model)"),
        Rule("held_b", IF(EP.eq(1), G * (w - we) + we, w), "B",
             "weights the replica holds: expert parallel keeps the shared weights on every GPU"),
        Rule("kv_tok", kv_bytes(), "B/token", "KV cache per token = 2 (K and V) × layers × KV heads × head dim × bytes"),
        Rule("kv_rep", kv_replicas() * Row("kv_tok"), "B/token",
             "KV cache per token the replica stores: KV heads repeat on tensor-parallel GPUs beyond their count"),
        Rule("mem_b", Row("gpus") * In("memory_gb") * 1e9 * In("mem_usable"), "B", "usable memory of the replica"),
        Rule("bw", IF(EP.eq(1), G, TP) * In("bandwidth_tbs") * 1e12 * In("bw_eff"), "B/s",
             "effective memory bandwidth of one stage (every GPU under expert parallel)"),
        Rule("fl", Row("gpus") * prec.gemm_peak() * 1e12 * In("fl_eff"), "FLOP/s", "effective compute of the replica"),
        Rule("link", In("link_gbs") * 1e9 * IF(In("link_share") > 0, In("link_share"), In("link_eff")), "B/s",
             "effective GPU-to-GPU bandwidth, one way (the interconnect's measured share, else the calibration's)"),
        Rule("net", In("network_gbps") / 8 * 1e9 * In("link_eff"), "B/s", "effective network between servers"),
        Rule("bw_dec", Row("bw") * A_SPEC, "B/s", "bandwidth per generated token: a step reads once for A tokens"),
        Rule("draft_c", (S_SPEC - 1) * (weights_read(Const(1)) / L / Row("bw") + In("layer_over")), "s",
             "MTP draft per step: n passes of one layer's weights (the module is one layer) and its overhead"),
        Rule("draft_s", (S_SPEC - 1) * 2 * In("active_params") / L / Row("fl"), "s",
             "MTP draft per sequence per step: n tokens through one layer's active parameters"),
    )


def _sequence_terms() -> tuple[Rule, ...]:
    """What one sequence needs: its prompt share, FLOPs per token, KV cache; the largest batch memory allows; a prompt."""
    return (
        Rule("ratio", ISL / OSL, "", "r = ISL/OSL: prompt tokens riding in each cycle per sequence"),
        Rule("hide", hidden_share(), "", "h = the decode tokens' share of the GEMMs (the prompt's, 1 − h, in prompt steps)"),
        Rule("flops_tok", flops_per_token(Row("ratio")), "FLOP", "FLOPs per generated token with its share of the prompt"),
        Rule("attn_tok", attn_flops(Row("ratio"), True), "FLOP", "attention FLOPs per generated token with its prompt share (÷ r_a)"),
        Rule("fits", Row("held_b") + Row("kv_rep") * (ISL + OSL) <= Row("mem_b"), "",
             "weights and one full sequence fit in the usable memory"),
        Rule("b_mem", MAX(0, INT((Row("mem_b") - Row("held_b")) / (Row("kv_rep") * RESERVED))), "seq",
             "sequences whose KV cache, reserved to completion (ISL + OSL), fits beside the weights"),
        Rule("b_max", MIN(Row("b_mem"), In("max_batch")), "seq", "largest batch: memory and the sequence cap"),
        Rule("prefill", _prefill(), "s", "one prompt alone"),
    )


def _collective_terms() -> tuple[Rule, ...]:
    """The collectives of a cycle (a latency part and a part per sequence) and the cycle time per sequence."""
    parts = _ep_parts()
    seq_coll_ep = moe.per_sequence(parts, NODES, S_SPEC / A_SPEC + Row("ratio"), ACT, _ep_link())
    seq_coll_tp = (IF(TP > 1, 2 * L * 2 * (TP - 1) / TP * (S_SPEC / A_SPEC + Row("ratio")) / NODES * ACT / Row("link"), 0)
                   + IF(NODES > 1, (S_SPEC / A_SPEC + Row("ratio")) * ACT / Row("net"), 0))
    return (
        Rule("c_const", IF(EP.eq(1), IF(parts > 1, moe.moe_layers() * 2 * _ep_lat(), 0),
                           IF(TP > 1, 2 * L * LINK_LAT, 0) + IF(NODES > 1, NODES * NET_LAT, 0)) / A_SPEC, "s",
             "collectives: the latency part of a cycle"),
        Rule("c_seq", IF(EP.eq(1), seq_coll_ep, seq_coll_tp), "s", "collectives: the part per sequence in the batch"),
        Rule("slope", CTX * Row("kv_rep") / IF(PP, NODES, 1) / Row("bw_dec") + prec.attention_time(Row("attn_tok")) + Row("c_seq")
             + (moe.sequence_overhead(EP, G) + Row("draft_s")) / A_SPEC, "s",
             "s: cycle time per sequence outside the weight GEMMs (KV read, attention, collectives, overhead)"),
        Rule("a0", Row("c_const") + (OVER + Row("draft_c")) / A_SPEC, "s",
             "cycle at zero batch outside the weights: collectives' latency, step and draft overheads"),
    )


def _batch_passes() -> tuple[Rule, ...]:
    """The batch in two passes: at the cycle of every expert, then at the cycle of the experts that batch reads;
    pass 2 when it meets the targets. The weight GEMMs of a batch take max(weights read, FLOPs) (one roofline per
    operation, Williams et al. 2009)."""
    a0 = Row("a0")
    return (
        Rule("g1", gemm_flops(Row("ratio"), imbalance(Row("b_max"))) / Row("fl"), "s",
             "weight GEMMs per sequence, pass 1 (imbalance at the largest batch)"),
        Rule("p1", prompt_extra(Row("ratio"), prompt_imbalance(Row("b_max"))), "s",
             "busiest GPU's extra prompt work per sequence, pass 1 (expert parallel)"),
        Rule("a1", weights_read(Const(1)) / Row("bw_dec") + a0, "s", "cycle at zero batch, every expert"),
        Rule("b1", batch_limit(Row("a1"), Row("g1"), Row("p1")), "seq", "batch, pass 1 (every expert read)"),
        Rule("touch1", touch_share(Row("b1")), "", "share of experts read at the pass-1 batch"),
        Rule("g2", gemm_flops(Row("ratio"), imbalance(Row("b1"))) / Row("fl"), "s",
             "weight GEMMs per sequence, pass 2 (imbalance at the pass-1 batch)"),
        Rule("p2", prompt_extra(Row("ratio"), prompt_imbalance(Row("b1"))), "s",
             "busiest GPU's extra prompt work per sequence, pass 2"),
        Rule("a2", weights_read(Row("touch1")) / Row("bw_dec") + a0, "s", "cycle at zero batch, pass-1 experts"),
        Rule("b2", batch_limit(Row("a2"), Row("g2"), Row("p2")), "seq", "batch, pass 2"),
        Rule("touch2", touch_share(Row("b2")), "", "share of experts read at the pass-2 batch"),
        Rule("cycle2", cycle_at(Row("b2"), weights_read(Row("touch2")) / Row("bw_dec"), Row("g2"), Row("p2"), a0), "s",
             "cycle at the pass-2 batch"),
        Rule("ok2", AND(meets_tps(Row("cycle2")), meets_ttft(Row("prefill") + Row("cycle2"))), "",
             "pass 2 meets the targets"),
        Rule("batch", IF(Row("ok2"), Row("b2"), Row("b1")), "seq", "the batch: pass 2 if it meets the targets"),
    )


def _cycle_terms() -> tuple[Rule, ...]:
    """One decode cycle at the batch: experts touched, weights and KV cache read, then its four terms (roofline per
    operation: the weight GEMMs count as memory or compute, whichever is longer)."""
    w_s = Row("w_read") / Row("bw_dec")
    return (
        Rule("touch", touch_share(Row("batch")), "", "share of experts read per cycle"),
        Rule("imb", imbalance(Row("batch")), "", "busiest GPU's load over the mean (expert parallel)"),
        Rule("w_read", weights_read(Row("touch")), "B", "weights read per cycle"),
        Rule("kv_read", Row("batch") * CTX * Row("kv_rep") / IF(PP, NODES, 1), "B",
             "KV cache read per cycle (per pipeline stage; over every GPU under expert parallel)"),
        Rule("gemm_s", Row("batch") * gemm_flops(Row("ratio"), Row("imb")) / Row("fl"), "s",
             "cycle: weight GEMM FLOPs"),
        Rule("gemm_t", gemm_time(w_s), "s", "cycle: weight GEMMs with their weight read (prompt steps compute-bound)"),
        Rule("mem_s", Row("kv_read") / Row("bw_dec") + gemm_weights(w_s), "s", "cycle: memory reads (KV, the weights)"),
        Rule("cmp_s", Row("batch") * (prec.attention_time(Row("attn_tok"))
                                       + prompt_extra(Row("ratio"), prompt_imbalance(Row("batch"))))
             + Row("gemm_t") - gemm_weights(w_s), "s", "cycle: compute (attention, the busiest GPU's extra prompt work, "
             "the GEMMs beyond the weight read)"),
        Rule("coll_s", _collectives(), "s", "cycle: all-reduces, all-to-alls and pipeline hops"),
        Rule("overhead_s", (OVER + Row("batch") * moe.sequence_overhead(EP, G) + Row("draft_c") + Row("batch") * Row("draft_s"))
             / A_SPEC, "s", "cycle: step overhead t0 + layers × t_layer + t_seq per sequence, and the MTP draft"),
        Rule("cycle", Row("mem_s") + Row("cmp_s") + Row("coll_s") + Row("overhead_s"), "s", "inter-token latency"),
    )


def _outcomes() -> tuple[Rule, ...]:
    """What the layout delivers (tokens/s, TTFT, requests/s), whether it meets the targets, its score and bound."""
    return (
        Rule("decode_tps", Row("batch") / Row("cycle"), "tokens/s", "output tokens per second of the replica"),
        Rule("ttft", Row("prefill") + Row("cycle"), "s", "time to first token: prompt alone plus one cycle"),
        Rule("per_request", OSL * Row("cycle") / Row("batch"), "s", "replica time per request"),
        Rule("cap", 1 / Row("per_request"), "req/s", "requests the replica completes per second at full load"),
        Rule("tps_met", meets_tps(Row("cycle")), "", "the tokens/s target is met (no target: met)"),
        Rule("ttft_met", meets_ttft(Row("ttft")), "", "the time-to-first-token target is met (0: none)"),
        Rule("met", AND(Row("tps_met"), Row("ttft_met")), "", "both targets are met"),
        Rule("score", IF(Row("fits"), IF(Row("met"), 1e9, 0) + Row("cap") / Row("gpus"), -1), "",
             "choice among layouts: meets the targets first, then requests/s per GPU; −1 if it does not fit"),
        Rule("bound", _bound(), "", "code of what stops the batch (BOUND_TERMS)"),
    )

RULES = _rules()
FLAGS = ("fits", "ok2", "tps_met", "ttft_met", "met")  # true or false: 1/0 in numpy, TRUE/FALSE in the workbook


def with_batch(batch: float) -> tuple[Rule, ...]:
    """The rules with the batch fixed (what-if and tests): every term after it follows."""
    return tuple(Rule(r.key, Const(float(batch)), r.unit, "given batch") if r.key == "batch" else r for r in RULES)


def run(rules: tuple[Rule, ...], inputs: dict[str, float], tp: list[int], nodes: list[int], ep: list[int]) -> dict:
    """Evaluate the rules over the layouts (one position per layout): key → array."""
    import numpy as np

    given = {"tp": np.asarray(tp, dtype=float), "nodes": np.asarray(nodes, dtype=float),
             "ep": np.asarray(ep, dtype=float)}
    return evaluate(list(rules), dict(inputs), len(tp), given)
