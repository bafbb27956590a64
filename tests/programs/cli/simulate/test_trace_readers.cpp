// Every trace format: good files (and the auto-detection that tells them
// apart) and each kind of malformed file, refused with the file, the line
// or element, and what is wrong.
#include <catch2/catch.hpp>

#include "input_limits.hpp"
#include "loss_model.hpp"
#include "sim_fixture.hpp"
#include "trace_readers.hpp"

using frugal::simulate::parse_trace;
using frugal::simulate::read_trace_file;
using frugal::simulate::Trace;
using frugal::simulate::TraceFormat;
using frugal::simulate::TraceSelection;
using frugal::test::input_error_of;

namespace {

Trace parsed(const std::string& text, TraceFormat format = TraceFormat::kAuto, const TraceSelection& sel = {}) {
  return parse_trace(text, "trace", format, sel);
}

std::string trace_refusal(const std::string& text, TraceFormat format = TraceFormat::kAuto,
                          const TraceSelection& sel = {}) {
  return input_error_of([&] { parse_trace(text, "trace", format, sel); });
}

const char* kAwsJson = R"({"SpotPriceHistory": [
  {"AvailabilityZone": "us-east-1b", "InstanceType": "p4d.24xlarge", "ProductDescription": "Linux/UNIX",
   "SpotPrice": "13.500000", "Timestamp": "2024-03-01T02:00:00+00:00"},
  {"AvailabilityZone": "us-east-1a", "InstanceType": "p4d.24xlarge", "ProductDescription": "Linux/UNIX",
   "SpotPrice": "12.000000", "Timestamp": "2024-03-01T03:00:00.000Z"},
  {"AvailabilityZone": "us-east-1b", "InstanceType": "p4d.24xlarge", "ProductDescription": "Linux/UNIX",
   "SpotPrice": "12.500000", "Timestamp": "2024-03-01T01:00:00Z"},
  {"AvailabilityZone": "us-east-1b", "InstanceType": "p4d.24xlarge", "ProductDescription": "Linux/UNIX",
   "SpotPrice": 11.5, "Timestamp": "2024-03-01T00:00:00Z"}
], "NextToken": ""})";

}  // namespace

TEST_CASE("skypilot: 0/1 and true/false gaps become availability runs") {
  const Trace t = parsed(R"({"metadata": {"gap_seconds": 600, "cloud": "aws"}, "data": [0, 0, 1, true, false, 0]})");
  CHECK(t.format() == "skypilot");
  CHECK(t.has_availability());
  CHECK_FALSE(t.has_prices());
  CHECK(t.period_s() == 3600.0);
  REQUIRE(t.segment_count() == 3);
  CHECK(t.segments()[1].start_s == 1200.0);
  CHECK_FALSE(t.segments()[1].available);
  CHECK(t.segments()[2].start_s == 2400.0);
  CHECK(t.available_share() == Approx(4.0 / 6.0));
}

TEST_CASE("skypilot: malformed traces are refused with the place and the reason") {
  const std::pair<std::string, std::string> cases[] = {
      {R"([0, 1])", "trace: wrong JSON shape: expected a SkyPilot trace"},
      {R"({"metadata": {"gap_seconds": 600}})",
       "trace: wrong JSON shape: expected a SkyPilot trace {\"metadata\": {\"gap_seconds\": N}, \"data\": [0, 1, "
       "...]}; \"data\" is missing"},
      {R"({"data": [0]})", "\"metadata\" is missing"},
      {R"({"metadata": [], "data": [0]})", "trace: wrong JSON shape: \"metadata\" must be an object, got an array"},
      {R"({"metadata": {"gap_seconds": 600}, "data": {"0": 1}})",
       "trace: wrong JSON shape: \"data\" must be an array, got an object"},
      {R"({"metadata": {}, "data": [0]})", "metadata.gap_seconds is missing"},
      {R"({"metadata": {"gap_seconds": 0}, "data": [0]})",
       "trace: metadata.gap_seconds must be a number > 0 and <= 1e+09, got 0"},
      {R"({"metadata": {"gap_seconds": -5}, "data": [0]})",
       "metadata.gap_seconds must be a number > 0 and <= 1e+09, got -5"},
      {R"({"metadata": {"gap_seconds": "600"}, "data": [0]})",
       "metadata.gap_seconds must be a number > 0 and <= 1e+09, got a string"},
      {R"({"metadata": {"gap_seconds": 600}, "data": []})", "trace: empty trace: \"data\" has no gaps"},
      {R"({"metadata": {"gap_seconds": 600}, "data": [0, 2]})", "trace: data[1] must be 0, 1, true or false, got 2"},
      {R"({"metadata": {"gap_seconds": 600}, "data": [0, "1"]})", "data[1] must be 0, 1, true or false, got a string"},
      {R"({"metadata": {"gap_seconds": 600}, "data": [1, 1]})", "spot is never available in this trace"},
      {R"({"metadata": {"gap_seconds": 600}, "data": [0, 1,]})",
       "trace:1:50: syntax error while parsing value - unexpected ']'"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    CHECK_THAT(trace_refusal(text), Catch::Contains(message));
  }
  CHECK_THAT(trace_refusal(R"({"metadata": {"gap_seconds": 600}, "data": [0]})", TraceFormat::kAws),
             Catch::Contains("wrong JSON shape: expected {\"SpotPriceHistory\": [...]}"));
}

TEST_CASE("aws json: the series with most rows, sorted oldest first, as a price step function") {
  const Trace t = parsed(kAwsJson);
  CHECK(t.format() == "aws");
  CHECK(t.has_prices());
  CHECK_FALSE(t.has_availability());
  CHECK(t.selection() == "us-east-1b p4d.24xlarge Linux/UNIX");
  REQUIRE(t.segment_count() == 3);
  CHECK(t.segments()[0].start_s == 0.0);
  CHECK(t.segments()[0].spot_price == 11.5);
  CHECK(t.segments()[1].start_s == 3600.0);
  CHECK(t.segments()[2].spot_price == 13.5);
  CHECK(t.period_s() == 3 * 3600.0);  // the newest price lasts as long as the one before it

  const Trace a = parsed(kAwsJson, TraceFormat::kAuto, {"us-east-1a", "", ""});
  CHECK(a.selection() == "us-east-1a p4d.24xlarge Linux/UNIX");
  CHECK(a.segment_count() == 1);
  CHECK_THAT(trace_refusal(kAwsJson, TraceFormat::kAuto, {"eu-west-1a", "", ""}),
             Catch::Contains("no rows match zone 'eu-west-1a'") &&
                 Catch::Contains("us-east-1b p4d.24xlarge Linux/UNIX (3 rows)"));
}

TEST_CASE("aws json: malformed rows are refused naming the element") {
  const auto row = [](const std::string& fields) { return R"({"SpotPriceHistory": [{)" + fields + "}]}"; };
  const std::string ok_zone = R"("AvailabilityZone": "z", "InstanceType": "t", )";
  const std::pair<std::string, std::string> cases[] = {
      {row(ok_zone + R"("SpotPrice": "-1.0", "Timestamp": "2024-03-01T00:00:00Z")"),
       "trace: SpotPriceHistory[0].SpotPrice: negative price -1"},
      {row(ok_zone + R"("SpotPrice": "cheap", "Timestamp": "2024-03-01T00:00:00Z")"),
       "SpotPriceHistory[0].SpotPrice is not a number: \"cheap\""},
      {row(ok_zone + R"("SpotPrice": "nan", "Timestamp": "2024-03-01T00:00:00Z")"),
       "SpotPrice is not a number: \"nan\""},
      {row(ok_zone + R"("SpotPrice": "1.0", "Timestamp": "yesterday")"),
       "SpotPriceHistory[0].Timestamp is not an ISO 8601 time: \"yesterday\""},
      {row(ok_zone + R"("SpotPrice": "1.0", "Timestamp": "2024-02-30T00:00:00Z")"), "is not an ISO 8601 time"},
      {row(ok_zone + R"("Timestamp": "2024-03-01T00:00:00Z")"), "SpotPriceHistory[0]: \"SpotPrice\" is missing"},
      {row(R"("InstanceType": "t", "SpotPrice": "1", "Timestamp": "2024-03-01T00:00:00Z")"),
       "\"AvailabilityZone\" is missing"},
      {row(R"("AvailabilityZone": 3, "InstanceType": "t", "SpotPrice": "1", "Timestamp": "2024-03-01T00:00:00Z")"),
       "SpotPriceHistory[0].AvailabilityZone must be a string, got a number"},
      {R"({"SpotPriceHistory": [7]})", "trace: SpotPriceHistory[0] must be an object, got a number"},
      {R"({"SpotPriceHistory": []})", "trace: empty trace: no price rows"},
      {R"({"SpotPriceHistory": {}})", "wrong JSON shape"},
      {R"({"Prices": []})", "wrong JSON shape: expected a SkyPilot trace"},
      {R"({"SpotPriceHistory": [
  {"AvailabilityZone": "z", "InstanceType": "t", "SpotPrice": "1", "Timestamp": "2024-03-01T00:00:00Z"},
  {"AvailabilityZone": "z", "InstanceType": "t", "SpotPrice": "2", "Timestamp": "2024-03-01T00:00:00Z"}]})",
       "two prices for the same time (1 and 2"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    CHECK_THAT(trace_refusal(text), Catch::Contains(message));
  }
}

TEST_CASE("aws csv: with a header, without one, and the tool's tab-separated text output") {
  const Trace with_header = parsed(
      "Timestamp,SpotPrice,AvailabilityZone,InstanceType,ProductDescription\n"
      "2024-03-01T01:00:00Z,12.0,us-east-1a,p4d.24xlarge,Linux/UNIX\n"
      "2024-03-01T00:00:00Z,10.0,us-east-1a,p4d.24xlarge,Linux/UNIX\n");
  REQUIRE(with_header.segment_count() == 2);
  CHECK(with_header.segments()[0].spot_price == 10.0);
  CHECK(with_header.segments()[1].start_s == 3600.0);

  const Trace bare = parsed(
      "# az, type, product, price, time\nus-east-1a, p4d.24xlarge, Linux/UNIX, 9.5, 2024-03-01 00:00:00+02:00\n");
  CHECK(bare.segment_count() == 1);
  CHECK(bare.segments()[0].spot_price == 9.5);

  const Trace text = parsed(
      "SPOTPRICEHISTORY\tus-east-1a\tp4d.24xlarge\tLinux/UNIX\t11.0\t2024-03-01T00:30:00+00:00\n"
      "SPOTPRICEHISTORY\tus-east-1a\tp4d.24xlarge\tLinux/UNIX\t10.0\t2024-03-01T00:00:00+00:00\n");
  REQUIRE(text.segment_count() == 2);
  CHECK(text.segments()[1].start_s == 1800.0);
  CHECK(text.segments()[1].spot_price == 11.0);
}

TEST_CASE("aws csv: malformed rows are refused naming the line") {
  const std::pair<std::string, std::string> cases[] = {
      {"z,t,p,-3,2024-03-01T00:00:00Z\n", "trace:1: negative price -3"},
      {"z,t,p,1.0,2024-03-01T00:00:00Z\nz,t,p,abc,2024-03-01T01:00:00Z\n", "trace:2: price is not a number: 'abc'"},
      {"z,t,p,1.0,2024-03-01T00:00:00Z\nz,t,p,inf,2024-03-01T01:00:00Z\n", "trace:2: price is not a number: 'inf'"},
      {"z,t,p,1.0,2024-13-01T00:00:00Z,extra\n", "trace:1: timestamp is not an ISO 8601 time: '2024-13-01T00:00:00Z'"},
      {"AvailabilityZone,InstanceType,Timestamp\nz,t,2024-03-01T00:00:00Z\n",
       "trace:1: the header names no price column"},
      {"AvailabilityZone,InstanceType,SpotPrice,Timestamp\nz,t,1.0\n", "trace:2: expected 4 fields"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    CHECK(trace_refusal(text, TraceFormat::kAws) ==
          message + (message.find("expected 4") != std::string::npos
                         ? std::string(" (zone, instance type, product, price, timestamp), got 3")
                         : ""));
  }
}

TEST_CASE("simple csv: availability with and without prices") {
  const Trace t = parsed("time_s,available,spot_price\n0,1,2.5\n3600,0,2.5\n7200,true,4\n");
  CHECK(t.format() == "csv");
  CHECK(t.has_prices());
  CHECK(t.has_availability());
  CHECK(t.period_s() == 3 * 3600.0);
  const Trace bare = parsed("0,1\n100,0\n250,1\n");
  CHECK_FALSE(bare.has_prices());
  CHECK(bare.period_s() == 400.0);
  CHECK(parsed("0,1\n", TraceFormat::kSimpleCsv).segment_count() == 1);
}

TEST_CASE("simple csv: malformed rows are refused naming the line") {
  const std::pair<std::string, std::string> cases[] = {
      {"time_s,available\n0,1\n600,0\n300,1\n", "trace:4: time going backwards: 300 after 600"},
      {"0,1\n0,0\n", "trace:2: time going backwards: 0 after 0"},
      {"60,1\n", "trace:1: the first row must be at time_s 0 (the job's start), got 60"},
      {"0,yes\n", "trace:1: available must be 0, 1, true or false, got 'yes'"},
      {"0,1,-2\n", "trace:1: negative price -2"},
      {"0,1,nan\n", "trace:1: spot_price is not a number: 'nan'"},
      {"0,1,2\n10,1\n", "trace:2: expected 3 fields, got 2"},
      {"0\n", "trace:1: expected 2 or 3 fields (time_s,available[,spot_price]), got 1"},
      {"time,up\n0,1\n", "trace:1: expected the header time_s,available[,spot_price] or a data row, got 'time,up'"},
      {"time_s,available\n", "trace: empty trace: no rows"},
      {"# nothing\n\n", "trace: empty trace: no rows"},
      {"0,0\n5,0\n", "trace: spot is never available in this trace"},
      {"0,1\nx,1\n", "trace:2: time_s is not a number: 'x'"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    CHECK(trace_refusal(text, text.rfind("#", 0) == 0 ? TraceFormat::kSimpleCsv : TraceFormat::kAuto) == message);
  }
}

TEST_CASE("trace files: read from disk, unreadable files named") {
  const std::string path = frugal::test::temp_file("sky.json", R"({"metadata": {"gap_seconds": 60}, "data": [0]})");
  CHECK(read_trace_file(path, TraceFormat::kAuto, {}).source() == path);
  CHECK_THAT(input_error_of([] { read_trace_file("/nonexistent/trace.json", TraceFormat::kAuto, {}); }),
             Catch::StartsWith("cannot read '/nonexistent/trace.json': "));
  CHECK(frugal::simulate::trace_format_from_name("csv") == TraceFormat::kSimpleCsv);
  CHECK_FALSE(frugal::simulate::trace_format_from_name("xml"));
}

TEST_CASE("input limits: values that would make a trace's period or costs infinite are refused") {
  CHECK_THAT(trace_refusal(R"({"metadata": {"gap_seconds": 1e308}, "data": [0, 1, 0]})"),
             Catch::Contains("trace: metadata.gap_seconds must be a number > 0 and <= 1e+09, got 1e+308"));
  CHECK_THAT(trace_refusal("time_s,available\n0,1\n1e300,0\n"),
             Catch::Contains("trace:3: time_s 1e+300 is more than the limit of 1e+12 s from the start"));
  CHECK_THAT(trace_refusal("0,1,5\n60,1,1e300\n"),
             Catch::Contains("trace:2: price 1e+300 is more than the limit of 1e+09"));
  CHECK_THAT(trace_refusal("us-east-1a,p4d,Linux,1e300,2024-03-01T00:00:00Z\n", TraceFormat::kAws),
             Catch::Contains("trace:1: price 1e+300 is more than the limit of 1e+09"));
  frugal::simulate::LossSpec spec;
  CHECK_THAT(input_error_of([&] { frugal::simulate::read_loss_log("0,10\n100,1e300\n", "loss.csv", spec); }),
             Catch::Contains("loss.csv:2: loss 1e+300 is outside [-1e+09, 1e+09]"));
}

TEST_CASE("input limits: an endless file and a document of millions of tiny values are refused, not held") {
  // /dev/zero never ends: the old reader grew its string until memory ran out.
  CHECK_THAT(input_error_of([] { read_trace_file("/dev/zero", TraceFormat::kAuto, {}); }),
             Catch::Contains("cannot read '/dev/zero': larger than the limit of 64 MiB"));
  // 8 MiB of "0," would be 4 million parsed values (about 100 bytes each).
  std::string many = "{\"metadata\": {\"gap_seconds\": 60}, \"data\": [";
  for (size_t i = 0; i < frugal::simulate::kMaxJsonValues; ++i) many += "0,";
  many += "0]}";
  CHECK_THAT(trace_refusal(many), Catch::Contains("more than 4194304 values in one document"));
}
