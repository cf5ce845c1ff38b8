#pragma once
// Host memory on a chosen NUMA node: the nodes as sysfs describes them (/sys/devices/system/node),
// the node nearest a GPU (its PCI device's numa_node) and the farthest from it, memory bound
// to a node (mbind for memory memscope maps itself, the thread's policy for memory the driver
// allocates), and the node a page really landed on (move_pages). Linux system calls only, no
// libnuma: the static memscope binary needs nothing the driver host lacks. Pure C++; the sysfs
// root is a parameter, so tests feed it a fake tree.

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#if defined(__linux__)
#include <linux/mempolicy.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace memscope::transfer {

struct numa_node_info {
  int id = -1;
  bool cpus = false, memory = false;
  std::vector<int> distance;  // to every node in numa_topology::nodes, in that order
};

struct numa_topology {
  std::vector<numa_node_info> nodes;  // every online node
  const numa_node_info* find(int id) const {
    for (const auto& n : nodes)
      if (n.id == id) return &n;
    return nullptr;
  }
  /// Nodes a host buffer can sensibly live on: with CPUs and memory (on Grace Hopper the GPU's
  /// own memory is a node without CPUs).
  std::vector<int> host_nodes() const {
    std::vector<int> out;
    for (const auto& n : nodes)
      if (n.cpus && n.memory) out.push_back(n.id);
    return out;
  }
};

namespace detail {

/// "0-3,8,10-11" -> {0,1,2,3,8,10,11}; empty or malformed text -> {}.
inline std::vector<int> parse_id_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    if (part.empty() || part == "\n") continue;
    int a = 0, b = 0;
    char dash = 0;
    std::stringstream ps(part);
    if (!(ps >> a)) return {};
    if (ps >> dash) {
      if (dash != '-' || !(ps >> b) || b < a || b - a > 4096) return {};
    } else {
      b = a;
    }
    for (int i = a; i <= b; ++i) out.push_back(i);
  }
  return out;
}

inline std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace detail

inline numa_topology read_numa_topology(const std::string& sysfs_root = "/sys") {
  numa_topology t;
  const std::string base = sysfs_root + "/devices/system/node/";
  for (int id : detail::parse_id_list(detail::read_text(base + "online"))) {
    numa_node_info n;
    n.id = id;
    const std::string dir = base + "node" + std::to_string(id) + "/";
    n.cpus = !detail::parse_id_list(detail::read_text(dir + "cpulist")).empty();
    // "Node 0 MemTotal:       263856888 kB"
    std::istringstream mem(detail::read_text(dir + "meminfo"));
    std::string line;
    while (std::getline(mem, line))
      if (const auto at = line.find("MemTotal:"); at != std::string::npos) {
        std::istringstream v(line.substr(at + 9));
        long long kb = 0;
        n.memory = (v >> kb) && kb > 0;
      }
    std::istringstream d(detail::read_text(dir + "distance"));
    for (int x; d >> x;) n.distance.push_back(x);
    t.nodes.push_back(std::move(n));
  }
  return t;
}

/// A node chosen for a host buffer, or why none could be (node -1).
struct numa_choice {
  int node = -1;
  std::string why;
};

/// The host node nearest the GPU: the node sysfs names for it when that node has CPUs and
/// memory; else the host node at the least distance from it; else, where the GPU's node is not
/// known, the only host node if there is one.
inline numa_choice near_node(const numa_topology& t, int gpu_node) {
  const auto hosts = t.host_nodes();
  if (hosts.empty()) return {-1, "sysfs lists no NUMA node with CPUs and memory"};
  const auto* g = t.find(gpu_node);
  if (gpu_node < 0 || g == nullptr) {
    if (hosts.size() == 1) return {hosts.front(), "the host's only NUMA node"};
    return {-1, "the system does not say which NUMA node is nearest the GPU (numa_node is -1)"};
  }
  if (g->cpus && g->memory) return {gpu_node, "the GPU's NUMA node"};
  int best = -1, best_d = 0;
  for (std::size_t i = 0; i < t.nodes.size() && i < g->distance.size(); ++i)
    if (t.nodes[i].cpus && t.nodes[i].memory && (best < 0 || g->distance[i] < best_d)) {
      best = t.nodes[i].id;
      best_d = g->distance[i];
    }
  if (best < 0) return {-1, "the GPU's NUMA node has no CPUs and sysfs gives no distances"};
  return {best, "the host node nearest the GPU's node " + std::to_string(gpu_node)};
}

/// The host node farthest from `near` (by sysfs distance), or why there is none.
inline numa_choice far_node(const numa_topology& t, int near) {
  const auto* n = t.find(near);
  if (n == nullptr) return {-1, "the near node is not known"};
  int best = -1, best_d = -1;
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const auto& o = t.nodes[i];
    if (o.id == near || !o.cpus || !o.memory) continue;
    const int d = i < n->distance.size() ? n->distance[i] : 0;
    if (d > best_d) {
      best = o.id;
      best_d = d;
    }
  }
  if (best < 0) return {-1, "this host has one NUMA node with CPUs and memory: there is no far node"};
  return {best, "the host node farthest from node " + std::to_string(near)};
}

#if defined(__linux__)

namespace detail {
constexpr unsigned long numa_mask_bits = 1024;
struct node_mask {
  unsigned long words[numa_mask_bits / (8 * sizeof(unsigned long))] = {};
  explicit node_mask(int node) {
    words[node / (8 * sizeof(unsigned long))] |= 1ul << (node % (8 * sizeof(unsigned long)));
  }
};
inline std::string errno_text(int e) { return std::string(std::strerror(e)); }
}  // namespace detail

/// Binds the pages of [p, p + bytes) (page-aligned, memory mapped by the caller) to `node`;
/// pages not yet touched are allocated there when first touched. "" on success, else why.
inline std::string bind_range(void* p, std::size_t bytes, int node) {
  if (node < 0 || node >= static_cast<int>(detail::numa_mask_bits))
    return "NUMA node " + std::to_string(node) + " out of range";
  detail::node_mask m(node);
  if (syscall(SYS_mbind, p, bytes, MPOL_BIND, m.words, detail::numa_mask_bits, MPOL_MF_STRICT | MPOL_MF_MOVE) != 0)
    return "mbind to NUMA node " + std::to_string(node) + " failed: " + detail::errno_text(errno);
  return {};
}

/// The calling thread allocates from `node` while this lives (memory the driver allocates on
/// the thread's behalf, such as cudaHostAlloc), then its earlier policy is back.
class thread_numa_binding {
 public:
  explicit thread_numa_binding(int node) {
    if (node < 0 || node >= static_cast<int>(detail::numa_mask_bits)) {
      error_ = "NUMA node " + std::to_string(node) + " out of range";
      return;
    }
    if (syscall(SYS_get_mempolicy, &old_mode_, old_.words, detail::numa_mask_bits, nullptr, 0ul) != 0) {
      error_ = "get_mempolicy failed: " + detail::errno_text(errno);
      return;
    }
    detail::node_mask m(node);
    if (syscall(SYS_set_mempolicy, MPOL_BIND, m.words, detail::numa_mask_bits) != 0) {
      error_ = "set_mempolicy to NUMA node " + std::to_string(node) + " failed: " + detail::errno_text(errno);
      return;
    }
    active_ = true;
  }
  ~thread_numa_binding() {
    if (active_)
      (void)syscall(SYS_set_mempolicy, old_mode_, old_mode_ == MPOL_DEFAULT ? nullptr : old_.words,
                    detail::numa_mask_bits);
  }
  thread_numa_binding(const thread_numa_binding&) = delete;
  thread_numa_binding& operator=(const thread_numa_binding&) = delete;
  /// "" when bound, else why not.
  const std::string& error() const { return error_; }

 private:
  int old_mode_ = MPOL_DEFAULT;
  detail::node_mask old_{0};
  bool active_ = false;
  std::string error_;
};

/// The NUMA node holding the page at `p`; below 0 (minus an errno) where the page is not
/// present or the system will not say.
inline int node_of_page(const void* p) {
  void* pages[1] = {const_cast<void*>(p)};
  int status[1] = {-1};
  if (syscall(SYS_move_pages, 0, 1ul, pages, nullptr, status, 0) != 0) return -errno;
  return status[0];
}

#else

inline std::string bind_range(void*, std::size_t, int) { return "NUMA binding is implemented for Linux only"; }
class thread_numa_binding {
 public:
  explicit thread_numa_binding(int) {}
  const std::string& error() const { return error_; }

 private:
  std::string error_ = "NUMA binding is implemented for Linux only";
};
inline int node_of_page(const void*) { return -1; }

#endif

}  // namespace memscope::transfer
