#pragma once
// Texture objects (cudaTextureObject_t, CUDA 5+; the texture references the seeds use were
// removed in CUDA 12) over the three sources a texture can read: linear memory (1D,
// tex1Dfetch), pitch-linear 2D memory and a cudaArray (block-linear, 2D locality). RAII owners
// for arrays and texture objects, the sampler settings the texture suite sweeps, the device's
// size limits, and fetch kernels that evaluate a texture at given coordinates.

#include "memscope/core/cuda_check.hpp"
#include "memscope/core/launch.cuh"
#include "memscope/texture/texture_reference.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>

namespace memscope::texture {

/// How a texture object samples: address mode, point or linear filter, element or
/// normalised-float read mode (8/16-bit integers read as [0, 1] floats), normalised coordinates.
struct sampler {
  address_mode address = address_mode::clamp;
  bool linear_filter = false;
  bool normalized_float = false;
  bool normalized_coords = false;
};

inline cudaTextureAddressMode to_cuda(address_mode m) {
  switch (m) {
    case address_mode::wrap:
      return cudaAddressModeWrap;
    case address_mode::clamp:
      return cudaAddressModeClamp;
    case address_mode::mirror:
      return cudaAddressModeMirror;
    case address_mode::border:
      return cudaAddressModeBorder;
  }
  return cudaAddressModeClamp;
}

inline cudaTextureDesc make_desc(const sampler& s) {
  cudaTextureDesc d{};
  for (auto& m : d.addressMode) m = to_cuda(s.address);
  d.filterMode = s.linear_filter ? cudaFilterModeLinear : cudaFilterModePoint;
  d.readMode = s.normalized_float ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
  d.normalizedCoords = s.normalized_coords ? 1 : 0;
  return d;  // borderColor zero-initialised: border reads return 0
}

/// The device's texture size limits (texels), from cudaDeviceGetAttribute.
struct limits {
  long long linear_1d = 0;                                                // cudaDevAttrMaxTexture1DLinearWidth
  long long pitch_2d_width = 0, pitch_2d_height = 0, pitch_2d_pitch = 0;  // ...Texture2DLinear*
  long long array_2d_width = 0, array_2d_height = 0;                      // cudaDevAttrMaxTexture2DWidth/Height
  long long pitch_alignment = 0;                                          // cudaDevAttrTexturePitchAlignment

  static limits query(int device) {
    auto get = [device](cudaDeviceAttr a) {
      int v = 0;
      MEMSCOPE_CUDA_CALL(cudaDeviceGetAttribute(&v, a, device));
      return static_cast<long long>(v);
    };
    limits l;
    l.linear_1d = get(cudaDevAttrMaxTexture1DLinearWidth);
    l.pitch_2d_width = get(cudaDevAttrMaxTexture2DLinearWidth);
    l.pitch_2d_height = get(cudaDevAttrMaxTexture2DLinearHeight);
    l.pitch_2d_pitch = get(cudaDevAttrMaxTexture2DLinearPitch);
    l.array_2d_width = get(cudaDevAttrMaxTexture2DWidth);
    l.array_2d_height = get(cudaDevAttrMaxTexture2DHeight);
    l.pitch_alignment = get(cudaDevAttrTexturePitchAlignment);
    return l;
  }
};

/// Thrown before any allocation when a texture would exceed the device's limits.
class too_large : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// A 2D cudaArray of width x height texels of T.
template <class T>
class cuda_array {
 public:
  cuda_array(std::size_t width, std::size_t height) {
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<T>();
    MEMSCOPE_CUDA_CALL(cudaMallocArray(&array_, &desc, width, height));
    width_ = width;
    height_ = height;
  }
  ~cuda_array() {
    if (array_) MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaFreeArray(array_));
  }
  cuda_array(const cuda_array&) = delete;
  cuda_array& operator=(const cuda_array&) = delete;

  /// Copies a row-major host image of width x height texels in.
  void upload(const T* host) {
    MEMSCOPE_CUDA_CALL(cudaMemcpy2DToArray(array_, 0, 0, host, width_ * sizeof(T), width_ * sizeof(T), height_,
                                           cudaMemcpyHostToDevice));
  }
  cudaArray_t get() const noexcept { return array_; }

 private:
  cudaArray_t array_ = nullptr;
  std::size_t width_ = 0, height_ = 0;
};

/// A width x height image of T in pitch-linear device memory (cudaMallocPitch: rows padded to
/// the texture pitch alignment).
template <class T>
class pitch2d_buffer {
 public:
  pitch2d_buffer(std::size_t width, std::size_t height) : width_(width), height_(height) {
    MEMSCOPE_CUDA_CALL(cudaMallocPitch(&ptr_, &pitch_, width * sizeof(T), height));
  }
  ~pitch2d_buffer() {
    if (ptr_) MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaFree(ptr_));
  }
  pitch2d_buffer(const pitch2d_buffer&) = delete;
  pitch2d_buffer& operator=(const pitch2d_buffer&) = delete;

  /// Copies a row-major host image of width x height texels in.
  void upload(const T* host) {
    MEMSCOPE_CUDA_CALL(
        cudaMemcpy2D(ptr_, pitch_, host, width_ * sizeof(T), width_ * sizeof(T), height_, cudaMemcpyHostToDevice));
  }
  const T* data() const noexcept { return static_cast<const T*>(ptr_); }
  std::size_t pitch_bytes() const noexcept { return pitch_; }

 private:
  void* ptr_ = nullptr;
  std::size_t pitch_ = 0, width_ = 0, height_ = 0;
};

/// Checks a pitch-linear 2D texture's size before its memory is allocated.
inline void check_pitch2d_size(std::size_t width, std::size_t height, const limits& lim) {
  if (static_cast<long long>(width) > lim.pitch_2d_width || static_cast<long long>(height) > lim.pitch_2d_height)
    throw too_large("a pitch-linear 2D texture of " + std::to_string(width) + " x " + std::to_string(height) +
                    " texels exceeds this GPU's limit of " + std::to_string(lim.pitch_2d_width) + " x " +
                    std::to_string(lim.pitch_2d_height) + " (cudaDevAttrMaxTexture2DLinearWidth/Height)");
}

/// Owns one cudaTextureObject_t.
class texture_object {
 public:
  texture_object() = default;
  texture_object(const cudaResourceDesc& res, const cudaTextureDesc& tex) {
    MEMSCOPE_CUDA_CALL(cudaCreateTextureObject(&object_, &res, &tex, nullptr));
  }
  ~texture_object() {
    if (object_) MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaDestroyTextureObject(object_));
  }
  texture_object(const texture_object&) = delete;
  texture_object& operator=(const texture_object&) = delete;
  texture_object(texture_object&& o) noexcept : object_(std::exchange(o.object_, 0)) {}
  texture_object& operator=(texture_object&& o) noexcept {
    if (this != &o) {
      if (object_) MEMSCOPE_CUDA_CALL_NOEXCEPT(cudaDestroyTextureObject(object_));
      object_ = std::exchange(o.object_, 0);
    }
    return *this;
  }
  cudaTextureObject_t get() const noexcept { return object_; }

 private:
  cudaTextureObject_t object_ = 0;
};

/// Checks a 1D linear texture's size before its memory is allocated.
inline void check_linear_size(std::size_t count, const limits& lim) {
  if (static_cast<long long>(count) > lim.linear_1d)
    throw too_large("a 1D linear texture of " + std::to_string(count) + " texels exceeds this GPU's limit of " +
                    std::to_string(lim.linear_1d) + " (cudaDevAttrMaxTexture1DLinearWidth)");
}

/// `count` texels of linear memory (read with tex1Dfetch: integer indices, point sampling).
template <class T>
texture_object linear_texture(const T* d_data, std::size_t count, const sampler& s, const limits& lim) {
  check_linear_size(count, lim);
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeLinear;
  r.res.linear.devPtr = const_cast<T*>(d_data);
  r.res.linear.desc = cudaCreateChannelDesc<T>();
  r.res.linear.sizeInBytes = count * sizeof(T);
  return texture_object(r, make_desc(s));
}

/// A width x height image in pitch-linear memory (rows `pitch_bytes` apart, from cudaMallocPitch).
template <class T>
texture_object pitch2d_texture(const T* d_data, std::size_t width, std::size_t height, std::size_t pitch_bytes,
                               const sampler& s, const limits& lim) {
  check_pitch2d_size(width, height, lim);
  if (static_cast<long long>(pitch_bytes) > lim.pitch_2d_pitch)
    throw too_large("a pitch of " + std::to_string(pitch_bytes) + " bytes exceeds this GPU's limit of " +
                    std::to_string(lim.pitch_2d_pitch) + " (cudaDevAttrMaxTexture2DLinearPitch)");
  cudaResourceDesc r{};
  r.resType = cudaResourceTypePitch2D;
  r.res.pitch2D.devPtr = const_cast<T*>(d_data);
  r.res.pitch2D.desc = cudaCreateChannelDesc<T>();
  r.res.pitch2D.width = width;
  r.res.pitch2D.height = height;
  r.res.pitch2D.pitchInBytes = pitch_bytes;
  return texture_object(r, make_desc(s));
}

/// Checks a cudaArray's size before it is allocated.
inline void check_array_size(std::size_t width, std::size_t height, const limits& lim) {
  if (static_cast<long long>(width) > lim.array_2d_width || static_cast<long long>(height) > lim.array_2d_height)
    throw too_large("a 2D cudaArray texture of " + std::to_string(width) + " x " + std::to_string(height) +
                    " texels exceeds this GPU's limit of " + std::to_string(lim.array_2d_width) + " x " +
                    std::to_string(lim.array_2d_height) + " (cudaDevAttrMaxTexture2DWidth/Height)");
}

template <class T>
texture_object array_texture(const cuda_array<T>& a, const sampler& s) {
  cudaResourceDesc r{};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a.get();
  return texture_object(r, make_desc(s));
}

struct fetch_policy {
  static constexpr int block_threads = 256;
};

/// out[i] = tex2D<float>(t, uv[i].x, uv[i].y).
template <int = 0>
__global__ void __launch_bounds__(fetch_policy::block_threads)
    fetch2d_kernel(cudaTextureObject_t t, const float2* uv, float* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(t, uv[i].x, uv[i].y);
}

/// out[i] = tex1Dfetch<float>(t, index[i]).
template <int = 0>
__global__ void __launch_bounds__(fetch_policy::block_threads)
    fetch1d_kernel(cudaTextureObject_t t, const int* index, float* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(t, index[i]);
}

inline void fetch2d(cudaTextureObject_t t, const float2* uv, float* out, std::size_t n, cudaStream_t s) {
  if (n == 0) return;
  fetch2d_kernel<>
      <<<static_cast<unsigned>(ceil_div(n, fetch_policy::block_threads)), fetch_policy::block_threads, 0, s>>>(t, uv,
                                                                                                               out, n);
  MEMSCOPE_CHECK_LAUNCH("fetch2d_kernel");
}

inline void fetch1d(cudaTextureObject_t t, const int* index, float* out, std::size_t n, cudaStream_t s) {
  if (n == 0) return;
  fetch1d_kernel<>
      <<<static_cast<unsigned>(ceil_div(n, fetch_policy::block_threads)), fetch_policy::block_threads, 0, s>>>(t, index,
                                                                                                               out, n);
  MEMSCOPE_CHECK_LAUNCH("fetch1d_kernel");
}

}  // namespace memscope::texture
