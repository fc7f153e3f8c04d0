# mlnet_module(NAME <name> LIBS <ns3 targets...> DEPS <other contrib modules...>)
# Builds contrib/<name> as a shared library libmlnet-<name>.so from the .cc files of
# model/ and helper/ and their subfolders (a large module's model/ has one subfolder
# per subsystem), with every header visible flat as "ns3/<file>.h" the way ns-3's own
# modules are included: moving a file between subfolders changes no user's include.
# Two headers of one name anywhere in the suite are a configure error. Its tests
# (test/*-test.cc) become one GoogleTest binary registered with ctest.
function(mlnet_module)
  cmake_parse_arguments(M "" "NAME" "LIBS;DEPS" ${ARGN})
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS
       ${CMAKE_CURRENT_SOURCE_DIR}/model/*.cc ${CMAKE_CURRENT_SOURCE_DIR}/helper/*.cc)
  file(GLOB_RECURSE hdrs CONFIGURE_DEPENDS
       ${CMAKE_CURRENT_SOURCE_DIR}/model/*.h ${CMAKE_CURRENT_SOURCE_DIR}/helper/*.h)
  list(SORT srcs)
  list(SORT hdrs)
  foreach(h ${hdrs})
    get_filename_component(name ${h} NAME)
    get_property(owner GLOBAL PROPERTY MLNET_HEADER_${name})
    if(owner)
      message(FATAL_ERROR "header ${name} exists twice: ${owner} and ${h}; "
                          "headers are staged flat as ns3/<file>.h, so rename one")
    endif()
    set_property(GLOBAL PROPERTY MLNET_HEADER_${name} ${h})
  endforeach()
  set(target ${M_NAME})
  add_library(${target} SHARED ${srcs} ${hdrs})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME mlnet-${M_NAME})
  # Headers are staged under <build>/include/ns3 so that users write
  # #include "ns3/cluster.h" exactly as for ns-3's own modules.
  set(stage ${CMAKE_BINARY_DIR}/include/ns3)
  file(MAKE_DIRECTORY ${stage})
  foreach(h ${hdrs})
    get_filename_component(name ${h} NAME)
    configure_file(${h} ${stage}/${name} COPYONLY)
  endforeach()
  set(umbrella ${stage}/${M_NAME}-module.h)
  file(WRITE ${umbrella}.tmp "// Generated: includes every public header of contrib/${M_NAME}.\n")
  foreach(h ${hdrs})
    get_filename_component(name ${h} NAME)
    file(APPEND ${umbrella}.tmp "#include \"ns3/${name}\"\n")
  endforeach()
  configure_file(${umbrella}.tmp ${umbrella} COPYONLY)
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  target_link_libraries(${target} PUBLIC ${M_DEPS} ${M_LIBS})
  set_property(GLOBAL APPEND PROPERTY MLNET_MODULES ${target})

  # cmake --install: the library, its headers as include/ns3/<file>.h and the
  # umbrella header; the exported target is mlnet::<name> (see cmake/mlnetConfig.cmake.in).
  install(TARGETS ${target} EXPORT mlnetTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(FILES ${hdrs} ${umbrella} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ns3)

  file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/test/*-test.cc)
  if(MLNET_BUILD_TESTS AND tests)
    add_executable(${target}-test ${tests} ${PROJECT_SOURCE_DIR}/cmake/gtest-ns3-main.cc)
    target_link_libraries(${target}-test PRIVATE ${target} GTest::gtest)
    # Helpers every test binary shares (test/support/mlnet-test-support.h).
    target_include_directories(${target}-test PRIVATE ${PROJECT_SOURCE_DIR}/test/support)
    gtest_discover_tests(${target}-test DISCOVERY_TIMEOUT 60
                         PROPERTIES LABELS ${M_NAME})
  endif()
endfunction()
