#include "service/escape.h"

#include <string>

#include "gtest/gtest.h"
#include "synergy/quote.h"

namespace synergy::service {
namespace {

using namespace std::string_literals;

TEST(EscapeForDisplay, EscSequencesBecomeVisibleText) {
  EXPECT_EQ(EscapeForDisplay("a\x1b[31mred\x1b[0m"), "a\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(EscapeForDisplay("title\x1b]0;pwned\x07"), "title\\x1b]0;pwned\\x07");
}

TEST(EscapeForDisplay, NewlinesTabsAndCarriageReturnsUseTheirShortEscapes) {
  EXPECT_EQ(EscapeForDisplay("one\ntwo\tthree\rfour"), "one\\ntwo\\tthree\\rfour");
}

TEST(EscapeForDisplay, NulAndDelAreHexEscaped) {
  EXPECT_EQ(EscapeForDisplay("a\0b\x7f"s), "a\\x00b\\x7f");
}

TEST(EscapeForDisplay, C1ControlsBidiOverridesAndSeparatorsAreCodePointEscaped) {
  EXPECT_EQ(EscapeForDisplay("\xc2\x9b" "2J"), "\\u009b2J");              // U+009B CSI
  EXPECT_EQ(EscapeForDisplay("abc\xe2\x80\xae" "fed"), "abc\\u202efed");  // U+202E RIGHT-TO-LEFT OVERRIDE
  EXPECT_EQ(EscapeForDisplay("a\xe2\x81\xa6" "b"), "a\\u2066b");          // U+2066 LEFT-TO-RIGHT ISOLATE
  EXPECT_EQ(EscapeForDisplay("a\xe2\x80\xa8" "b"), "a\\u2028b");          // U+2028 LINE SEPARATOR
}

TEST(EscapeForDisplay, BytesOfInvalidUtf8AreHexEscapedOneByOne) {
  EXPECT_EQ(EscapeForDisplay("a\xff\x9b" "b"), "a\\xff\\x9bb");  // a lone 0x9B is CSI to 8-bit terminals
  EXPECT_EQ(EscapeForDisplay("\xc0\xaf"), "\\xc0\\xaf");          // overlong '/'
}

TEST(EscapeForDisplay, PrintableTextComesBackUnchanged) {
  const std::string text = "resnet18 h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 C:\\path 'quoted'";
  EXPECT_EQ(EscapeForDisplay(text), text);
}

TEST(EscapeForDisplay, MaxCharsCutsWholeCharactersAndMarksTheCut) {
  EXPECT_EQ(EscapeForDisplay("abcdef", 3), "abc...");
  EXPECT_EQ(EscapeForDisplay("abc", 3), "abc");
  EXPECT_EQ(EscapeForDisplay("\x1b\x1b\x1b", 2), "\\x1b\\x1b...");
  EXPECT_EQ(EscapeForDisplay("\xe6\x97\xa5\xe6\x9c\xac", 1), "\xe6\x97\xa5...");  // never half a character
}

TEST(IsValidUtf8, AcceptsWellFormedAndRefusesWhatProtobufRefuses) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("\xe6\x97\xa5\xf0\x9f\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("\xff"));
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));              // overlong
  EXPECT_FALSE(IsValidUtf8("\xe0\x80\xaf"));          // overlong, three bytes
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));          // a surrogate
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));      // above U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xe2\x82"));              // cut short
  EXPECT_FALSE(IsValidUtf8("\x80"));                  // a lone continuation byte
}

TEST(IsPrintableText, RefusesEveryControlCharacterAndAcceptsSpacesAndUnicode) {
  EXPECT_TRUE(IsPrintableText(""));
  EXPECT_TRUE(IsPrintableText("my job #3 (h\xc3\xa9llo)"));
  EXPECT_FALSE(IsPrintableText("a\tb"));
  EXPECT_FALSE(IsPrintableText("a\nb"));
  EXPECT_FALSE(IsPrintableText("a\0b"s));
  EXPECT_FALSE(IsPrintableText("\x1b[2J"));
  EXPECT_FALSE(IsPrintableText("a\x7f"));
  EXPECT_FALSE(IsPrintableText("\xc2\x85"));      // U+0085 NEXT LINE
  EXPECT_FALSE(IsPrintableText("\xe2\x80\xae"));  // U+202E
  EXPECT_FALSE(IsPrintableText("\xff"));
}

TEST(QuoteForMessage, AMegabyteValueIsCutTo64CharactersAndItsSizeGiven) {
  const std::string huge(1 << 20, 'x');
  const std::string quoted = QuoteForMessage(huge);
  EXPECT_EQ(quoted, "'" + std::string(64, 'x') + "'... (1048576 bytes)");
  EXPECT_EQ(QuoteForMessage("A B"), "'A B'");
  EXPECT_EQ(QuoteForMessage("A\x1b" "B"), "'A\\x1bB'");
}

// One escaper (synergy/quote.h) for the YAML and trace readers and the RPC
// validators: a value reads the same in every message.
TEST(QuoteValue, IsQuoteForMessageAndEscapesC1BidiAndInvalidUtf8Too) {
  for (const std::string& value :
       {"abc"s, "a\x1b[2J\n\t"s, "\xc2\x9b" "2J"s, "abc\xe2\x80\xae" "fed"s, "a\xff\x9b" "b"s,
        std::string(100, 'x'), "h\xc3\xa9llo"s}) {
    EXPECT_EQ(synergy::QuoteValue(value), QuoteForMessage(value)) << EscapeForDisplay(value);
  }
  // The readers' values used to pass bytes above 0x7f through as they were.
  EXPECT_EQ(synergy::QuoteValue("\xc2\x9b" "2J"), "'\\u009b2J'");
  EXPECT_EQ(synergy::QuoteValue("a\xff"), "'a\\xff'");
  // 64 characters, not bytes: a cut never halves one.
  std::string wide;
  for (int i = 0; i < 65; ++i) wide += "\xe6\x97\xa5";
  std::string kept;
  for (int i = 0; i < 64; ++i) kept += "\xe6\x97\xa5";
  EXPECT_EQ(synergy::QuoteValue(wide), "'" + kept + "'... (195 bytes)");
}

TEST(EscapeControls, SaysWhetherItCut) {
  bool cut = true;
  EXPECT_EQ(synergy::EscapeControls("a\nb", 0, &cut), "a\\nb");
  EXPECT_FALSE(cut);
  EXPECT_EQ(synergy::EscapeControls("a\nbc", 2, &cut), "a\\n");
  EXPECT_TRUE(cut);
}

}  // namespace
}  // namespace synergy::service
