# lib/ild against the Zydis decoding modes beneath it: ns per instruction
# over the C library's .text, and the share of instruction decoding in the
# block decoder on libxdc's mruby trace (see bench/ild_bench.c,
# docs/ild.md).
add_executable(ild_bench ild_bench.c)
target_include_directories(ild_bench PRIVATE ${PROJECT_SOURCE_DIR}/lib)
target_link_libraries(ild_bench PRIVATE ptdecode_static ptd_elf_text)
target_compile_definitions(ild_bench PRIVATE
  PTD_CORPORA_DIR="${PTD_CORPORA_DIR}")
if(PTD_BUILD_TESTS)
  add_test(NAME bench.ild_smoke COMMAND ild_bench --smoke)
  set_tests_properties(bench.ild_smoke PROPERTIES
    SKIP_RETURN_CODE 77 TIMEOUT 60 LABELS bench)
endif()
