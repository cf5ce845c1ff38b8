// Defines the __constant__ table that table_use.cu reads through `extern __constant__`:
// possible only with separable compilation (this target has CUDA_SEPARABLE_COMPILATION ON).
#include "memscope/constant/symbols.cuh"

MEMSCOPE_CONSTANT_ARRAY(float, memscope_rdc_table, 1024);
