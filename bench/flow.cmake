# The instruction-flow and block decoders against libipt 2.0.5's: the
# instruction flow with pt_insn_time() after every instruction, and the
# block flow (see bench/flow_bench.c, docs/benchmarks.md).
add_executable(flow_bench flow_bench.c flow_common.c
  ${PROJECT_SOURCE_DIR}/tools/ptxed/page_dump.c)
target_include_directories(flow_bench PRIVATE ${PROJECT_SOURCE_DIR}/tools/ptxed)
target_link_libraries(flow_bench PRIVATE ptdecode_static ptd_libipt_dl)
target_compile_definitions(flow_bench PRIVATE
  PTD_CORPORA_DIR="${PTD_CORPORA_DIR}")
if(PTD_BUILD_TESTS)
  add_test(NAME bench.flow_smoke COMMAND flow_bench --smoke)
  set_tests_properties(bench.flow_smoke PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 60 LABELS bench)
endif()
