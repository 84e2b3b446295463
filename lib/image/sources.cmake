# Sources of the image layer (relative to this folder): traced image and image section cache.
list(APPEND PTD_LAYER_SOURCES
  file.c
  section.c
  iscache.c
  image.c
  page_dump.c
)
