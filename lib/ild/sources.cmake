# Sources of the ild layer (relative to this folder): x86 instruction length decoding and classification (Zydis).
list(APPEND PTD_LAYER_SOURCES
  ild.c
  fast64.c
)
