#!/usr/bin/env bash
# euler2d's step with one exchange a step (docs/k-step-frames.md), written as DOT by
# `haloflow run --dot DIR` on the host executor (rank 0's plan): one exchange (`halo.*`, no
# `stageK.halo`), stage 0's cells that read no travelling ghost after the self copy (when the rank
# copies any to itself), the rest of it in slabs after the unpack, U's walls after the unpack and
# before the slabs, stage 1 after all of stage 0 and its own walls, stage 2 after stage 1; and
# results.json's setting, ghost depth and redundant cells a step over all ranks.
#   euler2d_step_exchange_shape.sh MPIEXEC NUMPROC_FLAG HALOFLOW CASE WORK_DIR
# 64 x 64 cells, SSP-RK3 (ghosts 6 deep): vortex on 1 rank (1 x 1: self copy, no slab) and 4
# (2 x 2: four slabs), Sod along x on 2 (2 x 1: walls at x, two slabs, y copied to itself).
set -euo pipefail
mpiexec=$1 numproc_flag=$2 haloflow=$3 case_file=$4 work=$5
mkdir -p "$work"
failures=0
# check NAME RANKS CASE SLABS SELF(yes|no) WALL(side or -) REDUNDANT
check() {
  local name=$1 ranks=$2 problem=$3 slabs=$4 self=$5 wall=$6 redundant=$7
  local dot="$work/frames_$name" out="$work/run_$name"
  "$mpiexec" "$numproc_flag" "$ranks" "$haloflow" run "$case_file" --executor host --steps 2 \
    --set euler2d.case="$problem" --set euler2d.exchange_every=step --set run.vtk=false \
    --set run.png=false --out "$out" --dot "$dot" --force >"$work/log_$name.txt" 2>&1 || {
    cat "$work/log_$name.txt"
    echo "euler2d_step_exchange_shape: $name: the run failed"
    failures=$((failures + 1))
    return
  }
  local plan
  plan=$(cat "$dot/euler2d.dot")
  local problems=()
  local found
  found=$(grep -cE '^  "stage0\.boundary\.[0-9]+" \[' <<<"$plan" || true)
  ((found == slabs)) || problems+=("$found boundary slabs in stage 0, expected $slabs")
  # One exchange, "halo" (on one rank only its self copy), none of a stage's own.
  grep -qE '^  "halo\.(self|unpack)" \[' <<<"$plan" || problems+=("no exchange halo.*")
  found=$(grep -cE '^  "stage[0-9]+\.halo\.' <<<"$plan" || true)
  ((found == 0)) || problems+=("$found nodes of a stage's own exchange (stageK.halo.*)")
  if [[ $self == yes ]]; then
    grep -q '"halo.self" -> "stage0.interior"' <<<"$plan" ||
      problems+=("no edge halo.self -> stage0.interior")
  fi
  grep -q '"stage0.interior" -> "stage1"' <<<"$plan" ||
    problems+=("no edge stage0.interior -> stage1")
  for ((s = 0; s < slabs; ++s)); do
    grep -q "\"halo.unpack\" -> \"stage0.boundary.$s\"" <<<"$plan" ||
      problems+=("no edge halo.unpack -> stage0.boundary.$s")
    grep -q "\"stage0.boundary.$s\" -> \"stage1\"" <<<"$plan" ||
      problems+=("no edge stage0.boundary.$s -> stage1")
    if [[ $wall != - ]]; then
      grep -q "\"stage0.wall.$wall\" -> \"stage0.boundary.$s\"" <<<"$plan" ||
        problems+=("no edge stage0.wall.$wall -> stage0.boundary.$s")
    fi
  done
  if [[ $wall != - ]]; then
    grep -q "\"halo.unpack\" -> \"stage0.wall.$wall\"" <<<"$plan" ||
      problems+=("no edge halo.unpack -> stage0.wall.$wall")
    grep -q "\"stage1.wall.$wall\" -> \"stage1\"" <<<"$plan" ||
      problems+=("no edge stage1.wall.$wall -> stage1")
    grep -q "\"stage2.wall.$wall\" -> \"stage2\"" <<<"$plan" ||
      problems+=("no edge stage2.wall.$wall -> stage2")
  fi
  grep -q '"stage1" -> "stage2"' <<<"$plan" || problems+=("no edge stage1 -> stage2")
  local reported
  reported=$(python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["euler2d"]
print(e["exchange_every"], e["ghost_depth"], e["redundant_cells_per_step"])' "$out/results.json")
  [[ $reported == "step 6 $redundant" ]] ||
    problems+=("results.json: exchange_every, ghost_depth, redundant cells '$reported', expected 'step 6 $redundant'")
  if ((${#problems[@]} > 0)); then
    echo "euler2d_step_exchange_shape: $name: ${problems[*]}"
    echo "$plan"
    failures=$((failures + 1))
  else
    echo "euler2d_step_exchange_shape: $name on $ranks ranks: one exchange, $slabs slabs in" \
      "stage 0, stages 1 and 2 in turn, $redundant redundant cells a step: ok"
  fi
}
# Redundant cells a step (StepFrame::redundant_cells over the ranks, stage 0's region grown by 4,
# stage 1's by 2 on the sides with a neighbour): 1 rank, 64 x 64 periodic: 72^2 + 68^2 - 2 * 64^2;
# 4 ranks of 32 x 32: 4 (40^2 + 36^2 - 2 * 32^2); 2 ranks of 32 x 64, walls at x: 2 (36 * 72 +
# 34 * 68 - 2 * 32 * 64).
check vortex_1 1 vortex 0 yes - 1616
check vortex_4 4 vortex 4 no - 3392
check sod_x_2 2 sod-x 2 yes x- 1616
exit $((failures > 0))
