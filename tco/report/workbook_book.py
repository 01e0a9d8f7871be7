"""Plumbing of the workbook renderer: labels, cell styles, and writers that put a formula together
with the engine's value as its cached result.

Layout shared by every sheet with a timeline (FAST standard): column A label, B unit, C constant or
row total, D an empty spacer, month 1 in column E, month H in column E + H − 1. A formula that needs
"the previous month" reads the column to its left, which for month 1 is the empty spacer (= 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from xlsxwriter.utility import xl_col_to_name, xl_rowcol_to_cell

FIRST_COL = 4
"""Column index (0-based) of month 1 on every timeline sheet (column E)."""

LABELS: dict[str, tuple[str, str]] = {
    # sheet names
    "sh_summary": ("Resumo", "Summary"),
    "sh_inputs": ("Premissas", "Inputs"),
    "sh_catalog": ("Catálogo", "Catalog"),
    "sh_sizing": ("Dimensionamento", "Sizing"),
    "sh_timeline": ("Linha do tempo", "Timeline"),
    "sh_calc": ("Cálculo {i}", "Calc {i}"),
    "sh_comparison": ("Comparação", "Comparison"),
    "sh_fx": ("Risco cambial", "FX risk"),
    "sh_sensitivity": ("Sensibilidade", "Sensitivity"),
    "sh_checks": ("Verificações", "Checks"),
    # summary
    "title": ("Custo total de propriedade (TCO) de um modelo de IA", "Total cost of ownership (TCO) of an AI model"),
    "scenario": ("Cenário", "Scenario"),
    "client": ("Cliente", "Client"),
    "prepared_by": ("Preparado por", "Prepared by"),
    "start": ("Início", "Start"),
    "horizon": ("Horizonte", "Horizon"),
    "months": ("meses", "months"),
    "fx_model": ("Modelo de câmbio", "FX model"),
    "master_check": ("Todas as verificações OK", "All checks pass"),
    "cheapest": ("Opção de menor TCO", "Lowest-TCO option"),
    "generated": ("Gerado por tco {v}; fórmulas vivas: altere a aba Premissas e o modelo recalcula.",
                  "Written by tco {v}; live formulas: change the Inputs sheet and the model recalculates."),
    "notes": ("Observações", "Notes"),
    "warnings": ("Avisos do motor", "Engine warnings"),
    # common columns
    "item": ("Item", "Item"), "value": ("Valor", "Value"), "unit": ("Unidade", "Unit"),
    "source": ("Fonte", "Source"), "as_of": ("Data", "As of"), "total": ("Total", "Total"),
    "option": ("Opção", "Option"), "kind": ("Tipo", "Kind"), "month": ("Mês", "Month"),
    "t": ("t (mês)", "t (month)"), "note": ("Nota", "Note"),
    # inputs
    "sec_general": ("Geral e câmbio", "General and FX"),
    "sec_demand": ("Demanda", "Demand"),
    "sec_profile": ("Perfil diário (participação de cada hora nas requisições do dia)",
                    "Daily profile (share of a day's requests in each hour)"),
    "sec_users_list": ("Usuários por mês de inferência (lista)", "Users per inference month (list)"),
    "sec_model": ("Modelo e treinamento", "Model and training"),
    "sec_option": ("Opção {i}: ", "Option {i}: "),
    "start_date": ("Primeiro mês do horizonte", "First month of the horizon"),
    "discount_rate": ("Taxa de desconto anual (BRL, nominal)", "Annual discount rate (BRL, nominal)"),
    "usdbrl": ("Câmbio USD/BRL à vista", "Spot USD/BRL"),
    "brl_rate": ("Juros anuais BRL (paridade)", "Annual BRL interest rate (parity)"),
    "usd_rate": ("Juros anuais USD (paridade)", "Annual USD interest rate (parity)"),
    "fx_drift": ("Drift anual (log) do câmbio", "Annual log drift of USD/BRL"),
    "inf_start": ("Mês de início da inferência", "Inference start month"),
    "train_start": ("Mês de início do treinamento", "Training start month"),
    "growth_model": ("Modelo de crescimento de usuários", "User growth model"),
    "start_users": ("Usuários no 1º mês de inferência", "Users in the first inference month"),
    "end_users": ("Usuários no último mês", "Users in the last month"),
    "growth_rate": ("Crescimento mensal", "Monthly growth"),
    "max_users": ("Máximo de usuários", "Maximum users"),
    "ceiling_users": ("Teto de usuários (logística)", "User ceiling (logistic)"),
    "steepness": ("Inclinação da logística", "Logistic steepness"),
    "rpud": ("Requisições por usuário por dia", "Requests per user per day"),
    "adpw": ("Dias com uso por semana", "Active days per week"),
    "in_tokens": ("Tokens de entrada por requisição", "Input tokens per request"),
    "out_tokens": ("Tokens de saída por requisição", "Output tokens per request"),
    "egress_kb": ("Tráfego de saída por requisição", "Egress per request"),
    "storage_gb": ("Armazenamento em nuvem", "Cloud storage"),
    "utilization": ("Utilização máxima planejada por réplica", "Highest planned utilisation per replica"),
    "n_plus_1": ("Redundância N+1 (1 = sim, 0 = não)", "N+1 redundancy (1 = yes, 0 = no)"),
    "hour": ("Hora {h:02d}h", "Hour {h:02d}h"),
    "params_b": ("Parâmetros do modelo", "Model parameters"),
    "active_params_b": ("Parâmetros ativos", "Active parameters"),
    "layers": ("Camadas", "Layers"), "kv_heads": ("Cabeças KV", "KV heads"), "head_dim": ("Dimensão por cabeça", "Head dimension"),
    "weight_bytes": ("Bytes por peso (serviço)", "Bytes per weight (serving)"),
    "kv_bytes": ("Bytes por elemento do cache KV", "Bytes per KV-cache element"),
    "bw_eff": ("Eficiência de banda de memória", "Memory-bandwidth efficiency"),
    "fl_eff": ("Eficiência de FLOPS", "FLOPS efficiency"),
    "mfu": ("MFU do treinamento", "Training MFU"),
    "train_tokens": ("Tokens de treinamento por época", "Training tokens per epoch"),
    "epochs": ("Épocas", "Epochs"),
    "inf_gps": ("GPUs por servidor de inferência", "GPUs per inference server"),
    "sz_candidates": ("Opção {i}: layouts candidatos (um por grau de paralelismo)",
                      "Option {i}: candidate layouts (one per tensor-parallel degree)"),
    "fits": ("Pesos + 1 sequência cabem na memória", "Weights + 1 sequence fit in memory"),
    "met": ("Atinge a velocidade por usuário", "Meets the per-user speed"),
    "score": ("Pontuação (atinge × 1e9 + req/s por GPU; −1 se não cabe)",
              "Score (meets × 1e9 + req/s per GPU; −1 if it does not fit)"),
    "target_tps": ("Velocidade por usuário (decodificação)", "Decode speed per user"),
    "max_batch": ("Máximo de sequências simultâneas por réplica", "Maximum concurrent sequences per replica"),
    "inf_mem": ("Memória da GPU de inferência", "Inference GPU memory"),
    "mem_b": ("Memória utilizável da réplica", "Replica usable memory"),
    "b_mem": ("Lote limitado pela memória", "Batch allowed by memory"),
    "b_bw": ("Lote limitado pela latência (banda)", "Batch allowed by latency (bandwidth)"),
    "b_cmp": ("Lote limitado pela latência (computação)", "Batch allowed by latency (compute)"),
    "act_share": ("Memória de ativações (fração dos estados)", "Activation memory (share of states)"),
    "lora_share": ("Parâmetros treinados pelo LoRA", "Parameters trained by LoRA"),
    "mem_usable": ("Fração utilizável da memória da GPU", "Usable share of GPU memory"),
    "train_servers_given": ("Servidores de treinamento informados", "Training servers given"),
    "target_days": ("Duração desejada do treinamento", "Target training duration"),
    "tr_mem": ("Memória da GPU de treinamento", "Training GPU memory"),
    "tr_scaling": ("Eficiência de escala entre GPUs ({ic})", "Multi-GPU scaling efficiency ({ic})"),
    "tr_mem_b": ("Memória para treinar", "Memory to train"),
    "tr_min_gpus": ("GPUs mínimas (memória)", "Minimum GPUs (memory)"),
    "tr_min_servers": ("Servidores mínimos (memória)", "Minimum servers (memory)"),
    "tr_wanted": ("Servidores para a duração desejada", "Servers for the target duration"),
    "gpu_hours_given": ("GPU-horas informadas", "GPU-hours given"),
    "inf_offer": ("Oferta de inferência", "Inference offer"),
    "tr_offer": ("Oferta de treinamento", "Training offer"),
    "inf_price": ("Preço da inferência por servidor", "Inference price per server"),
    "tr_price": ("Preço do treinamento por servidor", "Training price per server"),
    "setup_fee": ("Taxa de instalação por servidor (inferência)", "Setup fee per server (inference)"),
    "tr_setup_fee": ("Taxa de instalação por servidor (treinamento)", "Setup fee per server (training)"),
    "tr_min_term": ("Prazo mínimo do contrato de treinamento", "Training contract minimum term"),
    "inf_bw": ("Banda de memória da GPU de inferência", "Inference GPU memory bandwidth"),
    "inf_tflops": ("TFLOPS de pico da GPU de inferência", "Inference GPU peak TFLOPS"),
    "tr_tflops": ("TFLOPS BF16 de pico da GPU de treinamento", "Training GPU peak BF16 TFLOPS"),
    "tr_gps": ("GPUs por servidor de treinamento", "GPUs per training server"),
    "index_rate": ("Reajuste anual (contratos BRL)", "Annual indexation (BRL contracts)"),
    "trend_rate": ("Variação anual dos preços em USD", "Annual change of USD prices"),
    "storage_price": ("Preço do armazenamento", "Storage price"),
    "tax_profile": ("Perfil tributário", "Tax profile"),
    "irrf": ("IRRF", "IRRF"), "cide": ("CIDE", "CIDE"), "iss": ("ISS", "ISS"),
    "pis_cofins": ("PIS/COFINS", "PIS/COFINS"), "iof": ("IOF câmbio", "IOF (FX)"),
    "creditable": ("PIS/COFINS creditável (1 = sim)", "PIS/COFINS creditable (1 = yes)"),
    "egress_tier": ("Faixa de egress {j}: de / até (GB) / preço", "Egress tier {j}: from / to (GB) / price"),
    "unverified": ("preço não verificado (vazio = 0)", "unverified price (blank = 0)"),
    "unbounded": ("vazio = sem limite", "blank = unbounded"),
    "fleet": ("Frota", "Fleet"), "pricing": ("Modalidade", "Pricing"), "autoscale": ("Autoescala", "Autoscale"),
    # catalog
    "cat_gpus": ("GPUs", "GPUs"), "cat_model": ("Modelo", "Model"), "cat_offers": ("Ofertas", "Offers"),
    "cat_egress": ("Tabelas de egress", "Egress tables"), "cat_taxes": ("Perfis tributários", "Tax profiles"),
    "cat_files": ("Arquivos do catálogo", "Catalog files"), "cat_storage": ("Armazenamento", "Storage"),
    # sizing
    "engine_result": ("resultado do motor (valor)", "engine result (value)"),
    "sz_inference": ("Réplica de inferência", "Inference replica"),
    "sz_training": ("Cluster de treinamento", "Training cluster"),
    "gpu": ("GPU", "GPU"), "tp": ("Paralelismo de tensor (GPUs por réplica)", "Tensor parallel (GPUs per replica)"),
    "rps_server": ("Réplicas por servidor", "Replicas per server"),
    "batch": ("Lote (sequências simultâneas)", "Batch (concurrent sequences)"),
    "bound": ("Limite do lote", "Batch limited by"),
    "tp_eff": ("Eficiência de escala do paralelismo", "Tensor-parallel scaling efficiency"),
    "weights_b": ("Pesos", "Weights"), "kv_tok": ("Cache KV por token", "KV cache per token"),
    "kv_read": ("Cache KV lido por sequência", "KV cache read per sequence"),
    "bw": ("Banda efetiva da réplica", "Replica effective bandwidth"),
    "fl": ("FLOPS efetivos da réplica", "Replica effective FLOPS"),
    "step": ("Tempo de um passo de decodificação", "Decode step time"),
    "decode_tps": ("Vazão de decodificação", "Decode throughput"),
    "prefill": ("Prefill por requisição", "Prefill per request"),
    "per_request": ("Tempo de réplica por requisição", "Replica time per request"),
    "cap": ("Capacidade da réplica", "Replica capacity"),
    "cap_engine": ("Capacidade da réplica (motor)", "Replica capacity (engine)"),
    "tr_servers": ("Servidores de treinamento", "Training servers"),
    "tr_gpus": ("GPUs de treinamento", "Training GPUs"),
    "scaling_eff": ("Eficiência de escala", "Scaling efficiency"),
    "gpu_hours": ("GPU-horas de trabalho", "GPU-hours of work"),
    "wall_hours": ("Duração do treinamento", "Training wall-clock time"),
    # timeline
    "days": ("Dias no mês", "Days in month"), "hours_month": ("Horas no mês", "Hours in month"),
    "inf_k": ("Mês de inferência k", "Inference month k"),
    "users": ("Usuários ativos", "Active users"), "requests": ("Requisições", "Requests"),
    "tokens": ("Tokens", "Tokens"), "rps_hour": ("Requisições/s às {h:02d}h", "Requests/s at {h:02d}h"),
    "peak_rps": ("Requisições/s no pico", "Requests/s at peak"), "egress_gb": ("Egress", "Egress"),
    "fx": ("USD/BRL", "USD/BRL"), "df": ("Fator de desconto", "Discount factor"),
    "profile_share": ("participação da hora", "share of the hour"),
    "contract_year": ("Ano de contrato (0 = primeiro)", "Contract year (0 = first)"),
    # calc
    "consts": ("Constantes da opção", "Option constants"),
    "n_train_months": ("Meses com treinamento", "Months with training"),
    "months_paid": ("Meses pagos do cluster de treinamento", "Months paid of the training cluster"),
    "first_use": ("Primeiro mês de armazenamento", "First month of storage"),
    "uplift": ("Acréscimo tributário sobre USD", "Tax uplift on USD"),
    "trend": ("Fator anual de preço USD", "USD price factor (yearly)"),
    "index": ("Fator de reajuste BRL", "BRL indexation factor (yearly)"),
    "srv_hour": ("Servidores às {h:02d}h", "Servers at {h:02d}h"),
    "peak_replicas": ("Réplicas no pico", "Replicas at peak"),
    "peak_servers": ("Servidores no pico", "Servers at peak"),
    "train_hours": ("Horas de treinamento no mês", "Training hours in month"),
    "train_servers": ("Servidores de treinamento em uso", "Training servers in use"),
    "need": ("Servidores necessários (treino + inferência)", "Servers needed (training + inference)"),
    "fleet_servers": ("Frota contratada (nunca diminui)", "Fleet rented (never shrinks)"),
    "unit_cost": ("Custo por servidor no mês", "Cost per server in month"),
    "train_paid": ("Servidores de treinamento pagos", "Training servers paid"),
    "train_setup": ("Instalação do cluster de treinamento", "Training cluster setup"),
    "inf_paid": ("Servidores de inferência pagos", "Inference servers paid"),
    "inf_hours": ("Servidor-horas de inferência", "Inference server-hours"),
    "committed": ("Instâncias compromissadas (linha de base)", "Committed instances (baseline)"),
    "burst_hours": ("Horas acima da linha de base (por hora)", "Hours above the baseline (by the hour)"),
    "burst_price": ("Preço por hora acima da linha de base", "Price per hour above the baseline"),
    "commit_term": ("Prazo de cada compromisso", "Term of each commitment"),
    "commit_n": ("Instâncias compromissadas no {j}º prazo", "Committed instances in term {j}"),
    "tr_hours": ("Servidor-horas de treinamento", "Training server-hours"),
    "inf_setup": ("Instalação de servidores de inferência", "Inference servers setup"),
    "stored_gb": ("Volume armazenado", "Volume stored"),
    "egress_in_tier": ("Egress na faixa {j}", "Egress in tier {j}"),
    "server_hours": ("Servidor-horas pagas", "Server-hours paid"),
    "sec_lines": ("Linhas de custo na moeda da oferta", "Cost lines in the offer's currency"),
    "sec_brl": ("Linhas de custo em BRL", "Cost lines in BRL"),
    "sec_fleet": ("Frota", "Fleet"),
    "line_training_compute": ("Computação de treinamento", "Training compute"),
    "line_inference_compute": ("Computação de inferência", "Inference compute"),
    "line_setup": ("Instalação", "Setup"), "line_storage": ("Armazenamento", "Storage"),
    "line_egress": ("Egress (tráfego de saída)", "Egress"), "line_taxes": ("Tributos", "Taxes"),
    "total_brl": ("Custo total do mês", "Total cost of month"),
    "cumulative": ("Custo acumulado", "Cumulative cost"),
    "discounted": ("Custo descontado", "Discounted cost"),
    "tco": ("TCO", "TCO"), "npv": ("VPL", "NPV"), "rank": ("Posição", "Rank"),
    "vs_best": ("vs. melhor", "vs best"), "per_mtok": ("R$ por milhão de tokens", "BRL per million tokens"),
    "na": ("não se aplica", "not applicable"),
    # comparison / fx
    "mc_note": ("Valores (não fórmulas) da simulação Monte Carlo do câmbio", "Values (not formulas) of the FX Monte Carlo"),
    "paths": ("Trajetórias", "Paths"), "seed": ("Semente", "Seed"), "volatility": ("Volatilidade anual", "Annual volatility"),
    "mean": ("Média", "Mean"), "p5": ("P5", "P5"), "p50": ("P50", "P50"), "p95": ("P95", "P95"),
    "prob_cheapest": ("Prob. de ser a mais barata", "Probability of being cheapest"),
    "fan_title": ("Custo mensal P5/P50/P95: {name}", "Monthly cost P5/P50/P95: {name}"),
    "no_mc": ("Câmbio determinístico ({model}): sem simulação; percentis = valor determinístico.",
              "Deterministic FX ({model}): no simulation; percentiles = deterministic value."),
    "block_months": ("Bloco da reamostragem (meses)", "Bootstrap block (months)"),
    "mc_input_note": ("usado pela simulação Monte Carlo do motor (aba Risco cambial); a planilha não a refaz",
                      "used by the engine's Monte Carlo (FX risk sheet); the workbook does not re-run it"),
    "tco_mc": ("TCO (Monte Carlo)", "TCO (Monte Carlo)"), "npv_mc": ("VPL (Monte Carlo)", "NPV (Monte Carlo)"),
    "chart_cum": ("Custo acumulado por opção (R$)", "Cumulative cost per option (BRL)"),
    "chart_lines": ("Custo mensal por linha (R$): {name}", "Monthly cost by line (BRL): {name}"),
    "chart_tornado": ("Sensibilidade do TCO", "TCO sensitivity"),
    # sensitivity
    "sens_note": (("Resultados do motor (valores): diferença de TCO desafiante − líder em cada extremo da faixa de "
                   "cada premissa; as demais premissas no caso base."),
                  ("Engine results (values): TCO difference challenger − leader at each end of each input's range, "
                   "the other inputs at their base case.")),
    "sens_leaders": ("As duas opções líderes", "The two leading options"),
    "sens_dedicated_vs_cloud": ("Melhor dedicada vs. melhor nuvem", "Best dedicated vs best cloud"),
    "sens_pair": ("Diferença", "Difference"),
    "sens_input": ("Premissa", "Input"), "sens_low": ("Baixo", "Low"), "sens_high": ("Alto", "High"),
    "sens_base": ("Diferença base", "Base difference"), "sens_low_diff": ("Diferença no baixo", "Difference at low"),
    "sens_high_diff": ("Diferença no alto", "Difference at high"), "sens_swing": ("Amplitude", "Swing"),
    "sens_low_dev": ("Baixo − base", "Low − base"), "sens_high_dev": ("Alto − base", "High − base"),
    "sens_in_usdbrl": ("Câmbio USD/BRL à vista", "USD/BRL spot"),
    "sens_in_volatility": ("Volatilidade do câmbio (P95)", "FX volatility (P95)"),
    "sens_in_users": ("Usuários", "Users"), "sens_in_tokens": ("Tokens por requisição", "Tokens per request"),
    "sens_in_cloud_price": ("Preços de GPU na nuvem", "Cloud GPU prices"),
    "sens_in_dedicated_price": ("Preços dedicados", "Dedicated prices"),
    "sens_in_egress": ("Egress por resposta", "Egress per response"), "sens_in_mfu": ("MFU do treinamento", "Training MFU"),
    "sens_in_discount_rate": ("Taxa de desconto (VPL)", "Discount rate (NPV)"),
    "sens_in_tax": ("Tributos de importação", "Import tax rates"),
    "fx_fan_title": ("USD/BRL: P5, P50, P95 das trajetórias simuladas", "USD/BRL: P5, P50, P95 of the simulated paths"),
    "fx_det": ("USD/BRL determinístico (Linha do tempo)", "Deterministic USD/BRL (Timeline)"),
    # checks
    "chk": ("Verificação", "Check"), "result": ("Resultado", "Result"),
    "chk_tco": ("TCO da planilha = TCO do motor (± R$ 0,01)", "Workbook TCO = engine TCO (± BRL 0.01)"),
    "chk_npv": ("VPL da planilha = VPL do motor (± R$ 0,01)", "Workbook NPV = engine NPV (± BRL 0.01)"),
    "chk_monthly": ("Totais mensais = motor (± R$ 0,01 em todos os meses)", "Monthly totals = engine (± BRL 0.01 every month)"),
    "chk_sum": ("Linhas somam o total", "Lines add up to the total"),
    "chk_neg": ("Nenhum custo negativo", "No negative cost"),
    "chk_cap": ("Capacidade da réplica = motor", "Replica capacity = engine"),
    "chk_note": (("As verificações contra o motor comparam com os valores da execução que gerou esta planilha: "
                 "depois de alterar uma premissa elas ficam FALSO até o motor ser executado de novo com a mesma "
                 "alteração; as demais (linhas somam o total, nenhum custo negativo) devem continuar VERDADEIRO."),
                 ("Checks against the engine compare with the run that wrote this workbook: after an input is "
                 "changed they turn FALSE until the engine is run with the same change; the others (lines add "
                 "up, no negative cost) must stay TRUE.")),
    "engine_monthly": ("Totais mensais do motor (valores)", "Engine monthly totals (values)"),
    "engine_value": ("Valor do motor", "Engine value"),
    "workbook_value": ("Valor da planilha", "Workbook value"),
    # engine and scenario ids shown as text: book.term(prefix, id), the id itself when not listed
    "kind_cloud": ("nuvem", "cloud"), "kind_dedicated": ("dedicado", "dedicated"),
    "kind_hybrid": ("híbrido (nuvem + dedicado)", "hybrid (cloud + dedicated)"),
    "fleet_shared": ("frota compartilhada", "shared fleet"), "fleet_separate": ("frotas separadas", "separate fleets"),
    "pricing_on_demand": ("sob demanda", "on demand"), "pricing_spot": ("spot", "spot"),
    "pricing_reserved_1yr": ("reservado 1 ano", "reserved 1 year"),
    "pricing_reserved_3yr": ("reservado 3 anos", "reserved 3 years"), "pricing_monthly": ("mensal", "monthly"),
    "onoff_True": ("sim", "on"), "onoff_False": ("não", "off"), "yesno_True": ("sim", "yes"), "yesno_False": ("não", "no"),
    "method_lora": ("LoRA (ajuste fino leve)", "LoRA (light fine-tuning)"),
    "method_full": ("ajuste fino completo", "full fine-tuning"),
    "method_pretrain": ("pré-treino contínuo", "continued pre-training"), "method_none": ("nenhum", "none"),
    "train_method": ("Método de treinamento", "Training method"),
    "growth_linear": ("linear", "linear"), "growth_compound": ("composto (taxa mensal)", "compound (monthly rate)"),
    "growth_logistic": ("logístico", "logistic"), "growth_list": ("lista mês a mês", "month-by-month list"),
    "fxm_fixed": ("fixo", "fixed"), "fxm_parity": ("paridade de juros", "interest-rate parity"),
    "fxm_gbm": ("movimento browniano geométrico", "geometric Brownian motion"),
    "fxm_bootstrap": ("reamostragem em blocos do histórico", "block bootstrap of the history"),
    "taxm_none": ("sem tributos adicionais", "no added taxes"),
    "taxm_import_gross_up": ("importação de serviço (gross-up)", "service import (gross-up)"),
    "taxm_local_por_dentro": ("serviço local (por dentro)", "local service (tax-inclusive)"),
    "bound_memory": ("memória", "memory"), "bound_latency-bandwidth": ("latência (banda)", "latency (bandwidth)"),
    "bound_latency-compute": ("latência (computação)", "latency (compute)"),
    "bound_max-batch": ("lote máximo", "maximum batch"),
    "u_rpud": ("req/usuário/dia", "req/user/day"),
    "u_adpw": ("dias/semana", "days/week"),
    # sensitivity units and metrics, by the row's input key (the engine's English text is the fallback)
    "sens_unit_usdbrl": ("× câmbio à vista", "× spot"), "sens_unit_volatility": ("ao ano", "annual"),
    "sens_unit_users": ("× curva de crescimento", "× growth curve"),
    "sens_unit_tokens": ("× entrada e saída", "× input and output"),
    "sens_unit_cloud_price": ("× US$/h", "× USD/h"), "sens_unit_dedicated_price": ("× R$/mês", "× BRL/month"),
    "sens_unit_egress": ("× kB/requisição", "× kB/request"), "sens_unit_mfu": ("fração", "share"),
    "sens_unit_discount_rate": ("ao ano", "annual"), "sens_unit_tax": ("× todas as alíquotas", "× every rate"),
    "status_listed": ("preço de tabela", "list price"),
    "status_illustrative_estimate": ("estimativa ilustrativa", "illustrative estimate"),
    "price_unit_USD/h": ("US$/h", "USD/h"), "price_unit_BRL/month": ("R$/mês", "BRL/month"),
    # catalog columns (the catalog's field name when not listed)
    "col_gpu": ("GPU", "GPU"), "col_memory_gb": ("Memória (GB)", "Memory (GB)"),
    "col_bandwidth_tbs": ("Banda de memória (TB/s)", "Memory bandwidth (TB/s)"),
    "col_bf16_tflops": ("TFLOPS BF16", "BF16 TFLOPS"), "col_fp8_tflops": ("TFLOPS FP8", "FP8 TFLOPS"),
    "col_tdp_w": ("TDP (W)", "TDP (W)"), "col_interconnect": ("Interconexão", "Interconnect"),
    "col_interconnect_gbs": ("Interconexão (GB/s)", "Interconnect (GB/s)"), "col_as_of": ("Data", "As of"),
    "col_source": ("Fonte", "Source"), "col_model": ("Modelo", "Model"), "col_family": ("Família", "Family"),
    "col_params_b": ("Parâmetros (bilhões)", "Parameters (billions)"),
    "col_active_params_b": ("Parâmetros ativos (bilhões)", "Active parameters (billions)"),
    "col_layers": ("Camadas", "Layers"), "col_kv_heads": ("Cabeças KV", "KV heads"),
    "col_head_dim": ("Dimensão por cabeça", "Head dimension"),
    "col_max_context_tokens": ("Contexto máximo (tokens)", "Maximum context (tokens)"),
    "col_offer": ("Oferta", "Offer"), "col_kind": ("Tipo", "Kind"), "col_gpus_per_server": ("GPUs por servidor", "GPUs per server"),
    "col_price": ("Preço", "Price"), "col_price_unit": ("Unidade do preço", "Price unit"),
    "col_currency": ("Moeda", "Currency"), "col_pricing": ("Modalidade", "Pricing"), "col_status": ("Situação", "Status"),
    "col_setup_fee_brl": ("Taxa de instalação (R$)", "Setup fee (BRL)"),
    "col_min_term_months": ("Prazo mínimo (meses)", "Minimum term (months)"),
    "col_egress_id": ("Tabela de egress", "Egress table"), "col_tier_from_gb": ("Faixa de (GB)", "Tier from (GB)"),
    "col_tier_to_gb": ("Faixa até (GB)", "Tier to (GB)"), "col_usd_per_gb": ("Preço por GB", "Price per GB"),
    "col_profile_id": ("Perfil tributário", "Tax profile"), "col_method": ("Método", "Method"),
    "col_irrf_rate": ("IRRF", "IRRF"), "col_cide_rate": ("CIDE", "CIDE"), "col_iss_rate": ("ISS", "ISS"),
    "col_pis_cofins_rate": ("PIS/COFINS", "PIS/COFINS"), "col_iof_rate": ("IOF câmbio", "IOF (FX)"),
    "col_pis_cofins_creditable": ("PIS/COFINS creditável", "PIS/COFINS creditable"),
    "col_option": ("Opção", "Option"), "col_id": ("Item", "Item"),
    "col_usd_per_gb_month": ("US$ por GB por mês", "USD per GB per month"), "col_file": ("Arquivo", "File"),
    "sens_metric_npv": ("VPL", "NPV"), "sens_metric_tco_p95": ("TCO P95", "TCO P95"), "sens_metric_tco": ("TCO", "TCO"),
}


def label(locale: str, key: str, **kw) -> str:
    pt, en = LABELS[key]
    text = en if locale == "en" else pt
    return text.format(**kw) if kw else text


def col(i: int) -> str:
    return xl_col_to_name(i)


def month_col(m: int) -> str:
    """Column letter of timeline month m (1-based)."""
    return col(FIRST_COL + m - 1)


def qs(sheet: str) -> str:
    """A sheet name quoted for a formula reference."""
    return "'" + sheet.replace("'", "''") + "'!"


def num(x) -> float:
    v = float(x)
    return 0.0 if math.isnan(v) or math.isinf(v) else v


@dataclass
class Book:
    """What the sheet writers share: the XlsxWriter workbook, its formats, the locale and where
    things were put (sheet names, defined names, rows of the timeline)."""

    wb: object
    locale: str
    horizon: int
    sheets: dict[str, str] = field(default_factory=dict)
    fmts: dict = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    """Timeline rows (0-based) by key."""
    sizing: dict[tuple[int, str], str] = field(default_factory=dict)
    """(option index, key) → absolute reference of a Sizing cell."""
    outputs: dict = field(default_factory=dict)
    """(option index, key) → absolute reference of an option's result (tco, npv, total row…)."""
    scaling: dict = field(default_factory=dict)
    """Scaling efficiency by interconnect used by the engine (res.defaults)."""

    def t(self, key: str, **kw) -> str:
        return label(self.locale, key, **kw)

    def term(self, prefix: str, value) -> str:
        """The label of an engine or scenario id (`prefix` + id), the id itself when none is listed."""
        key = f"{prefix}_{value}"
        return self.t(key) if key in LABELS else str(value)

    def fmt(self, name: str):
        return self.fmts[name]

    def name(self, name: str, ref: str) -> None:
        self.wb.define_name(name, "=" + ref)


NUMBER_FORMATS = {
    "brl": '"R$" #,##0.00', "usd": '"US$" #,##0.00', "int": "#,##0", "num": "#,##0.00", "num4": "#,##0.0000",
    # unit prices (per hour, per GB): every decimal a catalog gives, up to 5 (0.0405, 0.085, 39.94583)
    "usd_unit": '"US$" #,##0.00###', "brl_unit": '"R$" #,##0.00###',
    "num6": "0.000000", "pct": "0.00%", "date": "yyyy-mm", "gen": "General", "sci": "0.00E+00",
}


def make_formats(wb) -> dict:
    """Formats: plain calculation, input (blue on yellow, FAST convention), engine value (grey),
    headers; each crossed with the number formats above."""
    out = {}
    for style, props in {"calc": {}, "in": {"font_color": "#0000FF", "bg_color": "#FFF2CC", "border": 1,
                                            "border_color": "#BFBFBF"},
                         "eng": {"bg_color": "#EDEDED", "italic": True},
                         "bold": {"bold": True}}.items():
        for k, nf in NUMBER_FORMATS.items():
            out[f"{style}_{k}"] = wb.add_format({**props, "num_format": nf})
    out["in_text"] = wb.add_format({"font_color": "#0000FF", "bg_color": "#FFF2CC", "border": 1, "border_color": "#BFBFBF"})
    out["text"] = wb.add_format({})
    out["wrap"] = wb.add_format({"text_wrap": True, "valign": "top"})
    out["small"] = wb.add_format({"font_size": 8, "font_color": "#595959"})
    out["small_wrap"] = wb.add_format({"font_size": 8, "font_color": "#595959", "text_wrap": True, "valign": "top"})
    out["title"] = wb.add_format({"bold": True, "font_size": 16, "font_color": "#1F3864"})
    out["h1"] = wb.add_format({"bold": True, "font_size": 12, "font_color": "#FFFFFF", "bg_color": "#1F3864"})
    out["h2"] = wb.add_format({"bold": True, "bottom": 1})
    out["head"] = wb.add_format({"bold": True, "bg_color": "#D9E1F2", "bottom": 1, "text_wrap": True})
    out["head_date"] = wb.add_format({"bold": True, "bg_color": "#D9E1F2", "bottom": 1, "num_format": "yyyy-mm"})
    out["check"] = wb.add_format({"bold": True, "align": "center"})
    out["eng_text"] = wb.add_format({"bg_color": "#EDEDED", "italic": True})
    return out


def write_row(ws, book: Book, r: int, key_label: str, unit: str, formula, values, fmt: str,
              total: str | None = None, name: str | None = None, label_fmt: str = "text") -> int:
    """One timeline row: the same formula in every month column, each with the engine value cached.

    `formula(c, p)` returns the formula text for month column letter c with previous column p.
    total: 'sum' writes =SUM(row) in column C (cached = sum of values).
    """
    ws.write_string(r, 0, key_label, book.fmt(label_fmt))
    if unit:
        ws.write_string(r, 1, unit, book.fmt("small"))
    values = np.asarray(values, dtype=float)
    f = book.fmt(fmt)
    for m in range(1, book.horizon + 1):
        c = month_col(m)
        p = col(FIRST_COL + m - 2)
        ws.write_formula(r, FIRST_COL + m - 1, formula(c, p), f, num(values[m - 1]))
    first, last = month_col(1), month_col(book.horizon)
    if total == "sum":
        ws.write_formula(r, 2, f"=SUM({first}{r + 1}:{last}{r + 1})", book.fmt(fmt.replace("calc", "bold")),
                         num(values.sum()))
    return r


def row_range(sheet: str, r: int, horizon: int) -> str:
    """Absolute reference to a whole timeline row of `sheet` (0-based row r)."""
    return f"{qs(sheet)}${month_col(1)}${r + 1}:${month_col(horizon)}${r + 1}"


def abs_cell(sheet: str, r: int, c: int) -> str:
    return qs(sheet) + xl_rowcol_to_cell(r, c, row_abs=True, col_abs=True)
