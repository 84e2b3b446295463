# The packet decoder against libipt 2.0.5 (bench/pkt_bench.c).
set(PTD_DIFF_DIR ${PROJECT_SOURCE_DIR}/tests/diff)
add_executable(pkt_bench pkt_bench.c ${PTD_DIFF_DIR}/pktgen.c)
target_include_directories(pkt_bench PRIVATE ${PTD_DIFF_DIR}
  ${PROJECT_SOURCE_DIR}/fuzz)
target_link_libraries(pkt_bench PRIVATE ptdecode_static ptd_libipt_dl ptd_elf_text)
target_compile_definitions(pkt_bench PRIVATE
  PTD_CORPORA_DIR="${PTD_CORPORA_DIR}")
# The consumer loops (a checksum of every packet's type and size) must cost
# the same for every decoder.  gcc 12 vectorizes the batch consumer into a
# sequence of partial stores and wide reloads that stalls on store
# forwarding and costs more than the decoding itself; the per-packet loops of
# the other two decoders are not vectorized.  So: no vectorization here.
target_compile_options(pkt_bench PRIVATE -fno-tree-vectorize)

if(PTD_BUILD_TESTS)
  add_test(NAME bench.pkt_smoke COMMAND pkt_bench --smoke)
  set_tests_properties(bench.pkt_smoke PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 60 LABELS bench)
endif()

