#!/usr/bin/env bash
# A peer that stops answering in the middle of a run: two ranks step a model, rank 1 is stopped
# (SIGSTOP) once they are well into their steps, and the live rank must end the whole run with a
# message naming rank 1 within the exchange timeout + 2 s.
#   silent_peer.sh MPIEXEC NUMPROC_FLAG TIMEOUT PROGRAM [program arguments...]
# Exit: 0 as required, 1 otherwise, 77 the program skipped (no GPU for its executor).
set -uo pipefail
mpiexec=$1 numproc_flag=$2 timeout=$3 program=$4
shift 4
# MIN_GPUS=N: skipped (exit 77) on a machine with fewer GPUs (the nccl transport needs one a rank).
if [[ -n ${MIN_GPUS:-} ]]; then
  gpus=$(nvidia-smi -L 2>/dev/null | wc -l || true)
  if ((gpus < MIN_GPUS)); then
    echo "silent_peer: $gpus GPU(s) here, $MIN_GPUS needed: skipped"
    exit 77
  fi
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT

"$mpiexec" "$numproc_flag" 2 "$program" "$@" --timeout "$timeout" >"$log" 2>&1 &
launcher=$!

# Rank 1 of this launch: a process of this program whose environment says PMI_RANK=1.
rank_one=""
for _ in $(seq 200); do
  for pid in $(pgrep -f -- "$program" || true); do
    [[ $pid == "$launcher" ]] && continue
    if { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qx 'PMI_RANK=1'; then
      rank_one=$pid
    fi
  done
  [[ -n $rank_one ]] && break
  kill -0 "$launcher" 2>/dev/null || break
  sleep 0.05
done
if [[ -z $rank_one ]]; then
  wait "$launcher"
  status=$?
  cat "$log"
  ((status == 77)) && exit 77
  echo "silent_peer: rank 1 never appeared"
  exit 1
fi

# Well into the steps (start-up and warm-up take well under this), then silence.
sleep 4
if ! kill -0 "$launcher" 2>/dev/null; then
  wait "$launcher"
  status=$?
  cat "$log"
  ((status == 77)) && exit 77
  echo "silent_peer: the run ended before rank 1 was stopped (make it longer)"
  exit 1
fi
kill -STOP "$rank_one"
stopped=$(date +%s.%N)

bound=$(awk -v t="$timeout" 'BEGIN { print t + 2 }')
give_up=$(awk -v t="$timeout" 'BEGIN { print t + 30 }')
while kill -0 "$launcher" 2>/dev/null; do
  if awk -v s="$stopped" -v now="$(date +%s.%N)" -v g="$give_up" 'BEGIN { exit !(now - s > g) }'
  then
    kill -KILL "$rank_one" 2>/dev/null
    pkill -KILL -f -- "$program" 2>/dev/null
    cat "$log"
    echo "FAILED: the live rank still ran $give_up s after rank 1 stopped (a hang)"
    exit 1
  fi
  sleep 0.05
done
ended=$(date +%s.%N)
wait "$launcher"
status=$?
kill -KILL "$rank_one" 2>/dev/null
took=$(awk -v s="$stopped" -v e="$ended" 'BEGIN { printf "%.2f", e - s }')
cat "$log"
echo "silent_peer: rank 1 stopped; the run ended $took s later with exit status $status" \
  "(bound: timeout $timeout s + 2 s = $bound s)"
failed=0
if ((status == 0)); then
  echo "FAILED: the run reported success"
  failed=1
fi
if ! grep -q "no halo arrived from rank 1" "$log"; then
  echo "FAILED: no message naming rank 1"
  failed=1
fi
if awk -v t="$took" -v b="$bound" 'BEGIN { exit !(t > b) }'; then
  echo "FAILED: $took s is over the bound of $bound s"
  failed=1
fi
exit $failed
