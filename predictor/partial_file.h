// The file a shard writes (`seer analyze --shard I/N -o PART`) and `seer merge`
// reads: a PartialResult as versioned, self-describing JSON holding every field
// of its findings losslessly (docs/analyses.md, "Shards"). Written 0600 (the
// findings name addresses and code of the traced program), atomically.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "predictor/findings.h"
#include "predictor/shard.h"
#include "seer/status.h"

namespace seer::predictor {

// "format" of the file and its version; a reader refuses other versions.
inline constexpr const char* kPartialFormat = "seer-analysis-part";
inline constexpr int kPartialVersion = 1;

std::string EncodePartial(const PartialResult& part);
// `name` (the file) prefixes every error; a malformed document is a Corruption
// saying which field is wrong.
Status DecodePartial(const std::string& name, const std::string& text, PartialResult* out);

// Writes `part` to `path` (mode 0600, through a temporary file renamed over it).
Status WritePartial(const std::string& path, const PartialResult& part);
Status ReadPartial(const std::string& path, PartialResult* out);

// The findings alone, as the file holds them (every field; tests compare them).
nlohmann::json FindingsToJson(const Findings& findings);
Status FindingsFromJson(const nlohmann::json& j, Findings* out);

}  // namespace seer::predictor
