#!/usr/bin/env bash
# The Debian package as a cluster admin would get it: `cpack -G DEB` in haloflow's build, its
# dependencies checked against the Debian packages installed here, the package unpacked into a
# scratch root (dpkg -x: no root needed, nothing touches /usr), and the installed example built
# against that root alone and its tests run.
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
IFS=',' read -ra entries <<< "$depends"
for entry in "${entries[@]}"; do
  if [[ $entry =~ ^\ *([a-z0-9.+-]+)\ *(\((<<|<=|=|>=|>>)\ *([^\)]+)\))?\ *$ ]]; then
    name=${BASH_REMATCH[1]}
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
            usr/share/haloflow/docs/embedding.md usr/share/haloflow/examples/build-and-test.sh \
            usr/share/haloflow/schema/case.schema.json usr/bin/haloflow; do
  [[ -f "$scratch/root/$file" ]] || { echo "deb_package: the package lacks /$file" >&2; exit 1; }
done

examples="$scratch/root/usr/share/haloflow/examples"
"$examples/build-and-test.sh" "$scratch/root/usr" "$examples/advection2d" "$scratch/consumer" "$@"
"$(dirname "$0")/only_installed_files.sh" "$scratch/consumer" "$scratch/root/usr" \
  "$haloflow_source" "$haloflow_build"
echo "deb_package: the example built against the unpacked package and passed its tests"
