#include "support/ObjectSymbols.h"

#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "support/Strings.h"

namespace opgen::support {

namespace {

constexpr std::string_view kArchiveMagic = "!<arch>\n";
constexpr std::string_view kThinArchiveMagic = "!<thin>\n";
constexpr std::size_t kArchiveHeaderSize = 60;
// What GCC puts in an LTO object compiled without -ffat-lto-objects: the object has no code, and
// its symbols are in sections only the linker plugin reads.
constexpr std::string_view kGccSlimLtoSymbol = "__gnu_lto_slim";

bool isLlvmBitcode(std::string_view bytes) {
  return startsWith(bytes, "BC\xC0\xDE") || startsWith(bytes, std::string_view("\xDE\xC0\x17\x0B", 4));
}

// Bounds-checked reads of an ELF file's fields, in its byte order.
class ElfReader {
 public:
  ElfReader(std::string_view bytes, bool is64, bool bigEndian) : bytes_(bytes), is64_(is64), big_(bigEndian) {}

  bool is64() const { return is64_; }
  bool ok() const { return ok_; }
  std::uint64_t u8(std::uint64_t at) { return get(at, 1); }
  std::uint64_t u16(std::uint64_t at) { return get(at, 2); }
  std::uint64_t u32(std::uint64_t at) { return get(at, 4); }
  std::uint64_t u64(std::uint64_t at) { return get(at, 8); }
  // An address-sized field (4 bytes in ELF32, 8 in ELF64).
  std::uint64_t word(std::uint64_t at) { return is64_ ? u64(at) : u32(at); }
  // The NUL-terminated string at `at` in a string table [table, table + size).
  std::string_view string(std::uint64_t table, std::uint64_t size, std::uint64_t at) {
    if (at >= size || table + size > bytes_.size() || table + size < table) {
      ok_ = false;
      return {};
    }
    std::string_view s = bytes_.substr(table + at, size - at);
    std::size_t end = s.find('\0');
    if (end == std::string_view::npos) {
      ok_ = false;
      return {};
    }
    return s.substr(0, end);
  }

 private:
  std::uint64_t get(std::uint64_t at, int n) {
    if (at + n > bytes_.size() || at + n < at) {
      ok_ = false;
      return 0;
    }
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) {
      const auto byte = static_cast<unsigned char>(bytes_[at + (big_ ? i : n - 1 - i)]);
      v = (v << 8) | byte;
    }
    return v;
  }

  std::string_view bytes_;
  bool is64_, big_;
  bool ok_ = true;
};

struct Section {
  std::uint64_t type = 0, offset = 0, size = 0, link = 0, entsize = 0;
};

// The symbols of one ELF file, appended to `out`. `name` names it in `unreadable` and in local
// functions, `where` in errors (nothing for the file itself, "member NAME: " in an archive).
Expected<bool> readElf(std::string_view bytes, const std::string& name, const std::string& where, ObjectSymbols& out) {
  if (bytes.size() < EI_NIDENT || !startsWith(bytes, ELFMAG)) {
    if (isLlvmBitcode(bytes)) {
      out.unreadable = name + " is LLVM bitcode (an LTO object): its symbols are known to the linker plugin only";
      return true;
    }
    out.unreadable = name + " is not an ELF file";
    return true;
  }
  const int elfClass = static_cast<unsigned char>(bytes[EI_CLASS]);
  const int data = static_cast<unsigned char>(bytes[EI_DATA]);
  if ((elfClass != ELFCLASS32 && elfClass != ELFCLASS64) || (data != ELFDATA2LSB && data != ELFDATA2MSB))
    return makeError(where + "unknown ELF class or byte order");
  ElfReader r(bytes, elfClass == ELFCLASS64, data == ELFDATA2MSB);
  const bool is64 = r.is64();
  const std::uint64_t type = r.u16(16);
  if (type != ET_REL && type != ET_DYN && type != ET_EXEC) return makeError(where + "not an object or a shared library");
  const std::uint64_t shoff = is64 ? r.u64(0x28) : r.u32(0x20);
  const std::uint64_t shentsize = r.u16(is64 ? 0x3A : 0x2E);
  std::uint64_t shnum = r.u16(is64 ? 0x3C : 0x30);
  if (!r.ok() || shoff == 0) return makeError(where + "truncated ELF file, or one without sections");
  auto section = [&](std::uint64_t i) {
    const std::uint64_t at = shoff + i * shentsize;
    Section s;
    s.type = r.u32(at + 4);
    s.offset = r.word(at + (is64 ? 24 : 16));
    s.size = r.word(at + (is64 ? 32 : 20));
    s.link = r.u32(at + (is64 ? 40 : 24));
    s.entsize = r.word(at + (is64 ? 56 : 36));
    return s;
  };
  // Every count is bounded by the file's size, so that a hostile header cannot make the loops below
  // run longer than the file is long: section headers of the size the class defines, all inside the file.
  if (shentsize != (is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)))
    return makeError(where + "malformed ELF file (section header size " + std::to_string(shentsize) + ")");
  if (shoff >= bytes.size()) return makeError(where + "truncated ELF file (section headers)");
  if (shnum == 0) shnum = section(0).size;  // extended numbering: the count is in section 0
  if (!r.ok() || shnum > (bytes.size() - shoff) / shentsize)
    return makeError(where + "truncated ELF file (section headers)");
  // The symbol table the linker resolves against: a shared object's dynamic symbols, an object's
  // full table.
  const std::uint64_t wanted = type == ET_REL ? SHT_SYMTAB : SHT_DYNSYM;
  std::optional<Section> symtab;
  for (std::uint64_t i = 0; i < shnum && r.ok(); ++i) {
    const Section s = section(i);
    if (s.type == wanted) symtab = s;
  }
  if (!r.ok()) return makeError(where + "truncated ELF file (section headers)");
  if (!symtab) return true;  // no symbols (a stripped object, or a shared object exporting nothing)
  const Section strtab = section(symtab->link);
  const std::uint64_t entsize = is64 ? 24 : 16;
  if (symtab->entsize != entsize || !r.ok() || symtab->offset > bytes.size() ||
      symtab->size > bytes.size() - symtab->offset)
    return makeError(where + "malformed symbol table");
  const std::size_t firstDefined = out.defined.size();
  for (std::uint64_t at = symtab->offset + entsize; at + entsize <= symtab->offset + symtab->size; at += entsize) {
    const std::uint64_t nameAt = r.u32(at);
    const std::uint64_t info = r.u8(at + (is64 ? 4 : 12));
    const std::uint64_t shndx = r.u16(at + (is64 ? 6 : 14));
    const std::string_view symbol = r.string(strtab.offset, strtab.size, nameAt);
    if (!r.ok()) return makeError(where + "malformed symbol table");
    if (symbol.empty()) continue;
    const unsigned binding = static_cast<unsigned>(info >> 4), kind = static_cast<unsigned>(info & 0xf);
    if (binding == STB_LOCAL) {
      if (kind == STT_FUNC && type == ET_REL) out.localFunctions.push_back({std::string(symbol), name});
    } else if (shndx == SHN_UNDEF) {
      if (type == ET_REL) out.undefined.emplace_back(symbol);
    } else {
      out.defined.emplace_back(symbol);
    }
  }
  for (std::size_t i = firstDefined; i < out.defined.size(); ++i)
    if (out.defined[i] == kGccSlimLtoSymbol) {
      out.unreadable = name + " is a GCC LTO object (compiled with -flto): its symbols are known to the linker plugin only";
      break;
    }
  return true;
}

// The archive member's name: "name/" (GNU), "/OFFSET" into the long-name table, "#1/LEN" (BSD, the
// name starts the data). Sets `skip` to the bytes of name at the start of the data.
std::string memberName(std::string_view field, std::string_view longNames, std::size_t& skip) {
  skip = 0;
  std::string_view name = trim(field);
  if (name.size() > 1 && name[0] == '/' && name[1] >= '0' && name[1] <= '9') {
    const std::size_t at = std::strtoul(std::string(name.substr(1)).c_str(), nullptr, 10);
    if (at < longNames.size()) {
      std::string_view rest = longNames.substr(at);
      return std::string(rest.substr(0, std::min(rest.find("/\n"), rest.find('\n'))));
    }
    return std::string(name);
  }
  if (startsWith(name, "#1/")) {
    skip = std::strtoul(std::string(name.substr(3)).c_str(), nullptr, 10);
    return std::string(name);
  }
  if (endsWith(name, "/")) name.remove_suffix(1);
  return std::string(name);
}

Expected<bool> readArchive(std::string_view bytes, const std::string& path, ObjectSymbols& out) {
  std::string_view longNames;
  std::size_t at = kArchiveMagic.size();
  while (at < bytes.size()) {
    if (bytes[at] == '\n') {  // padding
      ++at;
      continue;
    }
    if (at + kArchiveHeaderSize > bytes.size() || bytes.substr(at + 58, 2) != "`\n")
      return makeError("malformed archive (member header at byte " + std::to_string(at) + ")");
    const std::string_view header = bytes.substr(at, kArchiveHeaderSize);
    const std::size_t size = std::strtoul(std::string(trim(header.substr(48, 10))).c_str(), nullptr, 10);
    const std::size_t data = at + kArchiveHeaderSize;
    if (size > bytes.size() - data) return makeError("truncated archive");
    const std::string_view content = bytes.substr(data, size);
    const std::string_view field = trim(header.substr(0, 16));
    at = data + size + (size & 1);
    if (field == "//") {
      longNames = content;
      continue;
    }
    if (field == "/" || field == "/SYM64/" || startsWith(field, "__.SYMDEF")) continue;  // the symbol index
    std::size_t skip = 0;
    const std::string memberPath = memberName(field, longNames, skip);
    const std::string member = path + "(" + memberPath + ")";
    if (skip > content.size()) return makeError("malformed archive member name " + memberPath);
    Expected<bool> read = readElf(content.substr(skip), member, "member " + memberPath + ": ", out);
    if (!read) return read;
  }
  return true;
}

// A read-only view of a file's bytes (mapped, not copied).
class MappedFile {
 public:
  ~MappedFile() {
    if (data_ != nullptr && data_ != MAP_FAILED) munmap(data_, size_);
  }
  Expected<std::string_view> open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return makeError(std::strerror(errno));
    struct stat st {};
    if (fstat(fd, &st) != 0) {
      const int e = errno;
      ::close(fd);
      return makeError(std::strerror(e));
    }
    size_ = static_cast<std::size_t>(st.st_size);
    if (size_ == 0) {
      ::close(fd);
      return std::string_view();
    }
    data_ = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    const int e = errno;
    ::close(fd);
    if (data_ == MAP_FAILED) return makeError(std::strerror(e));
    return std::string_view(static_cast<const char*>(data_), size_);
  }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

// The position of the ')' that closes the '(' at `open`, or npos.
std::size_t closingParen(std::string_view s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    else if (s[i] == ')' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

}  // namespace

Expected<ObjectSymbols> readObjectSymbols(std::string_view bytes, const std::string& path) {
  ObjectSymbols out;
  if (startsWith(bytes, kThinArchiveMagic)) {
    out.unreadable = path + " is a thin archive (its members are other files)";
    return out;
  }
  Expected<bool> read = startsWith(bytes, kArchiveMagic) ? readArchive(bytes, path, out) : readElf(bytes, path, "", out);
  if (!read) return read.error();
  return out;
}

Expected<ObjectSymbols> readObjectSymbols(const std::string& path) {
  MappedFile file;
  Expected<std::string_view> bytes = file.open(path);
  if (!bytes) return bytes.error();
  return readObjectSymbols(*bytes, path);
}

std::optional<std::string> demangle(const std::string& mangled) {
  if (!startsWith(mangled, "_Z")) return std::nullopt;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                              std::free);
  if (status != 0 || !text) return std::nullopt;
  return std::string(text.get());
}

std::optional<DemangledFunction> parseDemangledFunction(std::string_view demangled) {
  // "(anonymous namespace)" is a name, not a parameter list: hide its parentheses while scanning.
  constexpr std::string_view kAnonymous = "(anonymous namespace)";
  std::string s(demangled);
  for (std::size_t at = s.find(kAnonymous); at != std::string::npos; at = s.find(kAnonymous, at))
    s.replace(at, kAnonymous.size(), std::string(kAnonymous.size(), '\x01'));
  // The parameter list: the first '(' outside template arguments.
  int angle = 0;
  std::size_t open = std::string::npos;
  for (std::size_t i = 0; i < s.size() && open == std::string::npos; ++i) {
    if (s[i] == '<') ++angle;
    else if (s[i] == '>') --angle;
    else if (s[i] == '(' && angle == 0) open = i;
  }
  if (open == std::string::npos || open == 0) return std::nullopt;
  const std::size_t close = closingParen(s, open);
  if (close == std::string::npos) return std::nullopt;
  // The name: before the parameters, without template arguments, after the return type.
  std::size_t end = open;
  if (s[end - 1] == '>') {
    int depth = 0;
    for (std::size_t i = end; i-- > 0;) {
      if (s[i] == '>') ++depth;
      else if (s[i] == '<' && --depth == 0) {
        end = i;
        break;
      }
    }
  }
  std::size_t begin = 0;
  angle = 0;
  for (std::size_t i = 0; i < end; ++i) {
    if (s[i] == '<') ++angle;
    else if (s[i] == '>') --angle;
    else if (s[i] == ' ' && angle == 0) begin = i + 1;
  }
  if (begin >= end) return std::nullopt;
  DemangledFunction f;
  f.qualified = demangled.substr(begin, end - begin);
  const std::size_t lastScope = f.qualified.rfind("::");
  f.base = lastScope == std::string::npos ? f.qualified : f.qualified.substr(lastScope + 2);
  f.parameters = demangled.substr(open, close - open + 1);
  // Parameters: separated by commas outside nested brackets.
  int depth = 0;
  std::size_t from = open + 1;
  for (std::size_t i = open + 1; i <= close; ++i) {
    const char c = s[i];
    if (c == '<' || c == '[' || (c == '(' && i < close)) ++depth;
    else if (c == '>' || c == ']' || (c == ')' && i < close)) --depth;
    else if ((c == ',' && depth == 0) || i == close) {
      std::string_view type = trim(std::string_view(demangled).substr(from, i - from));
      if (!type.empty() || c == ',') f.parameterTypes.emplace_back(type);
      from = i + 1;
    }
  }
  return f;
}

}  // namespace opgen::support
