"""The replica terms as rules: one declaration that the engine evaluates with numpy (one value per layout
tried) and the Sizing sheet writes as live formulas (one column per layout) with the values as cache.

The physics and its sources are in tco/sizing/replica.py's docstring. Here each term is a ``Rule`` of
tco.expr over three given rows per layout (``tp`` GPUs per server, ``nodes`` servers, ``ep`` 1 when the
servers split the experts, else 0) and the named inputs of ``INPUTS``. The batch is the closed form of
the cycle a + s·b (two passes for the expert-touch share); the terms of the chosen batch are the
direct sums, so the engine's figures do not depend on the closed form's rounding.

>>> [r.key for r in RULES][:4]
['gpus', 'weights_b', 'expert_b', 'held_b']
"""

from __future__ import annotations

from tco.expr import AND, IF, INT, MAX, MIN, Const, Expr, In, Row, Rule, evaluate

INPUTS: dict[str, str] = {
    "params": "(in_params_b*1000000000)", "active_params": "(in_active_params_b*1000000000)",
    "weight_bytes": "in_weight_bytes", "kv_bytes": "in_kv_bytes", "layers": "in_layers", "hidden": "in_hidden",
    "kv_heads": "in_kv_heads", "head_dim": "in_head_dim", "experts": "in_experts", "experts_k": "in_experts_k",
    "in_tokens": "in_in_tokens", "out_tokens": "in_out_tokens", "target_tps": "in_target_tps", "ttft": "in_ttft",
    "max_batch": "in_max_batch", "mem_usable": "in_mem_usable", "bw_eff": "in_bw_eff", "fl_eff": "in_fl_eff",
    "link_eff": "in_link_eff", "overhead": "in_overhead", "coll_lat": "in_coll_lat",
    "memory_gb": "{p}inf_mem", "bandwidth_tbs": "{p}inf_bw", "peak_tflops": "{p}inf_tflops",
    "link_gbs": "{p}inf_link", "network_gbps": "{p}inf_net",
}
"""Input name → the workbook's defined name (``{p}`` is the option's prefix ``in_o<i>_``). Numpy reads the
same names from ``inputs_of`` (tco.sizing.replica): ``target_tps`` and ``ttft`` are 0 for no target."""

BOUND_TERMS = ("memory", "max-batch", "latency-ttft", "latency-bandwidth", "latency-compute", "latency-interconnect",
               "latency-overhead")
"""What stops the batch, in the order of the ``bound`` rule's code (1-based)."""

TP, NODES, EP = Row("tp"), Row("nodes"), Row("ep")
PP = AND(NODES > 1, EP.eq(0))
L, D, K, E = In("layers"), In("hidden"), In("experts_k"), In("experts")
ISL, OSL, LAT, OVER = In("in_tokens"), In("out_tokens"), In("coll_lat"), In("overhead")
CTX = ISL + OSL / 2
"""L̄ = ISL + OSL/2: the mean resident context of a sequence [tokens]."""
ACTIVATION_BYTES = 2.0
"""Activations travel between GPUs in 16-bit [B per element]."""
ACT = D * ACTIVATION_BYTES
"""Activations of one token [B]."""
NO_TTFT = 1e300


def allreduce(message: Expr, gpus: Expr, link: Expr) -> Expr:
    """Ring all-reduce [s] = α + 2·(p − 1)/p · n / B, 0 on one GPU (Patarasuk & Yuan 2009)."""
    return IF(gpus <= 1, 0, LAT + 2 * (gpus - 1) / gpus * message / link)


def alltoall(message: Expr, parts: Expr, link: Expr) -> Expr:
    """Expert dispatch + combine [s] = 2·(α + (p − 1)/p · n / B), 0 on one part (DeepSeek-V3 §3.2.2)."""
    return IF(parts <= 1, 0, 2 * (LAT + (parts - 1) / parts * message / link))


def touched(tokens: Expr) -> Expr:
    """Share of a layer's experts that `tokens` routed independently and uniformly to k of E experts
    touch [-] = 1 − (1 − k/E)^tokens; 1 for a dense model."""
    return IF(AND(E > 0, K > 0), 1 - (1 - K / E) ** tokens, 1)


def touch_share(batch: Expr) -> Expr:
    """The expert-touch share of one weight read at a batch: tokens = b·(1 + r), per micro-batch for
    pipeline parallel."""
    return touched(batch * (1 + Row("ratio")) / IF(PP, NODES, 1))


def expert_params() -> Expr:
    """Parameters in routed experts [-] = (N − N_a)/(1 − k/E): the inactive share of the experts is all
    that is not active (0 for a dense model)."""
    return IF(AND(E > 0, K > 0, K < E), (In("params") - In("active_params")) / (1 - K / E), 0)


def kv_bytes() -> Expr:
    """KV cache per token [B] = 2 (K and V) × layers × KV heads × head dim × bytes per element."""
    return 2 * L * In("kv_heads") * In("head_dim") * In("kv_bytes")


def attention_flops(context: Expr) -> Expr:
    """Attention score and value FLOPs of one token at a context [FLOP] = 4 · layers · d · context
    (2 FLOPs per multiply-add for QKᵀ and for A·V; Hoffmann et al. 2022, Chinchilla, Appendix F)."""
    return 4 * L * D * context


def flops_per_token(ratio: Expr) -> Expr:
    """FLOPs per generated token with its share of the prompt [FLOP] =
    (1 + r)·2·N_a + 4·layers·d·L̄ + r·2·layers·d·ISL (a prompt token attends to ISL/2 tokens on average)."""
    return (1 + ratio) * 2 * In("active_params") + attention_flops(CTX) + ratio * 2 * L * D * ISL


def weights_read(touch: Expr) -> Expr:
    """Weight bytes one cycle reads [B]: the experts not touched are skipped; with expert parallel each
    server reads the shared weights and its 1/n of the touched experts."""
    shared = Row("weights_b") - Row("expert_b")
    return IF(EP.eq(1), shared + Row("expert_b") * touch / NODES, Row("weights_b") - Row("expert_b") * (1 - touch))


def batch_limit(a: Expr) -> Expr:
    """Largest whole batch with the cycle a + s·b [seq] = max(1, floor(min(b_max, b_tps, b_ttft)))."""
    b_ttft = IF(In("ttft") > 0, (In("ttft") - Row("prefill") - a) / Row("slope"), Row("b_max"))
    return MAX(1, INT(MIN(Row("b_max"), (1 / In("target_tps") - a) / Row("slope"), b_ttft) + 1e-9))


def meets_tps(cycle: Expr) -> Expr:
    return 1 / cycle >= In("target_tps") * (1 - 1e-9)


def meets_ttft(ttft: Expr) -> Expr:
    """Met when there is no target (0); AND of the one value makes it TRUE/FALSE in the workbook."""
    return AND(IF(In("ttft") > 0, ttft <= In("ttft") * (1 + 1e-9), 1))


def _tokens() -> Expr:
    return Row("batch") * (1 + Row("ratio"))


def _collectives() -> Expr:
    """All-reduces, all-to-alls and pipeline hops of the chosen batch's cycle [s]."""
    per_node = _tokens() / NODES * ACT
    expert = L * allreduce(per_node, TP, Row("link")) + L * alltoall(per_node * K, NODES, Row("net"))
    tensor = 2 * L * allreduce(per_node, TP, Row("link")) + IF(NODES > 1, NODES * (LAT + per_node / Row("net")), 0)
    return IF(EP.eq(1), expert, tensor)


def _prefill() -> Expr:
    """One prompt alone [s]: weights once (per stage for pipeline parallel), prompt FLOPs on one server's
    tensor-parallel GPUs, 2 all-reduces per layer, the pipeline hops or the expert all-to-alls, t0."""
    act = ISL * D * ACTIVATION_BYTES
    flops = 2 * In("active_params") * ISL + 2 * L * D * ISL * ISL
    tp_peak = Row("fl") / Row("gpus") * TP
    return (Row("weights_b") / NODES / Row("bw") * IF(PP, NODES, 1) + flops / tp_peak
            + 2 * L * allreduce(act, TP, Row("link")) + IF(PP, (NODES - 1) * (LAT + act / Row("net")), 0)
            + IF(EP.eq(1), L * alltoall(act * K, NODES, Row("net")), 0) + OVER)


def _bound() -> Expr:
    """Code of what stops the batch (BOUND_TERMS): the smallest limit of the pass that set it, then the
    largest term of the cycle."""
    a = IF(Row("ok2"), Row("a2"), Row("a1"))
    tps = (1 / In("target_tps") - a) / Row("slope")
    ttft = IF(In("ttft") > 0, (In("ttft") - Row("prefill") - a) / Row("slope"), NO_TTFT)
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
        Rule("gpus", TP * NODES, "GPU", "GPUs of one replica"),
        Rule("weights_b", In("params") * In("weight_bytes"), "B", "weights of the model"),
        Rule("expert_b", expert_params() * In("weight_bytes"), "B", "weights in routed experts (0 for a dense model)"),
        Rule("held_b", w + IF(EP.eq(1), (NODES - 1) * (w - we), 0), "B",
             "weights the replica holds: expert parallel keeps the shared weights on every server"),
        Rule("kv_tok", kv_bytes(), "B/token", "KV cache per token = 2 (K and V) × layers × KV heads × head dim × bytes"),
        Rule("mem_b", Row("gpus") * In("memory_gb") * 1e9 * In("mem_usable"), "B", "usable memory of the replica"),
        Rule("bw", TP * In("bandwidth_tbs") * 1e12 * In("bw_eff"), "B/s", "effective memory bandwidth of one stage"),
        Rule("fl", Row("gpus") * In("peak_tflops") * 1e12 * In("fl_eff"), "FLOP/s", "effective compute of the replica"),
        Rule("link", In("link_gbs") * 1e9 * In("link_eff"), "B/s", "effective GPU-to-GPU bandwidth, one way"),
        Rule("net", In("network_gbps") / 8 * 1e9 * In("link_eff"), "B/s", "effective network between servers"),
    )


def _sequence_terms() -> tuple[Rule, ...]:
    """What one sequence needs: its prompt share, FLOPs per token, KV cache; the largest batch memory allows; a
    prompt alone."""
    return (
        Rule("ratio", ISL / OSL, "", "r = ISL/OSL: prompt tokens riding in each cycle per sequence"),
        Rule("flops_tok", flops_per_token(Row("ratio")), "FLOP", "FLOPs per generated token with its share of the prompt"),
        Rule("fits", Row("held_b") + Row("kv_tok") * (ISL + OSL) <= Row("mem_b"), "",
             "weights and one full sequence fit in the usable memory"),
        Rule("b_mem", MAX(0, INT((Row("mem_b") - Row("held_b")) / (Row("kv_tok") * CTX))), "seq",
             "sequences whose mean context fits beside the weights"),
        Rule("b_max", MIN(Row("b_mem"), In("max_batch")), "seq", "largest batch: memory and the sequence cap"),
        Rule("prefill", _prefill(), "s", "one prompt alone"),
    )


def _collective_terms() -> tuple[Rule, ...]:
    """The collectives of a cycle (a latency part and a part per sequence) and the cycle time per sequence."""
    seq_coll_ep = (IF(TP > 1, L * 2 * (TP - 1) / TP * (1 + Row("ratio")) / NODES * D * 2 / Row("link"), 0)
                   + IF(NODES > 1, L * 2 * (NODES - 1) / NODES * (1 + Row("ratio")) / NODES * K * D * 2
                        / Row("net"), 0))
    seq_coll_tp = (IF(TP > 1, 2 * L * 2 * (TP - 1) / TP * (1 + Row("ratio")) / NODES * D * 2 / Row("link"), 0)
                   + IF(NODES > 1, (1 + Row("ratio")) * D * 2 / Row("net"), 0))
    return (
        Rule("c_const", IF(EP.eq(1), IF(TP > 1, L * LAT, 0) + IF(NODES > 1, L * 2 * LAT, 0),
                           IF(TP > 1, 2 * L * LAT, 0) + IF(NODES > 1, NODES * LAT, 0)), "s",
             "collectives: the latency part of a cycle"),
        Rule("c_seq", IF(EP.eq(1), seq_coll_ep, seq_coll_tp), "s", "collectives: the part per sequence in the batch"),
        Rule("slope", CTX * Row("kv_tok") / NODES / Row("bw") + Row("flops_tok") / Row("fl") + Row("c_seq"), "s",
             "s: cycle time per sequence (KV read, compute, collectives)"),
    )


def _batch_passes() -> tuple[Rule, ...]:
    """The batch in two passes: at the cycle of every expert, then at the cycle of the experts that batch reads;
    pass 2 when it meets the targets."""
    return (
        Rule("a1", weights_read(Const(1)) / Row("bw") + Row("c_const") + OVER, "s", "cycle at zero batch, every expert"),
        Rule("b1", batch_limit(Row("a1")), "seq", "batch, pass 1 (every expert read)"),
        Rule("touch1", touch_share(Row("b1")), "", "share of experts read at the pass-1 batch"),
        Rule("a2", weights_read(Row("touch1")) / Row("bw") + Row("c_const") + OVER, "s",
             "cycle at zero batch, pass-1 experts"),
        Rule("b2", batch_limit(Row("a2")), "seq", "batch, pass 2"),
        Rule("touch2", touch_share(Row("b2")), "", "share of experts read at the pass-2 batch"),
        Rule("cycle2", weights_read(Row("touch2")) / Row("bw") + Row("b2") * Row("slope") + Row("c_const") + OVER, "s",
             "cycle at the pass-2 batch"),
        Rule("ok2", AND(meets_tps(Row("cycle2")), meets_ttft(Row("prefill") + Row("cycle2"))), "",
             "pass 2 meets the targets"),
        Rule("batch", IF(Row("ok2"), Row("b2"), Row("b1")), "seq", "the batch: pass 2 if it meets the targets"),
    )


def _cycle_terms() -> tuple[Rule, ...]:
    """One decode cycle at the batch: experts touched, weights and KV cache read, then its four terms (roofline)."""
    return (
        Rule("touch", touch_share(Row("batch")), "", "share of experts read per cycle"),
        Rule("w_read", weights_read(Row("touch")), "B", "weights read per cycle"),
        Rule("kv_read", Row("batch") * CTX * Row("kv_tok") / NODES, "B", "KV cache read per cycle (per stage)"),
        Rule("mem_s", (Row("w_read") + Row("kv_read")) / Row("bw"), "s", "cycle: memory reads (roofline)"),
        Rule("cmp_s", Row("batch") * Row("flops_tok") / Row("fl"), "s", "cycle: compute (roofline)"),
        Rule("coll_s", _collectives(), "s", "cycle: all-reduces, all-to-alls and pipeline hops"),
        Rule("overhead_s", OVER, "s", "cycle: fixed step overhead t0"),
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
FLAGS = ("fits", "ok2", "tps_met", "ttft_met", "met")
"""Rules whose value is true or false (1/0 in numpy, TRUE/FALSE in the workbook)."""


def with_batch(batch: float) -> tuple[Rule, ...]:
    """The rules with the batch fixed (what-if and tests): every term after it follows."""
    return tuple(Rule(r.key, Const(float(batch)), r.unit, "given batch") if r.key == "batch" else r for r in RULES)


def run(rules: tuple[Rule, ...], inputs: dict[str, float], tp: list[int], nodes: list[int], ep: list[int]) -> dict:
    """Evaluate the rules over the layouts (one position per layout): key → array."""
    import numpy as np

    given = {"tp": np.asarray(tp, dtype=float), "nodes": np.asarray(nodes, dtype=float),
             "ep": np.asarray(ep, dtype=float)}
    return evaluate(list(rules), dict(inputs), len(tp), given)
