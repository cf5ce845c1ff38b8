#include "advise/advisor.hpp"

#include "advise/questions.hpp"
#include "harness/axis.hpp"
#include "harness/text_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace memscope::advise {
namespace {

/// Asks the suites' facts and records what they said (or which suite would measure it).
class evidence_log {
 public:
  evidence_log(answer& a, const results_doc* doc, const registry& reg) : a_(a), doc_(doc), reg_(reg) {}

  /// What the suite's rows say, without recording it (a branch may depend on the answer).
  std::optional<present::fact_value> ask(const char* question, std::optional<double> at = std::nullopt) const {
    const auto& f = fact(question);
    if (!doc_) return std::nullopt;
    return f.eval(f.view(*doc_), at);
  }

  std::optional<present::fact_value> cite(const char* question, std::optional<double> at = std::nullopt) {
    auto v = ask(question, at);
    record(question, v);
    return v;
  }

  /// Adds an answer already asked for to the evidence, and its suite to those that show it.
  /// Where the profile cannot answer, names the cases that would: `memscope run transfer/engines`,
  /// not the whole suite.
  void record(const char* question, const std::optional<present::fact_value>& v) {
    const auto& f = fact(question);
    if (std::find(suites_.begin(), suites_.end(), f.suite) == suites_.end()) {
      suites_.push_back(f.suite);
      a_.suite += (a_.suite.empty() ? "" : ", ") + f.suite;
    }
    for (const auto& pattern : f.patterns()) {
      if (std::find(patterns_.begin(), patterns_.end(), pattern) != patterns_.end()) continue;
      patterns_.push_back(pattern);
      a_.measure += (a_.measure.empty() ? "" : " ") + pattern;
    }
    if (v)
      a_.evidence.push_back(v->text + (v->nearest_note.empty() ? "" : " [" + v->nearest_note + "]") +
                            fmt::format(" (measured on {} ({}))", doc_->device.name, measured_when(f)));
    else if (const auto* why = skip_reason(f))
      a_.evidence.push_back(
          fmt::format("not measured in this profile: its `{}` points were skipped ({}); `memscope run {}` "
                      "measures it on your GPU",
                      f.run_patterns(), *why, f.run_patterns()));
    else
      a_.evidence.push_back(
          fmt::format("not in this profile: `memscope run {}` measures it on your GPU", f.run_patterns()));
  }

 private:
  /// The profile's rows of the cases the fact reads.
  std::vector<const case_result*> rows_of(const present::fact_def& f) const {
    std::vector<const case_result*> out;
    if (!doc_) return out;
    for (const auto& r : doc_->results)
      if (f.reads(r.suite, r.name)) out.push_back(&r);
    return out;
  }

  /// Where the profile holds the fact's rows but every one was skipped (peer on a one-GPU
  /// machine): the first row's reason.
  const std::string* skip_reason(const present::fact_def& f) const {
    const std::string* why = nullptr;
    for (const auto* r : rows_of(f)) {
      if (r->status != case_status::skipped) return nullptr;
      if (!why) why = &r->message;
    }
    return why;
  }

  /// When the fact's rows were measured: in a merged document (the bundled profile), the
  /// dates of the runs they come from, not the merge's header (a suite measured on 12-01 and
  /// merged on 12-02 says 12-01).
  std::string measured_when(const present::fact_def& f) const {
    std::string first, last;
    for (const auto* r : rows_of(f)) {
      const std::string& when =
          r->source < doc_->sources.size() ? doc_->sources[r->source].created_utc : doc_->created_utc;
      const std::string day = when.substr(0, 10);
      if (first.empty() || day < first) first = day;
      if (last.empty() || day > last) last = day;
    }
    if (first.empty()) return doc_->created_utc.substr(0, 10);
    return first == last ? first : first + " to " + last;
  }

  const present::fact_def& fact(const char* question) const {
    const auto* f = reg_.find_fact(question);
    if (!f) throw std::logic_error(std::string("the advisor asks '") + question + "', which no suite answers");
    return *f;
  }

  answer& a_;
  std::vector<std::string> suites_, patterns_;
  const results_doc* doc_;
  const registry& reg_;
};

/// A size as given: exact where a rounded unit would hide the difference (65537 B is not 64 KiB).
std::string size_text(std::uint64_t n) {
  if (n < 1024 || n % 1024 == 0) return format_bytes(static_cast<double>(n));
  return fmt::format("{} B ({})", n, format_bytes(static_cast<double>(n)));
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
  // The branches below decide by size: without one they would assume it.
  if (q.mut == mutability::read_only && !q.bytes)
    throw usage_error(
        "--read-only: say how large the data is with --bytes N (whether it fits the 64 KiB constant bank, "
        "shared memory or L2 decides the answer)");
  if (q.mut == mutability::written && q.share == sharing::grid && !q.bytes)
    throw usage_error(
        "--written --sharing grid: say how large the shared data is with --bytes N (whether it fits a block's or "
        "a cluster's shared memory decides the answer)");
}

/// `smem_block`: the most shared memory one block may have. A per-thread slice must fit it for at
/// least one warp's threads, or shared memory cannot hold the temporaries at all.
answer temporary(const query& q, std::uint64_t smem_block) {
  constexpr std::uint64_t warp = 32;
  answer a;
  if (q.bytes && *q.bytes > smem_block / warp) {
    a = {"temporary/global",
         "global memory, a slice per thread",
         "a cudaMalloc'd buffer with each thread's slice interleaved (element i of thread t at i * threads + t), "
         "so that a warp's accesses coalesce, as local memory lays out spilled arrays",
         fmt::format("{} per thread is more than a block's {} of shared memory can give each thread of even one warp "
                     "({} a thread), and far past the 255 registers a thread can hold",
                     size_text(*q.bytes), size_text(smem_block), size_text(smem_block / warp)),
         {},
         "memscope/registers/local_array.cuh",
         ""};
    return a;
  }
  if (!q.bytes || *q.bytes <= 255 * 4) {
    a = {"temporary/registers",
         "registers, per thread",
         "local variables, arrays indexed only by compile-time constants (unrolled loops)",
         "per-thread values that are written often belong in registers: no other space is as fast; a run-time index "
         "or more than 255 registers' worth moves them to local memory (DRAM-backed), which is slower than "
         "shared memory",
         {},
         "memscope/registers/local_array.cuh",
         ""};
  } else {
    a = {
        "temporary/shared",
        "shared memory",
        "a per-thread slice of a shared-memory array, laid out so lanes hit different banks",
        fmt::format("{} per thread is more than the 255 registers a thread can hold; spilled arrays go to local memory",
                    size_text(*q.bytes)),
        {},
        "memscope/registers/local_array.cuh",
        ""};
  }
  return a;
}

}  // namespace

answer advise_host(const query& q, const results_doc* doc, const registry& reg) {
  if (!q.asks_host_side())
    throw usage_error("say where the data comes from: --from-host once|every-iteration, --larger-than-gpu or --gpus N");
  if (q.gpus < 1) throw usage_error("--gpus must be at least 1");
  const std::optional<double> at = q.bytes ? std::optional<double>(static_cast<double>(*q.bytes)) : std::nullopt;
  answer a;
  if (q.gpus > 1) {
    a = {"host/shared-between-gpus",
         "each GPU's own memory, read by its peers over NVLink/PCIe",
         "cudaDeviceEnablePeerAccess in both directions, then cudaMemcpyPeerAsync (the copy engines) or kernels that "
         "dereference the peer's pointers; do not stage through host memory",
         fmt::format("{} GPUs share the data: with peer access the copy engines move it directly between the boards; "
                     "without it the driver stages every byte through host memory",
                     q.gpus),
         {},
         "memscope/transfer/sm_copy.cuh",
         ""};
    evidence_log log(a, doc, reg);
    log.cite(question::peer_access);
    return a;
  }
  if (q.larger_than_gpu) {
    a = {
        "host/larger-than-gpu",
        "pinned host memory streamed through two device buffers; managed memory (cudaMallocManaged) prefetched in "
        "chunks where one pointer for host and GPU matters more than speed",
        "cudaMemcpyAsync chunk k + 1 from pinned memory into the other device buffer on a copy stream while a kernel "
        "works "
        "on chunk k (an event per buffer keeps a copy from overwriting what a kernel still reads); with managed "
        "memory, "
        "cudaMemPrefetchAsync the next chunk instead, and advise input the kernels only read as read-mostly "
        "(cudaMemAdviseSetReadMostly), so that making room for the next chunks drops the GPU's copies instead of "
        "migrating the pages back. About sqrt(T / c) chunks, T the shorter of the transfer and the "
        "kernels' time, c the fixed cost of one piece: microseconds for a copy, tens for a prefetch, so copies "
        "pipeline "
        "finer. Results go back the same way: kernels write into two more device buffers, each copied to pinned memory "
        "on a "
        "third stream (the link carries both directions at once), not written by the kernels into mapped pinned "
        "memory, which takes the link from the copy engine bringing the next chunks in; with managed memory, write "
        "results into pages that "
        "prefer the host and are mapped by the GPU (preferred location host, accessed-by the GPU) rather than prefetch "
        "them back, which the driver migrates far slower than it brings pages in. Never let kernels fault their way "
        "through",
        "the data does not fit the GPU, so it streams through it: the copy engine moves pinned memory at the link's "
        "speed for microseconds a request, a prefetch migrates pages slower and costs more a request, and pages a "
        "kernel "
        "faults in migrate slower still",
        {},
        "memscope/transfer/host_memory.hpp",
        ""};
    evidence_log log(a, doc, reg);
    log.cite(question::managed_migration, at);
    log.cite(question::prefetch_chunks);
    log.cite(question::oversubscription);
    log.cite(question::mixed_engines);
    return a;
  }
  if (q.origin == host_origin::every_iteration) {
    a = {"host/every-iteration",
         "pinned host memory (cudaHostAlloc), copied asynchronously",
         "double-buffered cudaMemcpyAsync on a copy stream so each upload overlaps the previous iteration's kernel; a "
         "kernel reading mapped pinned memory directly (zero-copy) where each byte is read once, coalesced, but not "
         "while "
         "a copy engine moves data the other way, which then loses much of its rate: each direction by its own copy "
         "engine, or both by kernels",
         "data the host produces anew each iteration crosses the link every time: pinned memory moves at the link's "
         "speed, pageable memory is staged through a bounce buffer, and overlap hides the copies behind compute",
         {},
         "memscope/transfer/host_memory.hpp",
         ""};
    evidence_log log(a, doc, reg);
    log.cite(question::host_transfer, at);
    log.cite(question::copy_overlap);
    log.cite(question::zero_copy);
    log.cite(question::mixed_engines);
    return a;
  }
  a = {"host/once",
       "device memory, filled once from pinned (or cudaHostRegister'ed) host memory",
       "one cudaMemcpyAsync from a pinned or registered buffer; the kernels then read device memory",
       "data produced once crosses the link once: pinning the host buffer makes that copy run at the link's speed",
       {},
       "memscope/transfer/host_memory.hpp",
       ""};
  evidence_log log(a, doc, reg);
  log.cite(question::host_transfer, at);
  return a;
}

host_origin parse_origin(const std::string& s) {
  if (s == "once") return host_origin::once;
  if (s == "every-iteration") return host_origin::every_iteration;
  throw usage_error("--from-host must be once or every-iteration, not '" + s + "'");
}

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

answer advise(const query& q, const results_doc* doc, const registry& reg) {
  check(q);
  const std::uint64_t const_bank = doc && doc->device.total_const_mem ? doc->device.total_const_mem : 65536;
  const std::uint64_t l2 = doc && doc->device.l2_bytes ? static_cast<std::uint64_t>(doc->device.l2_bytes) : 0;
  const std::uint64_t smem_block =
      doc && doc->device.shared_per_block_optin ? doc->device.shared_per_block_optin : 48 * 1024;
  const auto bytes_text = [&] { return size_text(*q.bytes); };
  answer a;

  // 1. Short-lived per-thread temporaries: registers, then shared memory.
  if (q.temporary) {
    a = temporary(q, smem_block);
    evidence_log log(a, doc, reg);
    log.cite(question::register_array_limit);
    log.cite(question::spill_cost, q.bytes ? std::optional<double>(static_cast<double>(*q.bytes)) : std::nullopt);
    log.cite(question::registers_at_occupancy);
    log.cite(question::shared_load_latency);
    return a;
  }

  const bool small = q.bytes && *q.bytes <= const_bank;

  // 2. Read-only data.
  if (q.mut == mutability::read_only) {
    if (small && q.access == warp_access::uniform) {
      a = {"read-only/small/uniform",
           "constant memory",
           "`__constant__` array filled with cudaMemcpyToSymbol (or, up to a few KB, kernel parameters by value)",
           fmt::format("{} fits the {} constant bank and every lane of a warp reads the same word: the constant cache "
                       "broadcasts it in one access",
                       bytes_text(), format_bytes(static_cast<double>(const_bank))),
           {},
           "memscope/constant/stencil.cuh",
           ""};
      evidence_log log(a, doc, reg);
      log.cite(question::uniform_read_cost);
      log.cite(question::coefficient_source_spread);
      return a;
    }
    if (small) {
      a = {"read-only/small/divergent",
           "global memory (L1-cached), not constant memory",
           "a `const T* __restrict__` kernel parameter",
           fmt::format(
               "{} would fit the constant bank, but the lanes of a warp read different addresses: the constant cache "
               "serialises them, one address after another",
               bytes_text()),
           {},
           "memscope/constant/broadcast.cuh",
           ""};
      evidence_log log(a, doc, reg);
      log.cite(question::divergent_constant_read_cost);
      return a;
    }
    if (q.share == sharing::block && q.bytes && *q.bytes <= smem_block) {
      a = {"read-only/large/block-reuse",
           "shared memory",
           "stage the block's part (tile plus halo) in shared memory once, then reuse it",
           "each value is read by several threads of the same block: one global read, many shared reads",
           {},
           "memscope/constant/stencil.cuh",
           ""};
      evidence_log log(a, doc, reg);
      log.cite(question::shared_tile_vs_l1);
      return a;
    }
    a = {q.access == warp_access::irregular ? "read-only/large/irregular" : "read-only/large/streamed",
         "global memory",
         "a `const T* __restrict__` parameter; keep the hot part within L2, coalesce where the access allows",
         fmt::format("{} is too large for the constant bank{}", q.bytes ? bytes_text() : std::string("the data"),
                     l2 && q.bytes && *q.bytes <= l2
                         ? fmt::format(" but fits the {} L2", format_bytes(static_cast<double>(l2)))
                         : std::string()),
         {},
         "memscope/global/readonly_gather.cuh",
         ""};
    evidence_log log(a, doc, reg);
    // Where the data sits decides its cost: L2 hit or DRAM latency at the nearest measured
    // working set, and what an L2 persisting window bought.
    if (q.bytes) {
      log.cite(question::dependent_load_latency, static_cast<double>(*q.bytes));
      if (l2 && *q.bytes <= l2) log.cite(question::l2_persisting_window, static_cast<double>(*q.bytes));
    }
    if (q.access == warp_access::irregular) {
      a.technique += "; __ldg / the read-only path is allowed but measured no faster";
      log.cite(question::texture_gather);
      log.cite(question::random_gather);
    } else {
      log.cite(question::streaming_read);
    }
    return a;
  }

  // 3. Written data.
  if (q.share == sharing::block) {
    a = {"written/block",
         "shared memory",
         "per-block partials in shared memory, warp shuffles for the last 32; over a whole array, "
         "blocks over consecutive tiles with 16-byte loads and a second kernel, launched as a programmatic dependent "
         "launch, adding the partials (reduce::variant::tiles_pdl)",
         "threads of one block combine their results: shared memory is the block's scratchpad (static or dynamic "
         "`extern "
         "__shared__`: no difference measured)",
         {},
         "memscope/shared/reduce.cuh",
         ""};
    evidence_log log(a, doc, reg);
    log.cite(question::block_reduction);
    return a;
  }
  if (q.share == sharing::grid) {
    const bool clusters = !doc || doc->device.cluster_launch;
    const std::uint64_t cluster_smem =
        doc ? static_cast<std::uint64_t>(doc->device.max_cluster_size_nonportable) * doc->device.shared_per_block_optin
            : 16 * smem_block;
    // Counters of --bytes (4 bytes each): what histogram_even's automatic choice did at the
    // nearest measured counter count decides; without a size, capacity decides.
    // Asked once, recorded below once the branch (which resets `a`) is chosen.
    evidence_log log(a, doc, reg);
    const std::optional<double> counters =
        q.bytes ? std::optional<double>(std::max(1.0, static_cast<double>(*q.bytes) / 4)) : std::nullopt;
    const auto measured = counters ? log.ask(question::grid_counters, counters) : std::nullopt;
    const std::string tag = measured ? measured->tag : std::string();
    const bool fits_cluster = clusters && (!q.bytes || *q.bytes <= cluster_smem);
    if (tag == "block") {
      a = {
          "written/grid/block",
          "shared memory per block, merged once",
          "each block keeps a private copy in shared memory (shared atomics), then adds it to global memory once",
          fmt::format("{} fits one block's shared memory with room for several blocks per SM: no traffic leaves the SM "
                      "until the merge",
                      bytes_text()),
          {},
          "memscope/histogram/histogram.cuh",
          ""};
    } else if (tag == "split") {
      a = {"written/grid/cluster-split",
           "shared memory of a thread-block cluster, bin range split",
           "launch clusters of 2-4 blocks; each block keeps its part of the counters in shared memory and reads every "
           "sample "
           "of the cluster (L2 serves the repeated reads), so no atomic leaves its SM; merge once to global memory",
           fmt::format("{} is more than one block's shared memory holds but fits a few blocks'", bytes_text()),
           {},
           "memscope/histogram/histogram.cuh",
           ""};
    } else if ((tag.empty() && fits_cluster) || tag == "cluster") {
      a = {"written/grid/cluster",
           "distributed shared memory (thread-block clusters)",
           "spread the data over the shared memory of a cluster's blocks (cluster.map_shared_rank, remote atomics), "
           "cluster.sync() before the first remote access and before any block exits, then merge once to global memory",
           fmt::format(
               "blocks must combine results; on compute capability 9.0+ a cluster of up to {} blocks shares up to {} "
               "of shared memory, so the combining stays on chip",
               doc ? doc->device.max_cluster_size_nonportable : 16, format_bytes(static_cast<double>(cluster_smem))),
           {},
           "memscope/histogram/histogram.cuh",
           ""};
    } else {
      a = {"written/grid/global",
           "global memory with atomics (L2)",
           "atomics into global memory, where the counters stay in L2; against skew keep a few copies (block b adds to "
           "copy "
           "b % G, as many as fit half of L2, summed at the end), let lanes of a warp whose values agree add once "
           "(__match_any_sync), and count a window of the hottest values in each block's shared memory",
           !clusters ? std::string("this GPU has no thread-block clusters (compute capability below 9.0)")
           : measured
               ? fmt::format(
                     "at {} the counters outgrow what a split cluster of two blocks holds, and on this GPU L2 "
                     "atomics then beat larger clusters (more repeated reads, or remote atomics across SMs); one "
                     "copy of hot counters serialises every SM's atomics on skewed data",
                     bytes_text())
               : fmt::format("{} exceeds what a cluster's shared memory holds ({})", bytes_text(),
                             format_bytes(static_cast<double>(cluster_smem))),
           {},
           "memscope/histogram/histogram.cuh",
           ""};
    }
    if (counters) log.record(question::grid_counters, measured);
    log.cite(question::grid_counters_by_size);
    log.cite(question::atomic_contention,
             q.threads_per_address ? std::optional<double>(static_cast<double>(*q.threads_per_address)) : std::nullopt);
    log.cite(question::remote_atomics_cost);
    log.cite(question::remote_shared_latency);
    return a;
  }
  a = {"written/streamed",
       "global memory",
       "coalesced, 32-byte-aligned stores (16-byte vectors where the layout allows; where rows start off the 32-byte "
       "grid, "
       "each warp's window shifted onto it, as the transpose's sector64 does)",
       "results written once per thread and read by later kernels live in global memory; what matters is that a warp's "
       "stores cover whole 32-byte sectors",
       {},
       "memscope/global/coalescing.cuh",
       ""};
  evidence_log log(a, doc, reg);
  log.cite(question::misaligned_store_cost);
  return a;
}

}  // namespace memscope::advise
