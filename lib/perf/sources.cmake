# Sources of the perf.data layer (relative to this folder).
list(APPEND PTD_LAYER_SOURCES
  perf_parse.c
  perf_access.c
  perf_sideband.c
  perf_tasks.c
  perf_snapshot.c
  perf_zstd.c
  perf_dir.c
  perf_sample.c
  pevent.c
)
