#include "advise/advisor.hpp"

#include "harness/axis.hpp"
#include "harness/text_output.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <initializer_list>

namespace memscope::advise {
namespace {

using axis_filter = std::initializer_list<std::pair<const char*, axis_value>>;

const case_result* find(const results_doc* doc, const std::string& suite, const std::string& name, axis_filter axes) {
  if (!doc) return nullptr;
  for (const auto& r : doc->results) {
    if (r.suite != suite || r.name != name || !r.timed) continue;
    bool all = true;
    for (const auto& [k, v] : axes) {
      bool hit = false;
      for (const auto& [rk, rv] : r.axes) hit |= rk == k && rv == v;
      all &= hit;
    }
    if (all) return &r;
  }
  return nullptr;
}

double metric(const case_result* r, const char* name) { return r ? r->metric(name) : std::nan(""); }

std::int64_t largest(const results_doc* doc, const std::string& suite, const std::string& axis_name) {
  std::int64_t m = 0;
  if (doc)
    for (const auto& r : doc->results)
      if (r.suite == suite)
        for (const auto& [k, v] : r.axes)
          if (k == axis_name && std::holds_alternative<std::int64_t>(v)) m = std::max(m, std::get<std::int64_t>(v));
  return m;
}

/// Adds a figure when the profile has it, or says which suite would measure it.
void cite(answer& a, const results_doc* doc, const std::string& suite, bool have, const std::string& text) {
  if (have) a.evidence.push_back(text);
  else a.evidence.push_back(fmt::format("not in this profile: `memscope run {}` measures it on your GPU", suite));
  (void)doc;
}

std::string source_note(const results_doc* doc) {
  return doc ? fmt::format("measured on {} ({})", doc->device.name, doc->created_utc.substr(0, 10)) : std::string();
}

void check(const query& q) {
  if (q.bytes && *q.bytes == 0) throw usage_error("--bytes must be at least 1");
  if (q.temporary && q.mut == mutability::read_only)
    throw usage_error("--temporary and --read-only contradict each other: temporaries are written");
  if (q.temporary && (q.share == sharing::block || q.share == sharing::grid))
    throw usage_error("--temporary means per-thread values, which contradicts --sharing block/grid");
  if (q.access == warp_access::uniform && q.share == sharing::thread)
    throw usage_error("--access uniform (a warp reads one address) contradicts --sharing thread (private data)");
  if (!q.temporary && q.mut == mutability::unknown)
    throw usage_error("say whether the data is --read-only or --written (or --temporary)");
}

}  // namespace

warp_access parse_access(const std::string& s) {
  if (s == "uniform") return warp_access::uniform;
  if (s == "coalesced") return warp_access::coalesced;
  if (s == "irregular") return warp_access::irregular;
  throw usage_error("--access must be uniform, coalesced or irregular, not '" + s + "'");
}

sharing parse_sharing(const std::string& s) {
  if (s == "thread") return sharing::thread;
  if (s == "block") return sharing::block;
  if (s == "grid") return sharing::grid;
  throw usage_error("--sharing must be thread, block or grid, not '" + s + "'");
}

answer advise(const query& q, const results_doc* doc) {
  check(q);
  const std::uint64_t const_bank = doc && doc->device.total_const_mem ? doc->device.total_const_mem : 65536;
  const std::uint64_t l2 = doc && doc->device.l2_bytes ? static_cast<std::uint64_t>(doc->device.l2_bytes) : 0;
  const std::uint64_t smem_block = doc && doc->device.shared_per_block_optin ? doc->device.shared_per_block_optin : 48 * 1024;
  answer a;
  const std::string where = source_note(doc);

  // 1. Short-lived per-thread temporaries: registers, then shared memory.
  if (q.temporary) {
    const bool fits_registers = !q.bytes || *q.bytes <= 255 * 4;
    const auto* sh = find(doc, "constant", "broadcast", {{"space", std::string("shared")}, {"distinct", std::int64_t{1}}});
    if (fits_registers) {
      a = {"temporary/registers", "registers", "local variables, arrays indexed only by compile-time constants (unrolled loops)",
           "per-thread values that are written often belong in registers: no other space is as fast; a run-time index "
           "or more than 255 registers' worth moves them to local memory (DRAM-backed), which is slower than shared memory",
           {}, "memscope/shared/bank_conflicts.cuh", "bank_conflicts"};
    } else {
      a = {"temporary/shared", "shared memory", "a per-thread slice of a shared-memory array, laid out so lanes hit different banks",
           fmt::format("{} per thread is more than the 255 registers a thread can hold; spilled arrays go to local memory", format_bytes(*q.bytes)),
           {}, "memscope/shared/bank_conflicts.cuh", "bank_conflicts"};
    }
    cite(a, doc, "constant", sh != nullptr,
         fmt::format("a dependent shared-memory load costs {:.1f} cycles ({})", metric(sh, "cycles_per_load"), where));
    return a;
  }

  const bool small = q.bytes && *q.bytes <= const_bank;

  // 2. Read-only data.
  if (q.mut == mutability::read_only) {
    const auto* c1 = find(doc, "constant", "broadcast", {{"space", std::string("constant")}, {"distinct", std::int64_t{1}}});
    const auto* c32 = find(doc, "constant", "broadcast", {{"space", std::string("constant")}, {"distinct", std::int64_t{32}}});
    const auto* g1 = find(doc, "constant", "broadcast", {{"space", std::string("global")}, {"distinct", std::int64_t{1}}});
    if (small && q.access == warp_access::uniform) {
      a = {"read-only/small/uniform", "constant memory",
           "`__constant__` array filled with cudaMemcpyToSymbol (or, up to a few KB, kernel parameters by value)",
           fmt::format("{} fits the {} constant bank and every lane of a warp reads the same word: the constant cache "
                       "broadcasts it in one access", format_bytes(*q.bytes), format_bytes(const_bank)),
           {}, "memscope/constant/stencil.cuh", "constant, stencil, transform"};
      cite(a, doc, "constant", c1 && g1,
           fmt::format("broadcast load: {:.1f} cycles from __constant__ vs {:.1f} from global memory ({})",
                       metric(c1, "cycles_per_load"), metric(g1, "cycles_per_load"), where));
      const auto r4 = find(doc, "stencil", "central_difference",
                           {{"source", std::string("constant")}, {"radius", std::int64_t{4}},
                            {"elements", std::int64_t{largest(doc, "stencil", "elements")}}});
      cite(a, doc, "stencil", r4 != nullptr,
           fmt::format("9-point stencil with __constant__ coefficients: {:.3f}x the copy ceiling; the other sources are within "
                       "1-4%: for warp-uniform reads the choice matters little",
                       r4 ? r4->fraction_of_copy : 0.0));
      return a;
    }
    if (small) {
      a = {"read-only/small/divergent", "global memory (L1-cached), not constant memory",
           "a `const T* __restrict__` kernel parameter",
           fmt::format("{} would fit the constant bank, but the lanes of a warp read different addresses: the constant cache "
                       "serialises them, one address after another", format_bytes(*q.bytes)),
           {}, "memscope/constant/broadcast.cuh", "constant"};
      cite(a, doc, "constant", c32 && g1,
           fmt::format("32 distinct addresses per warp: {:.1f} cycles from __constant__ vs {:.1f} from global memory ({})",
                       metric(c32, "cycles_per_load"), metric(g1, "cycles_per_load"), where));
      return a;
    }
    // Large read-only data.
    const auto* l2hit = find(doc, "readonly", "gather", {{"path", std::string("plain")}, {"table_bytes", std::int64_t{1} << 25}});
    const auto* dram = find(doc, "readonly", "gather", {{"path", std::string("plain")}, {"table_bytes", std::int64_t{1} << 29}});
    const auto* ldg = find(doc, "readonly", "gather", {{"path", std::string("ldg")}, {"table_bytes", std::int64_t{1} << 29}});
    if (q.share == sharing::block && q.bytes && *q.bytes <= smem_block) {
      a = {"read-only/large/block-reuse", "shared memory",
           "stage the block's part (tile plus halo) in shared memory once, then reuse it",
           "each value is read by several threads of the same block: one global read, many shared reads",
           {}, "memscope/constant/stencil.cuh", "stencil"};
      const auto n = largest(doc, "stencil", "elements");
      const auto* tile = find(doc, "stencil", "central_difference", {{"source", std::string("constant")}, {"radius", std::int64_t{4}}, {"elements", n}});
      const auto* l1 = find(doc, "stencil", "central_difference", {{"source", std::string("l1")}, {"radius", std::int64_t{4}}, {"elements", n}});
      cite(a, doc, "stencil", tile && l1,
           fmt::format("9-point stencil: shared tile {:.3f}x the copy ceiling, L1 alone {:.3f}x ({})",
                       tile ? tile->fraction_of_copy : 0.0, l1 ? l1->fraction_of_copy : 0.0, where));
      return a;
    }
    a = {q.access == warp_access::irregular ? "read-only/large/irregular" : "read-only/large/streamed", "global memory",
         "a `const T* __restrict__` parameter; keep the hot part within L2, coalesce where the access allows",
         fmt::format("{} is too large for the constant bank{}", q.bytes ? format_bytes(*q.bytes) : std::string("the data"),
                     l2 && q.bytes && *q.bytes <= l2 ? fmt::format(" but fits the {} L2", format_bytes(l2)) : std::string()),
         {}, "memscope/global/readonly_gather.cuh", "readonly, coalescing"};
    // Where the data sits decides its cost: L2 hit or DRAM latency, from the latency ladder at
    // the nearest measured working set to --bytes, and what an L2 persisting window bought.
    if (q.bytes) {
      const case_result* at = nullptr;
      const case_result* far = nullptr;
      if (doc)
        for (const auto& r : doc->results) {
          if (r.suite != "latency" || r.name != "global" || !r.timed || r.string_axis("path") != "default") continue;
          const auto ws = static_cast<double>(r.int_axis("ws_bytes").value_or(1));
          if (!at || std::fabs(std::log2(ws / static_cast<double>(*q.bytes))) <
                         std::fabs(std::log2(static_cast<double>(at->int_axis("ws_bytes").value_or(1)) / static_cast<double>(*q.bytes))))
            at = &r;
          if (!far || ws > static_cast<double>(far->int_axis("ws_bytes").value_or(0))) far = &r;
        }
      cite(a, doc, "latency", at && far,
           fmt::format("a dependent load over {} of data costs {:.0f} cycles, over {} {:.0f} cycles (latency/global, {})",
                       format_bytes(static_cast<double>(at ? at->int_axis("ws_bytes").value_or(0) : 0)), metric(at, "cycles_per_load"),
                       format_bytes(static_cast<double>(far ? far->int_axis("ws_bytes").value_or(0) : 0)), metric(far, "cycles_per_load"), where));
      if (l2 && *q.bytes <= l2) {
        const case_result* best = nullptr;
        if (doc)
          for (const auto& r : doc->results)
            if (r.suite == "cache_control" && r.name == "persistence" && r.timed && r.string_axis("policy") == "persisting" &&
                (!best || r.metric("speedup_vs_normal") > best->metric("speedup_vs_normal")))
              best = &r;
        if (best)
          a.evidence.push_back(fmt::format("an L2 persisting access-policy window over a {} hot table streamed past by 1 GiB "
                                           "measured {:.2f}x (cache_control/persistence)",
                                           format_bytes(static_cast<double>(best->int_axis("hot_bytes").value_or(0))),
                                           metric(best, "speedup_vs_normal")));
      }
    }
    if (q.access == warp_access::irregular) {
      a.technique += "; __ldg / the read-only path is allowed but measured no faster";
      const auto* tex = find(doc, "texture", "access", {{"pattern", std::string("random")}, {"source", std::string("texture")},
                                                        {"table_bytes", std::int64_t{largest(doc, "texture", "table_bytes")}}});
      if (tex)
        a.evidence.push_back(fmt::format("random gather through a texture object: {:.2f}x plain loads (texture/access): textures "
                                         "buy filtering and address modes, not speed", metric(tex, "speedup_vs_global")));
      cite(a, doc, "readonly", l2hit && dram && ldg,
           fmt::format("random gather: {:.1f} G lookups/s from a 32 MiB table (L2), {:.1f} from 512 MiB (DRAM); __ldg {:.3f}x plain ({})",
                       l2hit ? l2hit->elements_per_s / 1e9 : 0.0, dram ? dram->elements_per_s / 1e9 : 0.0,
                       metric(ldg, "speedup_vs_plain"), where));
    } else {
      const auto* c = find(doc, "bandwidth", "read", {{"type", std::string("f32x4")}, {"bytes", std::int64_t{largest(doc, "bandwidth", "bytes")}}});
      cite(a, doc, "bandwidth", c != nullptr,
           fmt::format("coalesced 16-byte reads stream at {:.0f} GB/s ({:.3f}x the copy ceiling, {})", c ? c->gbps : 0.0,
                       c ? c->fraction_of_copy : 0.0, where));
    }
    return a;
  }

  // 3. Written data.
  if (q.share == sharing::block) {
    a = {"written/block", "shared memory", "per-block partials in shared memory, warp shuffles for the last 32, one launch over a "
         "grid-stride loop with 16-byte loads",
         "threads of one block combine their results: shared memory is the block's scratchpad (static or dynamic `extern "
         "__shared__`: no difference measured)",
         {}, "memscope/shared/reduce.cuh", "reduce"};
    const auto n = largest(doc, "reduce", "elements");
    const auto* best = find(doc, "reduce", "sum", {{"kernel", std::string("grid_stride_vec8")}, {"type", std::string("f32")}, {"elements", n}});
    const auto* global = find(doc, "reduce", "sum", {{"kernel", std::string("global_inplace")}, {"type", std::string("f32")}, {"elements", n}});
    cite(a, doc, "reduce", best && global,
         fmt::format("sum of {} floats: one-launch shared/shuffle kernel {:.3f}x CUB, the seed's global-memory halving {:.3f}x CUB ({})",
                     n, metric(best, "speedup_vs_cub"), metric(global, "speedup_vs_cub"), where));
    return a;
  }
  if (q.share == sharing::grid) {
    const bool clusters = !doc || doc->device.cluster_launch;
    const std::uint64_t cluster_smem =
        doc ? static_cast<std::uint64_t>(doc->device.max_cluster_size_nonportable) * doc->device.shared_per_block_optin : 16 * smem_block;
    // Counters of --bytes: what histogram_even's automatic choice ran at the nearest measured
    // bin count decides (it was tuned on these measurements); without it, capacity decides.
    const auto n = largest(doc, "histogram", "samples");
    const case_result* nearest = nullptr;
    if (doc && q.bytes) {
      const double want = std::log2(std::max<double>(1.0, static_cast<double>(*q.bytes) / 4));
      for (const auto& r : doc->results)
        if (r.suite == "histogram" && r.name == "even" && r.timed && r.string_axis("strategy") == "auto" &&
            r.string_axis("distribution") == "uniform" && r.int_axis("samples") == n) {
          const double d = std::fabs(std::log2(static_cast<double>(r.int_axis("bins").value_or(1))) - want);
          if (!nearest || d < std::fabs(std::log2(static_cast<double>(nearest->int_axis("bins").value_or(1))) - want)) nearest = &r;
        }
    }
    const double kind = nearest ? nearest->metric("plan_strategy") : std::nan("");
    const bool fits_cluster = clusters && (!q.bytes || *q.bytes <= cluster_smem);
    if (kind == 2) {
      a = {"written/grid/block", "shared memory per block, merged once",
           "each block keeps a private copy in shared memory (shared atomics), then adds it to global memory once",
           fmt::format("{} fits one block's shared memory with room for several blocks per SM: no traffic leaves the SM "
                       "until the merge", format_bytes(*q.bytes)),
           {}, "memscope/dsmem/histogram.cuh", "histogram"};
    } else if (kind == 4) {
      a = {"written/grid/cluster-split", "shared memory of a thread-block cluster, bin range split",
           "launch clusters of 2-4 blocks; each block keeps its part of the counters in shared memory and reads every sample "
           "of the cluster (L2 serves the repeated reads), so no atomic leaves its SM; merge once to global memory",
           fmt::format("{} is more than one block's shared memory holds but fits a few blocks'", format_bytes(*q.bytes)),
           {}, "memscope/dsmem/histogram.cuh", "histogram"};
    } else if ((std::isnan(kind) && fits_cluster) || kind == 3) {
      a = {"written/grid/cluster", "distributed shared memory (thread-block clusters)",
           "spread the data over the shared memory of a cluster's blocks (cluster.map_shared_rank, remote atomics), "
           "cluster.sync() before the first remote access and before any block exits, then merge once to global memory",
           fmt::format("blocks must combine results; on compute capability 9.0+ a cluster of up to {} blocks shares up to {} "
                       "of shared memory, so the combining stays on chip",
                       doc ? doc->device.max_cluster_size_nonportable : 16, format_bytes(cluster_smem)),
           {}, "memscope/dsmem/histogram.cuh", "histogram, dsmem"};
    } else {
      a = {"written/grid/global", "global memory with atomics (L2)",
           "atomics straight into global memory: the counters stay in L2, and a warp whose values agree adds once",
           !clusters ? std::string("this GPU has no thread-block clusters (compute capability below 9.0)")
           : nearest ? fmt::format("at {} the counters outgrow what a split cluster of four blocks holds, and on this GPU L2 "
                                   "atomics then beat larger clusters (more repeated reads, or remote atomics across SMs)",
                                   format_bytes(*q.bytes))
                     : fmt::format("{} exceeds what a cluster's shared memory holds ({})", format_bytes(*q.bytes), format_bytes(cluster_smem)),
           {}, "memscope/dsmem/histogram.cuh", "histogram"};
    }
    if (nearest)
      a.evidence.push_back(fmt::format("histogram of {} uniform samples into {} bins: memscope's automatic choice {:.2f}x CUB "
                                       "HistogramEven ({})", *nearest->int_axis("samples"), *nearest->int_axis("bins"),
                                       nearest->metric("speedup_vs_cub"), where));
    for (const std::int64_t bins : {std::int64_t{4096}, std::int64_t{65536}, std::int64_t{524288}}) {
      if (nearest && nearest->int_axis("bins") == bins) continue;
      const auto* r = find(doc, "histogram", "even", {{"strategy", std::string("auto")}, {"bins", bins},
                                                      {"distribution", std::string("uniform")}, {"samples", n}});
      if (r) a.evidence.push_back(fmt::format("{} bins: automatic choice {:.2f}x CUB", bins, metric(r, "speedup_vs_cub")));
    }
    const auto* dsmem2 = find(doc, "histogram", "even", {{"strategy", std::string("cluster2")}, {"bins", std::int64_t{65536}},
                                                         {"distribution", std::string("uniform")}, {"samples", n}});
    const auto* split2 = find(doc, "histogram", "even", {{"strategy", std::string("split2")}, {"bins", std::int64_t{65536}},
                                                         {"distribution", std::string("uniform")}, {"samples", n}});
    if (dsmem2 && split2)
      a.evidence.push_back(fmt::format("the seed's DSMEM layout (bins spread over a cluster, remote atomics) measured {:.2f}x CUB at "
                                       "65536 bins against {:.2f}x for a split cluster without remote atomics: remote atomics are "
                                       "the slow part", metric(dsmem2, "speedup_vs_cub"), metric(split2, "speedup_vs_cub")));
    const auto* remote = find(doc, "dsmem", "latency", {{"target", std::string("dsmem_c2")}});
    const auto* local = find(doc, "dsmem", "latency", {{"target", std::string("shared")}});
    cite(a, doc, "histogram dsmem", remote && local,
         fmt::format("a load from a peer block's shared memory costs {:.0f} cycles, from the block's own {:.0f} ({})",
                     metric(remote, "cycles_per_load"), metric(local, "cycles_per_load"), where));
    return a;
  }
  a = {"written/streamed", "global memory", "coalesced, 32-byte-aligned stores (16-byte vectors where the layout allows)",
       "results written once per thread and read by later kernels live in global memory; what matters is that a warp's "
       "stores cover whole 32-byte sectors",
       {}, "memscope/global/coalescing.cuh", "coalescing, bandwidth"};
  const auto* aligned = find(doc, "coalescing", "offset", {{"elem_bytes", std::int64_t{4}}, {"direction", std::string("write")}, {"offset", std::int64_t{0}}});
  const auto* skewed = find(doc, "coalescing", "offset", {{"elem_bytes", std::int64_t{4}}, {"direction", std::string("write")}, {"offset", std::int64_t{1}}});
  cite(a, doc, "coalescing", aligned && skewed,
       fmt::format("4-byte stores: {:.0f} GB/s aligned, {:.0f} GB/s one element off ({:.2f}x; misaligned reads lose ~1%) ({})",
                   aligned ? aligned->gbps : 0.0, skewed ? skewed->gbps : 0.0, metric(skewed, "relative_to_aligned"), where));
  return a;
}

}  // namespace memscope::advise
