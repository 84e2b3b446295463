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
