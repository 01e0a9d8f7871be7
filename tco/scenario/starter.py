"""The commented starter scenario written by ``python -m tco init``."""

STARTER = '''\
# A tco scenario. Every key is documented; units are in the names (_months, _gb, _rate = fraction).
# Check it with:  python -m tco validate THIS_FILE      Run it with:  python -m tco run THIS_FILE

[scenario]
name = "My model"                 # shown on every report
client = "Client name"            # free text, always shown as text
prepared_by = ""                  # shown on the proposal cover
start = "2027-01"                 # first month, YYYY-MM
horizon_months = 36               # months modelled (1-240)
discount_rate = 0.14              # nominal annual BRL rate, a fraction (0.14 = 14 %/yr)
locale = "pt-BR"                  # "pt-BR" or "en"
tax_regime = "lucro_real"         # buyer's regime: "lucro_real", "lucro_presumido" or "simples" (which taxes it credits)
# catalog_dir = "my_catalog"      # folder with your own catalog files (rows add to / replace shipped ones)

[model]
id = "llama-3.1-70b"              # python -m tco offers lists offers; models: tco/catalog/data/models.csv
precision = "fp8"                 # serving weights: "bf16" (2 B/param), "fp8" (1 B) or "fp4" (0.5625 B; B200 only)
kv_precision = "fp8"              # KV cache precision

[training]
method = "lora"                   # "none", "lora", "full" or "pretrain"
tokens = 1.0e9                    # training tokens per epoch (D)
epochs = 1
# gpu_hours = 500.0               # give GPU-hours directly instead of 6·N·D
# precision = "fp8"               # training matmuls: "bf16" (default), "fp8" (H100 and later), "fp4" (B200)
start_month = 1
target_days = 14                  # wall-clock days wanted; sets the cluster size

[inference]
start_month = 2
# growth: linear {start_users, end_users} | compound {start_users, monthly_growth_rate, max_users}
#         logistic {start_users, ceiling_users, steepness_per_month} | list {users = [...]}
users = { model = "logistic", start_users = 100, ceiling_users = 5000, steepness_per_month = 0.25 }
requests_per_user_per_day = 20
input_tokens_per_request = 1500
output_tokens_per_request = 400
tokens_per_second_per_user = 20   # decode speed each user sees
# time_to_first_token_seconds = 2  # longest wait for the first token (unset: no target)
# calibration = "my_run.calibration.toml"  # from `python -m tco calibrate my_benchmark.json …`
daily_profile = "business_hours"  # "business_hours", "flat", or 24 hourly shares summing to 1
redundancy = "n+1"                # "none" or "n+1"
egress_kb_per_request = 20        # bytes to the internet per request, in kB
storage_gb = 1000                 # object storage kept on the cloud

[fx]
usdbrl = 5.40                     # spot USD/BRL
model = "gbm"                     # "fixed", "parity", "gbm" or "bootstrap"
volatility = 0.13                 # annual, a fraction (gbm)
paths = 10000
seed = 1

[[options]]
name = "Dedicated in Brazil"
training_offer = "br-dedicated/sp/hgx-h200-8x"
inference_offer = "br-dedicated/sp/hgx-h200-8x"
fleet = "shared"                  # "shared" (one fleet) or "separate"
# brl_per_month = 90000           # override the catalog price with a quote

[[options]]
name = "AWS us-east-1"
training_offer = "aws/us-east-1/p5en.48xlarge"
inference_offer = "aws/us-east-1/p5en.48xlarge"
pricing = "on_demand"             # "on_demand", "savings_plan_ec2_1yr", "savings_plan_ec2_3yr", "spot"
autoscale = true                  # follow the hourly load (on_demand/spot only)
# taxes = "import_direct_sp"      # tax profile; default from how the provider bills a Brazilian CNPJ (AWS: aws_brazil_local)
'''
