# Sources of the batch flow layer (relative to this folder): ptd_flow_next_insns(),
# ptd_flow_next_blocks() and their run cache (include/ptdecode/ptd_flow_batch.h).
list(APPEND PTD_LAYER_SOURCES
  flow_batch.c
)
