// Suite `cache_control`: steering what L1 and L2 keep.
// `persistence`: a hot table read at random while a 1 GiB stream goes by, with and without an
//   L2 access-policy window (persisting hits, streaming misses) over the hot table; the
//   set-aside, window and hit ratio are reported and everything is reset afterwards.
// `hints`: out[i] = x[i] * y[hot_index(i)] with a cache hint on the streamed load or on the store,
//   while y (24 MiB) should stay in L2.
// `l1_hints`: each SM re-reads its own 64 KB window with each load hint: which hints keep L1.
// `prefetch`: a latency-bound walk with and without PTX prefetch.global.L2 ahead of it.
// `alignment`: 30-float records, packed (120 B) vs __align__(128).

#include "harness/registry.hpp"
#include "harness/suite.hpp"
#include "advise/questions.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"

#include <fmt/format.h>
#include "harness/state.hpp"
#include "suites/exact_check.cuh"
#include "suites/own_slice_common.cuh"

#include "memscope/cache/cache_bandwidth.cuh"
#include "memscope/cache/cache_control.cuh"
#include "memscope/core/device_buffer.hpp"
#include "memscope/core/fill.cuh"
#include "memscope/core/random.hpp"
#include "memscope/core/verify.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

namespace memscope::suites {
namespace {

namespace ck = memscope::cache;

// ---- persistence ------------------------------------------------------------------------

/// out[i] of hot_stream: the streamed element plus the hot one it picked.
struct hot_sum {
  std::uint64_t seed_stream, seed_hot, seed_index;
  std::size_t hot_n;
  MEMSCOPE_HD float operator()(std::size_t i) const {
    return hash_uniform(seed_stream, i) + hash_uniform(seed_hot, ck::hot_index(seed_index, i, hot_n));
  }
};

/// out[i] of hinted_scale: x[i] times the reused element it picked (one rounding, as __fmul_rn).
struct hot_product {
  std::uint64_t seed_x, seed_y;
  std::size_t m;
  MEMSCOPE_HD float operator()(std::size_t i) const {
    return hash_uniform(seed_x, i) * hash_uniform(seed_y, ck::hot_index(seed_y, i, m));
  }
};

void persistence_case(case_state& st) {
  const auto& dev = st.device();
  const std::string& policy = st.get_string("policy");
  const bool persist = policy != "normal";
  if (persist && dev.persisting_l2_max_bytes <= 0)
    st.skip("this GPU has no persisting L2 (cudaDevAttrMaxPersistingL2CacheSize is 0; needs compute capability 8.0+)");
  const auto hot_bytes = static_cast<std::size_t>(st.get_int("hot_bytes"));
  const std::size_t hot_n = hot_bytes / 4;
  const std::size_t n = st.verify_only() ? 1000003 : (std::size_t{1} << 28);
  const cudaStream_t s = st.stream();
  const std::uint64_t seed_h = st.seed(), seed_s = st.seed() ^ 0x57EA, seed_i = st.seed() ^ 0x1D;
  device_buffer<float> hot(hot_n), stream(n), out(n);
  fill_hash(hot.data(), hot_n, seed_h, fill_kind::uniform, s);
  fill_hash(stream.data(), n, seed_s, fill_kind::uniform, s);
  std::unique_ptr<ck::persistence_guard> guard;
  if (persist) {
    // 0 on either axis: the defaults the CUDA guide recommends, a set-aside as large as the hot
    // table (within the device's maximum) and no more persisting hits than the set-aside holds.
    const auto asked = static_cast<std::size_t>(st.get_int("set_aside_bytes"));
    const std::size_t set_aside =
        std::min<std::size_t>(asked ? asked : hot_bytes, static_cast<std::size_t>(dev.persisting_l2_max_bytes));
    const std::size_t window =
        std::min<std::size_t>(hot_bytes, static_cast<std::size_t>(dev.access_policy_max_window_bytes));
    const auto pct = st.get_int("hit_ratio_pct");
    const float ratio =
        pct ? static_cast<float>(pct) / 100.0f
            : static_cast<float>(std::min(1.0, static_cast<double>(set_aside) / static_cast<double>(window)));
    guard = std::make_unique<ck::persistence_guard>(
        s, hot.data(), window, set_aside, ratio,
        policy == "streaming" ? cudaAccessPropertyStreaming : cudaAccessPropertyPersisting);
    st.add_metric("set_aside_bytes", static_cast<double>(ck::persistence_guard::granted()));
    st.add_metric("window_bytes", static_cast<double>(window));
    st.add_metric("hit_ratio", ratio);
  }
  out.poison(s);
  ck::hot_stream(stream.data(), hot.data(), hot_n, seed_i, out.data(), n, s);
  st.check(check_exact(st, out.data(), n, hot_sum{seed_s, seed_h, seed_i, hot_n}, s));
  st.add_bytes_read(n * 8);  // the stream and one hot element per access
  st.add_bytes_written(n * 4);
  st.add_elements(n);
  st.exec([&](cudaStream_t q) { ck::hot_stream(stream.data(), hot.data(), hot_n, seed_i, out.data(), n, q); });
}

// ---- hints ------------------------------------------------------------------------------

const char* const hint_names[] = {"load_ca", "load_cg",  "load_cs",  "load_lu",  "load_cv",
                                  "load_nc", "store_wb", "store_cg", "store_cs", "store_wt"};

template <ck::load_hint L, ck::store_hint S>
void hinted_case(case_state& st) {
  const std::size_t n = st.verify_only() ? 1000003 : (std::size_t{1} << 28);
  const std::size_t m = static_cast<std::size_t>(st.get_int("reused_bytes")) / 4;
  if (m == 0) st.skip("the reused table needs at least one float");
  const cudaStream_t s = st.stream();
  const std::uint64_t seed_x = st.seed(), seed_y = st.seed() ^ 0x7;
  device_buffer<float> x(n), y(m), out(n);
  fill_hash(x.data(), n, seed_x, fill_kind::uniform, s);
  fill_hash(y.data(), m, seed_y, fill_kind::uniform, s);
  out.poison(s);
  ck::hinted_scale<L, S>(x.data(), y.data(), m, seed_y, out.data(), n, s);
  st.check(check_exact(st, out.data(), n, hot_product{seed_x, seed_y, m}, s));
  st.add_bytes_read(n * 8);
  st.add_bytes_written(n * 4);
  st.add_elements(n);
  st.exec([&](cudaStream_t q) { ck::hinted_scale<L, S>(x.data(), y.data(), m, seed_y, out.data(), n, q); });
}

void hints_case(case_state& st) {
  using L = ck::load_hint;
  using S = ck::store_hint;
  const std::string& h = st.get_string("hint");
  if (h == "load_ca") hinted_case<L::ca, S::wb>(st);
  else if (h == "load_cg") hinted_case<L::cg, S::wb>(st);
  else if (h == "load_cs") hinted_case<L::cs, S::wb>(st);
  else if (h == "load_lu") hinted_case<L::lu, S::wb>(st);
  else if (h == "load_cv") hinted_case<L::cv, S::wb>(st);
  else if (h == "load_nc") hinted_case<L::nc, S::wb>(st);
  else if (h == "store_wb") hinted_case<L::ca, S::wb>(st);
  else if (h == "store_cg") hinted_case<L::ca, S::cg>(st);
  else if (h == "store_cs") hinted_case<L::ca, S::cs>(st);
  else hinted_case<L::ca, S::wt>(st);
}

// ---- L1 hints ---------------------------------------------------------------------------

const char* const load_hint_names[] = {"plain", "ca", "cg", "cs", "lu", "cv", "nc"};

template <ck::load_hint H>
void l1_hint_case(case_state& st) {
  own_slice_rereads<H>(st, static_cast<std::size_t>(st.get_int("window_bytes")));
}

void l1_hints_case(case_state& st) {
  using L = ck::load_hint;
  switch (choice<L>(load_hint_names, st.get_string("hint"))) {
    case L::plain:
      l1_hint_case<L::plain>(st);
      break;
    case L::ca:
      l1_hint_case<L::ca>(st);
      break;
    case L::cg:
      l1_hint_case<L::cg>(st);
      break;
    case L::cs:
      l1_hint_case<L::cs>(st);
      break;
    case L::lu:
      l1_hint_case<L::lu>(st);
      break;
    case L::cv:
      l1_hint_case<L::cv>(st);
      break;
    case L::nc:
      l1_hint_case<L::nc>(st);
      break;
  }
}

// ---- prefetch ---------------------------------------------------------------------------

void prefetch_case(case_state& st) {
  const bool prefetch = st.get_string("prefetch") == "l2";
  const auto distance = static_cast<unsigned>(st.get_int("distance"));
  const std::size_t n = st.verify_only() ? 1000003 : (std::size_t{1} << 28);
  const unsigned blocks = static_cast<unsigned>(st.device().sm_count);
  const std::size_t threads = std::size_t{blocks} * ck::control_policy::prefetch_threads;
  const cudaStream_t s = st.stream();
  device_buffer<std::uint32_t> a(n), sums(threads);
  // The words are the float bits of hash_uniform: any fixed function of the index does.
  fill_hash(reinterpret_cast<float*>(a.data()), n, st.seed(), fill_kind::uniform, s);
  auto run = [&](cudaStream_t q) {
    if (prefetch) ck::prefetch_sum<true>(a.data(), n, distance, blocks, sums.data(), q);
    else ck::prefetch_sum<false>(a.data(), n, distance, blocks, sums.data(), q);
  };
  sums.poison(s);
  run(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const auto h = sums.to_host();
  st.check(compare_exact(h.data(), threads, [&](std::size_t t) {
    std::uint32_t acc = 0;
    for (std::size_t i = t; i < n; i += threads) {
      const float v = hash_uniform(st.seed(), i);
      std::uint32_t bits = 0;
      std::memcpy(&bits, &v, 4);
      acc = acc * 31u + bits;
    }
    return acc;
  }));
  st.add_bytes_read(n * 4);
  st.add_elements(n);
  st.exec(run);
}

// ---- alignment --------------------------------------------------------------------------

/// out[i] of record_sum: record i's floats added in order (hash of their position; a record
/// is `stride` floats, padding included).
struct record_total {
  std::uint64_t seed;
  std::size_t stride;
  MEMSCOPE_HD float operator()(std::size_t i) const {
    float sum = 0.0f;
    for (int k = 0; k < ck::record_floats; ++k) sum += hash_uniform(seed, i * stride + static_cast<std::size_t>(k));
    return sum;
  }
};

template <bool Aligned>
void record_case(case_state& st) {
  using rec = ck::record<Aligned>;
  const auto n = static_cast<std::size_t>(st.get_int("records"));
  const cudaStream_t s = st.stream();
  const std::uint64_t seed = st.seed();
  device_buffer<rec> recs(n);
  device_buffer<float> out(n);
  // Every float of the records, padding included, is the hash of its position.
  constexpr std::size_t stride = sizeof(rec) / sizeof(float);
  static_assert(sizeof(rec) % sizeof(float) == 0, "records are whole floats");
  fill_hash(reinterpret_cast<float*>(recs.data()), n * stride, seed, fill_kind::uniform, s);
  out.poison(s);
  ck::record_sum<Aligned>(recs.data(), out.data(), n, s);
  st.check(check_exact(st, out.data(), n, record_total{seed, stride}, s));
  st.add_bytes_read(n * ck::record_floats * 4);  // useful bytes: the padding is not counted
  st.add_bytes_written(n * 4);
  st.add_elements(n);
  st.add_metric("record_bytes", sizeof(rec));
  st.exec([&](cudaStream_t q) { ck::record_sum<Aligned>(recs.data(), out.data(), n, q); });
}

void cache_control_findings(const present::suite_view& v, std::vector<std::string>& out) {
  const auto mib = [](const case_result* r, const char* a) {
    return format_bytes(static_cast<double>(r->int_axis(a).value_or(0)));
  };
  for (const auto& [policy, what] :
       {std::pair<const char*, const char*>{"persisting", "L2 persisting window over the hot table"},
        {"streaming", "the same window marked streaming (control)"}}) {
    std::string text;
    for (const auto* r : v.rows(present::where("persistence", {{"policy", std::string(policy)}})))
      text += fmt::format("{}{} hot: {:.2f}x", text.empty() ? "" : ", ", mib(r, "hot_bytes"),
                          r->metric("speedup_vs_normal"));
    if (!text.empty()) out.push_back(fmt::format("{}, relative to none: {}", what, text));
  }
  const auto hints = v.rows(present::case_is("hints"));
  const auto ratio = present::metric_of("speedup_vs_default");
  const auto *b = present::best_by(hints, ratio), *w = present::worst_by(hints, ratio);
  if (b && w)
    out.push_back(fmt::format(
        "cache hints on a stream beside an L2-resident table: {:.3f}x ({}) to {:.3f}x ({}) of the default load "
        "and store",
        ratio(*w), w->axes_label, ratio(*b), b->axes_label));
  std::string l1;
  for (const auto* r : v.rows(present::case_is("l1_hints")))
    l1 += fmt::format("{}{} {:.0f} GB/s ({:.2f}x)", l1.empty() ? "" : ", ", r->string_axis("hint"), r->gbps,
                      r->metric("speedup_vs_plain"));
  if (!l1.empty()) out.push_back("re-reading a per-SM window that fits L1, by load hint (x plain ld.global): " + l1);
  if (const auto* p = present::best_by(v.rows(present::where("prefetch", {{"prefetch", std::string("l2")}})),
                                       present::metric_of("speedup_vs_none")))
    out.push_back(fmt::format("prefetch.global.L2 {} steps ahead speeds a latency-bound walk up {:.2f}x",
                              p->int_axis("distance").value_or(0), p->metric("speedup_vs_none")));
  for (const auto* r : v.rows(present::where("alignment", {{"layout", std::string("aligned128")}})))
    out.push_back(fmt::format(
        "__align__(128) records (30 floats padded to 128 B) vs packed 120-byte records, {} records: {:.3f}x",
        r->int_axis("records").value_or(0), r->metric("speedup_vs_packed")));
}

std::optional<present::fact_value> persisting_window_fact(const present::suite_view& v, std::optional<double> at) {
  const auto rows = v.rows(present::where("persistence", {{"policy", std::string("persisting")}}));
  const auto* r =
      at ? present::nearest(rows, "hot_bytes", *at) : present::best_by(rows, present::metric_of("speedup_vs_normal"));
  if (!r) return std::nullopt;
  present::fact_value f{
      fmt::format("an L2 persisting access-policy window over a {} hot table streamed past by 1 GiB measured {:.2f}x",
                  format_bytes(static_cast<double>(r->int_axis("hot_bytes").value_or(0))),
                  r->metric("speedup_vs_normal")),
      r->metric("speedup_vs_normal"), "", ""};
  if (at && static_cast<double>(r->int_axis("hot_bytes").value_or(0)) != *at)
    f.nearest_note = "nearest measured hot table to " + format_bytes(*at);
  return f;
}

/// The L2 set-aside limit: the driver's figure (the persistence case measures what it buys).
void map_set_aside(const present::suite_view& v, present::hierarchy& h) {
  const auto& d = v.doc.device;
  if (d.persisting_l2_max_bytes > 0 && d.l2_bytes > 0)
    h.findings.push_back(fmt::format(
        "at most {} of the {} L2 may be set aside for persisting accesses (the driver's limit; an access-policy "
        "window covers at most {}); what it buys: memscope run cache_control/persistence",
        format_bytes(d.persisting_l2_max_bytes), format_bytes(d.l2_bytes),
        format_bytes(static_cast<double>(d.access_policy_max_window_bytes))));
}

}  // namespace

void register_cache_control(registry& reg) {
  suite s{reg, "cache_control", "L2 persistence, cache hints, prefetch, record alignment"};
  s.add("persistence", persistence_case)
      .summary("hot table read at random beside a 1 GiB stream: L2 access-policy window (persisting) vs none")
      .axis(axis::strings(
          "policy", {"normal", "persisting", "streaming"},
          "no window; a persisting window over the hot table; the same window marked streaming (control)"))
      .axis(axis::integers("hot_bytes", {8 << 20, 24 << 20, 36 << 20, 48 << 20}, "hot table size")
                .with_range(4, std::int64_t{1} << 32)
                .with_quick({std::int64_t{24} << 20})
                .with_verify({std::int64_t{4}, std::int64_t{4 * 1021}, std::int64_t{24} << 20}))
      .axis(axis::integers("set_aside_bytes", {0},
                           "L2 set aside for persisting lines (0: the hot table's size, capped at the device maximum)")
                .with_range(0, std::int64_t{1} << 32))
      .axis(
          axis::integers("hit_ratio_pct", {0}, "share of window accesses marked persisting, % (0: set-aside / window)")
              .with_range(0, 100))
      .footprint([](const axis_point& p) {
        return static_cast<std::uint64_t>(p.get_int("hot_bytes")) + (std::uint64_t{2} << 30);
      })
      .baseline("policy", std::string("normal"), "speedup_vs_normal");
  s.add("hints", hints_case)
      .summary(
          "out[i] = x[i] * y[random, 16 accesses each]: cache hint on the 1 GiB stream x or on the store; y should "
          "stay in L2")
      .axis(axis::strings("hint", {std::begin(hint_names), std::end(hint_names)},
                          "__ldca/__ldcg/__ldcs/__ldlu/__ldcv/__ldg on x, or __stwb/__stcg/__stcs/__stwt on out"))
      .axis(axis::integers("reused_bytes", {24 << 20, 48 << 20}, "size of y")
                .with_range(4, std::int64_t{1} << 32)
                .with_verify({std::int64_t{4}, std::int64_t{4 * 1021}}))
      .footprint([](const axis_point& p) {
        return static_cast<std::uint64_t>(p.get_int("reused_bytes")) + (std::uint64_t{2} << 30);
      })
      .baseline("hint", std::string("load_ca"), "speedup_vs_default");
  s.add("l1_hints", l1_hints_case)
      .summary("each SM re-reads its own window 64 times with one load hint: which hints keep the L1 hits")
      .axis(axis::strings("hint", {std::begin(load_hint_names), std::end(load_hint_names)},
                          "plain ld.global, __ldca, __ldcg, __ldcs, __ldlu, __ldcv, __ldg"))
      .axis(axis::integers("window_bytes", {64 * 1024}, "bytes each SM re-reads")
                .with_range(16, std::int64_t{1} << 24)
                .with_verify({std::int64_t{16}, std::int64_t{4112}, std::int64_t{100000}}))
      .baseline("hint", std::string("plain"), "speedup_vs_plain");
  s.add("prefetch", prefetch_case)
      .summary("latency-bound walk (128 threads per SM, one load in flight each) with and without prefetch.global.L2")
      .axis(axis::strings("prefetch", {"none", "l2"}, "plain loads, or PTX prefetch.global.L2 `distance` steps ahead"))
      .axis(axis::integers("distance", {4, 16}, "how many grid-strides ahead to prefetch").with_range(1, 1024))
      .footprint([](const axis_point&) { return std::uint64_t{1} << 30; })
      .baseline("prefetch", std::string("none"), "speedup_vs_none");
  s.add("alignment",
        [](case_state& st) {
          if (st.get_string("layout") == "aligned128") record_case<true>(st);
          else record_case<false>(st);
        })
      .summary("one thread per 30-float record: packed 120-byte records vs __align__(128) records")
      .axis(axis::strings("layout", {"packed120", "aligned128"}, "struct { float v[30]; } as is, or __align__(128)"))
      .axis(axis::integers("records", {1 << 17, 1 << 22}, "records: 16 MB (L2-resident) or 512 MB")
                .with_range(0, std::int64_t{1} << 26)
                .with_verify({std::int64_t{0}, std::int64_t{1}, std::int64_t{1021}, std::int64_t{100003}}))
      .footprint([](const axis_point& p) { return static_cast<std::uint64_t>(p.get_int("records")) * 132; })
      .baseline("layout", std::string("packed120"), "speedup_vs_packed");

  const auto ratio_bars = [&](const char* title, const char* case_name, const char* metric, present::row_label label,
                              const char* peer_axis, const char* peer_value, const char* key) {
    present::chart_spec c;
    c.title = title;
    c.keep = present::case_is(case_name);
    c.label = std::move(label);
    c.y = present::metric_of(metric);
    c.y_label = "speed relative to the reference (higher is better)";
    c.peer = present::axis_is(peer_axis, peer_value);
    c.peer_key = key;
    s.chart(c);
  };
  const auto with_size = [](const char* axis_name, const char* size_axis) {
    return [=](const case_result& r) {
      return r.string_axis(axis_name) + " " + format_bytes(static_cast<double>(r.int_axis(size_axis).value_or(0)));
    };
  };
  ratio_bars("L2 persistence: hot table beside a 1 GiB stream", "persistence", "speedup_vs_normal",
             with_size("policy", "hot_bytes"), "policy", "normal", "no access-policy window");
  ratio_bars("Load hints on a window re-read through L1", "l1_hints", "speedup_vs_plain", present::label_axes({"hint"}),
             "hint", "plain", "plain ld.global");
  ratio_bars("Load and store hints on a stream beside an L2-resident table", "hints", "speedup_vs_default",
             with_size("hint", "reused_bytes"), "hint", "load_ca", "the default load and store");
  ratio_bars(
      "prefetch.global.L2 ahead of a latency-bound walk", "prefetch", "speedup_vs_none",
      [](const case_result& r) {
        return fmt::format("prefetch {} d={}", r.string_axis("prefetch"), r.int_axis("distance").value_or(0));
      },
      "prefetch", "none", "no prefetch");
  ratio_bars(
      "Packed 120-byte vs __align__(128) records", "alignment", "speedup_vs_packed",
      [](const case_result& r) {
        return fmt::format("{} {} records", r.string_axis("layout"), r.int_axis("records").value_or(0));
      },
      "layout", "packed120", "packed 120-byte records");
  s.finding(cache_control_findings).map_reader(map_set_aside);
  s.fact(advise::question::l2_persisting_window, {"persistence"}, "an L2 persisting window over a hot table of N bytes",
         persisting_window_fact);
}

MEMSCOPE_REGISTER_SUITE(170, register_cache_control);

}  // namespace memscope::suites
