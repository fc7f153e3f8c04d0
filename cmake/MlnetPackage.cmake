# The installable package: `cmake --install <build> --prefix <dir>` puts
#   <dir>/lib/libmlnet-<module>.so          one shared library per contrib module
#   <dir>/include/ns3/*.h                   headers, included as "ns3/<file>.h"
#   <dir>/lib/cmake/mlnet/                  CMake package: find_package(mlnet) gives
#                                           targets mlnet::mlnet, mlnet::topoopt, ...
#   <dir>/bin/<example>                     the example programs
#   <dir>/share/mlnet/<module>/data/        data the models read (mlnet: prices.json)
#   <dir>/share/mlnet/workloads/            training workloads and model profiles
#   <dir>/share/mlnet/utils/plot.py         the figures' script (the examples' PNGs)
# Installed programs read data only there (DataFile, or $MLNET_DATA_DIR), never the
# source tree: the prefix can be moved and the source tree deleted.
# A scenario built against the package links mlnet::<module>; the package finds the
# same ns-3 3.37 this build used (Debian's or the optimized prefix) and Boost, Eigen
# and nlohmann-json.
include(CMakePackageConfigHelpers)

# Our headers are compiled with ns-3 asserts on and logging as MLNET_LOG says (see
# CMakeLists.txt); a user's scenario gets the same, so NS_LOG in their code and ours
# behaves alike.
target_compile_definitions(mlnet INTERFACE NS3_ASSERT_ENABLE
                                           $<$<BOOL:${MLNET_LOG}>:NS3_LOG_ENABLE>)

install(EXPORT mlnetTargets NAMESPACE mlnet:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mlnet)

if(MLNET_NS3_PREFIX STREQUAL "system")
  set(MLNET_NS3_FIND_ARGS "")
else()
  set(MLNET_NS3_FIND_ARGS "PATHS \"${MLNET_NS3_LOCATION}\" NO_DEFAULT_PATH")
endif()
get_property(MLNET_INSTALLED_MODULES GLOBAL PROPERTY MLNET_MODULES)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/mlnetConfig.cmake.in
  ${CMAKE_BINARY_DIR}/package/mlnetConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mlnet
  PATH_VARS CMAKE_INSTALL_DATADIR)
write_basic_package_version_file(
  ${CMAKE_BINARY_DIR}/package/mlnetConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/mlnetConfig.cmake
              ${CMAKE_BINARY_DIR}/package/mlnetConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mlnet)

# Data files the examples and models read: every contrib/<module>/data/ folder and
# contrib/<module>/examples/ folder, kept under share/mlnet/<module>/.
foreach(module ${MLNET_INSTALLED_MODULES})
  foreach(sub data examples)
    if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/contrib/${module}/${sub})
      install(DIRECTORY ${PROJECT_SOURCE_DIR}/contrib/${module}/${sub}
              DESTINATION ${CMAKE_INSTALL_DATADIR}/mlnet/${module})
    endif()
  endforeach()
endforeach()
# The shared workloads every module runs: workloads/training (mlnet's JSON training
# workloads) and workloads/models (the model profiles), as share/mlnet/workloads/.
# DataFile (mlnet) finds both this and data/ beside the installed library.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/workloads/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/mlnet/workloads
        PATTERN "__pycache__" EXCLUDE)
# The plotting script the examples run for their PNGs (DataFile::Find("utils/plot.py")).
install(PROGRAMS ${PROJECT_SOURCE_DIR}/utils/plot.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/mlnet/utils)
