// Random damage to a trace file's bytes, as a full disk, a crash, a bad copy or
// a bad sector leaves it: flipped bytes, a cut, pages swapped, zeroed or
// overwritten by another page.
#pragma once

#include <random>
#include <string>

namespace seer::test {

// Damages *bytes in place with one randomly chosen kind of damage and returns
// its name ("flip", "flip-run", "truncate", "swap-pages", "zero-page",
// "copy-page"). Pages are 4096 bytes, LMDB's page size on x86-64.
std::string Mutate(std::string* bytes, std::mt19937_64* rng);

}  // namespace seer::test
