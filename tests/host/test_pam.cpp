// Photographs read from PAM files (src/harness/pam): 8-bit RGB only, every bad header or
// length refused with the file's name.
#include "harness/pam.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

std::string pam(const std::string& header, std::size_t data_bytes) { return header + std::string(data_bytes, '\x7f'); }

std::string refusal(const std::string& bytes) {
  try {
    memscope::parse_pam(bytes, "photo.pam");
  } catch (const memscope::image_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Pam, ReadsRgbWithCommentsAndTupleType) {
  const auto img = memscope::parse_pam(
      pam("P7\n# a comment\nWIDTH 3\nHEIGHT 2\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n", 18), "photo.pam");
  EXPECT_EQ(img.width, 3u);
  EXPECT_EQ(img.height, 2u);
  EXPECT_EQ(img.pixels(), 6u);
  EXPECT_EQ(img.rgb.size(), 18u);
  EXPECT_EQ(img.rgb[17], 0x7f);
}

TEST(Pam, RefusesWhatItCannotRead) {
  const std::string ok = "WIDTH 3\nHEIGHT 2\nDEPTH 3\nMAXVAL 255\n";
  for (const auto& [bytes, says] : std::initializer_list<std::pair<std::string, std::string>>{
           {"P6\n3 2\n255\n", "not a PAM image"},
           {"", "not a PAM image"},
           {"P7\n" + ok, "ends before ENDHDR"},
           {pam("P7\nWIDTH 3\nDEPTH 3\nMAXVAL 255\nENDHDR\n", 18), "WIDTH and a HEIGHT"},
           {pam("P7\nWIDTH 0\nHEIGHT 2\nDEPTH 3\nMAXVAL 255\nENDHDR\n", 0), "WIDTH and a HEIGHT"},
           {pam("P7\nWIDTH x\nHEIGHT 2\nDEPTH 3\nMAXVAL 255\nENDHDR\n", 18), "bad WIDTH 'x'"},
           {pam("P7\nWIDTH -3\nHEIGHT 2\nDEPTH 3\nMAXVAL 255\nENDHDR\n", 18), "bad WIDTH"},
           {pam("P7\nWIDTH 3\nHEIGHT 2\nDEPTH 4\nMAXVAL 255\nENDHDR\n", 24), "DEPTH 4"},
           {pam("P7\nWIDTH 3\nHEIGHT 2\nDEPTH 3\nMAXVAL 65535\nENDHDR\n", 36), "MAXVAL 65535"},
           {pam("P7\nWIDTH 3\nHEIGHT 2\nCOLOURS 3\nENDHDR\n", 18), "unknown header line"},
           {pam("P7\n" + ok + "ENDHDR\n", 17), "(truncated?)"},
           {pam("P7\n" + ok + "ENDHDR\n", 19), "the file holds 19"},
           {pam("P7\nWIDTH 100000\nHEIGHT 100000\nDEPTH 3\nMAXVAL 255\nENDHDR\n", 0), "2^31 pixels"}}) {
    const std::string why = refusal(bytes);
    EXPECT_NE(why.find("photo.pam: "), std::string::npos) << why;
    EXPECT_NE(why.find(says), std::string::npos) << "wanted '" << says << "' in: " << why;
  }
}
