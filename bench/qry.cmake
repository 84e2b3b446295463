# The query decoder against libipt 2.0.5's: every TNT bit, IP and event with
# pt_qry_time() after each step (see bench/qry_bench.c, docs/benchmarks.md).
add_executable(qry_bench qry_bench.c)
target_link_libraries(qry_bench PRIVATE ptdecode_static ptd_libipt_dl ptd_elf_text)
target_compile_definitions(qry_bench PRIVATE
  PTD_CORPORA_DIR="${PTD_CORPORA_DIR}")
if(PTD_BUILD_TESTS)
  add_test(NAME bench.qry_smoke COMMAND qry_bench --smoke)
  set_tests_properties(bench.qry_smoke PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 60 LABELS bench)
endif()
if(PTD_BUILD_TESTS)
  # bench/ab.sh reads the figure of a line of two runs; on the smoke run of
  # the same binary it must report both (no pinning: ctest runs in
  # parallel).
  add_test(NAME bench.ab_script
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/ab.sh -r 1 -c "" -p
                   "^smoke" $<TARGET_FILE:qry_bench> $<TARGET_FILE:qry_bench>
                   -- --smoke)
  set_tests_properties(bench.ab_script PROPERTIES
    TIMEOUT 60 LABELS bench
    PASS_REGULAR_EXPRESSION "A .* best [0-9.]+ .*\nB .* best [0-9.]+")
endif()
