# MLNET_FUZZ: libFuzzer targets for every input parser (fuzz/), built with clang.
# Every object of the build is compiled -fsanitize=fuzzer-no-link (coverage for the
# fuzzer) on top of MLNET_SANITIZE's AddressSanitizer + UndefinedBehaviorSanitizer,
# which this option turns on; only the fuzz targets link -fsanitize=fuzzer (libFuzzer's
# main). The same objects make sanitized unit-test binaries (the CI sanitizer subset):
# the coverage hooks have weak defaults in the sanitizer runtime.
option(MLNET_FUZZ "Build the libFuzzer targets of fuzz/ (needs clang; implies MLNET_SANITIZE)"
       OFF)
if(MLNET_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR
      "MLNET_FUZZ needs clang's libFuzzer, but the C++ compiler is ${CMAKE_CXX_COMPILER_ID} "
      "(${CMAKE_CXX_COMPILER}); configure a new build folder with "
      "-DCMAKE_CXX_COMPILER=clang++-14 (utils/build.sh --fuzz does, in build-fuzz/)")
  endif()
  include(CheckCXXSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
  check_cxx_source_compiles(
    "#include <cstddef>
     #include <cstdint>
     extern \"C\" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }"
    MLNET_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  if(NOT MLNET_HAVE_LIBFUZZER)
    message(FATAL_ERROR
      "MLNET_FUZZ: ${CMAKE_CXX_COMPILER} cannot link -fsanitize=fuzzer; install clang's "
      "runtimes (utils/setup.sh --fuzz installs clang-14 and libclang-rt-14-dev)")
  endif()
  set(MLNET_SANITIZE ON CACHE BOOL "Build with AddressSanitizer and UndefinedBehaviorSanitizer"
      FORCE)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
