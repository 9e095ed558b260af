#!/bin/bash
# Membership and memorisation probes of every fixture against the base, kept with pass RUN_ID: pass_probe.sh RUN_ID
W=${WORK:-$HOME/.cache/gtreview/known_answers}
PY=${PYTHON:-.venv/bin/python}
S='ctx=1024&seq=4'
cd "$(dirname "$0")/../.."
exec nice -n 10 $PY -m gtreview.cli probe --project $W/pass-project --run "$1" \
  --model "base=llama:$W/base-f32.gguf?$S" \
  --model "memoriser=llama:$W/memoriser.gguf?$S" \
  --model "memoriser-lora=llama:$W/base-f32.gguf?lora=$W/memoriser-lora.gguf&$S" \
  --model "null=llama:$W/null.gguf?$S" \
  --model "held-out-tuned=llama:$W/held-out-tuned.gguf?$S" \
  --model "learner=llama:$W/learner.gguf?$S" \
  --members 'reports/1868*' 'reports/1874*' 'reports/1883*' 'reports/1891*' \
  --held-out 'reports/1903*' 'reports/1912*' 'reports/1935*' --passages 16 --json
