// Must NOT compile: 16385 floats are 4 bytes more than the 64 KB constant bank.
// tests/CMakeLists.txt expects nvcc to fail with memscope's message.
#include "memscope/constant/symbols.cuh"

MEMSCOPE_CONSTANT_ARRAY(float, too_big_for_the_bank, 16385);
