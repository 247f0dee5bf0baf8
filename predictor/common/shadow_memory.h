// Per-byte access state for the race engines, stored per 8-byte-aligned word.
// Bytes of a word that have always been accessed together share one cell (the
// common case: one cell per word, reached by one hash probe); an access that
// covers part of a cell splits it, so every byte keeps exactly its own history
// and conflicts are decided on overlapping bytes (docs/analyses.md, "Shared choices"). Accesses crossing
// a word boundary visit one cell group per word.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "predictor/common/flat_map.h"

namespace seer::predictor {

// Blocks up to this size are written whole by a free; larger ones (a thread's
// stack is megabytes) only in the bytes some access touched, which keeps a free
// from costing more than the accesses it conflicts with.
inline constexpr uint64_t kFreeWholeBlockBytes = 4096;

template <typename Cell>
class ShadowMemory {
 public:
  // The cell of an access that lies within one word whose bytes it covers
  // already share one cell (or are untouched): the common case, reached without
  // a callback. nullptr otherwise: use Access. Inlined: it runs for every access.
  [[gnu::always_inline]] Cell* Exact(uint64_t address, uint64_t size) {
    if (size == 0) size = 1;
    const uint64_t offset = address & 7;
    if (offset + size > 8) return nullptr;
    return ExactInWord(&words_[address >> 3], static_cast<uint8_t>(((1u << size) - 1) << offset));
  }

  // Calls fn(Cell&) once for each cell holding bytes of [address, address+size),
  // creating and splitting cells as needed. A size of 0 counts as 1 byte.
  // `fn` must not keep the reference: cells move when a word is split.
  template <typename Fn>
  void Access(uint64_t address, uint64_t size, Fn&& fn) {
    if (size == 0) size = 1;
    const uint64_t last = address + size - 1;
    for (uint64_t w = address >> 3; w <= last >> 3; ++w) {
      const uint8_t m = ByteMask(w, address, last);
      Word* word = &words_[w];
      if (Cell* cell = ExactInWord(word, m)) {
        fn(*cell);
      } else {
        Split(word, m, fn);
      }
    }
  }

  // The bytes of [address, address+size) start a fresh identity (alloc/free):
  // their history is forgotten. A size of 0 (unknown) forgets nothing.
  void Fresh(uint64_t address, uint64_t size) {
    ForEachWord(address, size, [](uint64_t, Word* word, uint8_t m) { Forget(word, m); });
  }

  // Calls fn(Cell&) for each existing cell holding bytes of
  // [address, address+size) and creates none (a freed thread stack is
  // megabytes, mostly never accessed). A cell partly inside the range is
  // visited whole. Nothing for a size of 0.
  template <typename Fn>
  void ForEachExisting(uint64_t address, uint64_t size, Fn&& fn) {
    ForEachWord(address, size, [&](uint64_t, Word* word, uint8_t m) {
      if (word->first.mask & m) fn(word->first.cell);
      for (Slot& s : word->rest)
        if (s.mask & m) fn(s.cell);
    });
  }

  // The cells a free of [address, address+size) writes (a free writes its
  // whole block: sync_ops.h): every byte of a block up to kFreeWholeBlockBytes,
  // created as needed, so that an access after the free to a byte no access
  // touched before still meets it; only the existing cells of a larger block.
  template <typename Fn>
  void ForEachFreed(uint64_t address, uint64_t size, Fn&& fn) {
    if (size <= kFreeWholeBlockBytes) {
      Access(address, size, fn);
    } else {
      ForEachExisting(address, size, fn);
    }
  }

  // Two passes over the cells of an access, or (`freed`) over the cells a
  // free writes: `first(Cell&)` over all of them when `with_first`, then
  // `second(Cell&)` over all. For engines whose per-cell check must see what
  // a first step did for every cell of the access (WCP's and CP's rule (a):
  // the access's time includes all of it before any cell is checked).
  template <typename First, typename Second>
  [[gnu::always_inline]] void TwoPasses(uint64_t address, uint64_t size, bool freed, bool with_first, First&& first,
                                        Second&& second) {
    if (freed) {
      if (with_first) ForEachFreed(address, size, first);
      ForEachFreed(address, size, second);
      return;
    }
    if (Cell* cell = Exact(address, size)) {  // the common case: one cell
      if (with_first) first(*cell);
      second(*cell);
      return;
    }
    if (with_first) Access(address, size, first);
    Access(address, size, second);
  }

  size_t words() const { return words_.size(); }

 private:
  struct Slot {
    uint8_t mask = 0;  // bytes of the word sharing `cell`; 0 = unused
    Cell cell;
  };
  struct Word {
    Slot first;
    std::vector<Slot> rest;  // further disjoint byte groups (mixed sizes only)
  };

  // Calls fn(w, Word*, bytes of the word in the range) for each existing word
  // of [address, address+size); nothing for a size of 0.
  template <typename Fn>
  void ForEachWord(uint64_t address, uint64_t size, Fn&& fn) {
    if (size == 0) return;
    const uint64_t last = address + size - 1;
    const uint64_t words = (last >> 3) - (address >> 3) + 1;
    if (words > 2 * words_.size()) {  // a huge range: visit the words we know instead
      words_.ForEach([&](uint64_t w, Word& word) {
        if (w >= address >> 3 && w <= last >> 3) fn(w, &word, ByteMask(w, address, last));
      });
      return;
    }
    for (uint64_t w = address >> 3; w <= last >> 3; ++w)
      if (Word* word = words_.Find(w)) fn(w, word, ByteMask(w, address, last));
  }

  static uint8_t ByteMask(uint64_t w, uint64_t address, uint64_t last) {
    const unsigned lo = (w == address >> 3) ? static_cast<unsigned>(address & 7) : 0;
    const unsigned hi = (w == last >> 3) ? static_cast<unsigned>(last & 7) + 1 : 8;
    return static_cast<uint8_t>(((1u << (hi - lo)) - 1) << lo);
  }

  static Cell* ExactInWord(Word* word, uint8_t m) {
    if (word->first.mask == m) return &word->first.cell;
    if (word->first.mask == 0 && word->rest.empty()) {
      word->first.mask = m;
      word->first.cell = Cell();
      return &word->first.cell;
    }
    for (Slot& s : word->rest)
      if (s.mask == m) return &s.cell;  // slots are disjoint: no other slot overlaps m
    return nullptr;
  }

  // The slow path: regroup the word's bytes so that m is a union of slots.
  template <typename Fn>
  void Split(Word* word, uint8_t m, Fn& fn) {
    std::vector<Slot> in, out;
    if (word->first.mask != 0) in.push_back(std::move(word->first));
    for (Slot& s : word->rest) in.push_back(std::move(s));
    uint8_t covered = 0;
    for (Slot& s : in) {
      const uint8_t inter = s.mask & m;
      if (inter == 0) {
        out.push_back(std::move(s));
        continue;
      }
      if (inter != s.mask) out.push_back(Slot{static_cast<uint8_t>(s.mask & ~m), s.cell});
      Slot part{inter, std::move(s.cell)};
      fn(part.cell);
      out.push_back(std::move(part));
      covered |= inter;
    }
    if (const uint8_t fresh = m & ~covered) {
      Slot part{fresh, Cell()};
      fn(part.cell);
      out.push_back(std::move(part));
    }
    word->first = std::move(out[0]);
    word->rest.assign(std::make_move_iterator(out.begin() + 1), std::make_move_iterator(out.end()));
  }

  static void Forget(Word* word, uint8_t m) {
    std::vector<Slot> keep;
    if (word->first.mask & ~m) keep.push_back(std::move(word->first));
    for (Slot& s : word->rest)
      if (s.mask & ~m) keep.push_back(std::move(s));
    for (Slot& s : keep) s.mask &= ~m;
    word->rest.clear();
    word->first = Slot();
    if (keep.empty()) return;
    word->first = std::move(keep[0]);
    for (size_t i = 1; i < keep.size(); ++i) word->rest.push_back(std::move(keep[i]));
  }

  FlatMap64<Word> words_;
};

}  // namespace seer::predictor
