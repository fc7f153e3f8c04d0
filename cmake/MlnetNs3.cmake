# Chooses the ns-3 3.37 this project builds against and finds it.
#
# MLNET_NS3_PREFIX (cache) is one of
#   auto    (default) the optimized build in third_party/ns3-opt/ when it is installed
#           (./utils/setup.sh --optimized), else Debian's package; decided once, at the
#           first configure of a build folder, and cached, so a build folder never
#           switches ns-3 silently when the optimized build appears later;
#   system  Debian's binary package (libns3-dev, /usr);
#   <path>  the prefix of an ns-3 3.37 install (its lib/cmake/ns3/ns3Config.cmake).
# utils/build.sh passes "system" for build/ and the optimized prefix for build-optimized/.
#
# A source install of ns-3 3.37 from Debian's source package exports the same CMake
# package as Debian's binary one: targets ns3::lib<module>, headers in
# <prefix>/include/ns3/, libraries libns3-<module>.so.37 (Debian's soname patch). The
# library file names are the same as Debian's, so the optimized libraries are found
# through the RUNPATH CMake gives our binaries (and '$ORIGIN' in their own RUNPATH).
# What differs is checked here: every ns-3 module we link must exist in the prefix.
#
# Sets MLNET_NS3_KIND ("optimized", "Debian package" or "custom prefix") and
# MLNET_NS3_LOCATION (the prefix), and prints them.

set(_mlnet_ns3_default ${PROJECT_SOURCE_DIR}/third_party/ns3-opt)
set(MLNET_NS3_PREFIX "auto" CACHE STRING
    "ns-3 to build against: auto, system (Debian's package) or an install prefix")
if(MLNET_NS3_PREFIX STREQUAL "auto")
  if(EXISTS ${_mlnet_ns3_default}/lib/cmake/ns3/ns3Config.cmake)
    set(_choice ${_mlnet_ns3_default})
  else()
    set(_choice system)
  endif()
  set(MLNET_NS3_PREFIX ${_choice} CACHE STRING
      "ns-3 to build against: auto, system (Debian's package) or an install prefix" FORCE)
endif()

# A changed choice must not reuse the ns3_DIR found for the previous one.
if(DEFINED _MLNET_NS3_PREFIX_USED AND NOT _MLNET_NS3_PREFIX_USED STREQUAL MLNET_NS3_PREFIX)
  unset(ns3_DIR CACHE)
endif()
set(_MLNET_NS3_PREFIX_USED ${MLNET_NS3_PREFIX} CACHE INTERNAL "")

if(MLNET_NS3_PREFIX STREQUAL "system")
  find_package(ns3 3.37 EXACT REQUIRED)
  set(MLNET_NS3_KIND "Debian package")
  set(MLNET_NS3_LOCATION "/usr")
else()
  get_filename_component(MLNET_NS3_LOCATION ${MLNET_NS3_PREFIX} ABSOLUTE)
  if(NOT EXISTS ${MLNET_NS3_LOCATION}/lib/cmake/ns3/ns3Config.cmake)
    message(FATAL_ERROR
      "MLNET_NS3_PREFIX=${MLNET_NS3_PREFIX} holds no ns-3 install "
      "(no lib/cmake/ns3/ns3Config.cmake). Run ./utils/setup.sh --optimized to build one, "
      "or configure with -DMLNET_NS3_PREFIX=system for Debian's package.")
  endif()
  find_package(ns3 3.37 EXACT REQUIRED PATHS ${MLNET_NS3_LOCATION} NO_DEFAULT_PATH)
  if(EXISTS ${MLNET_NS3_LOCATION}/share/mlnet-ns3-build.txt)
    set(MLNET_NS3_KIND "optimized")
  else()
    set(MLNET_NS3_KIND "custom prefix")
  endif()
  foreach(lib core network internet point-to-point traffic-control applications flow-monitor)
    if(NOT TARGET ns3::lib${lib})
      message(FATAL_ERROR "the ns-3 in ${MLNET_NS3_LOCATION} lacks module '${lib}'; "
                          "rebuild it with ./utils/build-ns3.sh --force")
    endif()
  endforeach()
endif()
message(STATUS "mlnet: building against ns-3 ${ns3_VERSION} (${MLNET_NS3_KIND}) "
               "from ${MLNET_NS3_LOCATION} [${ns3_DIR}]")
