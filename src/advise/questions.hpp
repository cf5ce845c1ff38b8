#pragma once
// The questions the advisor asks of measured rows. Suites answer them by declaring facts of
// these names beside their cases (src/suites/); the advisor reads no row itself. `at` is the
// size a question is about where it has one.

namespace memscope::advise::question {

/// A dependent load from shared memory, in cycles.
inline constexpr const char* shared_load_latency = "shared_load_latency";
/// A warp reading one word: constant cache broadcast against a global load.
inline constexpr const char* uniform_read_cost = "uniform_read_cost";
/// A warp reading 32 different words from the constant cache against global memory.
inline constexpr const char* divergent_constant_read_cost = "divergent_constant_read_cost";
/// What the choice of a read-only coefficient source costs a bandwidth-bound kernel.
inline constexpr const char* coefficient_source_spread = "coefficient_source_spread";
/// Staging a block's neighbourhood in shared memory against leaning on L1.
inline constexpr const char* shared_tile_vs_l1 = "shared_tile_vs_l1";
/// A dependent load over `at` bytes of data, and over the largest working set measured.
inline constexpr const char* dependent_load_latency = "dependent_load_latency";
/// What an L2 persisting window bought a hot table streamed past by other traffic.
inline constexpr const char* l2_persisting_window = "l2_persisting_window";
/// A random gather through a texture object against plain loads.
inline constexpr const char* texture_gather = "texture_gather";
/// Random gather throughput from an L2-sized and a DRAM-sized table, __ldg against plain.
inline constexpr const char* random_gather = "random_gather";
/// Coalesced 16-byte reads streaming from DRAM.
inline constexpr const char* streaming_read = "streaming_read";
/// A block-wide reduction through shared memory against CUB and the global-memory halving.
inline constexpr const char* block_reduction = "block_reduction";
/// Counters written by the whole grid (a histogram of `at` bins): which strategy the measured
/// automatic choice took (tag: block, split, cluster, global) and its speed against CUB.
inline constexpr const char* grid_counters = "grid_counters";
/// The same at every measured counter count.
inline constexpr const char* grid_counters_by_size = "grid_counters_by_size";
/// Remote (DSMEM) atomics against a layout that keeps atomics on the SM.
inline constexpr const char* remote_atomics_cost = "remote_atomics_cost";
/// A dependent load from a peer block's shared memory against the block's own.
inline constexpr const char* remote_shared_latency = "remote_shared_latency";
/// How large a per-thread array, indexed by constants, stays in registers.
inline constexpr const char* register_array_limit = "register_array_limit";
/// A per-thread array of `at` bytes in local memory (run-time index) or shared memory, against registers.
inline constexpr const char* spill_cost = "spill_cost";
/// Registers per thread at each occupancy, and what the spills they force cost.
inline constexpr const char* registers_at_occupancy = "registers_at_occupancy";
/// Atomics at low and full contention, and what warp aggregation buys.
inline constexpr const char* atomic_contention = "atomic_contention";
/// Stores that start one element off a 32-byte sector against aligned ones.
inline constexpr const char* misaligned_store_cost = "misaligned_store_cost";

/// Host data to the GPU at `at` bytes: pinned against pageable memory, by the copy engine.
inline constexpr const char* host_transfer = "host_transfer";
/// A kernel reading mapped pinned host memory (zero-copy) against the copy engine.
inline constexpr const char* zero_copy = "zero_copy";
/// Both ways at once, one way by a kernel on mapped memory and the other by the copy engine,
/// against two copy engines.
inline constexpr const char* mixed_engines = "mixed_engines";
/// A kernel, an upload and a download on separate streams against one stream.
inline constexpr const char* copy_overlap = "copy_overlap";
/// Managed memory at `at` bytes: a prefetch and the page-fault path against a pinned copy.
inline constexpr const char* managed_migration = "managed_migration";
/// Managed memory prefetched in N chunks, each read as it lands, against one prefetch.
inline constexpr const char* prefetch_chunks = "prefetch_chunks";
/// A kernel reading more managed memory than the GPU has free.
inline constexpr const char* oversubscription = "oversubscription";
/// Another GPU's memory: copies with peer access, without it (staged), and by the SMs.
inline constexpr const char* peer_access = "peer_access";

}  // namespace memscope::advise::question
