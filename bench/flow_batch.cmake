# The batch flow decoder (ptd_flow_next_insns(), ptd_flow_next_blocks())
# against libipt 2.0.5's pt_insn_next() + pt_insn_time() and pt_blk_next()
# (see bench/flow_batch_bench.c, docs/flow-batch.md).
add_executable(flow_batch_bench flow_batch_bench.c flow_common.c
  ${PROJECT_SOURCE_DIR}/tests/flow_batch/fb_check.c
  ${PROJECT_SOURCE_DIR}/tools/ptxed/page_dump.c)
target_include_directories(flow_batch_bench PRIVATE
  ${PROJECT_SOURCE_DIR}/tools/ptxed ${PROJECT_SOURCE_DIR}/tests/flow_batch
  ${PROJECT_SOURCE_DIR}/lib)
target_link_libraries(flow_batch_bench PRIVATE ptdecode_static ptd_libipt_dl)
target_compile_definitions(flow_batch_bench PRIVATE
  PTD_CORPORA_DIR="${PTD_CORPORA_DIR}")
if(PTD_BUILD_TESTS)
  add_test(NAME bench.flow_batch_smoke COMMAND flow_batch_bench --smoke)
  set_tests_properties(bench.flow_batch_smoke PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 60 LABELS bench)
endif()
