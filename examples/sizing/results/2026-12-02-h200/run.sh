#!/usr/bin/env bash
# Sizing run on the H200 GPU machine: run from the repository root.
set -u
o=$OUT/size
mkdir -p "$o"
nvidia-smi -L > "$o/nvidia-smi-L.txt"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE,TEMPERATURE > "$o/gpu-state-before.txt"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' > "$o/versions.txt" 2>&1
if python3 -c 'import torchvision; print("torchvision", torchvision.__version__)' >> "$o/versions.txt" 2>&1; then
  models="torchvision:efficientnet_b0 examples/sizing/sample_models.py:text_encoder"
else
  models="examples/sizing/sample_models.py:text_encoder"
fi
echo "models: $models" >> "$o/versions.txt"
cat "$o/versions.txt"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu \
  --format=csv -lms 1000 > "$o/gpu-telemetry.csv" &
tele=$!
BUNDLE=$PWD/.gpu-run/size/bundle SIZE_TOOL=examples/sizing/size_model.py SIZE_MODELS="$models" \
  timeout 380 bash examples/ensemble/compare/run-on-gpu.sh "$o" size > "$o/run.log" 2>&1
rc=$?
kill $tele
echo "rc=$rc" >> "$o/run.log"
tail -60 "$o/run.log"
exit $rc
