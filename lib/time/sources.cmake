# Sources of the time layer (relative to this folder).
list(APPEND PTD_LAYER_SOURCES
  conv.c
  time.c
  wall.c
  tcal.c
  lookahead.c
  libipt_time.c
  time_decoder.c
)
