#pragma once
#include <cstddef>
#include <vector>

void rdc_upload(const std::vector<float>& values);
std::vector<float> rdc_download(std::size_t n);
std::size_t rdc_symbol_bytes();
void rdc_scale(float* out, int n, float factor);
