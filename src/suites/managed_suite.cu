// Suite `managed`: cudaMallocManaged memory reached by the GPU while it lives on the host:
// page faults, a prefetch, the hints (read-mostly, preferred location, accessed-by), a chunked
// prefetch pipeline whose kernels have a chosen amount of work per byte to hide the migration
// behind, the migration back to the host, and more managed memory than the GPU has free.
// Each sample starts from the same place: the pages are moved back before it, untimed. The
// reference is a pinned cudaMemcpyAsync of the same bytes, in the same run.

#include "advise/questions.hpp"
#include "harness/registry.hpp"
#include "harness/state.hpp"
#include "harness/suite.hpp"
#include "harness/text_output.hpp"
#include "present/chart_spec.hpp"
#include "present/findings.hpp"
#include "suites/host_link_row.hpp"

#include "memscope/core/device_buffer.hpp"
#include "memscope/core/parallel.hpp"
#include "memscope/transfer/busy_copy.cuh"
#include "memscope/transfer/host_memory.hpp"
#include "memscope/transfer/managed.hpp"
#include "memscope/transfer/sm_copy.cuh"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>

namespace memscope::suites {
namespace {

namespace tr = memscope::transfer;

struct managed_policy {
  /// The chunked pipeline: prefetch chunk k+1 on one stream while a kernel reads chunk k. At
  /// most `pipeline_chunks`, none smaller than `pipeline_min_chunk`: every prefetch has a fixed
  /// cost that overlap does not win back on small chunks (docs/tuning.md, "Managed pipeline"),
  /// so below twice that the pipeline is one prefetch then one kernel.
  static constexpr int pipeline_chunks = 16;
  static constexpr std::size_t pipeline_min_chunk = std::size_t{256} << 20;
  /// A pipeline's chunks are whole pages of this many bytes.
  static constexpr std::size_t page = 4096;
  /// Oversubscription: the device memory left free beside the ballast.
  static constexpr std::size_t oversubscribe_free = std::size_t{4} << 30;
  /// The same for `memscope verify`, which checks the eviction path rather than its speed,
  /// and for --quick: 150% of 4 GiB is 6 GiB filled and checked on the host at every point.
  static constexpr std::size_t verify_free = std::size_t{64} << 20;
  static constexpr std::size_t quick_free = std::size_t{1} << 30;
};

/// The device memory oversubscribe and stream leave free beside their ballast (their `free`
/// label says which).
std::size_t free_beside_ballast(const case_state& st) {
  if (st.verify_only()) return managed_policy::verify_free;
  return st.quick() ? managed_policy::quick_free : managed_policy::oversubscribe_free;
}

int pipeline_chunks_for(std::size_t bytes) {
  return static_cast<int>(
      std::clamp<std::size_t>(bytes / managed_policy::pipeline_min_chunk, 1, managed_policy::pipeline_chunks));
}

/// Bytes in each of a pipeline's chunks: whole pages, so that no page is split between two
/// prefetches (and each chunk of the buffer starts 16-byte aligned for the kernels). Fewer
/// chunks than asked for where the buffer has fewer pages.
std::size_t pipeline_chunk_bytes(std::size_t bytes, int chunks) {
  const std::size_t even = ceil_div(bytes, static_cast<std::size_t>(chunks));
  return std::max<std::size_t>(1, ceil_div(even, managed_policy::page)) * managed_policy::page;
}

/// Chunk k of `bytes` cut into pieces of `chunk` bytes: its offset and length (0 past the end).
std::pair<std::size_t, std::size_t> chunk_piece(std::size_t bytes, std::size_t chunk, int k) {
  const std::size_t at = std::min(bytes, static_cast<std::size_t>(k) * chunk);
  return {at, std::min(bytes, at + chunk) - at};
}

struct nothing_more {
  void operator()(std::size_t, std::size_t, cudaStream_t) const {}
};

/// `bytes` of managed memory in `chunks` prefetches on `copy`, each chunk handed to
/// read(offset, length, main) on `main` as soon as it has landed, and to also(offset, length,
/// copy) after its prefetch; `ready` holds one event per chunk.
template <class Read, class Also = nothing_more>
void enqueue_pipeline(void* m, std::size_t bytes, int chunks, cudaMemLocation gpu, cudaStream_t main, cudaStream_t copy,
                      std::vector<cuda_event>& ready, Read read, Also also = {}) {
  const std::size_t chunk = pipeline_chunk_bytes(bytes, chunks);
  ready[0].record(main);  // the prefetches start once the stream's earlier work is done
  MEMSCOPE_CUDA_CALL(cudaStreamWaitEvent(copy, ready[0].get(), 0));
  for (int k = 0; k < chunks; ++k) {
    const auto [at, n] = chunk_piece(bytes, chunk, k);
    tr::prefetch(static_cast<char*>(m) + at, n, gpu, copy);
    if (n) also(at, n, copy);
    ready[k].record(copy);
  }
  for (int k = 0; k < chunks; ++k) {
    const auto [at, n] = chunk_piece(bytes, chunk, k);
    MEMSCOPE_CUDA_CALL(cudaStreamWaitEvent(main, ready[k].get(), 0));
    if (n) read(at, n, main);
  }
}

/// The same pipeline without managed memory, as a program that manages its own buffers does
/// it: chunk k of pinned host memory is copied by cudaMemcpyAsync on `copy` into slot k % 2
/// of `d_ring` (two chunks of device memory, double buffering) once the kernel that read
/// chunk k - 2 from that slot is done, then handed to read(slot, offset, length, main) on
/// `main`. `landed` and `read_done` hold one event per chunk.
template <class Read>
void enqueue_double_buffered(const std::uint8_t* h_src, std::uint8_t* d_ring, std::size_t bytes, int chunks,
                             cudaStream_t main, cudaStream_t copy, std::vector<cuda_event>& landed,
                             std::vector<cuda_event>& read_done, Read read) {
  const std::size_t chunk = pipeline_chunk_bytes(bytes, chunks);
  landed[0].record(main);  // the copies start once the stream's earlier work is done
  MEMSCOPE_CUDA_CALL(cudaStreamWaitEvent(copy, landed[0].get(), 0));
  // Interleaved: copy k waits on read_done[k - 2], which must have been recorded first.
  for (int k = 0; k < chunks; ++k) {
    const auto [at, n] = chunk_piece(bytes, chunk, k);
    std::uint8_t* const slot = d_ring + static_cast<std::size_t>(k % 2) * chunk;
    if (k >= 2) MEMSCOPE_CUDA_CALL(cudaStreamWaitEvent(copy, read_done[k - 2].get(), 0));
    if (n) MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(slot, h_src + at, n, cudaMemcpyHostToDevice, copy));
    landed[k].record(copy);
    MEMSCOPE_CUDA_CALL(cudaStreamWaitEvent(main, landed[k].get(), 0));
    if (n) read(slot, at, n, main);
    read_done[k].record(main);
  }
}

/// What access and pipeline start from: `bytes` of managed memory holding the pattern, written
/// by the CPU (the pages start on the host, as data a program produced), and a poisoned
/// device destination of as many bytes.
struct managed_source {
  tr::managed_buffer m;
  device_buffer<std::uint8_t> d_dst;
  managed_source(std::size_t managed_bytes, std::size_t dst_bytes, std::uint64_t seed, cudaStream_t s)
      : m(managed_bytes), d_dst(dst_bytes) {
    tr::fill_pattern_host(m.data(), managed_bytes, seed);
    tr::fill_pattern(d_dst.data(), dst_bytes, ~seed, s);
  }
};

/// How pipeline and stream bring host data to the GPU (their `feed` axis): managed memory
/// prefetched, managed memory advised read-mostly and prefetched (the GPU gets read-only copies,
/// which eviction drops instead of migrating back), or pinned memory copied into device buffers.
enum class feed_kind { prefetch, prefetch_read_mostly, pinned_copy };

feed_kind feed_kind_of(const std::string& name) {
  if (name == "prefetch") return feed_kind::prefetch;
  if (name == "prefetch_read_mostly") return feed_kind::prefetch_read_mostly;
  if (name == "pinned_copy") return feed_kind::pinned_copy;
  throw std::invalid_argument("managed: no feed '" + name + "'");  // the axes list only these
}

/// What pipeline and stream feed their kernels with: the copy stream, an event per chunk, the
/// two device buffers of the pinned feed, and the checksum into which the kernels fold every
/// word; with `round_trip`, what brings each chunk's output back. Built before a case's
/// ballast: the memory it streams from and to comes later.
class chunk_feed {
 public:
  chunk_feed(feed_kind kind, int dev, std::size_t bytes, int chunks, unsigned work, bool round_trip = false)
      : pinned_(kind == feed_kind::pinned_copy),
        read_mostly_(kind == feed_kind::prefetch_read_mostly),
        round_trip_(round_trip),
        gpu_(tr::gpu_location(dev)),
        bytes_(bytes),
        chunks_(chunks),
        work_(work),
        chunk_(pipeline_chunk_bytes(bytes, chunks)),
        d_ring_(pinned_ && bytes ? ring_bytes() : 0),
        d_out_ring_(pinned_ && round_trip && bytes ? ring_bytes() : 0),
        d_checksum_(1),
        ready_(chunks),
        done_(pinned_ ? chunks : 0),
        written_(round_trip ? chunks : 0),
        drained_(round_trip ? chunks : 0) {}

  std::size_t chunk() const { return chunk_; }

  /// Every chunk of `src` (pinned host memory, or managed memory) brought to the GPU, then
  /// handed on `main` to a kernel that writes it to device memory at out(offset of the chunk).
  template <class Out>
  void enqueue(void* src, cudaStream_t main, Out out) {
    run(src, main, [&](const std::uint8_t* from, std::size_t at, std::size_t n, cudaStream_t on) {
      busy_copy(out(at), from, n, on);
    });
  }

  /// As enqueue, with each chunk's output brought back to the host into `dst` on a third
  /// stream while later chunks go on. Pinned: the kernels write into two more device buffers
  /// in turn, each copied back to pinned `dst` before it is written again. Managed: `dst` is
  /// managed memory; each chunk's output pages are discarded and prefetched to the GPU beside
  /// its input (they are about to be overwritten: nothing crosses the link for them), then
  /// prefetched back to the host after its kernel.
  void enqueue_round_trip(void* src, void* dst, cudaStream_t main) {
    if (!round_trip_) throw std::logic_error("chunk_feed::enqueue_round_trip on a feed not built for the round trip");
    auto* const out = static_cast<std::uint8_t*>(dst);
    run(
        src, main,
        [&](const std::uint8_t* from, std::size_t at, std::size_t n, cudaStream_t on) {
          const auto k = static_cast<int>(at / chunk_);
          std::uint8_t* to = out + at;
          if (pinned_) {
            to = d_out_ring_.data() + static_cast<std::size_t>(k % 2) * chunk_;
            if (k >= 2) MEMSCOPE_CUDA_CALL(cudaStreamWaitEvent(on, drained_[k - 2].get(), 0));
          }
          busy_copy(to, from, n, on);
          written_[k].record(on);
          MEMSCOPE_CUDA_CALL(cudaStreamWaitEvent(back_.get(), written_[k].get(), 0));
          if (pinned_) {
            MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(out + at, to, n, cudaMemcpyDeviceToHost, back_.get()));
            drained_[k].record(back_.get());
          } else {
            tr::prefetch(out + at, n, tr::host_location(), back_.get());
          }
        },
        [&](std::size_t at, std::size_t n, cudaStream_t copy) { tr::discard_and_prefetch(out + at, n, gpu_, copy); });
    if (!bytes_) return;
    // The launch ends when the last output is back: `main` waits for the stream bringing it.
    joined_.record(back_.get());
    MEMSCOPE_CUDA_CALL(cudaStreamWaitEvent(main, joined_.get(), 0));
  }

  /// Before every sample: managed pages go back to the host, read-mostly ones without leaving
  /// their read-only copies on the GPU (the first prepare sets the hint); pinned memory stays
  /// where it is.
  void prepare(void* src, cudaStream_t on) const {
    if (!pinned_) tr::prefetch_sole_copy(src, bytes_, tr::host_location(), read_mostly_, on);
  }

  void clear_checksum(cudaStream_t on) {
    MEMSCOPE_CUDA_CALL(cudaMemsetAsync(d_checksum_.data(), 0, sizeof(unsigned), on));
  }

  /// The kernels' checksum against the CPU's, after one enqueue from a cleared checksum.
  verify_result check_checksum(std::uint64_t seed) const {
    const unsigned want = tr::busy_checksum_of_pattern(bytes_, seed, work_), got = d_checksum_.to_host()[0];
    if (got == want) return verify_result::pass();
    return verify_result::fail(fmt::format(
        "the kernels' checksum over {} multiply-adds a word: {:#010x}, the CPU's {:#010x}", work_, got, want));
  }

 private:
  std::size_t ring_bytes() const { return static_cast<std::size_t>(std::min(chunks_, 2)) * chunk_; }

  /// The one dispatch of both enqueues: each chunk brought to the GPU by the feed, then
  /// body(input, offset, length, main), where `input` is the device buffer the pinned feed
  /// copied the chunk into, or the managed chunk itself, read in place once prefetched; `also`
  /// runs on the copy stream after each managed chunk's prefetch.
  template <class Body, class Also = nothing_more>
  void run(void* src, cudaStream_t main, Body body, Also also = {}) {
    if (!bytes_) return;
    if (pinned_) {
      enqueue_double_buffered(
          static_cast<const std::uint8_t*>(src), d_ring_.data(), bytes_, chunks_, main, copy_.get(), ready_, done_,
          [&](const std::uint8_t* slot, std::size_t at, std::size_t n, cudaStream_t on) { body(slot, at, n, on); });
    } else {
      enqueue_pipeline(
          src, bytes_, chunks_, gpu_, main, copy_.get(), ready_,
          [&](std::size_t at, std::size_t n, cudaStream_t on) {
            body(static_cast<const std::uint8_t*>(src) + at, at, n, on);
          },
          also);
    }
  }

  void busy_copy(std::uint8_t* to, const std::uint8_t* from, std::size_t n, cudaStream_t on) {
    tr::busy_copy(to, from, n, work_, d_checksum_.data(), on);
  }

  bool pinned_, read_mostly_, round_trip_;
  cudaMemLocation gpu_;
  std::size_t bytes_;
  int chunks_;
  unsigned work_;
  std::size_t chunk_;
  device_buffer<std::uint8_t> d_ring_, d_out_ring_;
  device_buffer<unsigned> d_checksum_;
  cuda_stream copy_, back_;
  std::vector<cuda_event> ready_, done_, written_, drained_;
  cuda_event joined_;
};

/// access' modes and what follows from each: whether the result lands in the device buffer
/// (else it is the managed pages themselves), and whether the launch queues prefetches. The
/// driver may make the host wait while it queues prefetches behind unfinished work (64 chunks
/// behind a held stream blocked it for seconds), so those are timed from an idle stream.
struct access_mode {
  const char* name;
  bool lands_in_device_buffer;
  bool prefetches;
};
constexpr access_mode access_modes[] = {
    {"pinned_copy", true, false},      {"prefetch", false, true},    {"prefetch_then_read", true, true},
    {"prefetch_pipeline", true, true}, {"fault", true, false},       {"preferred_gpu", true, false},
    {"read_mostly", true, false},      {"accessed_by", true, false}, {"to_host", false, true},
};

const access_mode& access_mode_of(const std::string& name) {
  for (const auto& m : access_modes)
    if (name == m.name) return m;
  throw std::invalid_argument("managed/access: no mode '" + name + "'");  // the axis lists only the table's
}

std::vector<std::string> access_mode_names() {
  std::vector<std::string> names;
  for (const auto& m : access_modes) names.emplace_back(m.name);
  return names;
}

/// Modes: where the pages are when the timed launch starts, and what it does.
void access_case(case_state& st) {
  const int dev = st.device().ordinal;
  if (const auto why = tr::managed_unsupported(dev); !why.empty()) st.skip(why);
  const std::string mode = st.get_string("mode");
  const access_mode& traits = access_mode_of(mode);
  const auto bytes = static_cast<std::size_t>(st.get_int("bytes"));
  const cudaStream_t s = st.stream();
  const std::uint64_t seed = st.seed();
  const auto gpu = tr::gpu_location(dev), host = tr::host_location();

  const bool pinned_copy = mode == "pinned_copy";
  managed_source src(pinned_copy ? 0 : bytes, bytes, seed, s);
  void* const m = src.m.data();
  std::uint8_t* const d_dst = src.d_dst.data();
  tr::host_memory pinned(tr::host_kind::pinned, pinned_copy ? bytes : 0);
  if (pinned_copy) tr::fill_pattern_host(pinned.data(), bytes, seed);

  if (mode == "read_mostly") tr::advise(m, bytes, cudaMemAdviseSetReadMostly, gpu);
  if (mode == "preferred_gpu") tr::advise(m, bytes, cudaMemAdviseSetPreferredLocation, gpu);
  if (mode == "accessed_by") {
    // The pages stay on the host and the GPU maps them: reads cross the link, nothing migrates.
    tr::advise(m, bytes, cudaMemAdviseSetPreferredLocation, host);
    tr::advise(m, bytes, cudaMemAdviseSetAccessedBy, gpu);
  }
  const bool to_host = mode == "to_host";
  cuda_stream copy_stream;
  const int chunks = pipeline_chunks_for(bytes);
  std::vector<cuda_event> chunk_ready(chunks);
  const auto read = [&](std::size_t at, std::size_t n, cudaStream_t main) {
    tr::sm_copy(d_dst + at, static_cast<char*>(m) + at, n, main);
  };
  const auto launch = [&](cudaStream_t main) {
    if (pinned_copy) {
      if (bytes) MEMSCOPE_CUDA_CALL(cudaMemcpyAsync(d_dst, pinned.data(), bytes, cudaMemcpyHostToDevice, main));
    } else if (mode == "prefetch") {
      tr::prefetch(m, bytes, gpu, main);
    } else if (mode == "prefetch_then_read") {
      // The pipeline's serial counterpart: the same pages and the same kernel, nothing overlapped.
      tr::prefetch(m, bytes, gpu, main);
      if (bytes) read(0, bytes, main);
    } else if (mode == "prefetch_pipeline") {
      enqueue_pipeline(m, bytes, chunks, gpu, main, copy_stream.get(), chunk_ready, read);
    } else if (to_host) {
      tr::prefetch(m, bytes, host, main);
    } else if (bytes) {  // fault, read_mostly, preferred_gpu, accessed_by: a kernel reads the host's pages
      read(0, bytes, main);
    }
  };
  // Every launch starts with the pages where a program's data would be: on the host (on the
  // GPU for the migration back); read-mostly pages without their copies on the GPU.
  const auto prepare = [&](cudaStream_t st_) {
    if (!pinned_copy) tr::prefetch_sole_copy(m, bytes, to_host ? gpu : host, mode == "read_mostly", st_);
  };
  prepare(s);
  launch(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  const bool in_dst = traits.lands_in_device_buffer;
  st.check(tr::verify_pattern(in_dst ? static_cast<const void*>(d_dst) : m, bytes, seed, s,
                              in_dst ? "in the device buffer" : "migrated"));
  if (mode == "prefetch_pipeline") st.add_label("chunks", std::to_string(chunks));
  st.add_bytes_read(bytes);
  record_host_link(st, host_link_of(st.device()), 1);
  st.exec(launch, prepare, traits.prefetches ? exec_tag::sync : exec_tag::held);
}

/// The pipeline's chunk count swept: `chunks` pieces, each handed as it lands to a kernel
/// doing `work` multiply-adds on every word it copies, against one piece then the same kernel
/// over the whole buffer (chunks = 1). `feed`: prefetches of managed memory, or copies from
/// pinned host memory into two device buffers in turn (the best a program can do without
/// managed memory, in the same run).
void pipeline_case(case_state& st) {
  const int dev = st.device().ordinal;
  const feed_kind kind = feed_kind_of(st.get_string("feed"));
  const bool pinned = kind == feed_kind::pinned_copy;
  // The pinned feed needs no managed memory: it still runs where managed memory cannot.
  if (const auto why = pinned ? std::string() : tr::managed_unsupported(dev); !why.empty()) st.skip(why);
  const auto bytes = static_cast<std::size_t>(st.get_int("bytes"));
  const cudaStream_t s = st.stream();
  const std::uint64_t seed = st.seed();
  chunk_feed feed(kind, dev, bytes, static_cast<int>(st.get_int("chunks")), static_cast<unsigned>(st.get_int("work")));
  managed_source src(pinned ? 0 : bytes, bytes, seed, s);
  tr::host_memory h_src(tr::host_kind::pinned, pinned ? bytes : 0);
  if (pinned) tr::fill_pattern_host(h_src.data(), bytes, seed);
  void* const from = pinned ? h_src.data() : src.m.data();
  const auto launch = [&](cudaStream_t main) {
    feed.enqueue(from, main, [&](std::size_t at) { return src.d_dst.data() + at; });
  };
  const auto prepare = [&](cudaStream_t on) { feed.prepare(from, on); };
  prepare(s);
  feed.clear_checksum(s);
  launch(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  st.check(tr::verify_pattern(src.d_dst.data(), bytes, seed, s, "copied by the kernels"));
  st.check(feed.check_checksum(seed));
  st.add_label("chunk", format_bytes(static_cast<double>(std::min(bytes, feed.chunk()))));
  st.add_bytes_read(bytes);
  record_host_link(st, host_link_of(st.device()), 1);
  st.exec(launch, prepare, exec_tag::sync);  // as access' prefetches: the host may wait on them
}

/// More managed memory than the GPU has free: a ballast allocation leaves `oversubscribe_free`
/// free, and a kernel reads `fraction` x that much managed memory that starts on the host.
void oversubscribe_case(case_state& st) {
  const int dev = st.device().ordinal;
  if (const auto why = tr::managed_unsupported(dev); !why.empty()) st.skip(why);
  const double fraction = static_cast<double>(st.get_int("percent_of_free")) / 100.0;
  const cudaStream_t s = st.stream();
  std::size_t free_b = 0, total_b = 0;
  MEMSCOPE_CUDA_CALL(cudaMemGetInfo(&free_b, &total_b));
  const std::size_t keep = free_beside_ballast(st);
  if (free_b < keep + (std::size_t{1} << 30))
    st.skip(fmt::format("less than {} of device memory free",
                        format_bytes(static_cast<double>(keep + (std::size_t{1} << 30)))));
  const auto bytes = static_cast<std::size_t>(fraction * static_cast<double>(keep)) / 4096 * 4096;
  device_buffer<std::uint8_t> d_dst(std::size_t{64} << 20);
  device_buffer<std::uint8_t> ballast(free_b - keep - d_dst.bytes());
  tr::managed_buffer m(bytes);
  const std::uint64_t seed = st.seed();
  tr::fill_pattern_host(m.data(), bytes, seed);
  // The kernel streams the managed buffer through one 64 MiB window of device memory: its own
  // footprint stays beside the ballast, and what it reads must still be right.
  const auto launch = [&](cudaStream_t main) {
    const std::size_t window = d_dst.bytes();
    for (std::size_t at = 0; at < bytes; at += window)
      tr::sm_copy(d_dst.data(), static_cast<char*>(m.data()) + at, std::min(window, bytes - at), main);
  };
  const auto prepare = [&](cudaStream_t st_) { tr::prefetch(m.data(), bytes, tr::host_location(), st_); };
  prepare(s);
  launch(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  // Where the pages went is the driver's business; what the GPU read must be the pattern.
  st.check(tr::verify_pattern(m.data(), bytes, seed, s, "managed memory after the kernel"));
  st.add_label("free", format_bytes(static_cast<double>(keep)));
  st.add_bytes_read(bytes);
  record_host_link(st, host_link_of(st.device()), 1);
  st.exec(launch, prepare);
}

/// Host data larger than the free device memory streamed through the GPU: a ballast leaves
/// `oversubscribe_free` free, the data is `percent_of_free` of that, and each chunk is handed
/// as it lands to a kernel doing `work` multiply-adds a word. `output`: the kernels write into
/// one chunk of device memory; or their output goes back to the host as it is made (as much
/// data again), brought back by the feed's own means (`host`) or written by the kernels
/// straight into host memory over the link (`host_mapped`). Prefetches of managed memory must
/// now evict the pages earlier kernels read; pinned copies through device buffers need no more
/// device memory than before.
void stream_case(case_state& st) {
  const int dev = st.device().ordinal;
  const feed_kind kind = feed_kind_of(st.get_string("feed"));
  const bool pinned = kind == feed_kind::pinned_copy;
  const std::string output = st.get_string("output");
  const bool copied_back = output == "host", mapped = output == "host_mapped", to_host = copied_back || mapped;
  if (const auto why = pinned ? std::string() : tr::managed_unsupported(dev); !why.empty()) st.skip(why);
  const double fraction = static_cast<double>(st.get_int("percent_of_free")) / 100.0;
  const cudaStream_t s = st.stream();
  const std::size_t keep = free_beside_ballast(st), page = managed_policy::page;
  const auto bytes = static_cast<std::size_t>(fraction * static_cast<double>(keep)) / page * page;
  // Everything but the host data is allocated before the ballast: what is left free is the managed pages'.
  chunk_feed feed(kind, dev, bytes, static_cast<int>(st.get_int("chunks")), static_cast<unsigned>(st.get_int("work")),
                  copied_back);
  const std::size_t chunk = feed.chunk();
  device_buffer<std::uint8_t> d_out(to_host ? 0 : std::min(bytes, chunk));
  std::size_t free_b = 0, total_b = 0;
  MEMSCOPE_CUDA_CALL(cudaMemGetInfo(&free_b, &total_b));
  if (free_b < keep + (std::size_t{1} << 30))
    st.skip(fmt::format("less than {} of device memory free",
                        format_bytes(static_cast<double>(keep + (std::size_t{1} << 30)))));
  device_buffer<std::uint8_t> ballast(free_b - keep);
  tr::managed_buffer m(pinned ? 0 : bytes), m_out(!pinned && to_host ? bytes : 0);
  tr::host_memory h_src(tr::host_kind::pinned, pinned ? bytes : 0),
      h_out(tr::host_kind::pinned, pinned && to_host ? bytes : 0);
  void* const from = pinned ? h_src.data() : m.data();
  void* const back = pinned ? h_out.data() : m_out.data();
  // Where the kernels write host memory directly: pinned memory's device address, or managed
  // pages that stay on the host (preferred location) and are mapped by the GPU (accessed-by).
  auto* const d_back = static_cast<std::uint8_t*>(pinned ? h_out.device_pointer() : m_out.data());
  if (!pinned && copied_back)
    if (const auto why = tr::discard_unsupported(m_out.data(), bytes, tr::gpu_location(dev), s); !why.empty())
      st.skip(why);
  if (!pinned && mapped) {
    tr::advise(m_out.data(), bytes, cudaMemAdviseSetPreferredLocation, tr::host_location());
    tr::advise(m_out.data(), bytes, cudaMemAdviseSetAccessedBy, tr::gpu_location(dev));
  }
  const std::uint64_t seed = st.seed();
  tr::fill_pattern_host(from, bytes, seed);
  if (to_host) tr::fill_pattern_host(back, bytes, ~seed);  // poisoned: every byte must come back
  const auto launch = [&](cudaStream_t main) {
    if (copied_back) feed.enqueue_round_trip(from, back, main);
    else if (mapped) feed.enqueue(from, main, [&](std::size_t at) { return d_back + at; });
    else feed.enqueue(from, main, [&](std::size_t) { return d_out.data(); });
  };
  const auto prepare = [&](cudaStream_t on) { feed.prepare(from, on); };
  prepare(s);
  feed.clear_checksum(s);
  launch(s);
  MEMSCOPE_CUDA_CALL(cudaStreamSynchronize(s));
  // The checksum covers every word the kernels read; the output is checked where it ended up:
  // all of it on the host, or the last chunk in device memory.
  st.check(feed.check_checksum(seed));
  if (to_host) {
    st.check(tr::verify_pattern_host(back, bytes, seed, "the output back on the host"));
  } else {
    const std::size_t last = (bytes - 1) / chunk * chunk;
    const std::vector<std::uint8_t> h_last = d_out.to_host();
    st.check(tr::verify_pattern_host(h_last.data(), bytes - last, seed, "the last chunk copied by its kernel", last));
  }
  st.add_label("free", format_bytes(static_cast<double>(keep)));
  st.add_label("chunk", format_bytes(static_cast<double>(std::min(bytes, chunk))));
  st.add_bytes_read(bytes);
  record_host_link(st, host_link_of(st.device()), 1);
  st.exec(launch, prepare, exec_tag::sync);
}

/// How many chunks a `prefetch_pipeline` row ran in: rows of older results carry no label and
/// always used 16.
std::string pipeline_chunks_of(const case_result& r) {
  const std::string n = r.label("chunks");
  return n.empty() ? "16" : n;
}

void access_findings(const present::suite_view& v, std::vector<std::string>& out) {
  const auto rows = v.rows(present::where("access"));
  const auto size = present::largest(rows, "bytes");
  std::map<std::string, const case_result*> at;
  for (const auto* r : v.rows(present::where("access", {{"bytes", size}}))) at[r->string_axis("mode")] = r;
  if (!at.count("pinned_copy")) return;
  const double ref = at["pinned_copy"]->gbps;
  std::string line =
      fmt::format("at {}: pinned cudaMemcpyAsync {:.1f} GB/s", format_bytes(static_cast<double>(size)), ref);
  for (const char* m : {"prefetch", "prefetch_then_read", "prefetch_pipeline", "fault", "preferred_gpu", "read_mostly",
                        "accessed_by", "to_host"})
    if (at.count(m)) line += fmt::format("; {} {:.1f} GB/s ({:.2f}x)", m, at[m]->gbps, at[m]->gbps / ref);
  out.push_back(line);
  if (at.count("prefetch_pipeline") && at.count("prefetch_then_read")) {
    // Overlap can hide at most the kernels; splitting the prefetch costs each chunk the
    // migration's fixed cost. The sign of the difference says which was larger here.
    const double piped = at["prefetch_pipeline"]->gbps, serial = at["prefetch_then_read"]->gbps;
    out.push_back(
        fmt::format("{} prefetched chunks each read by a kernel as it lands: {:.1f} GB/s against {:.1f} GB/s for one "
                    "prefetch then one kernel ({:.2f}x): {}",
                    pipeline_chunks_of(*at["prefetch_pipeline"]), piped, serial, piped / serial,
                    piped < serial ? "splitting the prefetch cost more than overlapping the kernels saved"
                                   : "overlapping the kernels saved more than splitting the prefetch cost"));
  }
}

/// The pipeline case's rows at its largest size for one feed and one kernel weight (`work`):
/// one piece then the kernels (chunks=1), the fastest count and the most chunks measured.
struct chunk_sweep {
  std::int64_t bytes = 0, work = 0;
  std::string feed;
  std::vector<const case_result*> rows;
  const case_result *one = nullptr, *best = nullptr, *most = nullptr;

  static std::int64_t chunks(const case_result& r) { return r.int_axis("chunks").value_or(0); }
  static std::string chunks_text(const case_result& r) {
    const auto n = chunks(r);
    return fmt::format("{} chunk{}", n, n == 1 ? "" : "s");
  }
  /// Rows measured before the kernels had work carry no `work` axis: they were copies; rows
  /// before the pinned feed carry no `feed`: they were prefetches.
  static std::int64_t work_of(const case_result& r) { return r.int_axis("work").value_or(0); }
  static std::string feed_of(const case_result& r) {
    const auto f = r.string_axis("feed");
    return f.empty() ? "prefetch" : f;
  }
  static bool pinned(const std::string& feed) { return feed == "pinned_copy"; }

  static std::int64_t largest_bytes(const present::suite_view& v) {
    return present::largest(v.rows(present::where("pipeline")), "bytes");
  }
  /// The kernel weights measured at the largest size, ascending.
  static std::vector<std::int64_t> works(const present::suite_view& v) {
    std::vector<std::int64_t> w;
    for (const auto* r : v.rows(present::where("pipeline", {{"bytes", largest_bytes(v)}})))
      if (std::find(w.begin(), w.end(), work_of(*r)) == w.end()) w.push_back(work_of(*r));
    std::sort(w.begin(), w.end());
    return w;
  }
  static std::optional<chunk_sweep> of(const present::suite_view& v, std::int64_t work,
                                       const std::string& feed = "prefetch") {
    chunk_sweep c;
    c.bytes = largest_bytes(v);
    c.work = work;
    c.feed = feed;
    for (const auto* r : v.rows(present::where("pipeline", {{"bytes", c.bytes}}))) {
      if (!r->timed || work_of(*r) != work || feed_of(*r) != feed) continue;
      const auto n = chunks(*r);
      c.rows.push_back(r);
      if (n == 1) c.one = r;
      if (!c.best || r->gbps > c.best->gbps) c.best = r;
      if (!c.most || n > chunks(*c.most)) c.most = r;
    }
    if (c.rows.empty()) return std::nullopt;
    return c;
  }
  /// What each piece beyond the first added, net of the kernels the overlap hid: the fixed
  /// cost of a prefetch (or a copy) where the kernels are copies (work 0), with little to hide.
  std::optional<double> seconds_per_chunk() const {
    if (work != 0 || !one || most == one) return std::nullopt;
    return (most->stats.median - one->stats.median) / static_cast<double>(chunks(*most) - 1);
  }
  /// Overlap's room and what the best count made of it. The transfer alone is access' row of
  /// the same bytes in the same document (its `prefetch`, or its `pinned_copy` for the pinned
  /// feed); the kernels alone are one piece then the kernels, less that. Overlap can hide at
  /// most the shorter of the two.
  struct overlap {
    double transfer_s = 0, kernels_s = 0, hideable_s = 0, hidden = 0;
  };
  std::optional<overlap> overlap_in(const present::suite_view& v) const {
    if (!one || !best) return std::nullopt;
    const std::string mode = pinned(feed) ? "pinned_copy" : "prefetch";
    const auto alone = v.rows(present::where("access", {{"mode", mode}, {"bytes", bytes}}));
    if (alone.empty()) return std::nullopt;
    overlap o;
    o.transfer_s = alone.front()->stats.median;
    o.kernels_s = one->stats.median - o.transfer_s;
    if (o.kernels_s <= 0) return std::nullopt;
    o.hideable_s = std::min(o.transfer_s, o.kernels_s);
    o.hidden = (one->stats.median - best->stats.median) / o.hideable_s;
    return o;
  }
  /// The chunk count a simple model calls best: n chunks take about the longer of the transfer
  /// and the kernels, plus the shorter / n (the first chunk's transfer or the last one's
  /// kernel, which nothing overlaps), plus (n - 1) x the fixed cost of a piece; that is least
  /// at n = sqrt(shorter / cost). How well it predicts the measured best: docs/tuning.md,
  /// "Managed pipeline".
  static double model_best_chunks(double hideable_s, double per_chunk_s) { return std::sqrt(hideable_s / per_chunk_s); }
  std::string moved_text() const {
    return pinned(feed) ? "copied from pinned memory (cudaMemcpyAsync into two device buffers in turn)" : "prefetched";
  }
  std::string piece_word() const { return pinned(feed) ? "copy" : "prefetch"; }
  std::string kernels_text() const {
    return work == 0 ? "a kernel copying it"
                     : fmt::format("a kernel doing {} multiply-adds on every word it copies", work);
  }
};

/// What each piece beyond the first added, or, where the sweep's most pieces took less time in
/// all than one (the overlap won back more than the pieces cost), that instead: a negative
/// cost per piece would read as nonsense.
std::string per_piece_text(const chunk_sweep& c, double per_s) {
  const auto n = chunk_sweep::chunks(*c.most);
  if (per_s >= 0)
    return fmt::format("each further {} added {:.0f} us ({} chunks against 1)", c.piece_word(), per_s * 1e6, n);
  return fmt::format(
      "{} chunks took {:.0f} us less than one in all: no cost of a further {} shows past what the overlap hid", n,
      -per_s * static_cast<double>(n - 1) * 1e6, c.piece_word());
}

void pipeline_findings(const present::suite_view& v, std::vector<std::string>& out) {
  for (const std::string feed : {"prefetch", "pinned_copy"}) {
    const auto copy = chunk_sweep::of(v, 0, feed);
    const auto per_chunk = copy ? copy->seconds_per_chunk() : std::nullopt;
    for (const auto work : chunk_sweep::works(v)) {
      const auto c = chunk_sweep::of(v, work, feed);
      if (!c) continue;
      std::string sweep;
      for (const auto* r : c->rows)
        sweep += fmt::format("{}{} ({}) {:.1f}", sweep.empty() ? "" : ", ", chunk_sweep::chunks(*r), r->label("chunk"),
                             r->gbps);
      std::string line =
          fmt::format("{} {} in N chunks, each handed as it lands to {}, GB/s: {}",
                      format_bytes(static_cast<double>(c->bytes)), c->moved_text(), c->kernels_text(), sweep);
      if (c->one && c->best != c->one)
        line += fmt::format("; best {} chunks, {:.2f}x one {} then the kernels", chunk_sweep::chunks(*c->best),
                            c->best->gbps / c->one->gbps, c->piece_word());
      else if (c->one) line += fmt::format("; one {} then the kernels was the fastest", c->piece_word());
      if (const auto per = c->seconds_per_chunk()) line += "; " + per_piece_text(*c, *per);
      if (const auto o = c->overlap_in(v)) {
        line += fmt::format(
            "; the {} alone {:.1f} ms, the kernels alone about {:.1f} ms: of the {:.1f} ms overlap could hide, "
            "the best count hid {:.0f}%",
            c->piece_word(), o->transfer_s * 1e3, o->kernels_s * 1e3, o->hideable_s * 1e3, o->hidden * 100);
        if (per_chunk && *per_chunk > 0)
          line +=
              fmt::format("; sqrt({:.1f} ms / {:.0f} us a {}) = {:.1f} chunks, the model's best", o->hideable_s * 1e3,
                          *per_chunk * 1e6, c->piece_word(), chunk_sweep::model_best_chunks(o->hideable_s, *per_chunk));
      }
      if (const auto managed = chunk_sweep::of(v, work);
          chunk_sweep::pinned(feed) && managed && managed->best && c->best)
        line += fmt::format("; against the best prefetch pipeline ({}, {:.1f} GB/s) {:.2f}x",
                            chunk_sweep::chunks_text(*managed->best), managed->best->gbps,
                            c->best->gbps / managed->best->gbps);
      out.push_back(line);
    }
  }
}

std::optional<present::fact_value> chunk_cost_fact(const present::suite_view& v, std::optional<double>) {
  const auto works = chunk_sweep::works(v);
  if (works.empty()) return std::nullopt;
  const auto copy = chunk_sweep::of(v, 0);
  if (!copy || !copy->one || !copy->seconds_per_chunk()) return std::nullopt;
  std::string text = fmt::format("{} of managed memory prefetched and copied in one piece {:.1f} GB/s",
                                 format_bytes(static_cast<double>(copy->bytes)), copy->one->gbps);
  for (const auto* r : copy->rows)
    if (r != copy->one)
      text += fmt::format(", in {} chunks of {} {:.1f} GB/s ({:.2f}x)", chunk_sweep::chunks(*r), r->label("chunk"),
                          r->gbps, r->gbps / copy->one->gbps);
  const double per = *copy->seconds_per_chunk();
  text += "; " + per_piece_text(*copy, per);
  // Where the kernels have work, the heaviest weight measured says what overlap can win back.
  const auto heavy = chunk_sweep::of(v, works.back());
  if (heavy && heavy->work > 0 && heavy->one && heavy->best) {
    const auto o = heavy->overlap_in(v);
    text += fmt::format("; with kernels doing {} multiply-adds a word", heavy->work);
    if (o)
      text += fmt::format(" (about {:.1f} ms on these bytes, the prefetch {:.1f} ms)", o->kernels_s * 1e3,
                          o->transfer_s * 1e3);
    text += heavy->best == heavy->one
                ? std::string(", one prefetch then the kernels was still the fastest")
                : fmt::format(", {} chunks ran {:.2f}x one prefetch then the kernels",
                              chunk_sweep::chunks(*heavy->best), heavy->best->gbps / heavy->one->gbps);
    if (o && per > 0)
      text +=
          fmt::format(", where the model sqrt(the shorter of the two / the cost of a prefetch) predicts {:.1f} chunks",
                      chunk_sweep::model_best_chunks(o->hideable_s, per));
  }
  // The same pipeline from pinned memory into two device buffers, the alternative to managed
  // memory: its best against the prefetch pipeline's best, at every kernel weight.
  std::string pinned;
  for (const auto work : works) {
    const auto p = chunk_sweep::of(v, work, "pinned_copy"), m = chunk_sweep::of(v, work);
    if (!p || !p->best || !m || !m->best) continue;
    pinned += fmt::format("{}{} multiply-adds a word: {} chunks {:.1f} GB/s, {:.2f}x the best prefetch pipeline",
                          pinned.empty() ? "" : "; ", work, chunk_sweep::chunks(*p->best), p->best->gbps,
                          p->best->gbps / m->best->gbps);
  }
  if (!pinned.empty()) text += "; double buffering from pinned memory instead, best at " + pinned;
  return present::fact_value{text, per, "", ""};
}

/// The stream case at each (chunks, work, output): the prefetched and the pinned row.
struct stream_point {
  std::int64_t chunks = 0, work = 0;
  std::string output;
  const case_result *prefetch = nullptr, *read_mostly = nullptr, *pinned = nullptr;

  /// Rows measured before the output could go back carry no `output`: it stayed on the device.
  static std::string output_of(const case_result& r) {
    const auto o = r.string_axis("output");
    return o.empty() ? "device" : o;
  }
  static bool on_device(const std::string& output) { return output == "device"; }
  static bool mapped(const std::string& output) { return output == "host_mapped"; }

  static std::vector<stream_point> of(const present::suite_view& v) {
    std::vector<stream_point> points;
    for (const auto* r : v.rows(present::where("stream"))) {
      const auto chunks = chunk_sweep::chunks(*r), work = chunk_sweep::work_of(*r);
      const auto output = output_of(*r);
      auto p = std::find_if(points.begin(), points.end(), [&](const stream_point& q) {
        return q.chunks == chunks && q.work == work && q.output == output;
      });
      if (p == points.end()) p = points.insert(points.end(), stream_point{chunks, work, output});
      const auto feed = chunk_sweep::feed_of(*r);
      (chunk_sweep::pinned(feed) ? p->pinned : feed == "prefetch_read_mostly" ? p->read_mostly : p->prefetch) = r;
    }
    return points;
  }

  /// The same chunks and work with the output left on the device, if measured.
  const stream_point* one_way(const std::vector<stream_point>& points) const {
    for (const auto& q : points)
      if (q.chunks == chunks && q.work == work && on_device(q.output)) return &q;
    return nullptr;
  }
};

/// Whether two rows are one process' measurements (a ratio of rows from two processes, a
/// resumed run or another board, would mix their conditions).
bool same_run(const case_result* a, const case_result* b) { return a && b && a->source == b->source; }

/// ", 0.93x the same with the output left on the device": a round trip against the same stream
/// one way, measured in the same process.
std::string against_one_way(const case_result* round_trip, const case_result* one_way) {
  if (!same_run(round_trip, one_way)) return {};
  return fmt::format(", {:.2f}x the same with the output left on the device", round_trip->gbps / one_way->gbps);
}

void stream_findings(const present::suite_view& v, std::vector<std::string>& out) {
  const auto points = stream_point::of(v);
  for (const auto& p : points) {
    const case_result* any = p.prefetch ? p.prefetch : p.read_mostly ? p.read_mostly : p.pinned;
    const bool back = !stream_point::on_device(p.output), mapped = stream_point::mapped(p.output);
    const stream_point* one_way = back ? p.one_way(points) : nullptr;
    std::string line = fmt::format(
        "{} streamed through {} of free device memory (a ballast holds the rest) in {} chunks of {}, each handed as it "
        "lands to "
        "a kernel doing {} multiply-adds a word{}:",
        format_bytes(static_cast<double>(any->bytes_read)), any->label("free"), p.chunks, any->label("chunk"), p.work,
        !back    ? ""
        : mapped ? ", which writes its output straight into host memory (GB/s of input)"
                 : ", its output brought back to the host as it is made (GB/s of input)");
    if (p.prefetch) {
      line += fmt::format(
          " {} {:.1f} GB/s",
          !back    ? "prefetched"
          : mapped ? "managed, prefetched in, the output into managed pages left on the host and mapped by the GPU"
                   : "managed, the output discarded, prefetched in and back",
          p.prefetch->gbps);
      line += against_one_way(p.prefetch, one_way ? one_way->prefetch : nullptr);
      // Within the free memory, from the same run: the pipeline case's best at this weight.
      if (const auto fit = chunk_sweep::of(v, p.work); !back && fit && same_run(fit->best, p.prefetch))
        line +=
            fmt::format(" (within the free memory {} in {} {:.1f} GB/s)", format_bytes(static_cast<double>(fit->bytes)),
                        chunk_sweep::chunks_text(*fit->best), fit->best->gbps);
    }
    if (p.read_mostly) {
      // Eviction drops the GPU's read-only copy of an input page instead of migrating the page back.
      line += fmt::format("{} the input advised read-mostly {:.1f} GB/s", p.prefetch ? ";" : "", p.read_mostly->gbps);
      if (same_run(p.read_mostly, p.prefetch))
        line += fmt::format(" ({:.2f}x the migrated input)", p.read_mostly->gbps / p.prefetch->gbps);
      line += against_one_way(p.read_mostly, one_way ? one_way->read_mostly : nullptr);
    }
    if (p.pinned) {
      line += fmt::format("{} copied from pinned memory through two device buffers{} {:.1f} GB/s",
                          p.prefetch || p.read_mostly ? ";" : "",
                          !back    ? ""
                          : mapped ? ", the output into mapped pinned memory"
                                   : " and back through two more",
                          p.pinned->gbps);
      line += against_one_way(p.pinned, one_way ? one_way->pinned : nullptr);
    }
    std::vector<std::string> against;
    if (same_run(p.pinned, p.prefetch))
      against.push_back(fmt::format("{:.2f}x the prefetches", p.pinned->gbps / p.prefetch->gbps));
    if (same_run(p.pinned, p.read_mostly))
      against.push_back(fmt::format("{:.2f}x the read-mostly ones", p.pinned->gbps / p.read_mostly->gbps));
    if (!against.empty()) line += fmt::format(" ({})", fmt::join(against, ", "));
    out.push_back(line);
  }
}

void oversubscription_findings(const present::suite_view& v, std::vector<std::string>& out) {
  const auto over_rows = v.rows(present::where("oversubscribe"));
  if (over_rows.empty()) return;
  std::string over;
  for (const auto* r : over_rows)
    over += fmt::format("{}{}% of the free memory: {:.1f} GB/s", over.empty() ? "" : "; ",
                        r->int_axis("percent_of_free").value_or(0), r->gbps);
  const std::string free = over_rows.front()->label("free");
  out.push_back("a kernel reading managed memory that starts on the host, with " + (free.empty() ? "?" : free) +
                " of device memory free: " + over);
}

std::optional<present::fact_value> migration_fact(const present::suite_view& v, std::optional<double> at) {
  const auto rows = v.rows(present::where("access"));
  present::fact_value f;
  const auto size = present::size_for_fact(rows, "bytes", at, f.nearest_note);
  std::map<std::string, const case_result*> m;
  for (const auto* r : v.rows(present::where("access", {{"bytes", size}}))) m[r->string_axis("mode")] = r;
  if (!m.count("pinned_copy") || !m.count("prefetch") || !m.count("fault")) return std::nullopt;
  const double ref = m["pinned_copy"]->gbps;
  f.text = fmt::format(
      "{} of managed memory from the host: prefetched {:.1f} GB/s ({:.2f}x a pinned copy), faulted in by a "
      "kernel {:.1f} GB/s ({:.2f}x){}",
      format_bytes(static_cast<double>(size)), m["prefetch"]->gbps, m["prefetch"]->gbps / ref, m["fault"]->gbps,
      m["fault"]->gbps / ref,
      m.count("prefetch_pipeline")
          ? fmt::format(", {} prefetched chunks each read by a kernel {:.1f} GB/s{}",
                        pipeline_chunks_of(*m["prefetch_pipeline"]), m["prefetch_pipeline"]->gbps,
                        m.count("prefetch_then_read")
                            ? fmt::format(" (one prefetch then one kernel {:.1f} GB/s)", m["prefetch_then_read"]->gbps)
                            : std::string())
          : std::string());
  f.value = m["prefetch"]->gbps / ref;
  return f;
}

std::optional<present::fact_value> oversubscription_fact(const present::suite_view& v, std::optional<double>) {
  std::string text;
  double worst = 0;
  for (const auto* r : v.rows(present::where("oversubscribe"))) {
    text += fmt::format("{}{}% of the free memory {:.1f} GB/s", text.empty() ? "" : ", ",
                        r->int_axis("percent_of_free").value_or(0), r->gbps);
    worst = worst > 0 ? std::min(worst, r->gbps) : r->gbps;
  }
  if (text.empty()) return std::nullopt;
  text = "a kernel faulting managed memory in: " + text;
  // Streamed in chunks instead, at the lightest kernels: the best of each feed, one way and
  // with the output brought back.
  const auto points = stream_point::of(v);
  const std::int64_t light =
      points.empty() ? 0 : std::min_element(points.begin(), points.end(), [](const auto& a, const auto& b) {
                             return a.work < b.work;
                           })->work;
  for (const std::string output : {"device", "host", "host_mapped"}) {
    const case_result *prefetch = nullptr, *read_mostly = nullptr, *pinned = nullptr;
    const auto keep_best = [](const case_result*& best, const case_result* r) {
      if (r && (!best || r->gbps > best->gbps)) best = r;
    };
    for (const auto& p : points) {
      if (p.work != light || p.output != output) continue;
      keep_best(prefetch, p.prefetch);
      keep_best(read_mostly, p.read_mostly);
      keep_best(pinned, p.pinned);
    }
    if (!prefetch && !read_mostly && !pinned) continue;
    const case_result* any = prefetch ? prefetch : read_mostly ? read_mostly : pinned;
    const bool back = !stream_point::on_device(output), mapped = stream_point::mapped(output);
    if (!back)
      text += fmt::format("; {} streamed through it in chunks ({} multiply-adds a word):",
                          format_bytes(static_cast<double>(any->bytes_read)), light);
    else
      text += mapped ? "; the kernels writing their output straight into host memory:"
                     : "; with the output brought back to the host as well:";
    if (prefetch)
      text += fmt::format(" {} {:.1f} GB/s ({})",
                          !back    ? "prefetched"
                          : mapped ? "managed (mapped output)"
                                   : "prefetched in and back",
                          prefetch->gbps, chunk_sweep::chunks_text(*prefetch));
    if (read_mostly)
      text += fmt::format("{} the input read-mostly {:.1f} GB/s ({})", prefetch ? "," : "", read_mostly->gbps,
                          chunk_sweep::chunks_text(*read_mostly));
    if (pinned)
      text += fmt::format("{} pinned through two device buffers{} {:.1f} GB/s ({})", prefetch || read_mostly ? "," : "",
                          !back    ? ""
                          : mapped ? " (mapped output)"
                                   : " and back through two more",
                          pinned->gbps, chunk_sweep::chunks_text(*pinned));
  }
  return present::fact_value{text, worst, "", ""};
}

}  // namespace

void register_managed(registry& reg) {
  suite s{reg, "managed", "cudaMallocManaged: faults, prefetch, hints, migration back, oversubscription"};
  s.add("access", access_case)
      .summary("managed pages on the host reached by the GPU, against a pinned copy of the same bytes")
      .axis(axis::strings(
          "mode", access_mode_names(),
          fmt::format("pinned cudaMemcpyAsync (reference); cudaMemPrefetchAsync; a prefetch then a kernel "
                      "reading the pages; up to {} prefetched chunks of at least {}, each read by a kernel as "
                      "it lands; a kernel faulting the pages in (plain, preferred location GPU, read-mostly); "
                      "a kernel reading host-resident pages mapped by accessed-by; the prefetch back to the host",
                      managed_policy::pipeline_chunks,
                      format_bytes(static_cast<double>(managed_policy::pipeline_min_chunk)))))
      .axis(axis::pow2("bytes", {20, 24, 28, 30}, "managed bytes")
                .with_quick({std::int64_t{1} << 26})
                .with_verify({std::int64_t{1}, std::int64_t{4099}, std::int64_t{1000003}, std::int64_t{1} << 24}))
      .baseline("mode", std::string("pinned_copy"), "vs_pinned_copy")
      .footprint([](const axis_point& p) { return static_cast<std::uint64_t>(p.get_int("bytes")) * 2; });
  s.add("pipeline", pipeline_case)
      .summary(
          "host data brought to the GPU in chunks, each handed as it lands to a kernel with `work` multiply-adds a "
          "word, against one piece then the same kernel (chunks=1): managed prefetches, and pinned copies into two "
          "device buffers in turn beside them")
      .axis(axis::strings(
          "feed", {"prefetch", "pinned_copy"},
          "how each chunk reaches the GPU: cudaMemPrefetchAsync of managed memory; cudaMemcpyAsync from pinned "
          "host memory into one of two device buffers (double buffering)"))
      .axis(axis::integers("chunks", {1, 2, 4, 8, 16, 64, 512}, "pieces the bytes are split into (1 GiB / 512 = 2 MiB)")
                .with_range(1, 4096)
                .with_quick({std::int64_t{1}, std::int64_t{16}})
                .with_verify({std::int64_t{1}, std::int64_t{3}, std::int64_t{16}}))
      .axis(axis::integers("work", {0, 256, 1024, 4096},
                           "multiply-adds on every 4-byte word the kernel copies (0: a copy; on an H200 the kernels "
                           "take about a third of the prefetch's time at 1024, longer than it at 4096)")
                .with_range(0, 65536)  // 0.6 s a launch a GiB on an H200 at the top: no point runs for hours
                .with_quick({std::int64_t{0}, std::int64_t{1024}})
                .with_verify({std::int64_t{0}, std::int64_t{7}}))
      .axis(axis::pow2("bytes", {30}, "bytes")
                .with_quick({std::int64_t{1} << 26})
                .with_verify({std::int64_t{1}, std::int64_t{4099}, std::int64_t{1000003}}))
      .baseline("chunks", std::int64_t{1}, "vs_one_chunk")
      .baseline("feed", std::string("prefetch"), "vs_prefetch")
      .footprint([](const axis_point& p) { return static_cast<std::uint64_t>(p.get_int("bytes")) * 2; });
  s.add("stream", stream_case)
      .summary(
          "host data past the free device memory (4 GiB beside a ballast; --quick 1 GiB) streamed through the GPU in "
          "chunks: "
          "managed prefetches, which must evict (the input migrated, or advised read-mostly), against pinned copies "
          "through two device buffers")
      .axis(
          axis::strings("feed", {"prefetch", "prefetch_read_mostly", "pinned_copy"},
                        "cudaMemPrefetchAsync of managed memory; the same with the input advised read-mostly (the GPU "
                        "gets read-only copies, which eviction drops rather than migrates back); cudaMemcpyAsync from "
                        "pinned host memory into one of two device buffers"))
      .axis(axis::integers("chunks", {16, 64}, "pieces the data is split into")
                .with_range(1, 4096)
                .with_quick({std::int64_t{16}})
                .with_verify({std::int64_t{3}, std::int64_t{64}}))
      .axis(axis::integers("work", {0, 1024}, "multiply-adds on every 4-byte word the kernel copies (as pipeline's)")
                .with_range(0, 65536)
                .with_quick({std::int64_t{0}})
                .with_verify({std::int64_t{7}}))
      .axis(axis::strings(
          "output", {"device", "host", "host_mapped"},
          "where the kernels' output goes: one chunk of device memory; back to the host as it is made "
          "(pinned: through two more device buffers and a copy back on a third stream; managed: managed "
          "memory, each chunk discarded and prefetched to the GPU beside its input, then prefetched back); "
          "written by the kernels straight into host memory over the link (pinned memory's device "
          "address; managed memory preferring the host, mapped by the GPU through accessed-by)"))
      .axis(axis::integers("percent_of_free", {150}, "data as a percentage of the free device memory")
                .with_range(10, 400))
      .baseline("feed", std::string("prefetch"), "vs_prefetch")
      .baseline("output", std::string("device"), "vs_output_on_device");
  s.add("oversubscribe", oversubscribe_case)
      .summary(
          "a kernel reads managed memory that starts on the host, with 4 GiB of device memory free beside a ballast "
          "(--quick: 1 GiB)")
      .axis(axis::integers("percent_of_free", {50, 150}, "managed bytes as a percentage of the free device memory")
                .with_verify({std::int64_t{150}}));

  s.chart(present::link_bars("Managed memory at {fixed}", present::label_axes({"mode"}),
                             present::axis_is("mode", "pinned_copy"), "pinned cudaMemcpyAsync", "access",
                             "GB/s (managed bytes / median time)"))
      .finding(access_findings);
  // Against one piece then the kernels, not GB/s: the kernel weights run at rates a few times
  // apart, and the question is what chunking did to each. One chart per feed.
  const auto chunk_chart = [](const std::string& title, const std::string& feed) {
    auto c =
        present::line_plot(title, present::label_axes({"work", "bytes"}), "chunks", present::metric_of("vs_one_chunk"),
                           "chunks", "against one piece then the kernels (chunks=1)", present::scale::log2);
    c.keep = [feed](const case_result& r) { return r.name == "pipeline" && chunk_sweep::feed_of(r) == feed; };
    return c;
  };
  s.chart(chunk_chart("Managed memory prefetched in chunks, each handed to a kernel as it lands", "prefetch"))
      .finding(pipeline_findings)
      .finding(oversubscription_findings)
      .finding(stream_findings);
  s.chart(chunk_chart("Pinned memory copied in chunks into two device buffers, each handed to a kernel as it lands",
                      "pinned_copy"));
  s.fact(advise::question::managed_migration, {"access"},
         "managed memory prefetched or faulted in, against a pinned copy", migration_fact);
  s.fact(
      advise::question::prefetch_chunks, {"pipeline", "access"},
      "managed memory prefetched in chunks, against one prefetch: the cost of each prefetch, and what overlap won back "
      "where the kernels had work",
      chunk_cost_fact);
  s.fact(advise::question::oversubscription, {"oversubscribe", "stream"},
         "a kernel reading more managed memory than the GPU has free", oversubscription_fact);
}

MEMSCOPE_REGISTER_SUITE(210, register_managed);

}  // namespace memscope::suites
