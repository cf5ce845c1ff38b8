#pragma once
// Sequencing reads from FASTA or FASTQ text, as the bases of every read one after another with
// where each read starts: the layout a GPU counter copies in one piece. Pure C++.
//
// What is accepted: FASTA ('>' headers; a read's sequence may span lines; a header with no
// sequence is an empty read) or FASTQ (four lines a record: '@' header, bases, '+', as many
// quality characters as bases), told apart by the first character that is not blank. Bases
// may be upper or lower case; N, IUPAC codes and gaps ('-', '.', '*') are kept and end every
// k-mer that would hold them (for_each_canonical skips such windows, as Jellyfish does).
// Line ends may be CRLF. What is refused, naming the line: any other byte in a sequence, a
// FASTQ record cut short or whose quality line does not match its bases, a file that is
// neither format. A FASTA file cut inside a read cannot be told from a shorter read.

#include <cstddef>
#include <istream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace memscope::kmer {

class read_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class read_format { fasta, fastq };

struct read_set {
  read_format format = read_format::fasta;
  std::string bases;                   // every read's bases, in file order
  std::vector<std::size_t> starts{0};  // read r is bases[starts[r], starts[r + 1])
  std::size_t reads() const { return starts.size() - 1; }
  std::string_view read(std::size_t r) const {
    return std::string_view(bases).substr(starts[r], starts[r + 1] - starts[r]);
  }
};

namespace detail {

inline void trim_line_end(std::string& line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
}

inline bool sequence_byte(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '-' || c == '.' || c == '*';
}

inline void append_bases(read_set& out, const std::string& line, const std::string& name, std::size_t line_no) {
  for (std::size_t i = 0; i < line.size(); ++i)
    if (!sequence_byte(line[i]))
      throw read_error(name + ":" + std::to_string(line_no) + ": byte " +
                       std::to_string(static_cast<unsigned char>(line[i])) + " at column " + std::to_string(i + 1) +
                       " is not a base (letters, '-', '.' or '*')");
  out.bases += line;
}

}  // namespace detail

/// Every read of `in`; `name` names the input in errors ("reads.fq:12: ...").
inline read_set parse_reads(std::istream& in, const std::string& name) {
  read_set out;
  std::string line;
  std::size_t line_no = 0;
  // The first line that is not blank decides the format.
  while (std::getline(in, line)) {
    ++line_no;
    detail::trim_line_end(line);
    if (!line.empty()) break;
  }
  if (line.empty()) return out;  // no reads at all
  if (line[0] == '>') {
    out.format = read_format::fasta;
    // Each header ends the read before it; the end of the input ends the last.
    while (std::getline(in, line)) {
      ++line_no;
      detail::trim_line_end(line);
      if (line.empty()) continue;
      if (line[0] == '>') {
        out.starts.push_back(out.bases.size());
        continue;
      }
      detail::append_bases(out, line, name, line_no);
    }
    out.starts.push_back(out.bases.size());
    return out;
  }
  if (line[0] != '@')
    throw read_error(name + ":" + std::to_string(line_no) +
                     ": neither FASTA ('>' header) nor FASTQ ('@' header): the file starts with '" +
                     line.substr(0, 20) + "'");
  out.format = read_format::fastq;
  while (true) {
    const std::size_t header_line = line_no;  // `line` holds this record's '@' header
    std::string bases, plus, quality;
    const auto next = [&](std::string& into, const char* what) {
      if (!std::getline(in, into))
        throw read_error(name + ":" + std::to_string(header_line) +
                         ": the FASTQ record starting here ends before its " + what + " (a truncated file?)");
      ++line_no;
      detail::trim_line_end(into);
    };
    next(bases, "bases");
    next(plus, "'+' line");
    if (plus.empty() || plus[0] != '+')
      throw read_error(name + ":" + std::to_string(line_no) + ": expected the FASTQ '+' line, found '" +
                       plus.substr(0, 20) + "'");
    next(quality, "quality line");
    if (quality.size() != bases.size())
      throw read_error(name + ":" + std::to_string(line_no) + ": " + std::to_string(quality.size()) +
                       " quality characters for " + std::to_string(bases.size()) + " bases (a truncated file?)");
    detail::append_bases(out, bases, name, header_line + 1);
    out.starts.push_back(out.bases.size());
    // The next record's header, past blank lines; the end of the input ends the reads.
    bool more = false;
    while (std::getline(in, line)) {
      ++line_no;
      detail::trim_line_end(line);
      if (line.empty()) continue;
      more = true;
      break;
    }
    if (!more) return out;
    if (line[0] != '@')
      throw read_error(name + ":" + std::to_string(line_no) + ": expected a FASTQ '@' header, found '" +
                       line.substr(0, 20) + "'");
  }
}

/// The separator joined_bases puts between reads: not a base, so no k-mer spans two reads.
inline constexpr char read_separator = '\n';

/// Every read's bases with read_separator between one read and the next: the text a GPU counter
/// reads in one piece (its windows that hold a separator are no k-mer).
inline std::string joined_bases(const read_set& reads) {
  std::string text;
  text.reserve(reads.bases.size() + reads.reads());
  for (std::size_t r = 0; r < reads.reads(); ++r) {
    if (r) text += read_separator;
    text += reads.read(r);
  }
  return text;
}

}  // namespace memscope::kmer
