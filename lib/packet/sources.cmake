# Sources of the packet layer (relative to this folder).
list(APPEND PTD_LAYER_SOURCES
  pkt_decoder.c
  pkt_batch_avx2.c
  pkt_skip_avx2.c
  pkt_sync.c
  pkt_names.c
  encoder.c
)
