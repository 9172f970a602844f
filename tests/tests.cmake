# Unit tests: one C file each under tests/unit, linked against the tools' libraries.
file(GLOB UNIT_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/unit/test_*.c)
foreach(src ${UNIT_TESTS})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  # test_sim* need only the simulator, test_rt* the runtime, test_replay* the replay,
  # test_raw* the format library,
  # the rest everything.
  if(name MATCHES "^test_sim")
    target_link_libraries(${name} PRIVATE memspy_sim)
  elseif(name MATCHES "^test_rt")
    target_link_libraries(${name} PRIVATE memspy_rt)
  elseif(name MATCHES "^test_replay")
    target_link_libraries(${name} PRIVATE memspy_replay)
  elseif(name MATCHES "^test_raw")
    target_link_libraries(${name} PRIVATE memspy_format)
  else()
    target_link_libraries(${name} PRIVATE memspy_drive memspy_report memspy_store)
  endif()
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests/unit)
  if(name STREQUAL "test_sim_diff")
    # The frozen simulator the live one is compared with (tests/unit/oracle/README.md).
    file(GLOB ORACLE_SRC CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/unit/oracle/*.c)
    target_sources(${name} PRIVATE ${ORACLE_SRC})
  endif()
  memspy_flags(${name})
  add_test(NAME unit/${name} COMMAND ${name})
endforeach()

# The raw-file checker used by the runtime smoke test.
add_executable(rt_rawcheck ${CMAKE_SOURCE_DIR}/tests/e2e/rt/rt_rawcheck.c)
target_include_directories(rt_rawcheck PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(rt_rawcheck PRIVATE memspy_format)
memspy_flags(rt_rawcheck)

# The stream printer used by the threads tests (events of DIR/thread-N.zst as text).
add_executable(rt_streamdump ${CMAKE_SOURCE_DIR}/tests/e2e/rt/rt_streamdump.c)
target_include_directories(rt_streamdump PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(rt_streamdump PRIVATE memspy_replay)
memspy_flags(rt_streamdump)

# End-to-end tests: tests/e2e/*.sh, each run with every compiler and -O level it supports.
# A script receives: SRC_DIR BUILD_DIR CC OPT and works in its own scratch directory.
file(GLOB E2E_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/e2e/t_*.sh)
foreach(script ${E2E_TESTS})
  get_filename_component(name ${script} NAME_WE)
  file(STRINGS ${script} matrix_line REGEX "^# matrix:")
  if(matrix_line)
    string(REGEX REPLACE "^# matrix: *" "" combos "${matrix_line}")
    separate_arguments(combos)
  else()
    set(combos gcc:-O0 gcc:-O2 clang:-O0 clang:-O2)
  endif()
  foreach(combo ${combos})
    string(REPLACE ":" ";" parts ${combo})
    list(GET parts 0 cc)
    list(GET parts 1 opt)
    add_test(NAME e2e/${name}/${cc}${opt}
      COMMAND sh ${script} ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR} ${cc} ${opt})
    set_tests_properties(e2e/${name}/${cc}${opt} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
  endforeach()
endforeach()

# The layering: no #include across src/ folders that scripts/check-layers.sh's table forbids.
add_test(NAME layers COMMAND sh ${CMAKE_SOURCE_DIR}/scripts/check-layers.sh ${CMAKE_SOURCE_DIR}/src)

# Fuzz targets (MEMSPY_FUZZ, clang): one per reader, run by tests/fuzz/run.sh (make fuzz).
if(MEMSPY_FUZZ)
  foreach(name raw json stream)
    add_executable(fuzz_${name} ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_${name}.c)
    target_include_directories(fuzz_${name} PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tests/fuzz)
    target_link_libraries(fuzz_${name} PRIVATE memspy_drive memspy_report memspy_store)
    memspy_flags(fuzz_${name})
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
  endforeach()
endif()
# The formatting: src/ and tests/unit as `make format` leaves them (skipped without clang-format-14).
add_test(NAME format COMMAND sh ${CMAKE_SOURCE_DIR}/scripts/check-format.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(format PROPERTIES SKIP_RETURN_CODE 77)
# The region table's lock-free lookups under ThreadSanitizer (tests/tsan; skipped without it).
add_test(NAME tsan/regions COMMAND sh ${CMAKE_SOURCE_DIR}/tests/tsan/t_regions.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(tsan/regions PROPERTIES SKIP_RETURN_CODE 77)
