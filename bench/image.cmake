# ptd_image_find(): the traced image's lookup (see bench/image_bench.c,
# docs/image.md).
add_executable(image_bench image_bench.c)
target_link_libraries(image_bench PRIVATE ptdecode_static)
target_include_directories(image_bench PRIVATE ${PROJECT_SOURCE_DIR}/lib)
if(PTD_BUILD_TESTS)
  add_test(NAME bench.image_smoke COMMAND image_bench --smoke)
  set_tests_properties(bench.image_smoke PROPERTIES TIMEOUT 60 LABELS bench)
endif()
