#!/usr/bin/env bash
# Nothing a user has is lost, from the start of a run to its end, tried as a user would:
# --force on folders that are not runs, links, a rerun of a run's own case, a failed rerun,
# devices and missing folders named as outputs, two runs started together on one --out, a run
# killed outright, SIGTERM and SIGINT to mpiexec mid-run, a closed or full standard output, a
# small file size limit. Each scenario asserts the exit status, the message and the files.
#   run_lifecycle.sh HALOFLOW CASE_FILE LONG_CASE WORK_DIR MPIEXEC NUMPROC_FLAG
# CASE_FILE: a small jacobi2d case (a run takes well under a second); LONG_CASE: one that steps
# until it is stopped (tests/cases/faults/jacobi2d_long.json).
# Prints one line per scenario and "run_lifecycle: N scenarios, F failures"; exit 0 when F is 0.
set -uo pipefail
haloflow=$1 case_file=$2 long_case=$3 work=$4 mpiexec=$5 numproc_flag=$6
rm -rf "$work" && mkdir -p "$work" || exit 2
cd "$work" || exit 2
scenarios=0
failures=0

check() {  # check NAME WHAT COMMAND...: the command must succeed
  local name=$1 what=$2
  shift 2
  if ! "$@"; then
    echo "FAILED: $name: $what"
    failures=$((failures + 1))
  fi
}
scenario() {
  scenarios=$((scenarios + 1))
  echo "--- $1"
}
run_haloflow() {  # runs "$@", keeping the output and the status
  "$@" >"$work/last.log" 2>&1
  status=$?
  output=$(cat "$work/last.log")
}
message_has() { grep -Eq -- "$1" <<<"$output"; }
status_of() {  # the "status" of RUN_DIR/results.json
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["status"])' "$1/results.json" \
    2>/dev/null
}
steps_of() {  # the steps a run directory's resolved case asked for
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["run"]["steps"])' \
    "$1/case.resolved.json" 2>/dev/null
}
no_temporaries() { ! find "$1" -name '.*.haloflow-tmp-*' 2>/dev/null | grep -q .; }
quick=(--executor host)

# 1. --force on a folder holding a case.resolved.json among the user's own files: refused, every
#    file kept (a project once lost src/main.cpp and notes.txt this way).
scenario "--force on a project folder that holds a case.resolved.json"
mkdir -p project/src && echo '{}' >project/case.resolved.json
echo 'int main() {}' >project/src/main.cpp && echo mine >project/notes.txt
run_haloflow "$haloflow" run "$case_file" "${quick[@]}" --steps 2 --out project --force
check project "refused (got $status)" test "$status" -eq 1
check project "the message says it is not a run directory haloflow made" \
  message_has 'project: not a run directory haloflow made'
check project "src/main.cpp kept" grep -qx 'int main() {}' project/src/main.cpp
check project "notes.txt kept" grep -qx mine project/notes.txt
check project "case.resolved.json kept as it was" grep -qx '{}' project/case.resolved.json

# 2. A run directory where the user added files: --force refuses, naming them; nothing removed.
scenario "--force on a run directory the user added files to"
run_haloflow "$haloflow" run "$case_file" "${quick[@]}" --steps 2 --out added
echo mine >added/notes.txt
run_haloflow "$haloflow" run "$case_file" "${quick[@]}" --steps 3 --out added --force
check added "refused (got $status)" test "$status" -eq 1
check added "the user's file is named" message_has 'holds what haloflow did not write: notes\.txt'
check added "it is kept" grep -qx mine added/notes.txt
check added "the run is as it was (2 steps, complete)" \
  test "$(steps_of added) $(status_of added)" = "2 complete"

# 3. --out naming a symbolic link (to a run directory): refused with --force; the files behind
#    the link untouched.
scenario "--out LINK --force"
run_haloflow "$haloflow" run "$case_file" "${quick[@]}" --steps 2 --out behind
ln -s behind link
run_haloflow "$haloflow" run "$case_file" "${quick[@]}" --steps 3 --out link --force
check link "refused (got $status)" test "$status" -eq 1
check link "the message says it is a link" message_has '--out link: is a symbolic link'
check link "the run behind it is as it was" test "$(steps_of behind) $(status_of behind)" = \
  "2 complete"

# 4. A run's own case.resolved.json run again: the run goes beside it (numbered), the run it came
#    from untouched; naming that directory with --out --force is refused (never deleting the
#    input being read).
scenario "rerunning a run's own case.resolved.json"
run_haloflow "$haloflow" run "$case_file" "${quick[@]}" --steps 2 --out own
run_haloflow "$haloflow" run own/case.resolved.json
check own "succeeds (got $status)" test "$status" -eq 0
check own "says where it went" message_has 'own/case.resolved.json is the case of run directory own: this run goes to own\.2'
check own "own.2 is complete" test "$(status_of own.2)" = complete
check own "own is untouched" test "$(steps_of own) $(status_of own)" = "2 complete"
run_haloflow "$haloflow" run own/case.resolved.json --out own --force
check own-force "refused (got $status)" test "$status" -eq 1
check own-force "the message says why" message_has 'holds the case file being read'
check own-force "the case file is still there" test -s own/case.resolved.json

# 5. A forced rerun that completes replaces the previous run whole, atomically, with nothing of
#    either left beside it.
scenario "a forced rerun that completes"
run_haloflow "$haloflow" run "$case_file" "${quick[@]}" --steps 2 --out again
run_haloflow "$haloflow" run "$case_file" "${quick[@]}" --steps 3 --out again --force
check again "succeeds (got $status)" test "$status" -eq 0
check again "the new run is in place (3 steps, complete)" \
  test "$(steps_of again) $(status_of again)" = "3 complete"
check again "the files are announced under the run directory's name" \
  message_has '^  again/results\.json'
check again "nothing left beside it" bash -c "! ls -d again.* 2>/dev/null | grep -q ."

# 6. Files named with --json or --dump are regular files or nothing: a device (a private copy of
#    /dev/null) is refused before anything runs, with --force too; a folder that does not exist
#    is found out before the run, not after it.
scenario "--json and --dump onto a device, into a missing folder"
if mknod device c 1 3 2>/dev/null; then
  run_haloflow "$haloflow" run "$case_file" "${quick[@]}" --steps 2 --out device_json \
    --json device --force
  check device-json "refused (got $status)" test "$status" -eq 1
  check device-json "the message names the kind" message_has 'device: is a character device'
  check device-json "it is still a device" test -c device
  check device-json "nothing was run (no run directory)" test ! -e device_json
  run_haloflow "$haloflow" run "$case_file" "${quick[@]}" --steps 2 --out device_dump \
    --dump device --force
  check device-dump "refused (got $status)" test "$status" -eq 1
  check device-dump "it is still a device" test -c device
else
  echo "(mknod not allowed here: the device half skipped)"
fi
run_haloflow "$haloflow" run "$case_file" "${quick[@]}" --steps 2 --out missing_json \
  --json no/such/folder/out.json
check missing "refused (got $status)" test "$status" -eq 1
check missing "the folder is named before the run" \
  message_has 'out\.json: cannot be written: its folder no/such/folder: No such file or directory \(nothing was run\)'
check missing "nothing was run (no run directory)" test ! -e missing_json

# 7. Two runs started together on one --out: exactly one gets it, the other is refused; the
#    directory holds one run (its resolved case and its results agree).
scenario "two runs started together on one --out"
for trial in 1 2 3 4 5 6; do
  rm -rf together
  "$haloflow" run "$case_file" "${quick[@]}" --steps 20 --out together >a.log 2>&1 &
  first=$!
  "$haloflow" run "$case_file" "${quick[@]}" --steps 30 --out together >b.log 2>&1 &
  second=$!
  wait "$first"
  a=$?
  wait "$second"
  b=$?
  check "together-$trial" "exactly one succeeds (got $a and $b)" test $((a + b)) -eq 1
  check "together-$trial" "the refusal says the directory exists" \
    grep -q 'run directory together exists' a.log b.log
  steps=$(python3 -c 'import json; print(json.load(open("together/results.json"))["run"]["steps"])')
  check "together-$trial" "one run's case and results ($(steps_of together) and $steps)" \
    test "$(steps_of together)" = "$steps"
done

# 8. A run killed outright (kill -9): its results.json says running; a later run is told so, and
#    --force replaces it.
scenario "a run killed outright"
"$haloflow" run "$long_case" --out killed >killed.log 2>&1 &
victim=$!
for _ in $(seq 100); do
  [[ -e killed/results.json ]] && break
  sleep 0.05
done
sleep 0.5
kill -KILL "$victim"
wait "$victim" 2>/dev/null
check killed "results.json says running" test "$(status_of killed)" = running
run_haloflow "$haloflow" run "$case_file" "${quick[@]}" --steps 2 --out killed
check killed-later "refused without --force (got $status)" test "$status" -eq 1
check killed-later "the message says it never finished" \
  message_has 'run directory killed exists \(it holds a run that never finished \(results\.json says running, started .* by process [0-9]+ on .*\): it was stopped or killed\)'
run_haloflow "$haloflow" run "$case_file" "${quick[@]}" --steps 2 --out killed --force
check killed-force "--force replaces it (got $status)" test "$status" -eq 0
check killed-force "complete now" test "$(status_of killed)" = complete

# 9. SIGTERM and SIGINT to mpiexec in the middle of a 2-rank run: both ranks stop after the same
#    frame, results.json says interrupted with the steps done, no temporary is left, and the
#    exit status is 143 or 130. Three times each.
scenario "SIGTERM and SIGINT to mpiexec mid-run"
for signal in TERM INT TERM INT TERM INT; do
  rm -rf stopped
  "$mpiexec" "$numproc_flag" 2 "$haloflow" run "$long_case" --out stopped --vtk \
    --output-every 2000 >stopped.log 2>&1 &
  launcher=$!
  for _ in $(seq 200); do
    [[ -e stopped/results.json ]] && break
    sleep 0.05
  done
  sleep 1
  kill -"$signal" "$launcher"
  started=$(date +%s.%N)
  wait "$launcher"
  got=$?
  took=$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
  expected=143
  [[ $signal == INT ]] && expected=130
  echo "SIG$signal: exit status $got after $took s"
  check "sig$signal" "exit status $expected (got $got)" test "$got" -eq "$expected"
  check "sig$signal" "results.json says interrupted" test "$(status_of stopped)" = interrupted
  check "sig$signal" "with the steps done" python3 -c '
import json, sys
i = json.load(open("stopped/results.json"))["interrupted"]
sys.exit(not (i["signal"] == sys.argv[1] and 0 < i["steps_done"] < i["steps"]))' "SIG$signal"
  check "sig$signal" "the message says so" \
    grep -Eq "interrupted by SIG$signal after [0-9]+ of 100000000 steps" stopped.log
  check "sig$signal" "no temporary left" no_temporaries stopped
  check "sig$signal" "within 5 s" awk -v t="$took" 'BEGIN { exit !(t < 5) }'
done

# 10. Standard output closed (| head -1) or full (/dev/full): the run goes on to the end, its
#     results.json complete, and standard error says what happened.
scenario "standard output closed or full"
"$haloflow" run "$case_file" "${quick[@]}" --steps 400 --out piped 2>piped.err | head -n 1 >/dev/null
check piped "the run completed (exit status ${PIPESTATUS[0]})" test "${PIPESTATUS[0]}" -eq 0
check piped "results.json complete" test "$(status_of piped)" = complete
check piped "standard error says so" grep -q 'standard output could not be written (Broken pipe)' piped.err
"$haloflow" run "$case_file" "${quick[@]}" --steps 20 --out full >/dev/full 2>full.err
got=$?
check full "the run completed (exit status $got)" test "$got" -eq 0
check full "results.json complete" test "$(status_of full)" = complete
check full "standard error says so" \
  grep -q 'standard output could not be written (No space left on device)' full.err

# 11. A small file size limit (ulimit -f 1000 KiB: below what MPICH's shared memory files take):
#     every command still starts and runs, on 1 and 2 ranks.
scenario "a small file size limit"
run_haloflow bash -c "ulimit -f 1000; exec '$haloflow' run '$case_file' --executor host --steps 2 --out limited1"
check limited "1 rank runs (got $status)" test "$status" -eq 0
run_haloflow bash -c "ulimit -f 1000; exec '$mpiexec' $numproc_flag 2 '$haloflow' run '$case_file' \
  --executor host --steps 2 --out limited2"
check limited "2 ranks run (got $status)" test "$status" -eq 0
run_haloflow bash -c "ulimit -f 1000; exec '$haloflow' validate '$case_file'"
check limited "validate runs (got $status)" test "$status" -eq 0

# 12. A forced rerun interrupted: the previous run stays in place, the partial rerun beside it.
scenario "a forced rerun interrupted"
run_haloflow "$haloflow" run "$case_file" "${quick[@]}" --steps 2 --out kept
"$haloflow" run "$long_case" --out kept --force >kept.log 2>&1 &
victim=$!
for _ in $(seq 200); do
  compgen -G 'kept.rerun-*/results.json' >/dev/null && break
  sleep 0.05
done
sleep 0.5
kill -TERM "$victim"
wait "$victim"
got=$?
check kept "exit status 143 (got $got)" test "$got" -eq 143
check kept "the previous run is in place" test "$(steps_of kept) $(status_of kept)" = "2 complete"
check kept "the message says so" grep -q 'the previous run in kept is untouched' kept.log
rerun=$(compgen -G 'kept.rerun-*' | head -n 1)
check kept "the partial rerun says interrupted" test "$(status_of "$rerun")" = interrupted

echo "run_lifecycle: $scenarios scenarios, $failures failures"
((failures == 0))
