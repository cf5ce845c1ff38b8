// A seeded mutation fuzzer over everything that reads results files: the reader, the upgrade
// hooks, findings, the HTML report, compare, advise and the text outputs, and the gzip layer in
// front of the reader. Every mutant of the
// bundled profile must either be refused with a results_error or flow through every consumer
// without another exception, a hang, non-finite figures on the page, or (under the sanitizer
// build in CI) undefined behaviour. MEMSCOPE_FUZZ_RUNS sets the number of mutants (default
// 1500), MEMSCOPE_FUZZ_SEED the first seed; a failure names the seed that reproduces it.

#include "advise/advisor.hpp"
#include "harness/gzip.hpp"
#include "harness/journal.hpp"
#include "harness/registry.hpp"
#include "harness/results.hpp"
#include "harness/text_output.hpp"
#include "report/bundled_profile.hpp"
#include "report/compare.hpp"
#include "report/findings.hpp"
#include "report/html_report.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

using namespace memscope;
using nlohmann::json;

namespace {

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

/// The profile's header with a spread of its rows (every suite), small enough to run thousands of times.
/// A NaN or infinity printed as a value in `html`: "nan", "inf" or "infinity" (signed or not)
/// standing alone, not part of a word (a histogram input is named nan_heavy, a
/// label "info"). The offending text, or "".
std::string printed_non_finite(const std::string& html) {
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (const char* token : {"nan", "inf"})
    for (std::size_t at = html.find(token); at != std::string::npos; at = html.find(token, at + 1)) {
      std::size_t begin = at;
      if (begin > 0 && (html[begin - 1] == '-' || html[begin - 1] == '+')) --begin;
      const bool alone_before = begin == 0 || !word(html[begin - 1]);
      std::size_t end = at + 3;
      if (token[0] == 'i' && html.compare(end, 5, "inity") == 0) end += 5;
      const bool alone_after = end == html.size() || !word(html[end]);
      if (alone_before && alone_after) return html.substr(begin > 20 ? begin - 20 : 0, end - begin + 40);
    }
  return "";
}

json seed_document() {
  auto j = json::parse(bundled_profile_json());
  json rows = json::array();
  const auto& all = j["results"];
  for (std::size_t i = 0; i < all.size(); i += 23) rows.push_back(all[i]);
  j["results"] = rows;
  return j;
}

/// A random node of the tree (objects and arrays walked down at random).
json* random_node(json& j, std::mt19937_64& rng) {
  json* n = &j;
  while ((n->is_object() || n->is_array()) && !n->empty() && rng() % 4 != 0) {
    const auto k = rng() % n->size();
    auto it = n->begin();
    std::advance(it, static_cast<long>(k));
    n = &*it;
  }
  return n;
}

void mutate_tree(json& j, std::mt19937_64& rng) {
  json* n = random_node(j, rng);
  static const json values[] = {nullptr,
                                -1,
                                0,
                                1,
                                1.5,
                                -1e-300,
                                1e30,
                                -1e30,
                                1e17,
                                1e308,
                                18446744073709551615ull,
                                -9223372036854775807ll,
                                "",
                                "1",
                                "x|y\n<b>\x1b[2J",
                                true,
                                json::array(),
                                json::object()};
  switch (rng() % 6) {
    case 0:  // replace with another value or type
      *n = values[rng() % (sizeof values / sizeof values[0])];
      break;
    case 1:  // delete a member or an element
      if (n->is_object() && !n->empty()) {
        auto it = n->begin();
        std::advance(it, static_cast<long>(rng() % n->size()));
        n->erase(it);
      } else if (n->is_array() && !n->empty()) {
        n->erase(n->begin() + static_cast<long>(rng() % n->size()));
      }
      break;
    case 2:  // duplicate an element
      if (n->is_array() && !n->empty()) n->push_back((*n)[rng() % n->size()]);
      break;
    case 3:  // scale a number
      if (n->is_number()) *n = n->get<double>() * (rng() % 2 ? -1.0 : 1e6);
      break;
    case 4:  // an unexpected member
      if (n->is_object()) (*n)["extra"] = values[rng() % (sizeof values / sizeof values[0])];
      break;
    default:  // the same row twice, or one row's axes in another
      if (j.contains("results") && j["results"].is_array() && j["results"].size() > 1) {
        auto& r = j["results"];
        r[rng() % r.size()] = r[rng() % r.size()];
      }
  }
}

/// Every consumer, as the CLI would drive it. Returns "" or what went wrong.
std::string consume(const json& j) {
  results_doc doc;
  try {
    doc = results_from_json(j, "fuzz");
  } catch (const results_error&) {
    return "";  // refused, as it should be for a broken document
  }
  const auto& reg = builtin_registry();
  upgrade(doc, reg);
  const auto html = report::render_html(doc, reg);
  if (const auto bad = printed_non_finite(html); !bad.empty()) return "the page shows " + bad;
  for (const auto& f : report::findings(doc, reg))
    if (f.text.find("nan") != std::string::npos && f.text.find("nanos") == std::string::npos)
      return "finding: " + f.text;
  std::ostringstream text;
  print_table(doc, text);
  write_markdown(doc, text, {});
  write_csv(doc, text);
  try {
    const auto c = report::compare(doc, doc, builtin_registry());
    report::print(c, doc, doc, text);
    if (!report::regressions(c, 5).empty()) return "a file compared with itself regressed";
  } catch (const usage_error&) {
  } catch (const results_error&) {}
  try {  // merged with itself, the later run's rows replacing the earlier's
    merge_options opt;
    opt.replace = true;
    const auto merged = merge({doc, doc}, opt);
    if (merged.results.size() > doc.results.size()) return "a merge with itself grew";
  } catch (const results_error&) {}
  const std::pair<advise::mutability, advise::sharing> questions[] = {
      {advise::mutability::read_only, advise::sharing::unknown},
      {advise::mutability::written, advise::sharing::grid},
      {advise::mutability::written, advise::sharing::block},
      {advise::mutability::written, advise::sharing::thread}};
  for (const auto& [m, s] : questions)
    for (std::uint64_t bytes : {std::uint64_t{16}, std::uint64_t{4096}, std::uint64_t{1} << 28}) {
      advise::query q;
      q.bytes = bytes;
      q.mut = m;
      q.share = s;
      q.access = advise::warp_access::irregular;
      const auto a = advise::advise(q, &doc, reg);
      for (const auto& e : a.evidence)
        if (e.find("nan") != std::string::npos) return "advice: " + e;
    }
  return "";
}

}  // namespace

TEST(Fuzz, ANonFiniteValueIsFoundButNotAWordThatStartsLikeOne) {
  EXPECT_EQ(printed_non_finite("<title>nan_heavy: 256, 1.069</title><text>info</text>"), "");
  EXPECT_NE(printed_non_finite("<text x=\"12\">nan</text>"), "");
  EXPECT_NE(printed_non_finite("<circle cy=\"-inf\"/>"), "");
  EXPECT_NE(printed_non_finite("speedup: infinity"), "");
  EXPECT_NE(printed_non_finite("<td>nan</td>"), "");
}

TEST(Fuzz, MutatedProfilesAreRefusedOrReadRight) {
  if (!*bundled_profile_json()) GTEST_SKIP() << "no profile bundled in this build";
  const auto base = seed_document();
  ASSERT_EQ(consume(base), "");
  const auto runs = env_or("MEMSCOPE_FUZZ_RUNS", 1500), first = env_or("MEMSCOPE_FUZZ_SEED", 20261130);
  std::size_t refused = 0;
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t i = 0; i < runs; ++i) {
    const auto seed = first + i;
    std::mt19937_64 rng(seed);
    json j = base;
    const auto mutations = 1 + rng() % 3;
    for (std::uint64_t m = 0; m < mutations; ++m) mutate_tree(j, rng);
    // One mutant in eight is also damaged as text: cut short, or something after it.
    if (rng() % 8 == 0) {
      std::string text = j.dump();
      if (rng() % 2) text.resize(rng() % text.size());
      else text += rng() % 2 ? " x" : text;
      try {
        j = json::parse(text);
      } catch (const json::exception&) {
        ++refused;
        continue;
      }
    }
    const auto t0 = std::chrono::steady_clock::now();
    std::string problem;
    try {
      problem = consume(j);
      try {
        results_from_json(j, "fuzz");
      } catch (const results_error&) {
        ++refused;
      }
    } catch (const std::exception& e) {
      problem = std::string("unexpected exception: ") + e.what();
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(problem, "") << "MEMSCOPE_FUZZ_SEED=" << seed << " MEMSCOPE_FUZZ_RUNS=1";
    ASSERT_LT(secs, 10.0) << "a mutant took " << secs << " s (a hang?): MEMSCOPE_FUZZ_SEED=" << seed;
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("fuzz: %llu mutants from seed %llu, %zu refused, %zu read through every consumer, %.1f s\n",
              static_cast<unsigned long long>(runs), static_cast<unsigned long long>(first), refused,
              static_cast<std::size_t>(runs) - refused, total);
}

TEST(Fuzz, DamagedCompressedProfilesAreRefusedOrInflatedWhole) {
  if (!*bundled_profile_json()) GTEST_SKIP() << "no profile bundled in this build";
  const std::string text = seed_document().dump(2);
  const std::string packed = gzip(text);
  const auto runs = env_or("MEMSCOPE_FUZZ_RUNS", 1500), first = env_or("MEMSCOPE_FUZZ_SEED", 20261130);
  std::size_t refused = 0;
  for (std::uint64_t i = 0; i < runs; ++i) {
    const auto seed = first + i;
    std::mt19937_64 rng(seed);
    std::string bytes = packed;
    const auto damages = 1 + rng() % 3;
    for (std::uint64_t d = 0; d < damages && !bytes.empty(); ++d) {
      const auto at = rng() % bytes.size();
      switch (rng() % 5) {
        case 0:
          bytes[at] = static_cast<char>(bytes[at] ^ (1 << (rng() % 8)));
          break;
        case 1:
          bytes[at] = static_cast<char>(rng());
          break;
        case 2:
          bytes.resize(at);
          break;
        case 3:
          bytes.insert(at, 1, static_cast<char>(rng()));
          break;
        default:
          bytes += rng() % 2 ? std::string("x") : packed;
      }
    }
    std::string problem;
    try {
      // The header's own fields (time, system, flags that name nothing) may change and still
      // read; the data and the trailer are checked by the CRC and the length.
      if (gunzip(bytes, text.size()) != text) problem = "a damaged stream inflated to other text";
    } catch (const gzip_error&) {
      ++refused;
    } catch (const std::exception& e) {
      problem = std::string("unexpected exception: ") + e.what();
    }
    ASSERT_EQ(problem, "") << "MEMSCOPE_FUZZ_SEED=" << seed << " MEMSCOPE_FUZZ_RUNS=1";
  }
  std::printf("fuzz: %llu damaged gzip streams from seed %llu, %zu refused, %zu inflated to the original\n",
              static_cast<unsigned long long>(runs), static_cast<unsigned long long>(first), refused,
              static_cast<std::size_t>(runs) - refused);
}

// Journals as --resume meets them: a run's journal with lines mutated as JSON or damaged as
// text must be refused with a journal_error or read into a document, never crash or hang.
TEST(Fuzz, MutatedJournalsAreRefusedOrRead) {
  if (!*bundled_profile_json()) GTEST_SKIP() << "no profile bundled in this build";
  const auto doc = results_from_json(seed_document(), "seed");
  const std::string path = ::testing::TempDir() + "fuzz.journal";
  {
    journal_args args;
    args.patterns = {"*"};
    journal_writer w(path, args, doc.device, "memscope run '*'");
    w.segment(doc);
    for (const auto& r : doc.results) w.row(r);
  }
  std::vector<std::string> lines;
  {
    std::ifstream in(path);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  ASSERT_GT(lines.size(), 3u);
  const auto runs = env_or("MEMSCOPE_FUZZ_RUNS", 1500) / 3, first = env_or("MEMSCOPE_FUZZ_SEED", 20261130);
  std::size_t refused = 0;
  for (std::uint64_t i = 0; i < runs; ++i) {
    const auto seed = first + i;
    std::mt19937_64 rng(seed);
    auto mutant = lines;
    for (std::uint64_t m = 0, n = 1 + rng() % 3; m < n; ++m) {
      auto& line = mutant[rng() % mutant.size()];
      switch (rng() % 4) {
        case 0:
        case 1: {  // a JSON mutation of one line (one an earlier damage left whole)
          json j = json::parse(line, nullptr, false);
          if (j.is_discarded()) break;
          mutate_tree(j, rng);
          line = j.dump();
          break;
        }
        case 2:  // cut short
          line.resize(rng() % (line.size() + 1));
          break;
        default:  // a line twice, or two lines swapped
          if (rng() % 2) mutant.push_back(line);
          else std::swap(line, mutant[rng() % mutant.size()]);
      }
    }
    {
      std::ofstream out(path, std::ios::trunc);
      for (const auto& l : mutant) out << l << '\n';
      if (rng() % 8 == 0) out << "{\"cut";  // a last line without its end
    }
    std::string problem;
    try {
      const auto jc = read_journal(path);
      results_doc header = doc;
      header.results.clear();
      (void)journal_document(jc, header);
    } catch (const journal_error&) {
      ++refused;
    } catch (const results_error&) {
      ++refused;
    } catch (const std::exception& e) {
      problem = std::string("unexpected exception: ") + e.what();
    }
    ASSERT_EQ(problem, "") << "MEMSCOPE_FUZZ_SEED=" << seed << " (journal)";
  }
  std::printf("fuzz: %llu mutated journals from seed %llu, %zu refused, %zu read\n",
              static_cast<unsigned long long>(runs), static_cast<unsigned long long>(first), refused,
              static_cast<std::size_t>(runs) - refused);
}
