# Sources of the flow layer (relative to this folder): instruction-flow and block decoders, block cache.
list(APPEND PTD_LAYER_SOURCES
  fmem.c
  flow.c
  qsrc.c
  insn_decoder.c
  block_decoder.c
)
