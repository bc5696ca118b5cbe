#!/usr/bin/env bash
# What `haloflow run` leaves behind when writing goes wrong: a full disk, a file size
# limit, planted symbolic links, an existing --dump, a forced rerun that fails, stale temporaries.
# Each scenario asserts the exit status, the message, and the files: nothing partial, nothing
# written through a link, never a mix of two runs.
#   output_faults.sh HALOFLOW CASE_FILE WORK_DIR MPIEXEC NUMPROC_FLAG
# CASE_FILE: a jacobi2d case named jacobi2d whose VTK is written raw (tests/cases/
# jacobi2d_vtk_raw.json), so that the piece outgrows the limits below whatever zlib would make of
# it. Prints one line per scenario and "output_faults: N scenarios, F failures"; exit 0 when F is 0.
set -uo pipefail
haloflow=$1 case_file=$2 work=$3 mpiexec=$4 numproc_flag=$5
umount "$work/disk" 2>/dev/null  # left mounted by a run that was killed
rm -rf "$work" && mkdir -p "$work" || exit 2
scenarios=0
failures=0
# A file size limit applies to every file a process writes, and MPICH's UCX transport keeps its
# POSIX shared memory in files under /dev/shm: under the limit the ranks use System V shared
# memory instead (no files), so that only haloflow's own outputs meet it.
limited="ulimit -f 100; export UCX_TLS=^posix MPIR_CVAR_NOLOCAL=1;"

check() {  # check NAME CONDITION-DESCRIPTION COMMAND...: the command must succeed
  local name=$1 what=$2
  shift 2
  if ! "$@"; then
    echo "FAILED: $name: $what"
    failures=$((failures + 1))
  fi
}

# run OUTPUT_VAR [prefix...] -- haloflow arguments: runs, keeps output and status.
run_haloflow() {
  "$@" >"$work/last.log" 2>&1
  status=$?
  output=$(cat "$work/last.log")
}

# A failed run never leaves results.json saying complete (it says failed, or running where even
# that could not be written).
not_complete() { ! grep -q '"status": "complete"' "$1/results.json" 2>/dev/null; }
no_temporaries() { ! find "$1" -name '.*.haloflow-tmp-*' 2>/dev/null | grep -q .; }
message_has() { grep -Eq -- "$1" <<<"$output"; }
whole_vti_files() {  # every .vti under $1 ends as a VTK file ends
  local file
  for file in "$1"/vtk/*.vti; do
    [[ -e $file ]] || continue
    [[ $(tail -c 11 "$file") == "</VTKFile>" ]] || return 1
  done
}

scenario() {
  scenarios=$((scenarios + 1))
  echo "--- $1"
}

# 1. A file size limit (RLIMIT_FSIZE, 100 KiB): the VTK piece cannot be written. The run fails
#    naming the file and the cause, leaves no partial .vti, no temporary, and results.json says
#    failed.
scenario "file size limit (ulimit -f) on the VTK output"
dir=$work/fsize
run_haloflow bash -c "$limited exec '$haloflow' run '$case_file' --executor host --steps 3 \
  --vtk --out '$dir'"
echo "$output" | tail -n 3
check fsize "exit status non-zero (got $status)" test "$status" -ne 0
check fsize "message names the .vti and 'File too large'" \
  message_has 'jacobi2d_[0-9]{6}_r0000\.vti: could not be written: File too large \(nothing was left'
check fsize "no .vti left" bash -c "! ls '$dir'/vtk/*.vti 2>/dev/null | grep -q ."
check fsize "no temporary left" no_temporaries "$dir"
check fsize "results.json does not say complete" not_complete "$dir"
check fsize "results.json says failed, naming the file" grep -q '"error": ".*\.vti: could not be written' "$dir/results.json"

# 2. The same on two ranks: every rank ends, rank 1's piece is not left half written either.
scenario "file size limit under mpiexec -n 2"
dir=$work/fsize2
run_haloflow bash -c "$limited exec '$mpiexec' $numproc_flag 2 '$haloflow' run '$case_file' \
  --executor host --steps 3 --vtk --out '$dir'"
echo "$output" | grep haloflow: | head -n 2
check fsize2 "exit status non-zero (got $status)" test "$status" -ne 0
check fsize2 "message names the file (a .vti or the .png) and 'File too large'" \
  message_has '\.(vti|png): could not be written: File too large'
check fsize2 "no temporary left" no_temporaries "$dir"
check fsize2 "every .vti left is whole" whole_vti_files "$dir"
check fsize2 "results.json does not say complete" not_complete "$dir"

# 3. A full disk: a 64 KiB tmpfs (needs mount: skipped where it is not allowed).
scenario "full disk (a 64 KiB tmpfs)"
disk=$work/disk
mkdir -p "$disk"
if mount -t tmpfs -o size=64k tmpfs "$disk" 2>/dev/null; then
  run_haloflow "$haloflow" run "$case_file" --executor host --steps 3 --vtk --out "$disk/run"
  echo "$output" | tail -n 2
  check full "exit status non-zero (got $status)" test "$status" -ne 0
  check full "message says 'No space left on device'" \
    message_has ': could not be (written|flushed to disk): No space left on device \(nothing was left'
  check full "no temporary left" no_temporaries "$disk/run"
  check full "results.json does not say complete" not_complete "$disk/run"
  umount "$disk"
else
  echo "(mount not allowed here: skipped)"
fi

# 4. A good run, then links planted in its directory: a forced rerun refuses to touch it, naming
#    the link; the link's target is left as it was.
scenario "planted symbolic links in the run directory"
dir=$work/links
run_haloflow "$haloflow" run "$case_file" --executor host --steps 2 --out "$dir"
check links-setup "the first run succeeds" test "$status" -eq 0
target=$work/target.txt
echo "precious" >"$target"
ln -sf "$target" "$dir/results.json.link-test"
rm -f "$dir/results.json" && ln -s "$target" "$dir/results.json"
run_haloflow "$haloflow" run "$case_file" --executor host --steps 2 --out "$dir" --force
echo "$output" | tail -n 1
check links "exit status 1 (got $status)" test "$status" -eq 1
check links "the link is named" message_has 'holds what haloflow did not write: results\.json(\.link-test)? \(a symbolic link\)'
check links "the target is untouched" grep -qx precious "$target"
rm -f "$dir/results.json" "$dir/results.json.link-test"
ln -s "$work" "$dir/vtk_elsewhere" && rm -rf "$dir/vtk" && ln -s "$work" "$dir/vtk"
run_haloflow "$haloflow" run "$case_file" --executor host --steps 2 --vtk --out "$dir" --force
check links-dir "exit status 1 (got $status)" test "$status" -eq 1
check links-dir "the directory link is named" message_has 'vtk \(a symbolic link\)'
check links-dir "nothing written where the link points" \
  bash -c "! ls '$work'/*.vti 2>/dev/null | grep -q ."

# 5. --dump onto an existing file without --force: refused before the run; with --force: replaced.
scenario "--dump onto an existing file"
dump=$work/field.raw
echo "old" >"$dump"
run_haloflow "$haloflow" run "$case_file" --executor host --steps 2 --out "$work/dump1" --dump "$dump"
check dump "refused (got $status)" test "$status" -eq 1
check dump "message says pass --force" message_has 'field\.raw exists; pass --force to overwrite it'
check dump "the file is untouched" grep -qx old "$dump"
check dump "no run directory was made" test ! -e "$work/dump1"
run_haloflow "$haloflow" run "$case_file" --executor host --steps 2 --out "$work/dump2" --dump "$dump" \
  --force
check dump-force "replaced with --force (got $status)" test "$status" -eq 0
check dump-force "the dump holds the field (256 x 254 floats)" \
  test "$(stat -c %s "$dump")" -eq $((256 * 254 * 4))

# 6. A forced rerun that fails (a file size limit) leaves the previous run as it was: its results,
#    its resolved case, nothing of the rerun beside it. A rerun that completes replaces it whole
#    (the stale temporary of a killed write goes with it).
scenario "a failed forced rerun and stale temporaries"
dir=$work/rerun
run_haloflow "$haloflow" run "$case_file" --executor host --steps 2 --out "$dir"
check rerun-setup "the first run succeeds" test -e "$dir/results.json"
touch "$dir/.results.json.haloflow-tmp-99999-0"
run_haloflow bash -c "$limited exec '$haloflow' run '$case_file' --executor host --steps 4 \
  --vtk --out '$dir' --force"
check rerun "the rerun fails (got $status)" test "$status" -ne 0
check rerun "the message says the previous run is untouched" \
  message_has "the previous run in .*rerun is untouched"
check rerun "the previous run's results.json is complete" \
  grep -q '"status": "complete"' "$dir/results.json"
check rerun "the previous resolved case is there (2 steps)" grep -q '"steps": 2' "$dir/case.resolved.json"
check rerun "nothing of the rerun is left beside it" \
  bash -c "! ls -d '$dir'.rerun-* 2>/dev/null | grep -q ."
run_haloflow "$haloflow" run "$case_file" --executor host --steps 4 --out "$dir" --force
check rerun-again "a rerun that completes replaces it (got $status)" test "$status" -eq 0
check rerun-again "the new resolved case (4 steps)" grep -q '"steps": 4' "$dir/case.resolved.json"
check rerun-again "the stale temporary is gone" no_temporaries "$dir"

# 7. --force on a directory that is not a run directory: refused, nothing removed.
scenario "--force on a directory that is not a haloflow run directory"
dir=$work/not_a_run
mkdir -p "$dir" && echo "mine" >"$dir/notes.txt"
run_haloflow "$haloflow" run "$case_file" --executor host --steps 2 --out "$dir" --force
check foreign "refused (got $status)" test "$status" -eq 1
check foreign "message says why" message_has 'not a run directory haloflow made'
check foreign "the user's file is kept" grep -qx mine "$dir/notes.txt"

echo "output_faults: $scenarios scenarios, $failures failures"
((failures == 0))
