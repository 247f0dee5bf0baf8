// Reads the build-id from the PT_NOTE segments, bounded by the file: a damaged
// or foreign file gives an empty id, never a fault.
#include "store/build_id.h"

#include <elf.h>

#include <cstring>
#include <fstream>

namespace seer::store {

std::string ReadBuildId(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return "";
  Elf64_Ehdr eh;
  if (!f.read(reinterpret_cast<char*>(&eh), sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr))
    return "";
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    f.seekg(static_cast<std::streamoff>(eh.e_phoff + i * sizeof ph));
    if (!f.read(reinterpret_cast<char*>(&ph), sizeof ph)) return "";
    if (ph.p_type != PT_NOTE || ph.p_filesz > (1 << 20)) continue;
    std::string notes(ph.p_filesz, '\0');
    f.seekg(static_cast<std::streamoff>(ph.p_offset));
    if (!f.read(notes.data(), static_cast<std::streamsize>(notes.size()))) return "";
    size_t pos = 0;
    while (pos + sizeof(Elf64_Nhdr) <= notes.size()) {
      Elf64_Nhdr nh;
      std::memcpy(&nh, notes.data() + pos, sizeof nh);
      const size_t name_at = pos + sizeof nh;
      const size_t desc_at = name_at + ((nh.n_namesz + 3) & ~3u);
      const size_t next = desc_at + ((nh.n_descsz + 3) & ~3u);
      if (next > notes.size()) break;
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && std::memcmp(notes.data() + name_at, "GNU", 4) == 0) {
        std::string hex;
        static const char kDigits[] = "0123456789abcdef";
        for (size_t j = 0; j < nh.n_descsz; ++j) {
          const auto b = static_cast<unsigned char>(notes[desc_at + j]);
          hex.push_back(kDigits[b >> 4]);
          hex.push_back(kDigits[b & 15]);
        }
        return hex;
      }
      pos = next;
    }
  }
  return "";
}

}  // namespace seer::store
