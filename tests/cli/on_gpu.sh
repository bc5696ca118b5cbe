#!/usr/bin/env bash
# Runs its arguments where a GPU is; exits 77 (ctest: skipped) on a machine without one, for the
# commands that have no exit status of their own for "no GPU" (haloflow run and replay).
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  echo "on_gpu: no GPU here: skipped"
  exit 77
fi
exec "$@"
