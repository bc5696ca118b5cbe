#!/usr/bin/env bash
# A model's plans have every dependency they need: its run on the host executor gives the same bits
# whichever order the executor picks for the nodes the plans leave unordered (HALOFLOW_HOST_ORDER:
# reverse, shuffled with a seed, concurrent threads), on 1 and 3 ranks, as in insertion order.
#   host_orders.sh WORKDIR MPIEXEC NUMPROC_FLAG PROGRAM MODEL [model options...]
set -uo pipefail
work=$1 mpiexec=$2 numproc_flag=$3 program=$4
shift 4
model=$1
mkdir -p "$work"
failed=0
for ranks in 1 3; do
  reference=""
  for order in insertion reverse shuffled:20261202 shuffled:7 threads; do
    name="$work/$model-$ranks-${order/:/-}"
    if ! HALOFLOW_HOST_ORDER=$order "$mpiexec" "$numproc_flag" "$ranks" "$program" "$@" \
        --executor host --dump "$name.raw" >"$name.log" 2>&1; then
      echo "FAILED: $model on $ranks ranks, HALOFLOW_HOST_ORDER=$order:"
      cat "$name.log"
      failed=1
      continue
    fi
    if [[ -z $reference ]]; then
      reference=$name.raw
    elif ! cmp -s "$reference" "$name.raw"; then
      echo "DIFFERENT: $model on $ranks ranks, HALOFLOW_HOST_ORDER=$order differs from insertion"
      failed=1
    else
      echo "same bits: $model on $ranks ranks, HALOFLOW_HOST_ORDER=$order"
    fi
  done
done
exit $failed
