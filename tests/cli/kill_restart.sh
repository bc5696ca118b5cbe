#!/usr/bin/env bash
# No silent loss after kill -9: a model run writing checkpoints loses rank 1 to kill -9
# midway; the launcher ends the job; a restart from the newest complete checkpoint of what was
# left (whatever temporaries the kill left beside it) must end bitwise identical to a run that
# was never interrupted.
#   kill_restart.sh WORK_DIR MPIEXEC NUMPROC_FLAG HALOFLOW CASE STEPS EVERY
# Prints "kill_restart: ... bitwise identical" and exits 0 when so.
set -uo pipefail
work=$1 mpiexec=$2 numproc_flag=$3 haloflow=$4 case_file=$5 steps=$6 every=$7
rm -rf "$work" && mkdir -p "$work" || exit 2
run=("$mpiexec" "$numproc_flag" 2 "$haloflow" run "$case_file" --executor host --steps "$steps")

"${run[@]}" --out "$work/straight" --dump "$work/straight.raw" >"$work/straight.log" 2>&1 ||
  { cat "$work/straight.log"; echo "kill_restart: the straight run failed"; exit 1; }

"${run[@]}" --checkpoint-every "$every" --out "$work/killed" >"$work/killed.log" 2>&1 &
launcher=$!
# Rank 1 of this launch (a descendant of the launcher whose environment says PMI_RANK=1), killed
# once a few checkpoints are complete.
victim=""
for _ in $(seq 600); do
  if (($(ls "$work"/killed/checkpoints/*.complete 2>/dev/null | wc -l) >= 3)); then
    for pid in $(pgrep -f -- "$haloflow run" || true); do
      ancestor=$pid
      while [[ -n $ancestor && $ancestor -gt 1 && $ancestor != "$launcher" ]]; do
        ancestor=$(awk '{ print $4 }' "/proc/$ancestor/stat" 2>/dev/null)
      done
      [[ $ancestor == "$launcher" ]] || continue
      tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx 'PMI_RANK=1' && victim=$pid
    done
    [[ -n $victim ]] && break
  fi
  kill -0 "$launcher" 2>/dev/null || break
  sleep 0.01
done
if [[ -z $victim ]]; then
  wait "$launcher"
  cat "$work/killed.log"
  echo "kill_restart: the run ended before rank 1 could be killed (make it longer)"
  exit 1
fi
kill -KILL "$victim"
wait "$launcher"
status=$?
complete=$(ls "$work"/killed/checkpoints/*.complete | wc -l)
leftovers=$(find "$work/killed" -name '.*.haloflow-tmp-*' | wc -l)
echo "kill_restart: rank 1 killed after $complete complete checkpoints; the launcher exited" \
  "$status; $leftovers temporaries left by the kill"
if ((status == 0)); then
  echo "FAILED: the killed run reported success"
  exit 1
fi
# The killed run's results.json is the one written at its start: it says running (or failed, if
# rank 0 got to say so), never complete.
if ! grep -Eq '"status": "(running|failed)"' "$work/killed/results.json"; then
  echo "FAILED: the killed run's results.json does not say running or failed"
  exit 1
fi
"${run[@]}" --restart "$work/killed" --out "$work/restarted" --dump "$work/restarted.raw" \
  >"$work/restarted.log" 2>&1 ||
  { cat "$work/restarted.log"; echo "kill_restart: the restart failed"; exit 1; }
grep "restarting from" "$work/restarted.log"
if cmp "$work/straight.raw" "$work/restarted.raw"; then
  echo "kill_restart: restarted after kill -9, bitwise identical to the straight run"
else
  echo "FAILED: the restarted run's field differs from the straight run's"
  exit 1
fi
