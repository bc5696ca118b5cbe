#!/usr/bin/env bash
# The Debian package as a cluster admin would get it: `cpack -G DEB` in haloflow's build, its
# dependencies checked against the Debian packages installed here and against the libraries the
# command loads (each one's package declared; NCCL as NVIDIA's libnccl2 when the command needs
# it; the CUDA Toolkit's recommended), the package unpacked into a scratch root (dpkg -x: no root
# needed, nothing touches /usr), its files checked (a copyright file, the guide's pages, no raw
# benchmark logs), and the installed example built against that root alone and its tests run.
#   deb_package.sh HALOFLOW_BUILD SCRATCH HALOFLOW_SOURCE [cmake arguments for the example]
set -euo pipefail
haloflow_build=$(realpath "$1")
scratch=$2
haloflow_source=$(realpath "$3")
shift 3
rm -rf "$scratch"
mkdir -p "$scratch"
scratch=$(realpath "$scratch")

cpack -G DEB --config "$haloflow_build/CPackConfig.cmake" -B "$scratch/package" > "$scratch/cpack.log"
debs=("$scratch"/package/haloflow_*.deb)
deb=${debs[0]}
echo "deb_package: $(basename "$deb"), $(du -h "$deb" | cut -f1)"

# Each dependency must be a Debian package installed here, at a version that satisfies it.
depends=$(dpkg-deb --field "$deb" Depends)
echo "deb_package: Depends: $depends"
echo "deb_package: Recommends: $(dpkg-deb --field "$deb" Recommends)"
# The libraries the command loads, as the build's copy finds them (its run path reaches the
# CUDA Toolkit's): the package holding each must be a dependency; NCCL, outside dpkg on the
# machines it comes with, must be declared as NVIDIA's libnccl2; the rest of the CUDA Toolkit
# is the recommended toolkit's.
command="$haloflow_build/apps/haloflow/haloflow"
declared=" $(sed -E 's/ *\([^)]*\)//g; s/,/ /g' <<< "$depends") "
nccl_here=""
while read -r soname path; do
  owner=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$(realpath "$path")" 2>/dev/null ||
          dpkg -S "${path#/usr}" 2>/dev/null) || owner=""
  if [[ -n $owner ]]; then
    package=${owner%%:*}
    [[ $declared == *" $package "* ]] ||
      { echo "deb_package: bin/haloflow loads $soname ($package) but Depends lacks $package" >&2; exit 1; }
  elif [[ $soname == libnccl.so.* ]]; then
    [[ $declared == *" libnccl2 "* ]] ||
      { echo "deb_package: bin/haloflow loads $soname but Depends lacks libnccl2" >&2; exit 1; }
    nccl_here=$path
  elif [[ $(realpath "$path") == */cuda* ]]; then
    : # the CUDA Toolkit's (Recommends)
  else
    echo "deb_package: bin/haloflow loads $path, which no Debian package holds" >&2
    exit 1
  fi
done < <(ldd "$command" | awk -v needed=" $(objdump -p "$command" | awk '$1 == "NEEDED" {print $2}' |
                                           tr '\n' ' ')" \
                 '$2 == "=>" && $3 ~ /^\// && index(needed, " " $1 " ") {print $1, $3}')
if [[ $declared == *" libnccl2 "* && -z $nccl_here ]]; then
  echo "deb_package: Depends names libnccl2 but bin/haloflow does not load NCCL" >&2
  exit 1
fi
echo "deb_package: every library bin/haloflow loads is declared${nccl_here:+ (NCCL: libnccl2)}"

IFS=',' read -ra entries <<< "$depends"
for entry in "${entries[@]}"; do
  if [[ $entry =~ ^\ *([a-z0-9.+-]+)\ *(\((<<|<=|=|>=|>>)\ *([^\)]+)\))?\ *$ ]]; then
    name=${BASH_REMATCH[1]}
    if [[ $name == libnccl2 && -n $nccl_here ]] && ! dpkg-query -W libnccl2 >/dev/null 2>&1; then
      continue  # NVIDIA's package; here NCCL came with the toolkit ($nccl_here)
    fi
    installed=$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null) ||
      { echo "deb_package: dependency $name is not a Debian package installed here" >&2; exit 1; }
    if [[ -n ${BASH_REMATCH[2]} ]]; then
      dpkg --compare-versions "$installed" "${BASH_REMATCH[3]}" "${BASH_REMATCH[4]}" ||
        { echo "deb_package: $name $installed does not satisfy ${BASH_REMATCH[2]}" >&2; exit 1; }
    fi
  else
    echo "deb_package: cannot read the dependency '$entry'" >&2
    exit 1
  fi
done

dpkg-deb -x "$deb" "$scratch/root"
for file in usr/include/haloflow/haloflow.hpp usr/lib/cmake/haloflow/haloflow-config.cmake \
            usr/share/haloflow/docs/embedding.md usr/share/haloflow/docs/outputs.md \
            usr/share/haloflow/examples/build-and-test.sh \
            usr/share/haloflow/schema/case.schema.json usr/bin/haloflow \
            usr/share/doc/haloflow/copyright; do
  [[ -f "$scratch/root/$file" ]] || { echo "deb_package: the package lacks /$file" >&2; exit 1; }
done
# Debian's machine-readable copyright format, with a licence for every stanza.
copyright="$scratch/root/usr/share/doc/haloflow/copyright"
head -1 "$copyright" | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ||
  { echo "deb_package: the copyright file is not in Debian's format" >&2; exit 1; }
[[ $(grep -c '^Files:' "$copyright") -le $(grep -c '^License:' "$copyright") ]] ||
  { echo "deb_package: a Files stanza of the copyright file has no License" >&2; exit 1; }
# The benchmarks' raw logs stay in the source tree (docs/results holds them; the schema of
# results.json is not one).
logs=$(find "$scratch/root" -path '*/results/*' -o -name 'bench-*.txt' -o -name 'gpu-check*.txt')
[[ -z $logs ]] || { echo "deb_package: the package installs raw logs: $logs" >&2; exit 1; }
echo "deb_package: /usr/share/doc/haloflow/copyright, docs/outputs.md, no raw logs"

examples="$scratch/root/usr/share/haloflow/examples"
"$examples/build-and-test.sh" "$scratch/root/usr" "$examples/advection2d" "$scratch/consumer" "$@"
"$(dirname "$0")/only_installed_files.sh" "$scratch/consumer" "$scratch/root/usr" \
  "$haloflow_source" "$haloflow_build"
echo "deb_package: the example built against the unpacked package and passed its tests"
