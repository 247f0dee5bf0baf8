#include "predictor/report/details.h"

#include <fmt/format.h>

#include <algorithm>

namespace seer {
namespace {

std::pair<uint64_t, uint64_t> PcKey(const RacePair& p) {
  return {std::min(p.first.pc, p.second.pc), std::max(p.first.pc, p.second.pc)};
}

}  // namespace

Status CollectReportDetails(const std::string& path, const TraceInfo& info, const Findings& findings,
                            const SymbolizerOptions& options, ReportDetails* out) {
  out->symbolizer = std::make_unique<Symbolizer>(info.modules, options);
  return ReportContext::Collect(path, findings, &out->context);
}

std::vector<RaceGroup> GroupRaces(const Findings& findings) {
  std::vector<RaceGroup> groups;
  std::map<std::pair<uint64_t, uint64_t>, size_t> by_key;
  for (const RaceResult& r : findings.races) {
    for (const RacePair& p : r.pairs) {
      auto [it, fresh] = by_key.emplace(PcKey(p), groups.size());
      if (fresh) groups.push_back({&p, {}});
      std::vector<const RaceResult*>& engines = groups[it->second].engines;
      if (engines.empty() || engines.back() != &r) engines.push_back(&r);
    }
  }
  return groups;
}

RaceEngines::RaceEngines(const Findings& findings) {
  for (const RaceGroup& g : GroupRaces(findings)) {
    std::vector<std::string>& names = engines_[PcKey(*g.pair)];
    for (const RaceResult* r : g.engines) names.push_back(r->engine);
  }
}

const std::vector<std::string>& RaceEngines::Of(const RacePair& pair) const { return engines_.at(PcKey(pair)); }

std::vector<Frame> StackFrames(ReportDetails& details, const std::vector<uint64_t>& stack) {
  std::vector<Frame> frames;
  for (uint64_t pc : stack) {
    const std::vector<Frame>& f = details.symbolizer->Symbolize(pc);
    frames.insert(frames.end(), f.begin(), f.end());
  }
  return frames;
}

std::vector<Frame> EventFrames(ReportDetails& details, const EventRef& e) {
  const EventContext* c = details.context.At(e.index);
  return StackFrames(details, c != nullptr ? c->stack : std::vector<uint64_t>{e.pc});
}

std::string GlobalName(ReportDetails& details, uint64_t address) {
  DataSymbol sym;
  if (!details.symbolizer->FindGlobal(address, &sym)) return std::string();
  return address == sym.address ? sym.name : fmt::format("{}+{:#x}", sym.name, address - sym.address);
}

VariableInfo DescribeVariable(ReportDetails& details, const RacePair& pair) {
  VariableInfo v;
  v.address = pair.first.object;
  v.size = pair.first.size;
  if (details.symbolizer->FindGlobal(pair.first.object, &v.global)) {
    v.kind = "global";
    v.name = v.global.name;
    v.address = v.global.address;
    v.size = v.global.size;
  } else if (const MemoryBlock* b = details.context.Block(pair.first.object, pair.first.index)) {
    v.block = b;
    v.address = b->address;
    v.size = b->size;
    switch (b->region) {
      case AllocRegion::kStack: v.kind = "stack"; break;
      case AllocRegion::kTls: v.kind = "tls"; break;
      default: v.kind = "heap"; break;
    }
    if (b->region == AllocRegion::kTls &&
        details.symbolizer->FindTls(b->pc, pair.first.object - b->address, &v.global)) {
      v.global.address += b->address;  // this thread's copy
      v.name = v.global.name;
      v.address = v.global.address;
      v.size = v.global.size;
    }
  }
  return v;
}

}  // namespace seer
