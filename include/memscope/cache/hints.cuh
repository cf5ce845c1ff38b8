#pragma once
// Cache-hinted loads and stores as templates, so one kernel body serves every hint.
// The hints, as PTX: __ldca ld.global.ca (cache in L1 and L2), __ldcg .cg (L2 only), __ldcs
// .cs (evict first), __ldlu .lu (last use), __ldcv .cv (don't cache, fetch again), __ldg
// ld.global.nc; __stwb st.global.wb, __stcg .cg, __stcs .cs, __stwt .wt (write through).

namespace memscope::cache {

/// plain: an unqualified load (ld.global, which sm_70+ caches in L1 like .ca).
enum class load_hint { plain, ca, cg, cs, lu, cv, nc };
enum class store_hint { wb, cg, cs, wt };

/// T: a type the __ld* intrinsics take (float, uint4, ...).
template <load_hint H, class T>
__device__ __forceinline__ T load_hinted(const T* p) {
  if constexpr (H == load_hint::plain) return *p;
  else if constexpr (H == load_hint::ca) return __ldca(p);
  else if constexpr (H == load_hint::cg) return __ldcg(p);
  else if constexpr (H == load_hint::cs) return __ldcs(p);
  else if constexpr (H == load_hint::lu) return __ldlu(p);
  else if constexpr (H == load_hint::cv) return __ldcv(p);
  else return __ldg(p);
}

template <store_hint H>
__device__ __forceinline__ void store_hinted(float* p, float v) {
  if constexpr (H == store_hint::wb) __stwb(p, v);
  else if constexpr (H == store_hint::cg) __stcg(p, v);
  else if constexpr (H == store_hint::cs) __stcs(p, v);
  else __stwt(p, v);
}

}  // namespace memscope::cache
