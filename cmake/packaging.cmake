# `cpack -G DEB` in the build directory (or `cpack --preset package` after the package preset's
# build): one package for /usr with the library, headers, CMake package, command, share/haloflow
# and /usr/share/doc/haloflow/copyright. Its dependencies are Debian package names (bookworm's).
# The CUDA Toolkit 13 is NVIDIA's (Debian packages older ones), so it is recommended, not
# depended on: a toolkit installed from NVIDIA's .run file is unknown to dpkg. NCCL is not part
# of the toolkit: a build with the nccl transport depends on NVIDIA's libnccl2, so the package
# preset builds without it, for machines that have only the toolkit.
set(CPACK_PACKAGE_NAME haloflow)
set(CPACK_PACKAGE_VENDOR haloflow)
set(CPACK_PACKAGE_CONTACT "haloflow developers <haloflow@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
if(HALOFLOW_HAVE_NCCL)
  set(haloflow_nccl_note
      "This build has the nccl transport: it needs NCCL 2 (NVIDIA's libnccl2) besides the "
      "toolkit.")
else()
  set(haloflow_nccl_note
      "This build has no nccl transport (MPI carries the halos, and --transport nccl says "
      "so): it needs nothing from NVIDIA but the toolkit. Build haloflow from source with NCCL "
      "for it.")
endif()
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "haloflow builds a multi-GPU solver's timestep as a CUDA graph that hides the MPI halo "
       "exchange behind the interior computation. This package holds the library, its headers "
       "and CMake package (find_package(haloflow)), the haloflow command, and under "
       "/usr/share/haloflow the embedding guide and the pages it cites, its examples and the "
       "case schema. It needs the CUDA Toolkit 13 (NVIDIA's, under /usr/local/cuda). "
       ${haloflow_nccl_note})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# What find_package(haloflow) finds again (MPI, fmt), the CMake the config needs, and CLI11 for
# the examples; then every library bin/haloflow loads, by the package that holds it (the
# embedding_deb_package test compares this list with the command's NEEDED entries): MPICH and fmt,
# libpng and zlib (PNG and VTK), FreeType and fontconfig with a font (the pictures' text), and
# the C++ runtime of GCC 12.
set(haloflow_depends
    "cmake (>= 3.25)" libmpich-dev mpich "libfmt-dev (>= 9)" libcli11-dev
    libmpich12 libfmt9 libpng16-16 zlib1g libfreetype6 libfontconfig1 fonts-dejavu-core
    "libstdc++6 (>= 12)" libgcc-s1 libc6)
if(HALOFLOW_HAVE_NCCL)
  list(APPEND haloflow_depends libnccl2)
endif()
list(JOIN haloflow_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "cuda-toolkit-13-0")
install(FILES ${CMAKE_CURRENT_LIST_DIR}/debian/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
include(CPack)
