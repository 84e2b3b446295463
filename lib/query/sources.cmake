# Sources of the query layer (relative to this folder).
list(APPEND PTD_LAYER_SOURCES
  tnt_cache.c
  evq.c
  ovf.c
  query.c
  batch.c
  copy.c
  psb_log.c
)
