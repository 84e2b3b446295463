# The tools' sources that the sideband fuzz targets build in (included by
# fuzz/CMakeLists.txt for the libFuzzer build and by fuzz/replay.cmake for
# the replay programs, which call ptd_fuzz_sideband_targets()).
set(PTD_FUZZ_SB_SOURCES
  ${PROJECT_SOURCE_DIR}/tools/common/sb_options.c
  ${PROJECT_SOURCE_DIR}/tools/common/sb_session.c
  ${PROJECT_SOURCE_DIR}/tools/common/sb_print.c
  ${PROJECT_SOURCE_DIR}/tools/common/tool_args.c)
set(PTD_FUZZ_PTXED_SB_SOURCES
  ${PROJECT_SOURCE_DIR}/tools/ptxed/sideband.c
  ${PROJECT_SOURCE_DIR}/tools/ptxed/sb_context.c
  ${PROJECT_SOURCE_DIR}/tools/ptxed/load.c
  ${PROJECT_SOURCE_DIR}/tools/common/read_all.c
  ${PROJECT_SOURCE_DIR}/tools/ptxed/load_elf.c
  ${PROJECT_SOURCE_DIR}/tools/ptxed/page_dump.c)
set(PTD_FUZZ_SB_INCLUDES
  ${PROJECT_SOURCE_DIR}/tools/common ${PROJECT_SOURCE_DIR}/tools/ptxed
  ${PROJECT_SOURCE_DIR}/include/ptdecode)

# Build the tools' sideband code into the targets @sb (fuzz_sideband or its
# replay program) and @ptxed_sb (fuzz_ptxed_sb or its replay program).
function(ptd_fuzz_sideband_targets sb ptxed_sb)
  target_sources(${sb} PRIVATE ${PTD_FUZZ_SB_SOURCES})
  target_sources(${ptxed_sb} PRIVATE ${PTD_FUZZ_SB_SOURCES}
    ${PTD_FUZZ_PTXED_SB_SOURCES})
  foreach(t ${sb} ${ptxed_sb})
    target_include_directories(${t} PRIVATE ${PTD_FUZZ_SB_INCLUDES})
  endforeach()
endfunction()
