// The value kept between points (src/suites/last_kept): made once per key run, made again when
// the key changes, and nothing kept where making it throws.
#include "suites/last_kept.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

TEST(LastKept, MakesOncePerKeyAndAgainWhenItChanges) {
  memscope::suites::last_kept<std::string> kept;
  int made = 0;
  const auto make = [&](const char* v) {
    return [&made, v] {
      ++made;
      return std::string(v);
    };
  };
  EXPECT_EQ(kept.get("a", make("A")), "A");
  EXPECT_EQ(kept.get("a", make("other")), "A");
  EXPECT_EQ(made, 1);
  EXPECT_EQ(kept.get("b", make("B")), "B");
  EXPECT_EQ(kept.get("a", make("A again")), "A again");
  EXPECT_EQ(made, 3);
}

TEST(LastKept, AThrowingMakeKeepsNothing) {
  memscope::suites::last_kept<std::string> kept;
  EXPECT_EQ(kept.get("a", [] { return std::string("A"); }), "A");
  EXPECT_THROW(kept.get("b", []() -> std::string { throw std::runtime_error("skipped"); }), std::runtime_error);
  EXPECT_EQ(kept.get("a", [] { return std::string("made again"); }), "made again");
}
