# Sources of the event layer (relative to this folder).
list(APPEND PTD_LAYER_SOURCES
  event_decoder.c
)
