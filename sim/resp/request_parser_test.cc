#include "sim/resp/request_parser.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "sim/resp/split_args.h"
#include "sim/resp/writer.h"

namespace lockstep::resp {
namespace {

using Transcript = std::vector<std::string>;

// Runs the parser over `input` fed in pieces cut at `cuts` and records every outcome:
// "R:arg|arg" for a request, "E:<error>" for a protocol error, "L" for the query limit.
Transcript run(std::string_view input, std::vector<size_t> cuts = {},
               RequestLimits limits = RequestLimits()) {
  RequestParser parser(limits);
  Transcript out;
  cuts.push_back(input.size());
  size_t from = 0;
  for (size_t cut : cuts) {
    cut = std::min(std::max(cut, from), input.size());
    parser.feed(input.substr(from, cut - from));
    from = cut;
    while (true) {
      const ParseStatus s = parser.next();
      if (s == ParseStatus::kNeedMore) break;
      if (s == ParseStatus::kProtocolError) return out.push_back("E:" + parser.error()), out;
      if (s == ParseStatus::kQueryLimit) return out.push_back("L"), out;
      std::string r = "R:";
      for (size_t i = 0; i < parser.argv().size(); i++) r += (i ? "|" : "") + parser.argv()[i];
      out.push_back(r);
    }
  }
  return out;
}

const std::string kErr = "E:ERR Protocol error: ";

// Each case below was checked byte for byte against redis-server 7.0.15.
TEST(RequestParser, MatchesRedisOnMalformedMultibulk) {
  EXPECT_EQ(run("*x\r\n"), Transcript{kErr + "invalid multibulk length"});
  EXPECT_EQ(run("*\r\n"), Transcript{kErr + "invalid multibulk length"});
  EXPECT_EQ(run("*01\r\n"), Transcript{kErr + "invalid multibulk length"});
  EXPECT_EQ(run("*-0\r\n"), Transcript{kErr + "invalid multibulk length"});
  EXPECT_EQ(run("*1 \r\n$4\r\nPING\r\n"), Transcript{kErr + "invalid multibulk length"});
  EXPECT_EQ(run("*2147483648\r\n"), Transcript{kErr + "invalid multibulk length"});
  EXPECT_EQ(run("*1\r\nx\r\n"), Transcript{kErr + "expected '$', got 'x'"});
  EXPECT_EQ(run("*1\r\n\r\n"), Transcript{kErr + "expected '$', got ' '"});
  EXPECT_EQ(run("*1\r\n\n\r\n"), Transcript{kErr + "expected '$', got ' '"});
  EXPECT_EQ(run("*1\r\n$x\r\n"), Transcript{kErr + "invalid bulk length"});
  EXPECT_EQ(run("*1\r\n$-1\r\n"), Transcript{kErr + "invalid bulk length"});
  EXPECT_EQ(run("*1\r\n$4 \r\nPING\r\n"), Transcript{kErr + "invalid bulk length"});
  EXPECT_EQ(run("*1\r\n$+4\r\nPING\r\n"), Transcript{kErr + "invalid bulk length"});
  EXPECT_EQ(run("*2\r\n$4\r\necho\r\n$01\r\na\r\n"), Transcript{kErr + "invalid bulk length"});
  EXPECT_EQ(run("*1\r\n$536870913\r\n"), Transcript{kErr + "invalid bulk length"});
}

TEST(RequestParser, MatchesRedisOnOddButValidInput) {
  EXPECT_EQ(run("*-1\r\nPING\r\n"), Transcript{"R:PING"});
  EXPECT_EQ(run("*0\r\nPING\r\n"), Transcript{"R:PING"});
  EXPECT_EQ(run("*2147483647\r\n"), Transcript{});
  EXPECT_EQ(run("*1\r\n$536870912\r\n"), Transcript{});
  // The two bytes after a bulk are skipped unchecked, as Redis does.
  EXPECT_EQ(run("*1\r\n$4\r\nPINGxxPING\r\n"), (Transcript{"R:PING", "R:PING"}));
  EXPECT_EQ(run("*1\r\n$4\r\nPING\n\n"), Transcript{"R:PING"});
  EXPECT_EQ(run("$1\r\n"), Transcript{"R:$1"});
  EXPECT_EQ(run("\r\n\n   \r\nPING\r\n"), Transcript{"R:PING"});
  EXPECT_EQ(run("echo \"\\x41\\n\"\r\n"), Transcript{"R:echo|A\n"});
  EXPECT_EQ(run("PING 'a'\r\n"), Transcript{"R:PING|a"});
  EXPECT_EQ(run("*1\r\n$0\r\n\r\n"), Transcript{"R:"});
}

TEST(RequestParser, ProcessesRequestsBeforeAnErrorThenStops) {
  EXPECT_EQ(run("PING\r\n*x\r\nPING\r\n"), (Transcript{"R:PING", kErr + "invalid multibulk length"}));
  EXPECT_EQ(run("PING \"a\r\n"), Transcript{kErr + "unbalanced quotes in request"});
  EXPECT_EQ(run("PING \"a\"b\r\n"), Transcript{kErr + "unbalanced quotes in request"});
}

TEST(RequestParser, RefusesOverlongLines) {
  EXPECT_EQ(run(std::string(70000, 'x')), Transcript{kErr + "too big inline request"});
  EXPECT_EQ(run("*" + std::string(70000, '1')), Transcript{kErr + "too big mbulk count string"});
  EXPECT_EQ(run("*1\r\n$" + std::string(70000, '1')),
            Transcript{kErr + "too big bulk count string"});
  // A NUL hides the line end from Redis (it searches with strchr): the line never completes.
  EXPECT_EQ(run(std::string("PING\0\r\n", 7)), Transcript{});
  EXPECT_EQ(run(std::string("PING\0", 5) + std::string(70000, '\n')),
            Transcript{kErr + "too big inline request"});
}

// Redis judges a long line by what has arrived when it looks: read in 16 KiB pieces (as Redis
// and `lockstep serve` read), a 100,000-byte line is refused once 64 KiB are buffered without
// its end; handed over at once, its end is there and it is accepted.
TEST(RequestParser, RedisLineLimitDependsOnWhatHasArrived) {
  const std::string line = "ECHO " + std::string(100000, 'a') + "\r\n";
  std::vector<size_t> cuts;
  for (size_t at = 16384; at < line.size(); at += 16384) cuts.push_back(at);
  EXPECT_EQ(run(line, cuts), Transcript{kErr + "too big inline request"});
  EXPECT_EQ(run(line).size(), 1u);
  EXPECT_EQ(run(line)[0].substr(0, 7), "R:ECHO|");
}

TEST(RequestParser, StrictLineLimitIgnoresSplits) {
  RequestLimits strict;
  strict.line_limit = LineLimit::kStrict;
  // A line of exactly 64 KiB is still fine; one byte more is not, wherever the bytes split.
  EXPECT_EQ(run("ECHO " + std::string(65536 - 5, 'a') + "\n", {}, strict).size(), 1u);
  EXPECT_EQ(run("ECHO " + std::string(65536 - 4, 'a') + "\n", {}, strict),
            Transcript{kErr + "too big inline request"});
  EXPECT_EQ(run("*" + std::string(70000, '1') + "\r\n", {}, strict),
            Transcript{kErr + "too big mbulk count string"});
}

TEST(RequestParser, QueryBufferLimitClosesSilently) {
  RequestLimits limits;
  limits.max_query_bytes = 200;
  EXPECT_EQ(run("*1\r\n$300\r\n" + std::string(250, 'a'), {}, limits), Transcript{"L"});
  // 50 bytes, 32 of overhead and one argument's vector slot counted thrice (96 bytes) fit.
  EXPECT_EQ(run("*1\r\n$50\r\n" + std::string(50, 'a') + "\r\n", {}, limits),
            Transcript{"R:" + std::string(50, 'a')});
}

// Issue 10: many empty arguments cost memory in argument objects, not in bytes: the limit counts
// the argument vector, so a request of a million empty arguments is refused under 16 MiB while
// its bytes (6 MB) alone would fit.
TEST(RequestParser, ManyEmptyArgumentsCountAgainstTheQueryLimit) {
  RequestLimits limits;
  limits.max_query_bytes = 16 << 20;
  std::string request = "*1000000\r\n";
  for (int i = 0; i < 1000000; i++) request += "$0\r\n\r\n";
  RequestParser parser(limits);
  parser.feed(request);
  EXPECT_EQ(parser.next(), ParseStatus::kQueryLimit);
  // The same request with room for its vector parses.
  limits.max_query_bytes = 256 << 20;
  RequestParser roomy(limits);
  roomy.feed(request);
  ASSERT_EQ(roomy.next(), ParseStatus::kRequest);
  EXPECT_EQ(roomy.argv().size(), 1000000u);
}

TEST(RequestParser, ConfiguredLimitsGiveRedisErrors) {
  RequestLimits limits;
  limits.max_bulk_bytes = 10;
  limits.max_multibulk_count = 3;
  EXPECT_EQ(run("*1\r\n$11\r\n", {}, limits), Transcript{kErr + "invalid bulk length"});
  EXPECT_EQ(run("*4\r\n", {}, limits), Transcript{kErr + "invalid multibulk length"});
}

TEST(RequestParser, SlowLongLineIsLinear) {
  // One byte at a time over a 60 KiB line: must finish quickly (the scan resumes).
  RequestParser parser;
  const std::string line = "ECHO " + std::string(60000, 'a') + "\r\n";
  int requests = 0;
  for (char c : line) {
    parser.feed(std::string_view(&c, 1));
    if (parser.next() == ParseStatus::kRequest) requests++;
  }
  EXPECT_EQ(requests, 1);
  EXPECT_EQ(parser.argv().size(), 2u);
}

// Arbitrary argument lists, encoded as multibulk or (when quotable) inline requests, come back
// unchanged however the byte stream is cut.
RC_GTEST_PROP(RequestParser, RoundTripsUnderArbitrarySplits, ()) {
  const auto requests = *rc::gen::container<std::vector<std::vector<std::string>>>(
      rc::gen::nonEmpty(rc::gen::arbitrary<std::vector<std::string>>()));
  std::string stream;
  Transcript expected;
  for (const auto& argv : requests) {
    if (*rc::gen::arbitrary<bool>()) {
      std::vector<std::string_view> views(argv.begin(), argv.end());
      append_request(views, stream);
    } else {
      for (const auto& a : argv) stream += quote_inline_arg(a) + " ";
      stream += "\r\n";
    }
    std::string r = "R:";
    for (size_t i = 0; i < argv.size(); i++) r += (i ? "|" : "") + argv[i];
    expected.push_back(r);
  }
  const auto cuts = *rc::gen::container<std::vector<size_t>>(
      rc::gen::inRange<size_t>(0, stream.size() + 1));
  std::vector<size_t> sorted = cuts;
  std::sort(sorted.begin(), sorted.end());
  RC_ASSERT(run(stream, sorted) == expected);
}

// Whatever the bytes, the outcome does not depend on how they were split.
RC_GTEST_PROP(RequestParser, OutcomeIndependentOfSplits, ()) {
  const auto pieces = *rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>(
      "*", "$", "\r\n", "\r", "\n", "1", "2", "-1", "0", "x", " ", "\"", "'", "\\", "PING",
      std::string("\0", 1), "*2\r\n", "$3\r\n", "abc"));
  std::string stream;
  for (const auto& p : pieces) stream += p;
  std::vector<size_t> cuts = *rc::gen::container<std::vector<size_t>>(
      rc::gen::inRange<size_t>(0, stream.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  RequestLimits strict;
  strict.line_limit = LineLimit::kStrict;
  RC_ASSERT(run(stream, cuts, strict) == run(stream, {}, strict));
}

}  // namespace
}  // namespace lockstep::resp
