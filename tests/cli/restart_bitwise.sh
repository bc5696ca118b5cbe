#!/usr/bin/env bash
# Checkpoint and restart end bitwise identical to an uninterrupted run, on one executor:
# 20 steps straight; 10 steps with a checkpoint every 10; --restart from it to 20; cmp of the
# dumped global fields. Exits 77 (skipped) for a GPU executor on a machine without a CUDA device.
#   restart_bitwise.sh WORK_DIR EXECUTOR HALOFLOW CASE MPIEXEC [MPIEXEC ARGS...]
set -euo pipefail
work=$1 executor=$2 haloflow=$3 case_file=$4
shift 4
info=$("$haloflow" info) # whole, not piped: grep -q would close the pipe under pipefail
if [[ $executor != host && $info == *"no CUDA device"* ]]; then
  echo "restart_bitwise: no CUDA device; the $executor executor is not tested here"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
run=("$@" "$haloflow" run "$case_file" --executor "$executor" --force)
"${run[@]}" --steps 20 --out "$work/straight" --dump "$work/straight.raw"
"${run[@]}" --steps 10 --checkpoint-every 10 --out "$work/first_half"
"${run[@]}" --steps 20 --restart "$work/first_half" --out "$work/restarted" \
  --dump "$work/restarted.raw" | tee "$work/restarted.txt"
grep -q "restarting from the checkpoint of step 10" "$work/restarted.txt"
cmp "$work/straight.raw" "$work/restarted.raw"
echo "restart_bitwise: $executor, $(basename "$case_file"): restarted run bitwise identical" \
  "($(stat -c %s "$work/straight.raw") bytes)"
