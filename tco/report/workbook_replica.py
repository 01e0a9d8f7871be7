"""The replica block of the Sizing sheet: tco.sizing_inference.replica_terms as live formulas.

One column per layout the engine tried (tensor parallel inside a server, or whole servers by pipeline or
expert parallel), every term a formula of the inputs; the batch is the engine's closed form (two passes
for the expert-touch share); the main table takes the column with the highest score by INDEX/MATCH.
"""

from __future__ import annotations

from tco.report.workbook_book import Book, col, num

ROWS = (("nodes", "servers"), ("ep", ""), ("gpus", "GPU"), ("weights_b", "B"), ("expert_b", "B"), ("held_b", "B"),
        ("kv_tok", "B/token"), ("mem_b", "B"), ("bw", "B/s"), ("fl", "FLOP/s"), ("link", "B/s"), ("net", "B/s"),
        ("ratio", ""), ("flops_tok", "FLOP"), ("fits", ""), ("b_mem", "seq"), ("b_max", "seq"), ("prefill", "s"),
        ("c_const", "s"), ("c_seq", "s"), ("slope", "s"), ("a1", "s"), ("b1", "seq"), ("touch1", ""), ("a2", "s"),
        ("b2", "seq"), ("touch2", ""), ("cycle2", "s"), ("ok2", ""), ("batch", "seq"), ("touch", ""),
        ("w_read", "B"), ("kv_read", "B"), ("mem_s", "s"), ("cmp_s", "s"), ("coll_s", "s"), ("overhead_s", "s"),
        ("cycle", "s"), ("decode_tps", "tokens/s"), ("ttft", "s"), ("per_request", "s"), ("cap", "req/s"),
        ("met", ""), ("score", ""))
FORMATS = {"ep": "calc_int", "nodes": "calc_int", "gpus": "calc_int", "fits": "calc_gen", "ok2": "calc_gen",
           "met": "calc_gen", "b_mem": "calc_int", "b_max": "calc_int", "b1": "calc_int", "b2": "calc_int",
           "batch": "calc_int", "ratio": "calc_num", "decode_tps": "calc_num", "cap": "calc_num4", "score": "calc_num4",
           "touch1": "calc_pct", "touch2": "calc_pct", "touch": "calc_pct"}
SECONDS = {"prefill", "c_const", "c_seq", "slope", "a1", "a2", "cycle2", "mem_s", "cmp_s", "coll_s", "overhead_s",
           "cycle", "ttft", "per_request"}
BOUND_TERMS = ("memory", "max-batch", "latency-ttft", "latency-bandwidth", "latency-compute", "latency-interconnect",
               "latency-overhead")


def fmt_of(key: str) -> str:
    return FORMATS.get(key, "calc_num6" if key in SECONDS else "calc_sci")


def formulas(R: dict, p: str) -> dict[str, str]:
    """replica_terms as formulas; R maps row keys (and 'tp') to this column's cells, p is the option prefix."""
    act = "(in_active_params_b*1000000000)"
    ctx = "(in_in_tokens+in_out_tokens/2)"
    tp, n, ep = R["tp"], R["nodes"], R["ep"]
    k, e, d, L, a = "in_experts_k", "in_experts", "in_hidden", "in_layers", "in_coll_lat"
    pp = f"AND({n}>1,{ep}=0)"

    def ar(x):  # ring all-reduce over the tp GPUs of a server
        return f"IF({tp}<=1,0,{a}+2*({tp}-1)/{tp}*({x})/{R['link']})"

    def a2a(x):  # expert all-to-all over the servers
        return f"IF({n}<=1,0,2*({a}+({n}-1)/{n}*({x})/{R['net']}))"

    def touch(b):
        return f"IF({e}>0,1-(1-{k}/{e})^(({b})*(1+{R['ratio']})/IF({pp},{n},1)),1)"

    def w_read(tc):
        return f"IF({ep}=1,({R['weights_b']}-{R['expert_b']})+{R['expert_b']}*({tc})/{n},{R['weights_b']}-{R['expert_b']}*(1-({tc})))"

    def batch(a_cell):
        ttft = f"IF(in_ttft>0,(in_ttft-{R['prefill']}-{a_cell})/{R['slope']},{R['b_max']})"
        return f"=MAX(1,INT(MIN({R['b_max']},(1/in_target_tps-{a_cell})/{R['slope']},{ttft})+1E-9))"

    isl_act = f"in_in_tokens*{d}*2"
    return {
        "gpus": f"={tp}*{n}",
        "weights_b": "=in_params_b*1000000000*in_weight_bytes",
        "expert_b": f"=IF(AND({e}>0,{k}>0,{k}<{e}),(in_params_b-in_active_params_b)*1000000000/(1-{k}/{e}),0)*in_weight_bytes",
        "held_b": f"={R['weights_b']}+IF({ep}=1,({n}-1)*({R['weights_b']}-{R['expert_b']}),0)",
        "kv_tok": "=2*in_layers*in_kv_heads*in_head_dim*in_kv_bytes",
        "mem_b": f"={R['gpus']}*{p}inf_mem*1000000000*in_mem_usable",
        "bw": f"={tp}*{p}inf_bw*1000000000000*in_bw_eff",
        "fl": f"={R['gpus']}*{p}inf_tflops*1000000000000*in_fl_eff",
        "link": f"={p}inf_link*1000000000*in_link_eff",
        "net": f"={p}inf_net/8*1000000000*in_link_eff",
        "ratio": "=in_in_tokens/in_out_tokens",
        "flops_tok": (f"=(1+{R['ratio']})*2*{act}+4*{L}*{d}*{ctx}+{R['ratio']}*2*{L}*{d}*in_in_tokens"),
        "fits": f"={R['held_b']}+{R['kv_tok']}*(in_in_tokens+in_out_tokens)<={R['mem_b']}",
        "b_mem": f"=MAX(0,INT(({R['mem_b']}-{R['held_b']})/({R['kv_tok']}*{ctx})))",
        "b_max": f"=MIN({R['b_mem']},in_max_batch)",
        "prefill": (f"={R['weights_b']}/{n}/{R['bw']}*IF({pp},{n},1)+(2*{act}*in_in_tokens+2*{L}*{d}*in_in_tokens^2)"
                    f"/({tp}*{p}inf_tflops*1000000000000*in_fl_eff)+2*{L}*{ar(isl_act)}"
                    f"+IF({pp},({n}-1)*({a}+{isl_act}/{R['net']}),0)+IF({ep}=1,{L}*{a2a(isl_act + '*' + k)},0)+in_overhead"),
        "c_const": f"=IF({ep}=1,IF({tp}>1,{L}*{a},0)+IF({n}>1,{L}*2*{a},0),IF({tp}>1,2*{L}*{a},0)+IF({n}>1,{n}*{a},0))",
        "c_seq": (f"=IF({ep}=1,IF({tp}>1,{L}*2*({tp}-1)/{tp}*(1+{R['ratio']})/{n}*{d}*2/{R['link']},0)"
                  f"+IF({n}>1,{L}*2*({n}-1)/{n}*(1+{R['ratio']})/{n}*{k}*{d}*2/{R['net']},0),"
                  f"IF({tp}>1,2*{L}*2*({tp}-1)/{tp}*(1+{R['ratio']})/{n}*{d}*2/{R['link']},0)"
                  f"+IF({n}>1,(1+{R['ratio']})*{d}*2/{R['net']},0))"),
        "slope": f"={ctx}*{R['kv_tok']}/{n}/{R['bw']}+{R['flops_tok']}/{R['fl']}+{R['c_seq']}",
        "a1": f"={w_read('1')}/{R['bw']}+{R['c_const']}+in_overhead",
        "b1": batch(R["a1"]),
        "touch1": "=" + touch(R["b1"]),
        "a2": f"={w_read(R['touch1'])}/{R['bw']}+{R['c_const']}+in_overhead",
        "b2": batch(R["a2"]),
        "touch2": "=" + touch(R["b2"]),
        "cycle2": f"={w_read(R['touch2'])}/{R['bw']}+{R['b2']}*{R['slope']}+{R['c_const']}+in_overhead",
        "ok2": (f"=AND(1/{R['cycle2']}>=in_target_tps*(1-1E-9),"
                f"IF(in_ttft>0,{R['prefill']}+{R['cycle2']}<=in_ttft*(1+1E-9),TRUE()))"),
        "batch": f"=IF({R['ok2']},{R['b2']},{R['b1']})",
        "touch": f"=IF({R['ok2']},{R['touch2']},{R['touch1']})",
        "w_read": "=" + w_read(R["touch"]),
        "kv_read": f"={R['batch']}*{ctx}*{R['kv_tok']}/{n}",
        "mem_s": f"=({R['w_read']}+{R['kv_read']})/{R['bw']}",
        "cmp_s": f"={R['batch']}*{R['flops_tok']}/{R['fl']}",
        "coll_s": f"={R['c_const']}+{R['batch']}*{R['c_seq']}",
        "overhead_s": "=in_overhead",
        "cycle": f"={R['mem_s']}+{R['cmp_s']}+{R['coll_s']}+{R['overhead_s']}",
        "decode_tps": f"={R['batch']}/{R['cycle']}",
        "ttft": f"={R['prefill']}+{R['cycle']}",
        "per_request": f"=in_out_tokens*{R['cycle']}/{R['batch']}",
        "cap": f"=1/{R['per_request']}",
        "met": (f"=AND(1/{R['cycle']}>=in_target_tps*(1-1E-9),"
                f"IF(in_ttft>0,{R['ttft']}<=in_ttft*(1+1E-9),TRUE()))"),
        "score": f"=IF({R['fits']},IF({R['met']},1000000000,0)+{R['cap']}/{R['gpus']},-1)",
    }


def bound_formula(R: dict, labels: dict) -> str:
    """What stops the batch (sizing_inference._bound) as a formula of the column's cells."""
    a = f"IF({R['ok2']},{R['a2']},{R['a1']})"
    tps = f"(1/in_target_tps-{a})/{R['slope']}"
    ttft = f"IF(in_ttft>0,(in_ttft-{R['prefill']}-{a})/{R['slope']},1E+300)"
    mx = f"MAX({R['mem_s']},{R['cmp_s']},{R['coll_s']},{R['overhead_s']})"
    q = {k: f'"{v}"' for k, v in labels.items()}
    return (f"=IF({R['b_max']}<=MIN({tps},{ttft}),IF({R['b_mem']}<=in_max_batch,{q['memory']},{q['max-batch']}),"
            f"IF({ttft}<{tps},{q['latency-ttft']},IF({R['mem_s']}={mx},{q['latency-bandwidth']},"
            f"IF({R['cmp_s']}={mx},{q['latency-compute']},IF({R['coll_s']}={mx},{q['latency-interconnect']},"
            f"{q['latency-overhead']})))))")


def candidate_block(book: Book, ws, r: int, i: int, o, vals: list[dict]) -> tuple[int, dict, str]:
    """One option's candidate layouts below the main table: returns (next row, row of each key, last column)."""
    t = book.t
    ws.write_string(r, 0, t("sz_candidates", i=i), book.fmt("h2"))
    ws.write_string(r, 1, o.name, book.fmt("bold_gen"))  # scenario text
    r += 1
    rows = {"tp": r}
    ws.write_string(r, 0, t("tp"))
    ws.write_string(r, 1, "GPU", book.fmt("small"))
    for j, v in enumerate(vals):
        ws.write_number(r, 2 + j, v["tp"], book.fmt("eng_int"))
    r += 1
    for key, unit in ROWS + (("bound", ""),):
        rows[key] = r
        ws.write_string(r, 0, t(key))
        ws.write_string(r, 1, unit, book.fmt("small"))
        r += 1
    p = f"in_o{i}_"
    labels = {k: book.term("bound", k) for k in BOUND_TERMS}
    for j, v in enumerate(vals):
        c = col(2 + j)
        R = {k: f"{c}{rr + 1}" for k, rr in rows.items()}
        ws.write_number(rows["nodes"], 2 + j, v["nodes"], book.fmt("eng_int"))
        ws.write_number(rows["ep"], 2 + j, 1 if v["mode"] == "ep" else 0, book.fmt("eng_int"))
        for key, f in formulas(R, p).items():
            x = v.get(key, 0.0)
            ws.write_formula(rows[key], 2 + j, f, book.fmt(fmt_of(key)), x if isinstance(x, bool) else num(x))
        ws.write_formula(rows["bound"], 2 + j, bound_formula(R, labels), book.fmt("text"), book.term("bound", v["bound"]))
    return r + 1, rows, col(2 + len(vals) - 1)

