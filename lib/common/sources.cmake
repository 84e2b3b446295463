# Sources of the common layer (relative to this folder).
list(APPEND PTD_LAYER_SOURCES
  version.c
  error.c
  config.c
  errata.c
  rtit.c
)
