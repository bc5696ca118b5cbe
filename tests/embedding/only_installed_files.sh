#!/usr/bin/env bash
# Fails when a consumer's build read a file of haloflow's source or build tree: every header its
# compiler read (the dependency files), every include flag and every library it linked must lie
# in the install prefix, the consumer's own build directory, or outside haloflow's trees.
#   only_installed_files.sh CONSUMER_BUILD PREFIX FORBIDDEN_DIR...
set -euo pipefail
consumer=$(realpath "$1")
prefix=$(realpath "$2")
shift 2
forbidden=()
for dir in "$@"; do forbidden+=("$(realpath "$dir")"); done

# Dependency files (Makefiles) or ninja's own record, include flags and link lines.
mapfile -t records < <(find "$consumer/CMakeFiles" -name '*.o.d' -o -name 'includes_*.rsp' \
                         -o -name flags.make -o -name link.txt)
if [[ -f "$consumer/build.ninja" ]]; then
  ninja -C "$consumer" -t deps > "$consumer/ninja-deps.txt"
  records+=("$consumer/ninja-deps.txt" "$consumer/build.ninja")
fi
if ! compgen -G "$consumer/CMakeFiles/*/*.o.d" >/dev/null && [[ ! -f "$consumer/build.ninja" ]]; then
  echo "only_installed_files: no dependency files under $consumer: cannot tell what was read" >&2
  exit 1
fi

checked=0
bad=0
while read -r path; do
  path=${path%\\}
  path=${path%:}
  [[ -e "$path" ]] || continue
  path=$(realpath "$path")
  checked=$((checked + 1))
  [[ "$path" == "$prefix"/* || "$path" == "$consumer"/* ]] && continue
  for dir in "${forbidden[@]}"; do
    if [[ "$path" == "$dir"/* ]]; then
      echo "only_installed_files: the consumer read $path, inside $dir" >&2
      bad=$((bad + 1))
    fi
  done
done < <(cat "${records[@]}" | tr ' "=' '\n\n\n' | grep '^/' | sort -u)
echo "only_installed_files: $checked paths checked, $bad inside haloflow's source or build tree"
((bad == 0))
