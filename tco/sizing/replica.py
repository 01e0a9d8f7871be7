"""Inference replicas: what one decode step of a real server pays for.

A replica is `tp` GPUs of one server (tensor parallel), or a whole server repeated over `nodes` servers
by pipeline parallel ('pp') or, for mixture-of-experts models, expert parallel ('ep'). One decode *cycle*
gives every sequence of the batch b one token. With chunked prefill (vLLM, TensorRT-LLM in-flight
batching) the prompts of new requests ride in the same steps: in steady state each cycle also carries
r = ISL/OSL prompt tokens per sequence. The cycle costs

    cycle = max(W / BW, b·FLOPs_gemm / peak) + b·(KV / BW + FLOPs_attn / peak_attn + collectives per sequence)
            + collectives' latency + t0 + layers · t_layer

(Williams et al. 2009, CACM 52(4): one roofline per operation. The weight GEMMs of a batch are bound by
reading the weights or by their FLOPs, whichever is longer; the KV-cache read and the attention follow them,
and the collectives and the fixed step overhead t0 add up; peak_attn is the peak of the KV cache's format and layers a
checkpoint keeps wider run at theirs, tco.sizing.precision_rules. BW = memory bandwidth · η_bw, peak = dense FLOPS ·
η_c.) η_bw, η_c, η_link (PCIe and network; NVLink's is measured, LINK_SHARE), t0, t_layer and t_seq are
fitted to public benchmarks (tco/sizing/calibrate.py, docs/calibration.md); the latency α of a collective is
the interconnect's own (LINK_LATENCY_SECONDS, NETWORK_LATENCY_SECONDS), not a fitted number.

Glossary (units in brackets): b batch [sequences], ISL/OSL input/output tokens per request [-],
L̄ = ISL + OSL/2 mean resident context (the batch memory allows reserves ISL + OSL) [tokens], d hidden size [-],
N, N_a total/active parameters [-], E, k experts per layer and per token [-], BW [B/s], peak [FLOP/s], link and network [B/s], time [s].
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from tco.sizing import replica_rules as rules
from tco.constants import BYTES_PER_PARAM  # bytes per value by precision (fp4 included): one table
from tco.domain import ParallelMode, Precision
from tco.expr import Env, In


LINK_LATENCY_SECONDS: dict[str, float] = {"nvlink": 5.7e-6, "nvlink_bridge": 5.7e-6, "pcie": 42e-6}
"""α of one small all-reduce or all-to-all inside a server, by gpus.csv ``interconnect`` [s]:

* nvlink (NVSwitch) and nvlink_bridge: 5.7 µs, the one-shot custom all-reduce of TensorRT-LLM as vLLM and SGLang
  run it, 8 × H100 SXM, TP8, 4,096 B (sgl-project/sglang pull request 2904, "optimize custom allreduce kernel",
  2025-01-15, table "custom allreduce": 3.7–4.8 µs at TP2/TP4, 5.7–7.8 µs at TP8 for 512 B–32 KB; vLLM's own
  kernel 8.5–11.8 µs). NCCL's NVLS tree on 2 × H100 measures about 6 µs (NVIDIA/nccl issue 1259, 2024-04-22).
* pcie: 42 µs, NCCL all_reduce_perf at 8 B on 8 PCIe GPUs without NVLink (NVIDIA/nccl issue 1530, 8 × RTX 4090,
  42.14 µs; issue 1439, 8 × RTX 3090, 54.18 µs): no custom kernel on more than two PCIe GPUs (vLLM disables it)."""
LINK_SHARE: dict[str, float] = {"nvlink": 370.0 / 450.0}
"""Share of the one-way NVLink bandwidth a collective achieves, by gpus.csv ``interconnect`` [-]: "with the protocol
overhead (~20 %) NCCL can get an effective NVLink bandwidth of 370GB/s" of H100's 450 GB/s line rate (S. Jeaugey,
NCCL maintainer, NVIDIA/nccl-tests issue 212, 2024-05-06). Other interconnects (PCIe, NVLink bridges that leave
PCIe for TP > 2, the network) take the calibration's fitted ``interconnect_share``."""
NETWORK_LATENCY_SECONDS = 20e-6
"""α of one collective or pipeline hop between servers over InfiniBand/RoCE [s]: NCCL all_reduce_perf at 8 B, two
A100 servers over HDR InfiniBand, one GPU each, 19.9 µs (NVIDIA/nccl-tests issue 150, 2023-06-29)."""


@dataclass(frozen=True)
class Calibration:
    """Efficiency parameters of the serving model (what `python -m tco calibrate` fits)."""
    bandwidth_share: float
    """η_bw: share of the memory bandwidth a decode step achieves [-], in (0, 1]."""
    flops_share: float
    """η_c: share of peak dense FLOPS matrix work achieves [-], in (0, 1]."""
    interconnect_share: float
    """η_link: share of NVLink/PCIe/network bandwidth a collective achieves [-], in (0, 1]."""
    step_overhead_seconds: float
    """t0: fixed cost of a decode step (scheduling, kernel launches, sampling) [s]."""
    collective_latency_seconds: float
    """Extra latency of one all-reduce, all-to-all or pipeline hop beyond the interconnect's own [s] (0 in the
    shipped fit; calibration files before 2026-12 held the whole α here)."""
    sequence_overhead_seconds: float = 0.0
    """t_seq: cost of each sequence in a decode step outside its FLOPs and bytes (scheduling, sampling, token
    output on the host) [s]."""
    layer_overhead_seconds: float = 0.0
    """t_layer: fixed cost of each layer in a step (its small kernels: norms, rotary, activation, attention set-up)
    [s]."""
    name: str = "catalog default"
    source: str = ""


@dataclass(frozen=True)
class ModelSpec:
    params: float
    active_params: float
    layers: int
    hidden: int
    kv_heads: int
    head_dim: int
    experts: int = 0
    experts_per_token: int = 0
    precision: str = Precision.BF16
    kv_precision: str = Precision.BF16
    heads: int = 0
    """Query heads [-]; 0: hidden / head_dim."""
    attn_dim: float = 0.0
    """Mean width of the attention's score and value products per head [-] (models.csv attention_head_dim);
    0: head_dim."""
    moe_layers: int = 0
    """Layers with routed experts [-] (models.csv moe_layers); 0: every layer."""
    wide_params: float = 0.0
    """Active non-expert parameters the checkpoint keeps in a wider format than ``precision`` [-]
    (tco.sizing.precision_rules.kept_wide: DeepSeek's MLA projections in BF16 beside NVFP4 experts); 0: none."""
    wide_precision: str = ""
    """Their format ('': ``precision``)."""
    prompt_attn_dim: float = 0.0
    """Mean width of the attention's products per head for a prompt's tokens [-] (models.csv
    prompt_attention_head_dim); 0: attn_dim."""
    embed_params: float = 0.0
    """Input-embedding parameters, held and never read whole [-] (tco.sizing.vocab_rules: vocab × hidden, 0 if tied)."""
    head_params: float = 0.0
    """Output-head parameters, read and multiplied every step [-] (vocab × hidden); 0: counted in the body."""
    vocab_precision: str = ""
    """Format of the embedding and head (vocab_rules.VOCAB_KEPT: BF16 in FP8/FP4 checkpoints; '': ``precision``)."""


@dataclass(frozen=True)
class Hardware:
    memory_gb: float
    bandwidth_tbs: float
    peak_tflops: float
    gpus_per_server: int
    link_gbs: float
    """GPU-to-GPU bandwidth inside a server, one direction [GB/s]."""
    network_gbps: float | None = None
    """Scale-out network per server [Gb/s]; None: replicas cannot span servers."""
    link_latency_s: float = LINK_LATENCY_SECONDS["nvlink"]
    """α of one collective inside the server [s] (LINK_LATENCY_SECONDS by interconnect)."""
    network_latency_s: float = NETWORK_LATENCY_SECONDS
    """α of one collective or hop between servers [s]."""
    link_share: float = 0.0
    """Measured share of link_gbs a collective achieves (LINK_SHARE); 0: the calibration's interconnect_share."""
    attn_tflops: float = 0.0
    """Peak dense TFLOPS in the format the attention runs in (the KV cache's, tco.sizing.precision_rules); 0: the
    weights' peak_tflops."""
    wide_tflops: float = 0.0
    """Peak dense TFLOPS in the format of the layers a checkpoint keeps wider (ModelSpec.wide_precision); 0: the
    weights' peak_tflops."""
    vocab_tflops: float = 0.0
    """Peak dense TFLOPS in the output head's format (ModelSpec.vocab_precision); 0: the weights' peak_tflops."""
    fp4_gemm: bool = False
    """The weights' GEMMs run on FP4 tensor cores (4-bit weights on a GPU with an FP4 peak): tco.sizing.precision_rules
    charges them at r_4 of that peak (``gemm_share``)."""


KV_RESERVE_SHARE: dict[str, float] = {"generic": 1.0, "trtllm": 1.0, "vllm": 0.5, "sglang": 0.5}
"""Share of a request's output tokens whose KV cache the framework's scheduler reserves at admission. TensorRT-LLM's
default capacity scheduler, GUARANTEED_NO_EVICT (tensorrt_llm llm_args.py, SchedulerConfig), admits a request only
when the cache can take it to its last token: 1 (and "generic", which uses TensorRT-LLM's fit). vLLM (PagedAttention,
Kwon et al., SOSP 2023, §4.2–4.5: blocks allocated as tokens are generated, preemption when they run out) and SGLang
(RadixAttention's token pool, same on-demand allocation) hold a running sequence's KV only as far as it has grown, so
over a steady batch each sequence holds its mean context ISL + OSL/2: 0.5."""


@dataclass(frozen=True)
class Load:
    input_tokens: float
    output_tokens: float
    target_tps: float | None = None
    """Tokens/s each user must see; None: no latency target (maximum throughput)."""
    ttft_seconds: float | None = None
    """Time-to-first-token target [s]; None: no target."""
    max_batch: int = 256
    memory_usable_share: float = 0.9
    draft_tokens: int = 0
    """Speculative decoding (MTP): tokens the draft proposes per step, n [-]; 0: none."""
    acceptance_share: float = 0.0
    """Chance that each draft token is accepted, a [-] (DeepSeek-V3: 0.85–0.90 for its one MTP token)."""
    kv_reserve_share: float = 1.0
    """Share of the output whose KV cache the scheduler holds a place for when it admits a request, r [-]: the batch
    memory allows reserves ISL + r·OSL per sequence (KV_RESERVE_SHARE by framework)."""
    prefill_mix_share: float = 1.0
    """Share of the prompt tokens the framework runs inside its decode steps, m [-]: 1 mixed (chunked prefill, in-flight
    batching), 0 in prefill steps of their own that stall the decodes (tco.sizing.prefill_rules.PREFILL_MIX_SHARE)."""

    @property
    def accepted_tokens(self) -> float:
        """Tokens a sequence keeps per step [-] = 1 + a + a² + … + aⁿ: the draft tokens are kept up to the first one
        the model rejects, and the verification adds one of its own (Leviathan et al. 2023, ICML, §3.1, eq. 1 with
        n = γ). DeepSeek-V3's one MTP token at a = 0.85: 1.85.

        >>> Load(1000, 1000, draft_tokens=1, acceptance_share=0.85).accepted_tokens
        1.85
        >>> Load(1000, 1000).accepted_tokens
        1.0
        """
        return sum(self.acceptance_share ** i for i in range(self.draft_tokens + 1))


@dataclass(frozen=True)
class Layout:
    tp: int
    nodes: int = 1
    mode: str = ParallelMode.TP
    """'tp' (one server or less), 'pp' (pipeline over `nodes` servers), 'ep' (attention data-parallel and the
    experts split over the tp × nodes GPUs, inside one server or over `nodes` servers)."""

    @property
    def gpus(self) -> int:
        return self.tp * self.nodes

    @property
    def label(self) -> str:
        if self.mode == ParallelMode.EP:
            return f"EP{self.gpus}" if self.nodes == 1 else f"EP{self.tp}×{self.nodes}"
        return f"TP{self.tp}" if self.nodes == 1 else f"TP{self.tp}×{self.mode.upper()}{self.nodes}"


# ---------------------------------------------------------------------------------------------
# Terms: each a rule of tco.sizing.replica_rules, evaluated here for one set of scalars


def _scalar(expr: rules.Expr, **inputs: float) -> float:
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return float(np.asarray(expr.np(Env(dict(inputs), 1))).ravel()[0])


def kv_bytes_per_token(layers: int, kv_heads: int, head_dim: int, kv_precision: str) -> float:
    """KV cache per token [B] (sizing_rules.kv_bytes).

    Llama 3.1 70B in bf16: 2 × 80 × 8 × 128 × 2 = 327,680 B ≈ 0.33 MB per token.

    >>> kv_bytes_per_token(80, 8, 128, "bf16")
    327680.0
    """
    return _scalar(rules.kv_bytes(), layers=layers, kv_heads=kv_heads, head_dim=head_dim,
                   kv_bytes=BYTES_PER_PARAM[kv_precision])


def allreduce_seconds(message_bytes: float, gpus: int, link_bs: float, latency_s: float) -> float:
    """Ring all-reduce time [s] = α + 2·(p − 1)/p · n / B, 0 on one GPU (sizing_rules.allreduce).

    n message [B], p GPUs, B link bandwidth one direction [B/s], α fixed latency [s]. Each GPU sends and
    receives 2(p − 1)/p of the message (Patarasuk & Yuan 2009, J. Parallel Distrib. Comput. 69(2), §3;
    Thakur et al. 2005, IJHPCA 19(1), the α–β model).

    >>> round(allreduce_seconds(1_048_576, 8, 360e9, 5e-6) * 1e6, 3)   # 5 µs + 2·7/8·1 MiB / 360 GB/s
    10.097
    """
    return _scalar(rules.allreduce(In("n"), In("p"), In("b"), In("a")), n=message_bytes, p=gpus, b=link_bs,
                   a=latency_s)


def alltoall_seconds(message_bytes: float, parts: int, link_bs: float, latency_s: float) -> float:
    """Expert-parallel dispatch + combine [s] = 2 · (α + (p − 1)/p · n / B), 0 on one part.

    n bytes each part sends for its tokens' experts, p parts; (p − 1)/p of it leaves the part, once to the
    experts and once back (DeepSeek-AI 2024, DeepSeek-V3 technical report arXiv:2412.19437 §3.2.2).
    """
    return _scalar(rules.alltoall(In("n"), In("p"), In("b"), In("a")), n=message_bytes, p=parts, b=link_bs,
                   a=latency_s)


def expert_touch_share(tokens: float, experts: int, experts_per_token: int) -> float:
    """Share of a layer's experts that a step touches [-] = 1 − (1 − k/E)^b, for b tokens routed
    independently and uniformly to k of E experts (1 for a dense model).

    Mixtral 8x7B (E = 8, k = 2), 4 tokens: 1 − 0.75⁴ = 0.68359375.
    """
    return _scalar(rules.touched(In("tokens")), tokens=max(tokens, 0.0), experts=experts, experts_k=experts_per_token)


def expert_params(params: float, active_params: float, experts: int, experts_per_token: int) -> float:
    """Parameters in routed experts [-] (sizing_rules.expert_params). Mixtral 8x7B: (46.7 − 12.9)e9 / 0.75."""
    return _scalar(rules.expert_params(), params=params, active_params=active_params, experts=experts,
                   experts_k=experts_per_token)


# ---------------------------------------------------------------------------------------------
# Replicas


def attention_shape(m: ModelSpec) -> tuple[int, float]:
    """Query heads and the mean score/value width per head [-]: the catalog's, else hidden / head dim and head dim.

    >>> attention_shape(ModelSpec(70e9, 70e9, 80, 8192, 8, 128))
    (64, 128.0)
    """
    return m.heads or max(1, round(m.hidden / m.head_dim)), m.attn_dim or float(m.head_dim)


def inputs_of(m: ModelSpec, hw: Hardware, load: Load, eff: Calibration) -> dict[str, float]:
    """The named inputs of sizing_rules.RULES (the workbook's defined names, sizing_rules.INPUTS)."""
    return {
        "params": m.params, "active_params": m.active_params, "weight_bytes": BYTES_PER_PARAM[m.precision],
        "kv_bytes": BYTES_PER_PARAM[m.kv_precision], "layers": m.layers, "hidden": m.hidden,
        "kv_heads": m.kv_heads, "head_dim": m.head_dim, "heads": attention_shape(m)[0],
        "attn_dim": attention_shape(m)[1], "experts": m.experts, "experts_k": m.experts_per_token,
        "moe_layers": m.moe_layers or m.layers,
        "in_tokens": load.input_tokens, "out_tokens": load.output_tokens,
        "target_tps": load.target_tps or 0.0, "ttft": load.ttft_seconds or 0.0, "max_batch": load.max_batch,
        "mem_usable": load.memory_usable_share, "bw_eff": eff.bandwidth_share, "fl_eff": eff.flops_share,
        "link_eff": eff.interconnect_share, "overhead": eff.step_overhead_seconds,
        "seq_over": eff.sequence_overhead_seconds, "layer_over": eff.layer_overhead_seconds,
        "coll_lat": eff.collective_latency_seconds,
        "spec_tokens": 1.0 + load.draft_tokens, "spec_accept": load.accepted_tokens, "kv_reserve": load.kv_reserve_share,
        "prefill_mix": load.prefill_mix_share,
        "memory_gb": hw.memory_gb, "bandwidth_tbs": hw.bandwidth_tbs, "peak_tflops": hw.peak_tflops,
        "link_gbs": hw.link_gbs, "network_gbps": hw.network_gbps or 0.0, "link_lat": hw.link_latency_s,
        "net_lat": hw.network_latency_s, "link_share": hw.link_share, "attn_tflops": hw.attn_tflops or hw.peak_tflops,
        "wide_params": m.wide_params, "wide_bytes": BYTES_PER_PARAM[m.wide_precision or m.precision],
        "wide_tflops": hw.wide_tflops or hw.peak_tflops, "attn_dim_prompt": m.prompt_attn_dim,
        "embed_params": m.embed_params, "head_params": m.head_params,
        "vocab_bytes": BYTES_PER_PARAM[m.vocab_precision or m.precision], "vocab_tflops": hw.vocab_tflops or hw.peak_tflops,
        "fp4_gemm": float(hw.fp4_gemm),
    }


def replica_table(lays: list[Layout], m: ModelSpec, hw: Hardware, load: Load, eff: Calibration,
                  batch: int | None = None) -> list[dict]:
    """Every term of a replica in each layout [B, B/s, FLOP/s, s], evaluated once over all of them; the
    batch is the largest that meets the targets (or `batch` if given). Keys as sizing_rules.RULES, plus
    the layout (tp, nodes, mode, gpus), the link and network figures and `bound` as a word. Cached: the
    analysis re-runs size the same fleets many times (copies are returned)."""
    return [dict(v) for v in replica_tables([(tuple(lays), m, hw, load, eff, batch)])[0]]


TableKey = tuple[tuple[Layout, ...], ModelSpec, Hardware, Load, Calibration, int | None]
"""What a replica table depends on: (layouts, model, hardware, load, calibration, batch given or None)."""

_TABLES: OrderedDict[TableKey, tuple[dict, ...]] = OrderedDict()
_MAX_TABLES = 512


def replica_tables(keys: Sequence[TableKey]) -> list[tuple[dict, ...]]:
    """The tables of `keys` (``replica_table``'s arguments each), from the cache where it has them; the others are
    evaluated together, one pass of the rules over all their layouts (the plan search sizes some twenty offers:
    one pass instead of twenty). Exact: the rules are element-wise (sizing_rules: arithmetic, comparisons, MAX,
    MIN, INT, IF, and one power whose base is the model's), and an input the tables share stays one scalar, so
    each value is the one its table gives alone, to the last bit (tests/test_sizing_rules.py)."""
    todo = [k for k in dict.fromkeys(keys) if k not in _TABLES]
    for batch in dict.fromkeys(k[5] for k in todo):
        group = [k for k in todo if k[5] == batch]
        for k, table in zip(group, _evaluate_together(group, batch)):
            _TABLES[k] = table
    out = []
    for k in keys:
        _TABLES.move_to_end(k)
        out.append(_TABLES[k])
    while len(_TABLES) > _MAX_TABLES:
        _TABLES.popitem(last=False)
    return out


def _evaluate_together(keys: list[TableKey], batch: int | None) -> list[tuple[dict, ...]]:
    """The tables of `keys` (one batch) from one ``evaluate_layouts`` over their layouts end to end: an input
    whose value differs between tables is one value per layout, the others one scalar."""
    lays = [lay for k in keys for lay in k[0]]
    each = [inputs_of(m, hw, load, eff) for _, m, hw, load, eff, _ in keys]
    inputs: dict[str, Any] = {}
    for name, first in each[0].items():
        values = [e[name] for e in each]
        alike = all(type(v) is type(first) and repr(v) == repr(first) for v in values)  # −0.0 ≠ 0.0 here
        inputs[name] = first if alike else np.repeat(np.asarray(values, dtype=float), [len(k[0]) for k in keys])
    table = evaluate_layouts(lays, inputs, batch)
    out, at = [], 0
    for k in keys:
        out.append(tuple(table[at:at + len(k[0])]))
        at += len(k[0])
    return out


def evaluate_layouts(lays: list[Layout], inputs: dict[str, Any], batch: int | None = None) -> list[dict]:
    """The rules over layouts whose inputs are scalars or one value per layout (tco.sizing.calibrate: one
    benchmark row per position)."""
    table = rules.run(rules.RULES if batch is None else rules.with_batch(batch), inputs,
                      [lay.tp for lay in lays], [lay.nodes for lay in lays], [int(lay.mode == ParallelMode.EP) for lay in lays])
    link, net, lat, net_lat, share = (np.broadcast_to(np.asarray(inputs[k], dtype=float), (len(lays),))
                                      for k in ("link_gbs", "network_gbps", "link_lat", "net_lat", "link_share"))
    out = []
    for j, lay in enumerate(lays):
        v: dict[str, Any] = {key: float(row[j]) for key, row in table.items() if key != "t"}
        v.update({key: bool(v[key]) for key in rules.FLAGS})
        v.update(tp=lay.tp, nodes=lay.nodes, mode=lay.mode, gpus=lay.gpus, link_gbs=float(link[j]),
                 network_gbps=float(net[j]), link_lat=float(lat[j]), net_lat=float(net_lat[j]),
                 link_share=float(share[j]), layout=lay.label,
                 bound=rules.BOUND_TERMS[int(v["bound"]) - 1])
        out.append(v)
    return out


def replica_terms(lay: Layout, m: ModelSpec, hw: Hardware, load: Load, eff: Calibration,
                  batch: int | None = None) -> dict:
    """Every term of a replica in layout `lay` (replica_table for one layout)."""
    return replica_table([lay], m, hw, load, eff, batch)[0]
