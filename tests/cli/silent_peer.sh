#!/usr/bin/env bash
# A peer that stops answering in the middle of a run: two ranks (RANKS in the environment, if set)
# step a model, rank 1 is stopped once they are well into their steps, and the live ranks must end
# the whole run with a message naming rank 1 within the timeout + 2 s.
#   silent_peer.sh MPIEXEC NUMPROC_FLAG TIMEOUT PROGRAM [program arguments...]
# FAULT (environment) says how rank 1 goes silent:
#   stop (default): SIGSTOP from here, 4 s into the run (most likely inside a halo exchange);
#   collective: rank 1 stops itself right before its first collective CALL (MPI_Iallreduce, ...)
#     STOP_AFTER_S (default 2) s into the run, after STOP_SKIP (default 0) such calls, through
#     the fault injector STOPPER (a library preloaded under mpiexec);
#   kill: kill -9 of rank 1, 4 s into the run (the launcher must end the job).
# EXPECT (environment): the regular expression the output must match (default: the exchange's
# "no halo arrived from rank 1"). Exit: 0 as required, 1 otherwise, 77 the program skipped (no
# GPU for its executor).
set -uo pipefail
mpiexec=$1 numproc_flag=$2 timeout=$3 program=$4
shift 4
# MIN_GPUS=N: skipped (exit 77) on a machine with fewer GPUs (the nccl transport needs one a rank;
# a GPU executor on many ranks needs one to skip cleanly under load).
if [[ -n ${MIN_GPUS:-} ]]; then
  gpus=$(nvidia-smi -L 2>/dev/null | wc -l || true)
  if ((gpus < MIN_GPUS)); then
    echo "silent_peer: $gpus GPU(s) here, $MIN_GPUS needed: skipped"
    exit 77
  fi
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT

fault=${FAULT:-stop}
expect=${EXPECT:-no halo arrived from rank 1}
injector=()
if [[ $fault == collective ]]; then
  injector=(env "LD_PRELOAD=$STOPPER" HALOFLOW_STOP_RANK=1 "HALOFLOW_STOP_CALL=$CALL"
            "HALOFLOW_STOP_AFTER_S=${STOP_AFTER_S:-2}" "HALOFLOW_STOP_SKIP=${STOP_SKIP:-0}")
fi
"$mpiexec" "$numproc_flag" "${RANKS:-2}" "${injector[@]}" "$program" "$@" --timeout "$timeout" >"$log" 2>&1 &
launcher=$!

# Whether process $1 descends from process $2 (another test may run the same program).
descends_from() {
  local pid=$1
  while [[ -n $pid && $pid != 0 && $pid != 1 ]]; do
    [[ $pid == "$2" ]] && return 0
    pid=$(awk '{ print $4 }' "/proc/$pid/stat" 2>/dev/null)
  done
  return 1
}

# The ranks of this launch: its processes of this program whose environment says PMI_RANK=0 or 1.
rank_one=""
rank_zero=""
for _ in $(seq 200); do
  for pid in $(pgrep -f -- "$program" || true); do
    [[ $pid == "$launcher" ]] && continue
    descends_from "$pid" "$launcher" || continue
    environment=$({ tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null)
    grep -qx 'PMI_RANK=1' <<<"$environment" && rank_one=$pid
    grep -qx 'PMI_RANK=0' <<<"$environment" && rank_zero=$pid
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

ended_early() {
  wait "$launcher"
  status=$?
  cat "$log"
  ((status == 77)) && exit 77
  echo "silent_peer: the run ended before rank 1 went silent (make it longer)"
  exit 1
}
if [[ $fault == collective ]]; then
  # Rank 1 stops itself: the clock starts when its state turns to T (stopped).
  # It must get there within a minute: a run that never reaches the call says so with its log.
  waited=0
  until [[ $(awk '{ print $3 }' "/proc/$rank_one/stat" 2>/dev/null) == T ]]; do
    kill -0 "$launcher" 2>/dev/null || ended_early
    if ((waited++ > 6000)); then
      kill -KILL "$rank_one" 2>/dev/null
      [[ -n $rank_zero ]] && kill -KILL "$rank_zero" 2>/dev/null
      wait "$launcher" 2>/dev/null
      cat "$log"
      echo "FAILED: rank 1 did not reach $CALL within 60 s (the run is too slow, or hung before it)"
      exit 1
    fi
    sleep 0.01
  done
else
  # Well into the steps (start-up and warm-up take well under this), then silence.
  sleep 4
  kill -0 "$launcher" 2>/dev/null || ended_early
  if [[ $fault == kill ]]; then kill -KILL "$rank_one"; else kill -STOP "$rank_one"; fi
fi
stopped=$(date +%s.%N)

bound=$(awk -v t="$timeout" 'BEGIN { print t + 2 }')
give_up=$(awk -v t="$timeout" 'BEGIN { print t + 30 }')
while kill -0 "$launcher" 2>/dev/null; do
  if awk -v s="$stopped" -v now="$(date +%s.%N)" -v g="$give_up" 'BEGIN { exit !(now - s > g) }'
  then
    kill -KILL "$rank_one" 2>/dev/null
    [[ -n $rank_zero ]] && kill -KILL "$rank_zero" 2>/dev/null
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
echo "silent_peer: rank 1 silent ($fault); the run ended $took s later with exit status $status" \
  "(bound: timeout $timeout s + 2 s = $bound s)"
failed=0
if ((status == 0)); then
  echo "FAILED: the run reported success"
  failed=1
fi
if ! grep -Eq -- "$expect" "$log"; then
  echo "FAILED: no message matching: $expect"
  failed=1
fi
if awk -v t="$took" -v b="$bound" 'BEGIN { exit !(t > b) }'; then
  echo "FAILED: $took s is over the bound of $bound s"
  failed=1
fi
exit $failed
