# The fuzz targets built as plain programs that replay their seed corpora
# (fuzz/corpus/<target>/), without libFuzzer: see fuzz/replay_main.h.
# Included from tests/unit/CMakeLists.txt, so the normal build (and the
# -DPTD_SANITIZE=ON build, under ASan+UBSan) runs them with ctest.
set(PTD_FUZZ_TARGETS fuzz_packet fuzz_roundtrip fuzz_time fuzz_query fuzz_ild fuzz_image
  fuzz_flow fuzz_flow_batch fuzz_perf fuzz_sideband fuzz_ptxed_sb)
foreach(t ${PTD_FUZZ_TARGETS})
  add_executable(${t}_replay ${PROJECT_SOURCE_DIR}/fuzz/${t}.c)
  target_compile_definitions(${t}_replay PRIVATE PTD_FUZZ_REPLAY_MAIN)
  target_include_directories(${t}_replay PRIVATE ${PROJECT_SOURCE_DIR}/fuzz)
  target_link_libraries(${t}_replay PRIVATE ptdecode_obj)
  add_test(NAME fuzz.${t}.replay
    COMMAND ${t}_replay ${PROJECT_SOURCE_DIR}/fuzz/corpus/${t})
  # Inputs that once made the target fail (library bugs since fixed) stay
  # as regression tests.
  file(GLOB crashes ${PROJECT_SOURCE_DIR}/fuzz/crashes/${t}-*)
  if(crashes)
    add_test(NAME fuzz.${t}.crashes COMMAND ${t}_replay ${crashes})
  endif()
endforeach()

# The sideband targets run the tools' sideband code too.
include(${PROJECT_SOURCE_DIR}/fuzz/sideband_sources.cmake)
ptd_fuzz_sideband_targets(fuzz_sideband_replay fuzz_ptxed_sb_replay)

target_sources(fuzz_flow_batch_replay PRIVATE
  ${PROJECT_SOURCE_DIR}/tests/flow_batch/fb_check.c)
target_include_directories(fuzz_flow_batch_replay PRIVATE
  ${PROJECT_SOURCE_DIR}/tests/flow_batch)

# The generator of the seed corpora: fuzz_gen_seeds fuzz/corpus
add_executable(fuzz_gen_seeds ${PROJECT_SOURCE_DIR}/fuzz/gen_seeds.c)
target_link_libraries(fuzz_gen_seeds PRIVATE ptdecode_obj ptd_perf_write)
# With zstd it also writes seeds with compressed sideband.
if(PTD_HAVE_ZSTD)
  target_link_libraries(fuzz_gen_seeds PRIVATE ptd_perf_zstd_write)
  target_compile_definitions(fuzz_gen_seeds PRIVATE PTD_HAVE_ZSTD)
endif()
