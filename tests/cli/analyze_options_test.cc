// `seer analyze` options that reach the engines (--confirm-races, --atomicity-window,
// --deadlock-max-cycle, --paper, --w3-*) and the JSON/text shapes of deadlocks,
// atomicity violations and confirmed races, on small STD traces.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/cli_test_util.h"

namespace seer {
namespace {

using nlohmann::json;

class AnalyzeOptionsTest : public test::TempDirTest {
 protected:
  // Imports STD `lines` into <name>.seer and returns its path.
  std::string Trace(const std::string& name, const std::vector<std::string>& lines) {
    std::string text;
    for (const std::string& l : lines) text += l + "\n";
    test::WriteFile(Path(name + ".std"), text);
    auto r = Seer("import " + Path(name + ".std") + " -o " + Path(name + ".seer"));
    EXPECT_EQ(r.code, 0) << r.err;
    return Path(name + ".seer");
  }
  json Json(const std::string& args) {
    auto r = Seer("analyze " + args + " --format json");
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? json::parse(r.out) : json::object();
  }
};

// x: written before the fork and by the child (ordered by the fork: no race,
// though a lockset analysis reports it); y: written by both threads unordered.
const std::vector<std::string> kForkOrdered = {"T0|w(x)|1", "T0|fork(T1)|2", "T1|w(x)|3",
                                               "T1|w(y)|4", "T0|w(y)|5",     "T0|join(T1)|6"};

TEST_F(AnalyzeOptionsTest, ConfirmRacesMarksEveryPair) {
  const std::string t = Trace("fork", kForkOrdered);
  json plain = Json(t + " --analysis hb,lockset");
  size_t pairs = 0;
  for (auto& [engine, r] : plain["races"].items())
    for (auto& p : r["pairs"]) {
      EXPECT_TRUE(p["confirmed"].is_null()) << engine;
      ++pairs;
    }
  EXPECT_GT(pairs, 0u);

  json j = Json(t + " --analysis hb,lockset --confirm-races");
  bool saw_true = false, saw_false = false;
  for (auto& [engine, r] : j["races"].items()) {
    for (auto& p : r["pairs"]) {
      ASSERT_TRUE(p["confirmed"].is_boolean()) << engine;
      const bool on_y = p["variable"] == "y";
      EXPECT_EQ(p["confirmed"].get<bool>(), on_y) << engine << ": " << p.dump();
      if (on_y) {
        saw_true = true;
        EXPECT_TRUE(p["confirmation"]["validated"].get<bool>());
        EXPECT_EQ(p["confirmation"]["length"], p["confirmation"]["schedule_tail"].size());
      } else {
        saw_false = true;
        EXPECT_FALSE(p.contains("confirmation"));
      }
    }
  }
  EXPECT_TRUE(saw_true);
  EXPECT_TRUE(saw_false) << "lockset no longer reports the fork-ordered pair on x: pick another unconfirmed pair";

  auto text = Seer("analyze " + t + " --analysis hb,lockset --confirm-races");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("(confirmed by SeqCheck)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("(not confirmed by SeqCheck)"), std::string::npos) << text.out;
  auto unchecked = Seer("analyze " + t + " --analysis hb,lockset");
  EXPECT_EQ(unchecked.out.find("confirmed by SeqCheck"), std::string::npos) << unchecked.out;
}

// --confirm-races keeps the whole trace: over its limit it is refused with a
// message naming the file, the count and the way out, not run out of memory.
TEST_F(AnalyzeOptionsTest, ConfirmRacesRefusesATraceOverItsLimit) {
  const std::string t = Trace("fork", kForkOrdered);
  auto refused = Seer("analyze " + t + " --analysis hb --confirm-races --confirm-races-max-events 5");
  EXPECT_EQ(refused.code, 2) << refused.out;
  EXPECT_NE(refused.err.find(t), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("this trace has 6 events, over the limit of 5"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("run without --confirm-races"), std::string::npos) << refused.err;
  auto within = Seer("analyze " + t + " --analysis hb --confirm-races --confirm-races-max-events 6");
  EXPECT_EQ(within.code, 0) << within.err;
  EXPECT_NE(within.out.find("(confirmed by SeqCheck)"), std::string::npos) << within.out;
}

TEST_F(AnalyzeOptionsTest, DeadlockJsonListsEventsLocksAndWitnessTail) {
  std::vector<std::string> lines;
  for (int i = 0; i < 60; ++i) lines.push_back("T0|w(z)|100");  // a long schedule before the cycle
  for (const char* l : {"T0|fork(T1)|1", "T0|acq(a)|2", "T0|acq(b)|3", "T0|rel(b)|4", "T0|rel(a)|5", "T1|acq(b)|6",
                        "T1|acq(a)|7", "T1|rel(a)|8", "T1|rel(b)|9", "T0|join(T1)|10"})
    lines.push_back(l);
  const std::string t = Trace("abba", lines);
  json j = Json(t + " --analysis deadlock");
  ASSERT_EQ(j["deadlocks"].size(), 1u) << j.dump(2);
  const json& d = j["deadlocks"][0];
  EXPECT_EQ(d["locks"].size(), 2u);
  ASSERT_EQ(d["events"].size(), 4u);
  for (const json& e : d["events"]) {
    EXPECT_TRUE(e["thread"].is_number());
    EXPECT_TRUE(e["index"].is_number());
    EXPECT_TRUE(e["location"].is_number());
    EXPECT_TRUE(e["role"] == "held_acquire" || e["role"] == "blocked_acquire") << e.dump();
  }
  EXPECT_TRUE(d["witness"]["validated"].get<bool>());
  EXPECT_GT(d["witness"]["length"].get<uint64_t>(), 60u);
  EXPECT_EQ(d["witness"]["schedule_tail"].size(), 50u);
  EXPECT_FALSE(d["witness"].contains("schedule"));

  auto text = Seer("analyze " + t + " --analysis deadlock");
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("on locks a, b"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("T0 holds a"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("T1 holds b"), std::string::npos) << text.out;
}

TEST_F(AnalyzeOptionsTest, DeadlockMaxCycleReachesTheEngine) {
  const std::string t =
      Trace("three", {"T0|fork(T1)|1", "T0|fork(T2)|2", "T0|acq(a)|3", "T0|acq(b)|4", "T0|rel(b)|5", "T0|rel(a)|6",
                      "T1|acq(b)|7", "T1|acq(c)|8", "T1|rel(c)|9", "T1|rel(b)|10", "T2|acq(c)|11", "T2|acq(a)|12",
                      "T2|rel(a)|13", "T2|rel(c)|14", "T0|join(T1)|15", "T0|join(T2)|16"});
  json j = Json(t + " --analysis deadlock");
  ASSERT_EQ(j["deadlocks"].size(), 1u);
  EXPECT_EQ(j["deadlocks"][0]["cycle"].size(), 3u);
  EXPECT_EQ(Json(t + " --analysis deadlock --deadlock-max-cycle 2")["deadlocks"].size(), 0u);
  EXPECT_EQ(Json(t + " --analysis deadlock --deadlock-max-checks 0")["deadlocks"].size(), 0u);
  EXPECT_EQ(Seer("analyze " + t + " --deadlock-max-cycle 1").code, 2);

  // The work done is reported, so that "no deadlock" after no check is visible.
  const json& work = j["stats"]["deadlock"];
  EXPECT_EQ(work["checks"], 1) << j["stats"].dump();
  EXPECT_EQ(work["feasible"], 1);
  EXPECT_EQ(work["invalid_witnesses"], 0);
  EXPECT_EQ(Json(t + " --analysis deadlock --deadlock-max-checks 0")["stats"]["deadlock"]["checks"], 0);
  auto text = Seer("analyze " + t + " --analysis deadlock,atomicity");
  EXPECT_NE(text.out.find("analysis work:\n  deadlock: candidates "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\n  atomicity: candidates 0,"), std::string::npos) << text.out;
}

TEST_F(AnalyzeOptionsTest, AtomicityWindowAndJsonShape) {
  std::vector<std::string> lines = {"T1|r(x)|1"};
  for (int i = 0; i < 20; ++i) lines.push_back("T1|w(y)|" + std::to_string(100 + i));
  lines.push_back("T1|w(x)|2");
  lines.push_back("T2|w(x)|3");
  const std::string t = Trace("window", lines);
  EXPECT_EQ(Json(t + " --analysis atomicity --atomicity-window 10")["atomicity"].size(), 0u);
  json j = Json(t + " --analysis atomicity --atomicity-window 30");
  ASSERT_EQ(j["atomicity"].size(), 1u);
  const json& a = j["atomicity"][0];
  EXPECT_EQ(a["pattern"], "read-write-write");
  ASSERT_EQ(a["events"].size(), 3u);
  EXPECT_EQ(a["events"][0]["role"], "local_first");
  EXPECT_EQ(a["events"][1]["role"], "remote");
  EXPECT_EQ(a["events"][1]["thread"], a["remote"]["thread"]);
  EXPECT_EQ(a["events"][2]["location"], 2);
  EXPECT_TRUE(a["witness"]["validated"].get<bool>());
  EXPECT_EQ(a["witness"]["length"], a["witness"]["schedule_tail"].size());
}

TEST_F(AnalyzeOptionsTest, AtomicBlocksEngine) {
  const std::string t = Trace(
      "blocks", {"T0|fork(T1)|1", "T0|begin|2", "T0|r(x)|3", "T1|w(x)|4", "T0|w(x)|5", "T0|end|6", "T0|join(T1)|7"});
  const json by_default = Json(t);  // bound first: a range-for over Json(t)["..."] reads a destroyed temporary
  for (const json& a : by_default["atomicity"]) EXPECT_NE(a["engine"], "atomic-blocks");  // not in the default set
  json j = Json(t + " --analysis atomic-blocks");
  ASSERT_EQ(j["atomicity"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["atomicity"][0]["pattern"], "not-conflict-serializable");
  EXPECT_EQ(j["atomicity"][0]["events"][1]["location"], 4);
  EXPECT_EQ(j["atomicity"][0]["witness"]["length"], 0);
  auto text = Seer("analyze " + t + " --analysis atomic-blocks");
  EXPECT_NE(text.out.find("the recorded run itself"), std::string::npos) << text.out;
}

TEST_F(AnalyzeOptionsTest, RaceEngineOptionsParse) {
  const std::string t = Trace("fork", kForkOrdered);
  json j = Json(t + " --analysis wcp,lockset,w3-linear --paper --w3-history 0 --w3-edges 3");
  EXPECT_TRUE(j["races"].contains("wcp"));
  EXPECT_TRUE(j["races"].contains("w3-linear"));
  EXPECT_EQ(Seer("analyze " + t + " --w3-edges many").code, 2);
  EXPECT_EQ(Seer("analyze " + t + " --atomicity-window -1").code, 2);
  EXPECT_EQ(Seer("analyze " + t + " --w3-history -5").code, 2);
  EXPECT_EQ(Seer("analyze " + t + " --deadlock-max-checks -1").code, 2);
}

}  // namespace
}  // namespace seer

namespace seer {
namespace {

// --analysis cp: Raptor's Fig. 3a (a CP race on x that HB misses) and 3b (the
// sections conflict on y: no race), in JSON with the engine's guarantee, and
// in text.
TEST_F(AnalyzeOptionsTest, CpPredictsRaptorFigure3) {
  const std::string a = Trace("raptor3a", {"T1|w(x)|1", "T1|acq(m)|2", "T1|r(y)|3", "T1|rel(m)|4", "T2|acq(m)|5",
                                           "T2|r(y)|6", "T2|rel(m)|7", "T2|w(x)|8"});
  const std::string b = Trace("raptor3b", {"T1|w(x)|1", "T1|acq(m)|2", "T1|w(y)|3", "T1|rel(m)|4", "T2|acq(m)|5",
                                           "T2|r(y)|6", "T2|rel(m)|7", "T2|w(x)|8"});
  json ja = Json(a + " --analysis cp,hb");
  ASSERT_TRUE(ja["races"].contains("cp")) << ja.dump();
  EXPECT_EQ(ja["races"]["cp"]["guarantee"], "first-race-real");
  ASSERT_EQ(ja["races"]["cp"]["pairs"].size(), 1u);
  EXPECT_EQ(ja["races"]["cp"]["pairs"][0]["variable"], "x");
  EXPECT_EQ(ja["races"]["cp"]["racy_events"], 1);
  EXPECT_EQ(ja["races"]["hb"]["pairs"].size(), 0u);
  EXPECT_TRUE(ja["stats"].contains("cp"));
  json jb = Json(b + " --analysis cp");
  EXPECT_EQ(jb["races"]["cp"]["pairs"].size(), 0u);
  EXPECT_EQ(jb["races"]["cp"]["racy_events"], 0);
  auto text = Seer("analyze " + a + " --analysis cp");
  EXPECT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("cp"), std::string::npos) << text.out;
}

// On a generated trace (every kind of the generator, nested locks) cp runs to
// the end and its racy events lie between HB's and the paper's WCP's.
TEST_F(AnalyzeOptionsTest, CpOnAGeneratedTraceLiesBetweenHbAndWcp) {
  auto g = Seer("gen --events 200000 --threads 4 --locks 3 --seed 7 -o " + Path("g.seer"));
  ASSERT_EQ(g.code, 0) << g.err;
  json j = Json(Path("g.seer") + " --analysis hb,cp,wcp --paper");
  const uint64_t hb = j["races"]["hb"]["racy_events"], cp = j["races"]["cp"]["racy_events"];
  const uint64_t wcp = j["races"]["wcp"]["racy_events"];
  EXPECT_LE(hb, cp);
  EXPECT_LE(cp, wcp);
  EXPECT_LT(hb, wcp) << "the trace should give the predictive engines something to predict";
}

// --jobs: a count of threads, at least one; a bad one is a usage error naming
// the option, before any work.
TEST_F(AnalyzeOptionsTest, JobsMustBeAPositiveCount) {
  const std::string t = Trace("fork", kForkOrdered);
  for (const std::string bad : {"0", "abc", "-3", "2.5", ""}) {
    auto r = Seer("analyze " + t + " --jobs '" + bad + "'");
    EXPECT_EQ(r.code, 2) << "--jobs '" << bad << "': " << r.err;
    EXPECT_NE(r.err.find("--jobs"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  EXPECT_EQ(Seer("analyze " + t + " --jobs").code, 2);
  EXPECT_EQ(Seer("analyze " + t + " -j 1").code, 0);
}

// The reports of a generated trace with deadlocks, violations and several
// SeqCheck windows, as `seer analyze` writes them: the same for any --jobs.
TEST_F(AnalyzeOptionsTest, JobsGiveTheSameReports) {
  const std::string t = Path("g.seer");
  auto g = Seer("gen --events 20000 --threads 6 --locks 4 --vars 40 --random-order-fraction 0.3 --seed 5 -o " + t);
  ASSERT_EQ(g.code, 0) << g.err;
  for (const std::string format : {"json", "text"}) {
    const std::string args = "analyze " + t + " --seqcheck-window 3000 --format " + format;
    auto one = Seer(args + " --jobs 1");
    ASSERT_EQ(one.code, 0) << one.err;
    if (format == "json") {
      json j = json::parse(one.out);
      EXPECT_GT(j["deadlocks"].size(), 0u);
      EXPECT_GT(j["atomicity"].size(), 0u);
      EXPECT_GT(j["stats"]["atomicity"]["windows"].get<double>(), 4);
    }
    for (const char* jobs : {"2", "3"}) {
      auto many = Seer(args + " --jobs " + jobs);
      ASSERT_EQ(many.code, 0) << many.err;
      EXPECT_EQ(many.out, one.out) << format << " --jobs " << jobs;
    }
  }
}

// --progress on a trace of several SeqCheck windows: lines on stderr that end
// with every window of both engines decided and the whole count, the same
// report as without it, and nothing on stderr by default when it is not a
// terminal (scripts and logs see no progress unless they ask).
TEST_F(AnalyzeOptionsTest, ProgressNamesEventsAndWindowsOnlyWhenAsked) {
  const std::string t = Path("g.seer");
  auto g = Seer("gen --events 20000 --threads 6 --locks 4 --vars 40 --random-order-fraction 0.3 --seed 5 -o " + t);
  ASSERT_EQ(g.code, 0) << g.err;
  const std::string args = "analyze " + t + " --seqcheck-window 3000 --format json";
  auto quiet = Seer(args);
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  const double windows = json::parse(quiet.out)["stats"]["deadlock"]["windows"].get<double>();
  ASSERT_GT(windows, 4);
  for (const char* jobs : {"1", "2"}) {
    auto r = Seer(args + " --progress --jobs " + jobs);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, quiet.out) << "--jobs " << jobs;
    std::istringstream lines(r.err);
    std::string line, last;
    bool deadlock_done = false, atomicity_done = false;
    const std::regex stage("\\| (deadlock|atomicity) ([0-9]+)/([0-9]+) windows");
    while (std::getline(lines, line)) {
      EXPECT_EQ(line.rfind("analyze: ", 0), 0u) << line;
      for (std::sregex_iterator it(line.begin(), line.end(), stage), end; it != end; ++it) {
        const auto done = std::stoull((*it)[2]), total = std::stoull((*it)[3]);
        EXPECT_LE(done, total) << line;
        if (done == static_cast<uint64_t>(windows) && total == done)
          ((*it)[1] == "deadlock" ? deadlock_done : atomicity_done) = true;
      }
      last = line;
    }
    EXPECT_TRUE(deadlock_done && atomicity_done) << "--jobs " << jobs << ":\n" << r.err;
    EXPECT_EQ(last.rfind("analyze: 20.0k events in ", 0), 0u) << r.err;
  }
  auto both = Seer(args + " --progress --no-progress");
  EXPECT_EQ(both.code, 2) << both.err;
  EXPECT_NE(both.err.find("--no-progress"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace seer
