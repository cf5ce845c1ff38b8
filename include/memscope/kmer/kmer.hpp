#pragma once
// k-mers of DNA as 2-bit codes (A=0, C=1, G=2, T=3) packed into 64 bits, most significant base
// first, so k <= 32; a k-mer and its reverse complement count as one, the smaller code
// (canonical, as `jellyfish count -C` and KMC count them). Host and device.

#include "memscope/core/host_device.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace memscope::kmer {

inline constexpr int max_k = 32;

/// 0-3 for A, C, G, T (either case); -1 for every other byte (N, IUPAC codes, gaps): such a
/// base ends every k-mer that would hold it, as Jellyfish skips them.
MEMSCOPE_HD int base_code(char c) {
  switch (c) {
    case 'A':
    case 'a':
      return 0;
    case 'C':
    case 'c':
      return 1;
    case 'G':
    case 'g':
      return 2;
    case 'T':
    case 't':
      return 3;
    default:
      return -1;
  }
}

/// The low 2k bits set.
MEMSCOPE_HD std::uint64_t kmer_mask(int k) { return k >= 32 ? ~std::uint64_t{0} : (std::uint64_t{1} << (2 * k)) - 1; }

/// The reverse complement of a k-mer code: bases in the other order, each complemented
/// (A<->T, C<->G is 3 - code).
MEMSCOPE_HD std::uint64_t reverse_complement(std::uint64_t code, int k) {
  std::uint64_t rc = 0;
  for (int i = 0; i < k; ++i) {
    rc = (rc << 2) | (3 - (code & 3));
    code >>= 2;
  }
  return rc;
}

MEMSCOPE_HD std::uint64_t canonical(std::uint64_t code, int k) {
  const std::uint64_t rc = reverse_complement(code, k);
  return rc < code ? rc : code;
}

/// The mark of a window that is no k-mer, in 32- or 64-bit codes: all bits set is never
/// canonical (all T's has the all-A's code, 0, as its canonical form), and for k < 16 (32-bit)
/// or k < 32 it lies outside [0, 4^k) as well, so histograms over [0, 4^k) leave it out.
template <class Code>
inline constexpr Code no_kmer = ~Code{0};

/// Windows of k bases in a text of n bytes.
MEMSCOPE_HD constexpr std::size_t text_windows(std::size_t n, int k) {
  return n >= static_cast<std::size_t>(k) ? n - static_cast<std::size_t>(k) + 1 : 0;
}

/// The widest k a code type holds.
template <class Code>
inline constexpr int max_k_for = static_cast<int>(sizeof(Code) * 4);

/// The canonical code of the k bytes at `bases`, or no_kmer<Code> where one is not A, C, G or T.
template <class Code>
MEMSCOPE_HD Code window_code(const char* bases, int k) {
  Code fwd = 0, rev = 0;
  for (int j = 0; j < k; ++j) {
    const int b = base_code(bases[j]);
    if (b < 0) return no_kmer<Code>;
    fwd = (fwd << 2) | static_cast<Code>(b);
    rev |= static_cast<Code>(3 - b) << (2 * j);  // base j is the reverse complement's (k-1-j)th
  }
  return fwd < rev ? fwd : rev;
}

/// The bases of a k-mer code, upper case.
inline std::string kmer_string(std::uint64_t code, int k) {
  std::string s(static_cast<std::size_t>(k), 'A');
  for (int i = k - 1; i >= 0; --i) {
    s[static_cast<std::size_t>(i)] = "ACGT"[code & 3];
    code >>= 2;
  }
  return s;
}

/// Calls emit(canonical code) for every k-mer of `bases` that holds only A, C, G and T (either
/// case), rolling both strands one base at a time; returns how many windows of k bases were
/// skipped because they held another byte.
template <class Emit>
std::uint64_t for_each_canonical(const char* bases, std::size_t n, int k, Emit&& emit) {
  const std::uint64_t mask = kmer_mask(k);
  const int shift = 2 * (k - 1);
  std::uint64_t fwd = 0, rev = 0, skipped = 0;
  int run = 0;  // valid bases ending here, up to k
  for (std::size_t i = 0; i < n; ++i) {
    const int b = base_code(bases[i]);
    if (b < 0) {
      run = 0;
    } else {
      fwd = ((fwd << 2) | static_cast<std::uint64_t>(b)) & mask;
      rev = (rev >> 2) | (static_cast<std::uint64_t>(3 - b) << shift);
      if (run < k) ++run;
    }
    if (i + 1 >= static_cast<std::size_t>(k)) {
      if (run == k) emit(fwd < rev ? fwd : rev);
      else ++skipped;
    }
  }
  return skipped;
}

}  // namespace memscope::kmer
