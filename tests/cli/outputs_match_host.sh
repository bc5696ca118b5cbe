#!/usr/bin/env bash
# The field outputs of a GPU run are the host executor's, byte for byte: the same case run with
# --vtk --png on the host executor and on EXECUTOR (graph, streams, serial), every .vti, .pvti,
# .pvd and .png compared. Skipped (exit 77) without a GPU.
#   outputs_match_host.sh WORK_DIR MPIEXEC NUMPROC_FLAG RANKS HALOFLOW CASE EXECUTOR [flags...]
set -uo pipefail
work=$1 mpiexec=$2 numproc_flag=$3 ranks=$4 haloflow=$5 case_file=$6 executor=$7
shift 7
gpus=$(nvidia-smi -L 2>/dev/null | wc -l || true)
if ((gpus < 1)); then
  echo "outputs_match_host: no GPU here: skipped"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
for run in host "$executor"; do
  if ! "$mpiexec" "$numproc_flag" "$ranks" "$haloflow" run "$case_file" --executor "$run" --vtk \
    --png "$@" --out "$work/$run" >"$work/$run.log" 2>&1; then
    cat "$work/$run.log"
    echo "outputs_match_host: the $run run failed"
    exit 1
  fi
done
compared=0
differ=0
while IFS= read -r file; do
  relative=${file#"$work/host/"}
  if ! cmp -s "$file" "$work/$executor/$relative"; then
    echo "differs: $relative"
    differ=$((differ + 1))
  fi
  compared=$((compared + 1))
done < <(find "$work/host" -type f \( -name '*.vti' -o -name '*.pvti' -o -name '*.pvd' \
  -o -name '*.png' \) | sort)
echo "outputs_match_host: $executor against host, $ranks ranks: $compared files compared, $differ differ"
((compared > 0 && differ == 0))
