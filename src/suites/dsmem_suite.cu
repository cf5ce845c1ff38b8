// Suite `dsmem`: distributed shared memory on its own terms. `latency`: a one-thread pointer
// chase in the block's own shared memory, in its own through the cluster window, in each
// peer's, and in L2. `bandwidth`: every block of every cluster streams through its
// neighbour's shared memory, reads or writes, 4/8/16-byte accesses. `transpose`: the seed's
// DSMEM transpose claim, against the naive and the best shared-memory transpose.
// Every point checks its data exactly; GPUs without clusters skip with the reason.

#include "harness/registry.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
#include "core/device_query.hpp"
#include "harness/state.hpp"
#include "harness/stats.hpp"
#include "suites/pair_rows.hpp"
#include "suites/transpose_common.cuh"

#include "memscope/cache/chase_ring.hpp"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/verify.hpp"
#include "memscope/dsmem/remote_access.cuh"
#include "memscope/dsmem/transpose_cluster.cuh"
#include "memscope/shared/transpose.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace memscope::suites {
namespace {

namespace ds = memscope::dsmem;

/// "shared", "dsmem_self", "dsmem_c2" ... "dsmem_c16", "l2": a path and the cluster it runs in.
struct target {
  ds::path path = ds::path::shared;
  int cluster = 1;
};

target parse_target(const std::string& s) {
  if (s == "shared") return {ds::path::shared, 1};
  if (s == "dsmem_self") return {ds::path::dsmem_self, 1};
  if (s == "l2") return {ds::path::l2, 1};
  if (s == "dsmem_c2") return {ds::path::dsmem_peer, 2};
  if (s == "dsmem_c4") return {ds::path::dsmem_peer, 4};
  if (s == "dsmem_c8") return {ds::path::dsmem_peer, 8};
  if (s == "dsmem_c16") return {ds::path::dsmem_peer, 16};
  throw usage_error("dsmem target '" + s + "' is not shared, dsmem_self, dsmem_c2/4/8/16 or l2");
}

void require_clusters(case_state& st) {
  if (!st.device().cluster_launch) st.skip("distributed shared memory: " + cluster_skip_reason(st.device()));
}

void require_cluster(case_state& st, int cluster, const std::function<int()>& active) {
  if (cluster > st.device().max_cluster_size_nonportable)
    st.skip("clusters of " + std::to_string(cluster) + " blocks exceed this GPU's maximum of " +
            std::to_string(st.device().max_cluster_size_nonportable));
  if (active() == 0)
    st.skip("clusters of " + std::to_string(cluster) +
            " blocks with this kernel's shared memory cannot be co-scheduled");
}

// ---- latency ---------------------------------------------------------------------------

/// One chase from every cluster the GPU holds at once, each block alone on its SM where a cluster
/// of this size fits that way (placement.hpp): a peer is then always another SM, and the row is
/// the median over the SM pairs the scheduler formed, with their range, not one pair's figure.
template <ds::path P>
void latency_for(case_state& st, const target& t) {
  const auto bytes = static_cast<std::size_t>(st.get_int("ws_bytes"));
  const int words = static_cast<int>(bytes / 4);
  const unsigned iters = st.verify_only() ? 256 : 16384;
  const cudaStream_t s = st.stream();
  const auto kernel = ds::chase_kernel<P>;
  const cluster_placement place = place_one_block_per_sm(kernel, ds::policy::chase_threads, t.cluster, bytes);
  int clusters = place.clusters;
  require_cluster(st, t.cluster, [&] { return clusters; });
  // One slot per 32-byte sector: every load of the chase touches a new sector.
  const std::size_t slots = bytes / 32;
  // The L2 chases share one ring: no more of them than slots, so that no two load one line at once.
  if (P == ds::path::l2) clusters = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(clusters), slots));
  const auto ring = chase_ring(slots, 8, st.seed());
  const auto starts = chase_starts(ring, slots, static_cast<std::size_t>(clusters));
  device_buffer<std::uint32_t> d_ring(ring.size()), d_starts(starts.size());
  d_ring.from_host(ring);
  d_starts.from_host(starts);
  const std::size_t targets = P == ds::path::dsmem_peer ? static_cast<std::size_t>(t.cluster - 1) : 1;
  const std::size_t chases = static_cast<std::size_t>(clusters) * targets;
  const unsigned blocks = static_cast<unsigned>(clusters * t.cluster);
  device_buffer<unsigned long long> cycles(chases);
  device_buffer<std::uint32_t> last(chases);
  device_buffer<unsigned> sms(blocks);
  const auto launch = [&](cudaStream_t q) {
    launch_cluster(kernel, dim3(blocks), dim3(ds::policy::chase_threads), t.cluster, place.smem, q, d_ring.data(),
                   words, iters, d_starts.data(), cycles.data(), last.data(), sms.data());
  };
  last.poison(s);
  cycles.poison(s);
  launch(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  std::vector<std::uint32_t> ends(starts.size());  // where each cluster's chases end, whichever target
  for (std::size_t k = 0; k < starts.size(); ++k) ends[k] = chase_position(ring, starts[k], iters);
  st.check(compare_exact(last.to_host().data(), chases, [&](std::size_t i) { return ends[i / targets]; }));
  const auto c = cycles.to_host();
  std::vector<double> all(chases), per_target;
  for (std::size_t i = 0; i < chases; ++i) all[i] = static_cast<double>(c[i]) / iters;
  for (std::size_t k = 0; k < targets; ++k) {
    std::vector<double> of_k;
    for (std::size_t i = k; i < chases; i += targets) of_k.push_back(all[i]);
    per_target.push_back(median_of(of_k));
  }
  const auto spread = summarize(all);
  const auto [lo, hi] = std::minmax_element(per_target.begin(), per_target.end());
  st.add_metric("cycles_per_load", spread.median);
  st.add_metric("cycles_min_target", *lo);  // peers 1..C-1: the median over clusters of each
  st.add_metric("cycles_max_target", *hi);
  pair_rows::record(st, spread, clusters, sms.to_host(), place.sole,
                    t.cluster);  // one chase, over every cluster and target
  st.add_metric("ns_per_load", spread.median / (st.device().sm_clock_khz * 1e-6));
  st.add_elements(static_cast<std::uint64_t>(iters) * chases);
  st.exec(launch);
}

void latency_case(case_state& st) {
  require_clusters(st);
  const target t = parse_target(st.get_string("target"));
  switch (t.path) {
    case ds::path::shared:
      latency_for<ds::path::shared>(st, t);
      break;
    case ds::path::dsmem_self:
      latency_for<ds::path::dsmem_self>(st, t);
      break;
    case ds::path::dsmem_peer:
      latency_for<ds::path::dsmem_peer>(st, t);
      break;
    case ds::path::l2:
      latency_for<ds::path::l2>(st, t);
      break;
  }
}

// ---- bandwidth -------------------------------------------------------------------------

template <class V, bool Write, ds::path P>
void stream_case(case_state& st, int cluster) {
  const auto kernel = ds::stream_kernel<V, Write, P>;
  constexpr std::size_t smem = ds::policy::stream_bytes_per_block;
  constexpr int words = static_cast<int>(smem / 4);
  const int clusters = max_active_clusters(kernel, ds::policy::stream_threads, cluster, smem);
  require_cluster(st, cluster, [&] { return clusters; });
  const unsigned grid = static_cast<unsigned>(clusters * cluster);
  const unsigned rounds = st.verify_only() ? 3 : 256;
  const cudaStream_t s = st.stream();
  const std::uint64_t seed = st.seed();
  device_buffer<std::uint32_t> sums(grid), dump(Write ? std::size_t{grid} * words : 0);
  auto run = [&](cudaStream_t q, std::uint32_t* d) {
    launch_cluster(kernel, dim3(grid), dim3(ds::policy::stream_threads), cluster, smem, q, rounds, seed, sums.data(),
                   d);
  };
  MEMSCOPE_CUDA_CALL(cudaMemsetAsync(sums.data(), 0, sums.bytes(), s));
  dump.poison(s);
  run(s, dump.data());
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const unsigned owner_step = P == ds::path::dsmem_peer ? 1u : 0u;  // whose buffer each block reads
  if (Write) {
    // Block b's buffer was last written by its predecessor, in round rounds - 1.
    const auto h = dump.to_host();
    st.check(compare_exact(h.data(), h.size(), [&](std::size_t k) {
      const auto rank = static_cast<unsigned>((k / words) % cluster);
      return ds::written_word(seed, rounds - 1, rank, static_cast<std::uint32_t>(k % words));
    }));
  } else {
    const auto h = sums.to_host();
    std::vector<std::uint32_t> per_rank(static_cast<std::size_t>(cluster), 0);
    for (int r = 0; r < cluster; ++r)
      for (int w = 0; w < words; ++w)
        per_rank[r] += ds::stream_word(seed, static_cast<unsigned>(r), static_cast<unsigned>(w));
    st.check(compare_exact(h.data(), h.size(), [&](std::size_t b) {
      const auto rank = static_cast<unsigned>(b % cluster);
      return per_rank[(rank + owner_step) % cluster] * rounds;
    }));
  }
  const std::uint64_t bytes = std::uint64_t{grid} * smem * rounds;
  if (Write) st.add_bytes_written(bytes);
  else st.add_bytes_read(bytes);
  st.add_metric("blocks", grid);
  st.exec([&](cudaStream_t q) { run(q, nullptr); });
}

template <class V, bool Write>
void stream_for_path(case_state& st, const target& t) {
  switch (t.path) {
    case ds::path::shared:
      stream_case<V, Write, ds::path::shared>(st, 1);
      break;
    case ds::path::dsmem_self:
      stream_case<V, Write, ds::path::dsmem_self>(st, 1);
      break;
    case ds::path::dsmem_peer:
      stream_case<V, Write, ds::path::dsmem_peer>(st, t.cluster);
      break;
    case ds::path::l2:
      throw usage_error("dsmem/bandwidth measures shared memory: target l2 belongs to dsmem/latency");
  }
}

template <bool Write>
void stream_for_width(case_state& st, const target& t, std::int64_t width) {
  if (width == 4) stream_for_path<std::uint32_t, Write>(st, t);
  else if (width == 8) stream_for_path<uint2, Write>(st, t);
  else stream_for_path<uint4, Write>(st, t);
}

void bandwidth_case(case_state& st) {
  require_clusters(st);
  const target t = parse_target(st.get_string("target"));
  const std::int64_t width = st.get_int("width");
  if (st.get_string("op") == "write") stream_for_width<true>(st, t, width);
  else stream_for_width<false>(st, t, width);
}

// ---- transpose -------------------------------------------------------------------------

void transpose_case(case_state& st) {
  const std::string& k = st.get_string("kernel");
  if (k == "naive" || k == "padded64") {
    const auto v = k == "naive" ? transpose::variant::naive : transpose::variant::padded64;
    transpose_case_body(st, [v](const float* in, std::size_t ld_in, float* out, std::size_t ld_out, int rows, int cols,
                                cudaStream_t s) { transpose::transpose(v, in, ld_in, out, ld_out, rows, cols, s); });
    return;
  }
  require_clusters(st);
  const int cluster = k == "dsmem_c2" ? 2 : k == "dsmem_c4" ? 4 : 8;
  require_cluster(st, cluster, [&] {
    return max_active_clusters(ds::transpose_cluster_kernel<0>, ds::transpose_policy::threads, cluster,
                               ds::transpose_policy::smem_bytes(cluster));
  });
  // Packed matrices only (the dsmem suite has no layout axis).
  transpose_case_body(st, [cluster](const float* in, std::size_t, float* out, std::size_t, int rows, int cols,
                                    cudaStream_t s) { ds::transpose_cluster(in, out, rows, cols, cluster, s); });
}

bool remote(const std::string& target) { return target.rfind("dsmem_c", 0) == 0; }

void dsmem_findings(const present::suite_view& v, std::vector<std::string>& out) {
  const auto lat = v.rows(present::case_is("latency"));
  if (!lat.empty()) {
    std::string text = "dependent-load latency:";
    for (const auto* r : lat) {
      text += fmt::format(" {} {:.0f} cycles", r->string_axis("target"), r->metric("cycles_per_load"));
      if (remote(r->string_axis("target"))) text += pair_rows::range_text(*r);
      text += ';';
    }
    text.pop_back();
    out.push_back(text);
  }
  for (const std::string op : {"read", "write"}) {
    const auto rows = v.rows([&](const case_result& r) {
      return r.name == "bandwidth" && r.string_axis("op") == op && remote(r.string_axis("target"));
    });
    if (const auto* b = present::best_by(rows, present::gbps()))
      out.push_back(fmt::format(
          "fastest remote {}: {} with {}-byte accesses, {:.0f} GB/s over the GPU ({:.2f}x the same access "
          "to the block's own shared memory)",
          op, b->string_axis("target"), b->int_axis("width").value_or(0), b->gbps, b->metric("ratio_to_shared")));
  }
  const auto tp = v.rows([](const case_result& r) { return r.name == "transpose" && remote(r.string_axis("kernel")); });
  if (const auto* b = present::best_by(tp, present::gbps()))
    out.push_back(
        fmt::format("DSMEM transpose ({}, {}): {:.2f}x the naive global-memory transpose, {:.2f}x the padded 64x64 "
                    "shared-memory tile (the seed claims ~2x over global memory)",
                    b->string_axis("kernel"), b->string_axis("shape"), b->metric("speedup_vs_naive"),
                    b->metric("speedup_vs_padded64")));
}

std::optional<present::fact_value> remote_latency_fact(const present::suite_view& v, std::optional<double>) {
  const auto peer = v.rows(present::where("latency", {{"target", std::string("dsmem_c2")}}));
  const auto own = v.rows(present::where("latency", {{"target", std::string("shared")}}));
  if (peer.empty() || own.empty()) return std::nullopt;
  return present::fact_value{
      fmt::format("a load from a peer block's shared memory costs {:.0f} cycles, from the block's own {:.0f}",
                  peer[0]->metric("cycles_per_load"), own[0]->metric("cycles_per_load")),
      peer[0]->metric("cycles_per_load"), "", ""};
}

void map_dsmem(const present::suite_view& v, present::hierarchy& h) {
  using present::level_id;
  auto row = [&](const char* c, const char* target, bool read16) -> const case_result* {
    const auto rows = v.rows([&](const case_result& r) {
      return r.name == c && r.string_axis("target") == target &&
             (!read16 || (r.string_axis("op") == "read" && r.int_axis("width") == 16));
    });
    return rows.empty() ? nullptr : rows.front();
  };
  auto& ds = h.at(level_id::dsmem);
  const auto* own = row("latency", "shared", false);
  if (const auto* r = row("latency", "dsmem_c2", false)) {
    ds.latency_cycles = present::figure_from(*r, "cycles_per_load", "cycles_min_pair", "cycles_max_pair");
    if (own)
      h.findings.push_back(fmt::format(
          "a load from a peer block's shared memory (DSMEM) costs {:.0f} cycles: {:.1f}x the block's own ({:.0f})",
          r->metric("cycles_per_load"), r->metric("cycles_per_load") / own->metric("cycles_per_load"),
          own->metric("cycles_per_load")));
  } else if (auto why = present::unmeasured_reason(v, "latency"); !why.empty()) {
    ds.missing.push_back(why);
  }
  if (const auto* r = row("bandwidth", "dsmem_c2", true)) {
    ds.bandwidth_gbps = present::gbps_from(*r);
    ds.bandwidth_what = "every block of 2-block clusters reading its neighbour's shared memory, 16-byte loads";
  }
  if (const auto* r = row("bandwidth", "shared", true)) {
    h.at(level_id::shared).bandwidth_gbps = present::gbps_from(*r);
    h.at(level_id::shared).bandwidth_what = "every block reading its own shared memory, 16-byte loads";
  }
  if (v.doc.device.cluster_launch && ds.measured())
    ds.notes.push_back(
        fmt::format("a cluster of up to {} blocks ({} with the non-portable opt-in) reads each "
                    "other's shared memory",
                    v.doc.device.max_cluster_size_portable, v.doc.device.max_cluster_size_nonportable));
  if (const auto* r = row("latency", "l2", false))
    h.at(level_id::l2)
        .notes.push_back(fmt::format(
            "from every SM at once: {} cycles, the fastest to the slowest SM pair (dsmem/latency target=l2)",
            figure_span(r->metric("cycles_min_pair"), r->metric("cycles_max_pair"))));
}
}  // namespace

void register_dsmem(registry& reg) {
  suite s{reg, "dsmem", "distributed shared memory: latency, bandwidth, the transpose claim"};
  s.add("latency", latency_case)
      .summary(
          "one-thread pointer chase from every cluster at once, each block alone on its SM (the median over SM pairs): "
          "own shared memory, own via the cluster window, each peer's, L2")
      .axis(axis::strings("target", {"shared", "dsmem_self", "dsmem_c2", "dsmem_c4", "dsmem_c8", "dsmem_c16", "l2"},
                          "ld.shared; own block via map_shared_rank; peers 1..C-1 of a C-block cluster; "
                          "global memory resident in L2 (ld.global.cg)")
                .with_validator([](const std::string& t) { parse_target(t); }))
      .axis(axis::pow2("ws_bytes", {14}, "bytes chased (one load per 32-byte sector)")
                .with_range(1024, 128 * 1024)
                .with_verify({std::int64_t{1024}, std::int64_t{16384}}))
      .baseline("target", std::string("shared"), "cycles_vs_shared", metric_ratio("cycles_per_load"))
      .figure(pair_rows::figure("cycles_per_load"));
  s.add("bandwidth", bandwidth_case)
      .summary("every block streams 32 KB of its neighbour's shared memory 256 times: remote vs local")
      .axis(axis::strings(
                "target", {"shared", "dsmem_self", "dsmem_c2", "dsmem_c4", "dsmem_c8", "dsmem_c16"},
                "own shared memory (ld/st.shared); own via the cluster window; the next block of a C-block cluster")
                .with_validator([](const std::string& t) {
                  if (parse_target(t).path == ds::path::l2)
                    throw usage_error("dsmem/bandwidth measures shared memory: target l2 belongs to dsmem/latency");
                }))
      .axis(axis::strings("op", {"read", "write"}, "loads summed, or stores").with_validator([](const std::string& o) {
        if (o != "read" && o != "write") throw usage_error("dsmem op takes read or write");
      }))
      .axis(axis::integers("width", {4, 8, 16}, "bytes per access").with_range(4, 16).with_only_listed())
      .baseline("target", std::string("shared"), "ratio_to_shared");
  s.add("transpose", transpose_case)
      .summary("the seed's DSMEM transpose claim: clusters sharing a super-tile vs naive and padded 64x64 tiles")
      .axis(axis::strings(
          "kernel", {"naive", "padded64", "dsmem_c2", "dsmem_c4", "dsmem_c8"},
          "global-memory transpose (the seed's baseline); best shared-memory tile; a (32C)^2 super-tile over C blocks"))
      .axis(axis::strings("shape", {"16384x16384", "12289x9973"}, "ROWSxCOLS")
                .with_quick({std::string("16384x16384")})
                .with_verify(
                    {std::string("1x1"), std::string("33x31"), std::string("257x1023"), std::string("2053x3001")})
                .with_validator([](const std::string& shape) { parse_matrix_shape(shape); }))
      .footprint(transpose_footprint)
      .baseline("kernel", std::string("naive"), "speedup_vs_naive")
      .baseline("kernel", std::string("padded64"), "speedup_vs_padded64");

  present::chart_spec lat;
  lat.title = "Dependent-load latency: own shared memory, a peer's (DSMEM), L2";
  lat.keep = present::case_is("latency");
  lat.label = present::label_axes({"target"});
  lat.y = present::metric_of("cycles_per_load");
  lat.y_label = "cycles per load (lower is better)";
  lat.peer = present::axis_is("target", "shared");
  lat.peer_key = "the block's own shared memory";
  lat.with_spread(pair_rows::spread(), "the fastest to the slowest chase, one per SM pair or block");
  present::chart_spec bw;
  bw.title = "Shared-memory {panel} bandwidth, all SMs: own vs the neighbour block's";
  bw.keep = present::case_is("bandwidth");
  bw.panel_axis = "op";
  bw.label = [](const case_result& r) {
    return fmt::format("{} {} B", r.string_axis("target"), r.int_axis("width").value_or(0));
  };
  bw.y = present::gbps();
  bw.y_label = "GB/s (bytes moved / median time)";
  bw.peer = lat.peer;
  bw.peer_key = lat.peer_key;
  bw.with_sample_spread();
  present::chart_spec tp;
  tp.title = "Transpose: DSMEM super-tiles vs naive and padded 64x64 tiles";
  tp.keep = present::case_is("transpose");
  tp.label = present::label_axes({"kernel", "shape"});
  tp.y = present::gbps();
  tp.y_label = "GB/s (bytes read + written / median time)";
  tp.peer = present::axis_is("kernel", "padded64");
  tp.peer_key = "the padded 64x64 shared-memory tile";
  tp.copy_ceiling = true;
  tp.with_sample_spread();
  s.chart(lat).chart(bw).chart(tp).finding(dsmem_findings);
  s.map_point("latency", std::vector<std::string>{"target=shared,dsmem_c2,l2"})
      .map_point("bandwidth", std::vector<std::string>{"target=shared,dsmem_c2", "op=read", "width=16"})
      .map_reader(map_dsmem);
  s.fact(advise::question::remote_shared_latency, {"latency"}, "a dependent load from a peer block's shared memory",
         remote_latency_fact);
}

MEMSCOPE_REGISTER_SUITE(120, register_dsmem);

}  // namespace memscope::suites
