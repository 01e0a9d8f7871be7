"""The one translation catalog of the proposal: every label, heading and sentence, pt-BR and en.

Templates and charts never hold text of their own: they receive `labels(locale)` or a string
from `t(key, locale, **values)`. Values substituted into a sentence are already formatted
(money, percent, names); the result is plain text that the template escapes, so a name taken
from a scenario can never become markup.

>>> t("page_of", "en")
'of'
>>> t("fleet_shared", "pt-BR")
'compartilhada'
"""

from __future__ import annotations

LOCALES = ("pt-BR", "en")

CATALOG: dict[str, tuple[str, str]] = {
    # document, cover, page furniture
    "doc_title": ("Proposta de custo total de propriedade (TCO)", "Total cost of ownership (TCO) proposal"),
    "doc_subtitle": ("Servidores GPU dedicados em reais × nuvem pública em dólares",
                     "Dedicated GPU servers in BRL vs public cloud in USD"),
    "cover_client": ("Cliente", "Client"),
    "cover_scenario": ("Cenário", "Scenario"),
    "cover_date": ("Data", "Date"),
    "cover_prepared_by": ("Preparado por", "Prepared by"),
    "cover_horizon": ("Horizonte", "Horizon"),
    "cover_horizon_value": ("{months} meses, de {start} a {end}", "{months} months, {start} to {end}"),
    "cover_contact": ("Contato", "Contact"),
    "page": ("Página", "Page"),
    "page_of": ("de", "of"),
    "confidential": ("Documento confidencial, preparado para {client}", "Confidential, prepared for {client}"),
    # section headings
    "h_summary": ("Resumo executivo", "Executive summary"),
    "h_workload": ("A carga de trabalho", "The workload"),
    "h_options": ("Opções comparadas", "Options compared"),
    "h_lines": ("Custo mensal por linha", "Monthly cost by line"),
    "h_fx": ("Risco cambial", "Exchange-rate risk"),
    "h_egress_taxes": ("Tráfego de saída (egress) e tributos", "Egress and taxes"),
    "h_fleets": ("Frotas de treinamento e de inferência", "Training and inference fleets"),
    "h_sources": ("Premissas e fontes", "Assumptions and sources"),
    "h_glossary": ("Glossário", "Glossary"),
    "h_disclaimers": ("Avisos", "Disclaimers"),
    # executive summary
    "recommended": ("Opção recomendada", "Recommended option"),
    "kf_tco": ("TCO em {months} meses", "TCO over {months} months"),
    "kf_npv": ("Valor presente (VPL) a {rate} a.a.", "Present value (NPV) at {rate} a year"),
    "kf_per_mtok": ("Custo por milhão de tokens", "Cost per million tokens"),
    "kf_prob": ("Mais barata em", "Cheapest on"),
    "kf_prob_value": ("{share} das trajetórias do câmbio", "{share} of exchange-rate paths"),
    "cmp_vs": ("Comparação", "Comparison"),
    "cmp_other": ("Opção comparada", "Compared option"),
    "cmp_other_tco": ("TCO da comparada", "Its TCO"),
    "cmp_saving": ("Economia", "Saving"),
    "cmp_saving_share": ("Economia (%)", "Saving (%)"),
    "cmp_best_cloud": ("Nuvem mais barata", "Cheapest cloud"),
    "cmp_best_dedicated": ("Dedicada mais barata", "Cheapest dedicated"),
    "cmp_runner_up": ("Segunda colocada", "Runner-up"),
    "s_rec": ("Ao longo de {months} meses, a opção recomendada, {rec}, tem o menor custo total: {tco}.",
              "Over {months} months the recommended option, {rec}, has the lowest total cost: {tco}."),
    "s_vs_cloud": ("Isso é {saving} ({share}) a menos que a nuvem pública mais barata, {other}, que custa {other_tco}.",
                   "That is {saving} ({share}) less than the cheapest public cloud option, {other}, which costs "
                   "{other_tco}."),
    "s_vs_dedicated": ("Isso é {saving} ({share}) a menos que a opção dedicada mais barata, {other}, que custa "
                       "{other_tco}.", "That is {saving} ({share}) less than the cheapest dedicated option, {other}, "
                       "which costs {other_tco}."),
    "s_breakeven": ("{cloud} só empataria com {rec} com o dólar a {rate} ({change} em relação a hoje).",
                    "{cloud} would only tie with {rec} at a dollar of {rate} ({change} from today)."),
    "s_breakeven_cloud_rec": ("{rec} deixaria de ser mais barata que {other} com o dólar acima de {rate} ({change} "
                              "em relação a hoje).", "{rec} would stop being cheaper than {other} with the dollar above "
                              "{rate} ({change} from today)."),
    "s_runner_up": ("A segunda colocada, {other}, custa {saving} ({share}) a mais.",
                    "The runner-up, {other}, costs {saving} ({share}) more."),
    "s_fx_mc": ("Com o câmbio variando ({model}, {paths} trajetórias), o custo da nuvem mais barata fica entre {p5} e "
                "{p95} em 90% dos casos; a recomendada é a mais barata em {prob} das trajetórias.",
                "With the exchange rate varying ({model}, {paths} paths), the cheapest cloud option costs between {p5} "
                "and {p95} in 90% of cases; the recommended option is the cheapest on {prob} of the paths."),
    "s_fx_fixed": ("O câmbio foi tomado como fixo (determinístico) em {rate} por US$; este estudo não mede o risco "
                   "cambial.", "The exchange rate is taken as fixed (deterministic) at {rate} per US$; this study does "
                   "not measure exchange-rate risk."),
    "s_fx_path": ("O câmbio segue uma trajetória determinística a partir de {rate} por US$ ({model}); este estudo não "
                  "mede o risco cambial.", "The exchange rate follows a deterministic path from {rate} per US$ "
                  "({model}); this study does not measure exchange-rate risk."),
    "fx_range_label": ("Faixa P5–P95 do custo da nuvem mais barata", "P5–P95 range of the cheapest cloud cost"),
    "no_cloud": ("O cenário não tem opção em nuvem pública.", "The scenario has no public cloud option."),
    # workload
    "wl_intro": ("O modelo {model} ({params} bilhões de parâmetros, pesos em {precision}) é primeiro ajustado "
                 "(treinamento) e depois servido a usuários cujo número cresce ao longo do horizonte.",
                 "The model {model} ({params} billion parameters, {precision} weights) is first trained (a one-off "
                 "burst) and then served to users whose number grows over the horizon."),
    "wl_training": ("Treinamento", "Training"),
    "wl_inference": ("Inferência", "Inference"),
    "wl_method": ("Método", "Method"),
    "wl_tokens": ("Tokens de treinamento × épocas", "Training tokens × epochs"),
    "wl_flops": ("Operações (6·N·D)", "Operations (6·N·D)"),
    "wl_offer": ("Oferta de treinamento", "Training offer"),
    "wl_gpu_hours": ("GPU‑horas", "GPU‑hours"),
    "wl_billed_gpu_hours": ("GPU‑horas faturadas", "Billed GPU‑hours"),
    "wl_servers": ("Servidores", "Servers"),
    "wl_gpus": ("GPUs", "GPUs"),
    "wl_wall": ("Duração (dias)", "Wall-clock (days)"),
    "wl_no_training": ("O cenário não tem treinamento.", "The scenario has no training."),
    "wl_users_start": ("Usuários no início", "Users at start"),
    "wl_users_end": ("Usuários no fim", "Users at the end"),
    "wl_requests": ("Requisições por usuário por dia", "Requests per user per day"),
    "wl_tokens_req": ("Tokens por requisição (entrada + saída)", "Tokens per request (input + output)"),
    "wl_tps": ("Velocidade alvo por usuário (tokens/s)", "Target speed per user (tokens/s)"),
    "wl_total_tokens": ("Tokens servidos no horizonte", "Tokens served over the horizon"),
    "wl_peak_rps": ("Pico de requisições por segundo", "Peak requests per second"),
    "wl_serving": ("Dimensionamento da inferência por opção", "Inference sizing per option"),
    "wl_inf_offer": ("Oferta de inferência", "Inference offer"),
    "wl_batch": ("Lote por réplica", "Batch per replica"),
    "wl_tp": ("GPUs por réplica", "GPUs per replica"),
    "wl_rps_server": ("Req./s por réplica", "Req/s per replica"),
    "wl_peak_servers": ("Servidores no pico", "Servers at peak"),
    "chart_users_title": ("Usuários ativos por mês", "Active users per month"),
    "chart_users_axis": ("usuários", "users"),
    "method_lora": ("LoRA (ajuste fino leve)", "LoRA (light fine-tuning)"),
    "method_full": ("ajuste fino completo", "full fine-tuning"),
    "method_pretrain": ("pré-treino contínuo", "continued pre-training"),
    "method_none": ("nenhum", "none"),
    # options compared
    "opt_intro": ("Todas as opções atendem à mesma carga. Valores em reais, somados mês a mês ao longo do horizonte; "
                  "custos em dólar convertidos pelo câmbio de cada mês, com tributos de importação onde se aplicam.",
                  "Every option serves the same workload. Amounts in BRL, summed month by month over the horizon; "
                  "USD costs converted at each month's exchange rate, with import taxes where they apply."),
    "col_rank": ("#", "#"),
    "col_option": ("Opção", "Option"),
    "col_kind": ("Tipo", "Type"),
    "col_fleet": ("Frota", "Fleet"),
    "col_tco": ("TCO", "TCO"),
    "col_npv": ("VPL", "NPV"),
    "col_vs_best": ("vs. recomendada", "vs recommended"),
    "col_per_mtok": ("R$/mi tokens", "R$/M tokens"),
    "col_line": ("Linha de custo", "Cost line"),
    "col_total": ("Total", "Total"),
    "best": ("recomendada", "recommended"),
    "kind_cloud": ("nuvem", "cloud"),
    "kind_dedicated": ("dedicado", "dedicated"),
    "kind_hybrid": ("híbrido (treino e inferência em tipos diferentes)", "hybrid (training and serving on different kinds)"),
    "fleet_shared": ("compartilhada", "shared"),
    "fleet_separate": ("separadas", "separate"),
    "fleet_long_shared": ("frota compartilhada", "shared fleet"),
    "fleet_long_separate": ("frotas separadas", "separate fleets"),
    "chart_cum_title": ("Custo acumulado por opção", "Cumulative cost per option"),
    "chart_money_axis": ("R$ {unit}", "R$ {unit}"),
    "unit_thousand": ("mil", "thousand"),
    "unit_million": ("milhões", "million"),
    "unit_billion": ("bilhões", "billion"),
    "unit_one": ("", ""),
    # lines
    "lines_intro": ("Composição do custo mês a mês da opção recomendada e da nuvem pública mais barata.",
                    "Month-by-month make-up of the cost of the recommended option and the cheapest public cloud one."),
    "lines_intro_dedicated": ("Composição do custo mês a mês da opção recomendada e da opção dedicada mais barata.",
                              "Month-by-month make-up of the cost of the recommended option and the cheapest dedicated "
                              "one."),
    "lines_intro_both": ("Composição do custo mês a mês da opção recomendada, da opção dedicada mais barata e da nuvem "
                         "pública mais barata.", "Month-by-month make-up of the cost of the recommended option, the "
                         "cheapest dedicated one and the cheapest public cloud one."),
    "chart_lines_title": ("Custo mensal por linha — {option}", "Monthly cost by line — {option}"),
    "line_training_compute": ("Computação de treinamento", "Training compute"),
    "line_inference_compute": ("Computação de inferência", "Inference compute"),
    "line_setup": ("Instalação (setup)", "Setup"),
    "line_storage": ("Armazenamento", "Storage"),
    "line_egress": ("Tráfego de saída", "Egress"),
    "line_taxes": ("Tributos", "Taxes"),
    # fx
    "fx_intro_mc": ("Custos em dólar são convertidos pelo câmbio de cada mês. Foram simuladas {paths} trajetórias do "
                    "USD/BRL a partir de {rate} ({model}; semente {seed}); a tabela mostra os percentis do TCO e em "
                    "que parcela das trajetórias cada opção é a mais barata.",
                    "USD costs are converted at each month's exchange rate. {paths} USD/BRL paths were simulated from "
                    "{rate} ({model}; seed {seed}); the table shows the TCO percentiles and on what share of the paths "
                    "each option is the cheapest."),
    "fx_base_path": ("O cenário-base (a coluna TCO) converte cada mês pelo câmbio esperado do modelo, que vai de {first} "
                     "no primeiro mês a {last} no último ({drift} a.a., pela paridade de juros entre Selic e Fed funds "
                     "quando o cenário não fixa a tendência).",
                     "The base case (the TCO column) converts each month at the model's expected rate, which goes from "
                     "{first} in the first month to {last} in the last ({drift} a year, from interest-rate parity "
                     "between Selic and Fed funds unless the scenario sets the drift)."),
    "fx_model_gbm": ("movimento browniano geométrico, volatilidade {vol} a.a.",
                     "geometric Brownian motion, volatility {vol} a year"),
    "fx_model_bootstrap": ("reamostragem em blocos de {block} meses do histórico",
                           "block bootstrap of {block}-month blocks of the history"),
    "fx_model_fixed": ("fixo", "fixed"),
    "fx_model_parity": ("paridade de juros", "interest-rate parity"),
    "col_p5": ("P5", "P5"),
    "col_p50": ("P50", "P50"),
    "col_p95": ("P95", "P95"),
    "col_prob": ("Mais barata em", "Cheapest on"),
    "chart_fan_title": ("Custo mensal de {option}: faixa P5–P95 pelo câmbio", "Monthly cost of {option}: P5–P95 band from the exchange rate"),
    "chart_rate_title": ("Câmbio USD/BRL simulado: faixa P5–P95 por mês", "Simulated USD/BRL: P5–P95 band per month"),
    "rate_axis": ("R$ por US$", "R$ per US$"),
    "rate_breakeven": ("equilíbrio {cloud} × {rec}", "break-even {cloud} vs {rec}"),
    "fan_band": ("faixa P5–P95", "P5–P95 band"),
    "fan_median": ("mediana (P50)", "median (P50)"),
    "fan_recommended": ("{option} (recomendada)", "{option} (recommended)"),
    "fx_breakeven_missing": ("O câmbio de equilíbrio (o USD/BRL a partir do qual a nuvem passaria a ser mais barata) "
                             "ainda não é calculado pelo motor e não é mostrado.", "The break-even USD/BRL rate (the "
                             "rate at which the cloud would become cheaper) is not yet computed by the engine and is "
                             "not shown."),
    "fx_only_brl": ("Todas as opções são cobradas em reais: o câmbio não afeta este estudo.",
                    "Every option is billed in BRL: the exchange rate does not affect this study."),
    # egress and taxes
    "et_intro": ("Provedores de nuvem cobram o tráfego de saída para a internet por GB, em faixas que recomeçam a cada "
                 "mês; servidores dedicados no Brasil não cobram egress. Serviços de nuvem contratados no exterior "
                 "são importação de serviço: o perfil tributário indica quanto os tributos acrescentam ao preço em "
                 "dólar.", "Cloud providers charge internet egress per GB, in tiers that reset each month; dedicated "
                 "servers in Brazil charge no egress. Cloud services bought abroad are an import of services: the tax "
                 "profile gives how much the taxes add to the USD price."),
    "et_volume": ("Volume de saída no horizonte: {gb} GB.", "Egress volume over the horizon: {gb} GB."),
    "col_egress": ("Egress", "Egress"),
    "col_egress_share": ("% do TCO", "% of TCO"),
    "col_tax_profile": ("Perfil tributário", "Tax profile"),
    "col_uplift": ("Acréscimo", "Uplift"),
    "col_taxes": ("Tributos", "Taxes"),
    # fleets
    "fl_intro": ("Treinar exige muitas GPUs por pouco tempo; servir exige poucas GPUs por muito tempo. Com frotas "
                 "separadas, o cluster de treinamento é alugado só durante o treinamento e a frota de inferência é "
                 "dimensionada para a demanda de cada mês. Com uma frota compartilhada, os mesmos servidores fazem as "
                 "duas coisas: não há troca, mas a frota fica do tamanho do treinamento durante todo o horizonte.",
                 "Training needs many GPUs for a short time; serving needs few GPUs for a long time. With separate "
                 "fleets the training cluster is rented only for the burst and the inference fleet is sized to each "
                 "month's demand. With one shared fleet the same servers do both: nothing to hand over, but the fleet "
                 "stays the size of the training cluster for the whole horizon."),
    "fl_pair": ("Com frotas separadas, {separate} custa {diff} ({share}) {direction} que {shared}, de frota "
                "compartilhada.", "With separate fleets, {separate} costs {diff} ({share}) {direction} than {shared}, "
                "which keeps one shared fleet."),
    "fl_less": ("a menos", "less"),
    "fl_more": ("a mais", "more"),
    "fl_no_pair": ("As opções do cenário não formam um par comparável (mesma oferta de treinamento, frotas diferentes).",
                   "The scenario's options form no comparable pair (same training offer, different fleets)."),
    "col_training_offer": ("Treinamento", "Training"),
    "col_inference_offer": ("Inferência", "Inference"),
    "col_training_cost": ("Custo de treinamento", "Training cost"),
    "col_inference_cost": ("Custo de inferência", "Inference cost"),
    # sources
    "src_intro": ("Todo preço vem de um arquivo editável do catálogo, com fonte e data. Substitua estimativas "
                  "ilustrativas por cotações antes de decidir.", "Every price comes from an editable catalog file, "
                  "with its source and date. Replace illustrative estimates with quotes before deciding."),
    "src_general": ("Estudo", "Study"),
    "src_tool": ("Ferramenta", "Tool"),
    "src_file": ("Arquivo do cenário", "Scenario file"),
    "src_sha": ("SHA-256 do cenário", "Scenario SHA-256"),
    "src_generated": ("Gerado em", "Generated on"),
    "src_discount": ("Taxa de desconto (nominal, a.a.)", "Discount rate (nominal, per year)"),
    "src_fx": ("Câmbio", "Exchange rate"),
    "src_fx_value": ("{rate} por US$ no início; modelo: {model}", "{rate} per US$ at start; model: {model}"),
    "src_conventions": ("Convenções", "Conventions"),
    "src_conventions_value": ("custos positivos, no fim do mês; desconto (1 + r)^(−t/12); 730 h/mês só para "
                              "preços unitários", "costs positive, at month end; discount (1 + r)^(−t/12); 730 h/month "
                              "for unit prices only"),
    "src_efficiencies": ("Eficiências usadas", "Efficiencies used"),
    "eff_mfu": ("MFU do treinamento", "Training MFU"),
    "eff_bw": ("Eficiência de banda de memória (decode)", "Memory-bandwidth efficiency (decode)"),
    "eff_flops": ("Eficiência de FLOPS (prefill, piso de computação)", "FLOPS efficiency (prefill, compute floor)"),
    "eff_scaling": ("Eficiência de escala, interconexão {ic}", "Scaling efficiency, {ic} interconnect"),
    "eff_memory": ("Fração de memória utilizável", "Usable memory share"),
    "eff_utilization": ("Utilização alvo da frota de inferência", "Inference fleet target utilisation"),
    "eff_redundancy": ("Redundância", "Redundancy"),
    "src_prices": ("Preços", "Prices"),
    "col_offer": ("Oferta", "Offer"),
    "col_price": ("Preço", "Price"),
    "col_pricing": ("Modalidade", "Pricing"),
    "col_setup": ("Setup", "Setup"),
    "col_min_term": ("Prazo mín. (meses)", "Min. term (months)"),
    "col_status": ("Situação", "Status"),
    "col_source": ("Fonte", "Source"),
    "col_as_of": ("Data", "As of"),
    "col_item": ("Item", "Item"),
    "col_value": ("Valor", "Value"),
    "status_illustrative_estimate": ("estimativa ilustrativa", "illustrative estimate"),
    "status_listed": ("preço de tabela", "list price"),
    "src_gpus": ("GPUs", "GPUs"),
    "col_gpu": ("GPU", "GPU"),
    "col_memory": ("Memória (GB)", "Memory (GB)"),
    "col_bandwidth": ("Banda (TB/s)", "Bandwidth (TB/s)"),
    "col_bf16": ("BF16 (TFLOPS)", "BF16 (TFLOPS)"),
    "col_fp8": ("FP8 (TFLOPS)", "FP8 (TFLOPS)"),
    "src_model": ("Modelo", "Model"),
    "src_egress": ("Tabelas de egress", "Egress tables"),
    "col_table": ("Tabela", "Table"),
    "col_tiers": ("Faixas (GB/mês: US$/GB)", "Tiers (GB/month: US$/GB)"),
    "src_storage": ("Armazenamento", "Storage"),
    "col_storage_price": ("US$/GB-mês", "US$/GB-month"),
    "src_taxes": ("Perfis tributários", "Tax profiles"),
    "col_rates": ("Alíquotas", "Rates"),
    "src_files": ("Arquivos do catálogo", "Catalog files"),
    "src_warnings": ("Avisos do cálculo", "Calculation warnings"),
    "src_notes": ("Observações do cenário", "Scenario notes"),
    "src_attachments": ("Este PDF leva anexados o arquivo do cenário e, quando gerada, a planilha: o modelo completo "
                        "acompanha o documento.", "This PDF carries the scenario file and, when written, the workbook "
                        "as attachments: the whole model travels with the document."),
    "src_attached": ("Anexos deste PDF", "Attached to this PDF"),
    "src_full": ("As fontes aparecem resumidas (os endereços citados ou a primeira referência) e as datas no formato "
                 "local; o texto completo de cada fonte está na planilha anexa e no JSON do estudo.",
                 "Sources are shown in short (the addresses they cite, or their first reference); the full text of "
                 "every source is in the attached workbook and the study's JSON."),
    "src_no_egress": ("premissa do estudo: fornecedores dedicados no Brasil não cobram egress por GB",
                      "assumption of the study: dedicated providers in Brazil charge no per-GB egress"),
    "and_last": (" e ", " and "),
    "w_estimate": ("o preço de {offer} é uma estimativa ilustrativa, não uma cotação; substitua-o pela proposta de um "
                   "fornecedor.", "the price of {offer} is an illustrative estimate, not a quote; replace it with a "
                   "provider's quote."),
    "w_tax_horizon": ("os tributos de importação estão descritos até {until}, mas o horizonte vai até {end}; a reforma "
                      "CBS/IBS muda o PIS/COFINS a partir de {year}, e as alíquotas dos meses seguintes ainda não são "
                      "conhecidas.", "import taxes are described up to {until}, but the horizon runs to {end}; the "
                      "CBS/IBS reform changes PIS/COFINS from {year}, and the rates of the later months are not yet "
                      "known."),
    "w_multi_server": ("o treinamento ocupa {n} servidores {ic} de {gpu}; a rede entre servidores não é modelada "
                       "(eficiência de escala de {eff} assumida): confirme que esse cluster é viável.",
                       "training spans {n} {ic} servers of {gpu}; the network between servers is not modelled "
                       "(scaling efficiency {eff} assumed): check such a cluster is practical."),
    "w_min_term": ("o cluster de treinamento é pago pelo prazo mínimo de {term} meses, mas fica ocupado {busy} mês(es); "
                   "uma frota compartilhada, ou servir a partir dele, pode custar menos.",
                   "the training cluster is paid for its {term}-month minimum term but busy {busy} month(s); a shared "
                   "fleet, or serving from it, may cost less."),
    "redundancy_none": ("nenhuma", "none"),
    "redundancy_n+1": ("N+1 (uma réplica de reserva)", "N+1 (one spare replica)"),
    "ic_nvlink": ("NVLink", "NVLink"),
    "ic_nvlink_bridge": ("com ponte NVLink", "NVLink-bridge"),
    "ic_pcie": ("PCIe", "PCIe"),
    "ic_infiniband": ("InfiniBand", "InfiniBand"),
    "ic_ethernet": ("Ethernet", "Ethernet"),
    "egress_none/dedicated": ("dedicados no Brasil (sem tarifa de egress)", "dedicated in Brazil (no egress fee)"),
    "src_more": (" e mais {n}", " and {n} more"),
    "src_estimate_from": ("estimativa própria a partir de {hosts}", "own estimate from {hosts}"),
    "src_scenario_price": ("preço informado no cenário", "price given in the scenario"),
    "src_included": ("discos locais incluídos no preço do servidor dedicado",
                     "local disks included in the dedicated server price"),
    "storage_included": ("incluído no servidor", "included in the server"),
    "storage_scenario": ("informado no cenário", "given in the scenario"),
    "as_of_undated": ("sem data", "undated"),
    "as_of_undated_checked": ("sem data (conferido em {date})", "undated (checked {date})"),
    "as_of_scenario": ("do cenário", "scenario's"),
    "clipped": ("↑ {value} (fora da escala)", "↑ {value} (off scale)"),
    "attach_scenario": ("Arquivo do cenário (TOML)", "Scenario file (TOML)"),
    "attach_workbook": ("Planilha com fórmulas", "Workbook with live formulas"),
    "attach_other": ("Anexo", "Attachment"),
    # glossary
    "g_tco": ("TCO (custo total de propriedade)", "TCO (total cost of ownership)"),
    "g_tco_def": ("Soma de todos os custos da opção ao longo do horizonte, em reais, sem desconto.",
                  "Sum of all the option's costs over the horizon, in BRL, undiscounted."),
    "g_npv": ("VPL (valor presente)", "NPV (net present value)"),
    "g_npv_def": ("Os mesmos custos trazidos a valor de hoje pela taxa de desconto do cenário.",
                  "The same costs brought to today's value at the scenario's discount rate."),
    "g_pct": ("P5, P50, P95", "P5, P50, P95"),
    "g_pct_def": ("Percentis da simulação: 5% das trajetórias do câmbio ficam abaixo do P5, metade abaixo do P50, "
                  "95% abaixo do P95.", "Simulation percentiles: 5% of exchange-rate paths fall below P5, half below "
                  "P50, 95% below P95."),
    "g_mc": ("Monte Carlo", "Monte Carlo"),
    "g_mc_def": ("Simulação de milhares de trajetórias possíveis do câmbio, com semente fixa para ser reproduzível.",
                 "Simulation of thousands of possible exchange-rate paths, with a fixed seed so it is reproducible."),
    "g_gpu_hour": ("GPU‑hora", "GPU‑hour"),
    "g_gpu_hour_def": ("Uma GPU usada durante uma hora; unidade para comparar preços e esforço de treinamento.",
                       "One GPU used for one hour; the unit to compare prices and training effort."),
    "g_mfu": ("MFU", "MFU"),
    "g_mfu_def": ("Fração do pico teórico de FLOPS que o treinamento realmente aproveita.",
                  "Share of the GPU's theoretical peak FLOPS that training actually achieves."),
    "g_tokens": ("Token", "Token"),
    "g_tokens_def": ("Pedaço de texto (cerca de três quartos de uma palavra) que o modelo lê ou escreve.",
                     "Piece of text (about three quarters of a word) that the model reads or writes."),
    "g_egress": ("Egress", "Egress"),
    "g_egress_def": ("Dados enviados da nuvem para a internet, cobrados por GB.",
                     "Data sent from the cloud to the internet, charged per GB."),
    "g_fleet": ("Frota compartilhada / separadas", "Shared / separate fleets"),
    "g_fleet_def": ("Mesmos servidores para treinar e servir, ou um cluster só para o treinamento e outro para a "
                    "inferência.", "The same servers train and serve, or one cluster only for training and another "
                    "for inference."),
    "g_pricing": ("Sob demanda / reservado", "On demand / reserved"),
    "g_pricing_def": ("Instância paga por hora sem compromisso, ou com desconto em troca de compromisso de 1 ou 3 anos.",
                      "Instance paid by the hour with no commitment, or at a discount for a 1- or 3-year commitment."),
    "g_taxes": ("IRRF, CIDE, ISS, PIS/COFINS, IOF", "IRRF, CIDE, ISS, PIS/COFINS, IOF"),
    "g_taxes_def": ("Tributos brasileiros sobre a importação de serviços e o câmbio da remessa.",
                    "Brazilian taxes on imported services and on the foreign-exchange transfer."),
    # disclaimers
    "d_infeasible": ("Fora da comparação por não atingirem a velocidade exigida de {target} tokens/s por usuário: "
                     "{options}. Essas opções não são classificadas nem recomendadas.",
                     "Left out of the comparison because they cannot reach the required {target} tokens/s per user: "
                     "{options}. These options are neither ranked nor recommended."),
    "d_infeasible_item": ("{name} (atinge {tps} tokens/s)", "{name} (reaches {tps} tokens/s)"),
    "d_estimate": ("Os preços de servidores dedicados marcados como estimativa ilustrativa ({offers}) não são "
                   "cotações: foram derivados de componentes com fonte pública e devem ser substituídos por uma "
                   "proposta comercial do fornecedor.", "Dedicated server prices marked as illustrative estimates "
                   "({offers}) are not quotes: they were derived from publicly sourced components and must be replaced "
                   "by a provider's commercial offer."),
    "d_not_offer": ("Este documento é um estudo de custos, não uma oferta vinculante. Preços de nuvem são de tabela, "
                    "nas datas indicadas, e podem mudar.", "This document is a cost study, not a binding offer. Cloud "
                    "prices are list prices as of the dates shown and may change."),
    "d_fx": ("O câmbio simulado descreve incerteza, não é previsão.", "The simulated exchange rate describes "
             "uncertainty; it is not a forecast."),
    "d_taxes": ("O tratamento tributário é uma simplificação e não substitui a orientação de um contador ou advogado.",
                "The tax treatment is a simplification and does not replace advice from an accountant or lawyer."),
    "d_sizing": ("O dimensionamento vem de primeiros princípios com eficiências calibradas; medições na carga real "
                 "podem mudar o número de servidores.", "Sizing comes from first principles with calibrated "
                 "efficiencies; measurements on the real workload may change the server count."),
    # units and pricing
    "per_hour": ("/h", "/h"),
    "per_month": ("/mês", "/month"),
    "pricing_on_demand": ("sob demanda", "on demand"),
    "pricing_reserved_1yr": ("reservado 1 ano", "reserved 1 year"),
    "pricing_reserved_3yr": ("reservado 3 anos", "reserved 3 years"),
    "pricing_spot": ("spot", "spot"),
    "pricing_monthly": ("mensal", "monthly"),
    "tokens_unit": ("tokens", "tokens"),
    "days_unit": ("dias", "days"),
    "users_range": ("{start} → {end}", "{start} → {end}"),
    # summary chart
    "chart_tco_title": ("TCO por opção em {months} meses", "TCO per option over {months} months"),
    "chart_tco_title_mc": ("TCO por opção em {months} meses, com a faixa P5–P95 do câmbio",
                           "TCO per option over {months} months, with the P5–P95 exchange-rate range"),
    # break-even exchange rate
    "h3_breakeven": ("Câmbio de equilíbrio", "Break-even exchange rate"),
    "be_intro": ("O USD/BRL de partida em que duas opções custariam o mesmo (a trajetória do cenário-base inteira "
                 "desloca-se na mesma proporção); hoje o dólar está a {rate}.",
                 "The starting USD/BRL at which two options would cost the same (the whole base-case path moves in "
                 "proportion); today the dollar is at {rate}."),
    "col_versus": ("Comparada com", "Compared with"),
    "col_breakeven": ("USD/BRL de equilíbrio", "Break-even USD/BRL"),
    "col_vs_spot": ("vs. hoje", "vs today"),
    "no_breakeven": ("sem equilíbrio", "no break-even"),
    "be_users": ("Usuários: {leader} deixa de ser a mais barata, e {challenger} passa à frente, com {scale} os usuários "
                 "previstos (pico de {users} usuários, contra {base} no cenário).",
                 "Users: {leader} stops being the cheapest, and {challenger} takes the lead, at {scale} the forecast "
                 "users (a peak of {users} users, against {base} in the scenario)."),
    "be_users_none": ("Usuários: a ordem entre {leader} e {challenger} não se inverte entre 0,02× e 50× os usuários "
                      "previstos.",
                      "Users: the order of {leader} and {challenger} does not flip between 0.02× and 50× the "
                      "forecast users."),
    "be_payback": ("Retorno: {option} se paga contra {versus} no mês {month} ({period}).",
                   "Payback: {option} pays for itself against {versus} in month {month} ({period})."),
    "h3_breakeven_other": ("Outros pontos de virada", "Other tipping points"),
    "dc_claim": ("O egress (com seus tributos) é {share} do TCO de {cloud}: {verdict} da faixa de 20–40 % de economia "
                 "atribuída à ausência de taxa de egress.",
                 "Egress (with its taxes) is {share} of {cloud}'s TCO: {verdict} the 20–40 % saving claimed for "
                 "having no egress fee."),
    "dc_verdict_below": ("abaixo", "below"),
    "dc_verdict_inside": ("dentro", "inside"),
    "dc_verdict_above": ("acima", "above"),
    # sensitivity
    "h3_sensitivity": ("Sensibilidade", "Sensitivity"),
    "sens_intro": ("Quanto a diferença de TCO entre {challenger} e {leader} (hoje {base}) muda quando cada premissa "
                   "varia sozinha entre um valor baixo e um alto.", "How much the TCO difference between {challenger} "
                   "and {leader} (today {base}) moves when each input varies on its own between a low and a high "
                   "value."),
    "chart_sens_title": ("Diferença de TCO por premissa (medida: TCO)", "TCO difference per input (measure: TCO)"),
    "sens_low": ("premissa no valor baixo", "input at its low value"),
    "sens_high": ("premissa no valor alto", "input at its high value"),
    "col_input": ("Premissa", "Input"),
    "col_metric": ("Medida", "Measure"),
    "metric_tco": ("TCO", "TCO"),
    "metric_tco_p95": ("TCO P95", "TCO P95"),
    "metric_npv": ("VPL", "NPV"),
    "col_low": ("Baixo", "Low"),
    "col_high": ("Alto", "High"),
    "col_diff_low": ("Diferença (baixo)", "Difference (low)"),
    "col_diff_high": ("Diferença (alto)", "Difference (high)"),
    "sens_usdbrl": ("Câmbio USD/BRL", "USD/BRL spot"),
    "sens_cloud_price": ("Preços de GPU na nuvem", "Cloud GPU prices"),
    "sens_dedicated_price": ("Preços dos dedicados", "Dedicated prices"),
    "sens_tax": ("Alíquotas de importação", "Import tax rates"),
    "sens_volatility": ("Volatilidade do câmbio (P95)", "FX volatility (P95)"),
    "sens_discount_rate": ("Taxa de desconto (VPL)", "Discount rate (NPV)"),
    "sens_mfu": ("MFU do treinamento", "Training MFU"),
    "sens_users": ("Usuários", "Users"),
    "sens_tokens": ("Tokens por requisição", "Tokens per request"),
    "sens_egress": ("Egress por resposta", "Egress per response"),
    # difference decomposition
    "h3_decomposition": ("De onde vem a diferença", "Where the difference comes from"),
    "dc_intro": ("TCO de {cloud} menos TCO de {dedicated}, por linha de custo (positivo: a primeira custa mais).",
                 "TCO of {cloud} minus TCO of {dedicated}, by cost line (positive: the first costs more)."),
    "part_compute": ("Computação (treinamento e inferência)", "Compute (training and inference)"),
    "part_egress": ("Tráfego de saída", "Egress"),
    "part_setup": ("Instalação (setup)", "Setup"),
    "part_storage": ("Armazenamento", "Storage"),
    "part_taxes": ("Tributos", "Taxes"),
    "dc_total": ("Diferença total", "Total difference"),
    "dc_fx_premium": ("Prêmio de risco cambial (P95 − P50; não faz parte da diferença)",
                      "Exchange-rate risk premium (P95 − P50; not part of the difference)"),
    "col_share_cloud": ("% do TCO da nuvem", "% of cloud TCO"),
    # separation
    "col_chosen": ("Frota escolhida", "Fleet chosen"),
    "col_shared_tco": ("TCO, frota compartilhada", "TCO, shared fleet"),
    "col_separate_tco": ("TCO, frotas separadas", "TCO, separate fleets"),
    "col_sep_saving": ("Economia ao separar", "Saving from separating"),
    "sep_by_design": ("ofertas diferentes: separadas por definição", "different offers: separate by design"),
    "sep_for_rec": ("Na opção recomendada, {option}", "For the recommended option, {option}"),
    "sep_for_cloud": ("Na nuvem mais barata, {option}", "For the cheapest cloud option, {option}"),
    "sep_for_dedicated": ("Na dedicada mais barata, {option}", "For the cheapest dedicated option, {option}"),
    "sep_saves": ("{prefix}, separar as frotas economiza {saving} ({share} do TCO com frota compartilhada).",
                  "{prefix}, separating the fleets saves {saving} ({share} of the shared-fleet TCO)."),
    "sep_costs": ("{prefix}, a frota compartilhada custa {saving} ({share}) a menos que frotas separadas.",
                  "{prefix}, one shared fleet costs {saving} ({share}) less than separate fleets."),
    "sep_even": ("{prefix}, separar as frotas não muda o custo.", "{prefix}, separating the fleets does not change "
                 "the cost."),
    "sep_by_design_sentence": ("{prefix}, treinamento e inferência usam ofertas diferentes: as frotas são separadas "
                               "por definição.", "{prefix}, training and serving use different offers: the fleets are "
                               "separate by design."),
}


def t(key: str, locale: str, **values) -> str:
    """The text for `key` in `locale` (pt-BR unless "en"), with `{name}` placeholders filled."""
    pt, en = CATALOG[key]
    text = en if locale == "en" else pt
    return text.format(**values) if values else text


def labels(locale: str) -> dict[str, str]:
    """Every label of the catalog in one locale, for templates (placeholders left as they are)."""
    i = 1 if locale == "en" else 0
    return {k: v[i] for k, v in CATALOG.items()}
