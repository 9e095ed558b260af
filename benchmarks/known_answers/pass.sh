#!/bin/bash
# The known-answer pass (benchmarks/README.md): the base and every fixture as models, a 135M judge,
# at nice 10. WITH_LEARNER=1 adds the learner; extra arguments go to `gtreview run`.
W=${WORK:-$HOME/.cache/gtreview/known_answers}
JUDGE=${JUDGE:-$HOME/.cache/gtreview/models/SmolLM2-135M-Instruct.Q4_1.gguf}
PY=${PYTHON:-.venv/bin/python}
S='ctx=2048&seq=4'
MODELS=(--model "base=llama:$W/base-f32.gguf?$S"
  --model "memoriser=llama:$W/memoriser.gguf?$S"
  --model "memoriser-lora=llama:$W/base-f32.gguf?lora=$W/memoriser-lora.gguf&$S"
  --model "null=llama:$W/null.gguf?$S"
  --model "held-out-tuned=llama:$W/held-out-tuned.gguf?$S")
[ -n "$WITH_LEARNER" ] && MODELS+=(--model "learner=llama:$W/learner.gguf?$S")
cd "$(dirname "$0")/../.."
exec nice -n 10 $PY -m gtreview.cli run --set 1 --project $W/pass-project "${MODELS[@]}" \
  --judge "llama:$JUDGE" --repeats 1 --max-tokens 160 \
  --no-pairwise --drift-every 0 --seed 7 --name known-answers "$@"
