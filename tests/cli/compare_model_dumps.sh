#!/usr/bin/env bash
# Decomposition invariance of a model: runs one case on 1, 2, 3 and 4 ranks (jacobi2d also with
# its 2D split) and requires every dumped global field to be bitwise identical to the 1-rank one.
#   compare_model_dumps.sh WORKDIR MPIEXEC NUMPROC_FLAG PROGRAM MODEL [model options...]
# Exit: 0 all identical, 1 a difference or a failed run, 77 the program skipped (no GPU).
set -uo pipefail
work=$1 mpiexec=$2 numproc_flag=$3 program=$4
shift 4
model=$1
mkdir -p "$work"
rm -f "$work/$model"-*.raw "$work/$model"-*.log

runs=("1 default" "2 default" "3 default" "4 default")
[[ $model == jacobi2d ]] && runs+=("2 2d" "3 2d" "4 2d")
reference=""
failed=0
for run in "${runs[@]}"; do
  read -r ranks split <<<"$run"
  name="$model-$ranks-$split"
  args=("$@" --dump "$work/$name.raw")
  [[ $split != default ]] && args+=(--split "$split")
  "$mpiexec" "$numproc_flag" "$ranks" "$program" "${args[@]}" >"$work/$name.log" 2>&1
  status=$?
  if ((status == 77)); then
    cat "$work/$name.log"
    exit 77
  fi
  if ((status != 0)); then
    echo "FAILED: $ranks ranks ($split split) exited with $status:"
    cat "$work/$name.log"
    exit 1
  fi
  grep -E "^$model:" "$work/$name.log"
  if [[ -z $reference ]]; then
    reference="$work/$name.raw"
  elif cmp "$reference" "$work/$name.raw"; then
    echo "  $ranks ranks ($split split): bitwise identical to 1 rank"
  else
    echo "  FAILED: $ranks ranks ($split split) differs from 1 rank"
    failed=1
  fi
done
exit $failed
