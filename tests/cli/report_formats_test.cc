// What the reports say about a finding, on a small imported trace
// (data/formats.std: races on x and y, a lock-order inversion, a lost update):
// the text report leaves out the sections of analyses that did not run, says
// what proves each race and lists the proven first (text and JSON); the SARIF
// report holds every finding with its locations, thread flows and fingerprints
// that do not change between runs. (Microsoft's validator checks the SARIF
// syntax in tests/predictor/report/formats.)
#include <gtest/gtest.h>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/cli_test_util.h"

namespace seer {
namespace {

using nlohmann::json;

class ReportFormatsTest : public test::TempDirTest {
 protected:
  std::string Import(const std::string& name) {
    const std::string path = Path(name + ".seer");
    auto r = Seer("import -q " + test::DataFile("formats.std") + " -o " + path);
    EXPECT_EQ(r.code, 0) << r.err;
    return path;
  }
  std::string Run(const std::string& args) {
    auto r = Seer("analyze " + args);
    EXPECT_EQ(r.code, 0) << r.err;
    return r.out;
  }
  json Json(const std::string& args) {
    const std::string out = Run(args);
    return json::parse(out, nullptr, false);
  }
};

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(ReportFormatsTest, SectionsOfAnalysesThatDidNotRunAreLeftOut) {
  const std::string t = Import("t");
  const std::string races_only = Run(t + " --analysis hb,wcp");
  EXPECT_EQ(races_only.find("deadlocks:"), std::string::npos) << races_only;
  EXPECT_EQ(races_only.find("atomicity violations:"), std::string::npos) << races_only;
  EXPECT_NE(races_only.find("hb: "), std::string::npos) << races_only;

  const std::string all = Run(t + " --analysis hb,deadlock,atomicity");
  EXPECT_NE(all.find("\ndeadlocks: 1\n"), std::string::npos) << all;
  EXPECT_NE(all.find("\natomicity violations: "), std::string::npos) << all;

  // "0" now means: ran, found none.
  const std::string none = Run(t + " --analysis deadlock --deadlock-max-checks 0");
  EXPECT_NE(none.find("\ndeadlocks: 0\n"), std::string::npos) << none;
  EXPECT_EQ(none.find("atomicity violations:"), std::string::npos) << none;
}

TEST_F(ReportFormatsTest, DeadlockLinesNameTheAcquisitionSites) {
  const std::string text = Run(Import("t") + " --analysis deadlock");
  // Imported traces have location ids: they are named as such, with the event.
  EXPECT_NE(text.find("holds a (acquired at location 3, event 2) and wants b (at location 4, event 3)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("holds b (acquired at location 9, event 8) and wants a (at location 10, event 9)"),
            std::string::npos)
      << text;
}

TEST_F(ReportFormatsTest, EachRaceSaysWhatProvesItProvenFirst) {
  const std::string t = Import("t");
  // hb alone: its first race (on x) is proven, the later ones only predicted.
  const std::string text = Run(t + " --analysis hb");
  const size_t proven = text.find("proven: the first race hb reports");
  const size_t predicted = text.find("predicted only: hb (beyond its first race)");
  ASSERT_NE(proven, std::string::npos) << text;
  ASSERT_NE(predicted, std::string::npos) << text;
  EXPECT_LT(proven, predicted) << text;
  EXPECT_EQ(Count(text, "    proven: "), 1u) << text;  // the pairs' lines (the findings line says "proven: " too)
  EXPECT_NE(text.find("--confirm-races looks for a witness"), std::string::npos) << text;

  // With shb every pair is proven by a sound engine.
  const std::string sound = Run(t + " --analysis hb,shb");
  EXPECT_EQ(sound.find("predicted only"), std::string::npos) << sound;
  EXPECT_NE(sound.find("proven: reported by shb, which reports only races that can happen"), std::string::npos)
      << sound;

  // --confirm-races: SeqCheck's witnesses prove the later pairs.
  const std::string confirmed = Run(t + " --analysis hb --confirm-races");
  EXPECT_NE(confirmed.find("proven: witnessed by SeqCheck (validated schedule of"), std::string::npos) << confirmed;

  // JSON: the same words, the proven pairs first in each engine's list.
  const json j = Json(t + " --analysis hb,lockset --format json");
  for (const auto& [engine, r] : j["races"].items()) {
    bool seen_predicted = false;
    for (const json& p : r["pairs"]) {
      const std::string proof = p["proof"];
      EXPECT_TRUE(proof == "first-race" || proof == "predicted") << engine << ": " << p.dump();
      EXPECT_FALSE(seen_predicted && proof != "predicted") << engine << ": a proven pair after a predicted one";
      seen_predicted |= proof == "predicted";
      EXPECT_FALSE(p["proof_description"].get<std::string>().empty());
    }
  }
  EXPECT_EQ(j["races"]["hb"]["pairs"][0]["proof"], "first-race");
  EXPECT_EQ(j["races"]["hb"]["pairs"][0]["variable"], "x");
}

// The distinct race pairs (by unordered locations) of a JSON report.
std::set<std::pair<uint64_t, uint64_t>> DistinctPairs(const json& report) {
  std::set<std::pair<uint64_t, uint64_t>> out;
  for (const auto& [engine, r] : report["races"].items())
    for (const json& p : r["pairs"]) {
      const uint64_t a = p["first"]["location"], b = p["second"]["location"];
      out.insert({std::min(a, b), std::max(a, b)});
    }
  return out;
}

TEST_F(ReportFormatsTest, SarifHoldsEveryFindingWithFlowsAndStableFingerprints) {
  const std::string t = Import("t");
  const std::string analyses = " --analysis hb,wcp,lockset,deadlock,atomicity";
  const json report = Json(t + analyses + " --format json");
  const json sarif = Json(t + analyses + " --format sarif --source-root " + dir_.string());
  ASSERT_TRUE(sarif.is_object());
  EXPECT_EQ(sarif["version"], "2.1.0");
  ASSERT_EQ(sarif["runs"].size(), 1u);
  const json& run = sarif["runs"][0];
  EXPECT_EQ(run["originalUriBaseIds"]["SRCROOT"]["uri"], "file://" + dir_.string() + "/");
  const json& rules = run["tool"]["driver"]["rules"];

  size_t races = 0, deadlocks = 0, atomicity = 0;
  std::set<std::string> fingerprints;
  for (const json& r : run["results"]) {
    ASSERT_LT(r["ruleIndex"].get<size_t>(), rules.size());
    const json& rule_object = rules[r["ruleIndex"].get<size_t>()];
    EXPECT_EQ(rule_object["id"], r["ruleId"]);
    const std::string rule = rule_object["name"];
    EXPECT_FALSE(r["message"]["text"].get<std::string>().empty());
    fingerprints.insert(r["partialFingerprints"]["seerFinding/v1"].get<std::string>());
    if (rule.rfind("DataRace", 0) == 0) {
      ++races;
      EXPECT_EQ(r["locations"].size(), 2u) << r.dump();
      EXPECT_EQ(r["stacks"].size(), 2u) << r.dump();
      // hb's first race is proven: an error; the others are warnings.
      EXPECT_EQ(r["level"], r["properties"]["proof"] == "predicted" ? "warning" : "error") << r.dump();
    } else if (rule == "Deadlock") {
      ++deadlocks;
      EXPECT_EQ(r["locations"].size(), 2u) << "one location per lock of the cycle: " << r.dump();
      EXPECT_NE(r["message"]["text"].get<std::string>().find("location 3"), std::string::npos) << r.dump();
      ASSERT_EQ(r["codeFlows"].size(), 1u) << r.dump();
      // One thread flow per thread of the schedule, steps in one global order.
      std::set<std::string> ids;
      std::set<int> order;
      size_t steps = 0;
      for (const json& f : r["codeFlows"][0]["threadFlows"]) {
        ids.insert(f["id"].get<std::string>());
        for (const json& l : f["locations"]) {
          order.insert(l["executionOrder"].get<int>());
          ++steps;
        }
      }
      EXPECT_EQ(ids.size(), r["codeFlows"][0]["threadFlows"].size());
      EXPECT_GE(ids.size(), 2u);
      EXPECT_EQ(order.size(), steps);
      EXPECT_EQ(steps, report["deadlocks"][0]["witness"]["schedule_tail"].size());
    } else if (rule == "AtomicityViolation") {
      ++atomicity;
      EXPECT_EQ(r["locations"].size(), 3u) << r.dump();
      EXPECT_EQ(r["codeFlows"].size(), 1u) << r.dump();
    }
  }
  EXPECT_EQ(races, DistinctPairs(report).size());
  EXPECT_EQ(deadlocks, report["deadlocks"].size());
  EXPECT_EQ(atomicity, report["atomicity"].size());
  EXPECT_GT(races, 1u);
  EXPECT_EQ(deadlocks, 1u);
  EXPECT_EQ(fingerprints.size(), run["results"].size()) << "two findings share a fingerprint";

  // Another recording of the same code (here: another import, at another
  // path) gives the same fingerprints.
  const json again = Json(Import("again") + analyses + " --format sarif");
  std::set<std::string> again_prints;
  for (const json& r : again["runs"][0]["results"])
    again_prints.insert(r["partialFingerprints"]["seerFinding/v1"].get<std::string>());
  EXPECT_EQ(again_prints, fingerprints);
}

TEST_F(ReportFormatsTest, HtmlIsOnePageWithTheReportInside) {
  const std::string t = Import("t");
  auto r = Seer("analyze " + t + " --analysis hb,deadlock --format html -o " + Path("r.html"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = test::ReadFile(Path("r.html"));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // Self-contained: no external script, style, image or font.
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  // The embedded data cannot close its <script> element.
  const size_t data = html.find("id=\"seer-data\">");
  ASSERT_NE(data, std::string::npos);
  const size_t end = html.find("</script>", data);
  const json page = json::parse(html.substr(data + 15, end - data - 15), nullptr, false);
  ASSERT_TRUE(page.is_object());
  EXPECT_EQ(page["report"]["deadlocks"].size(), 1u);
  EXPECT_FALSE(page["schedule_events"].empty());
}

}  // namespace
}  // namespace seer
