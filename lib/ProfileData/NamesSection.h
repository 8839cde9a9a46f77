//===- NamesSection.h - Reading one section of the names extension -*- C++ -*-===//
//
// What every table of the names extension (docs/names-extension.md) is read
// with: varints decoded within their section, counts checked against the
// bytes the section has left, and errors that name the extension, the
// section and the offset. Shared by the names reader and the heap table's.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_LIB_PROFILEDATA_NAMESSECTION_H
#define MEMPROF_LIB_PROFILEDATA_NAMESSECTION_H

#include "memprof/ProfileData/DataCursor.h"
#include "memprof/ProfileData/Error.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/LEB128.h"
#include <cstdint>
#include <optional>
#include <string>

namespace memprof {

inline llvm::Error namesMalformed(const llvm::Twine &Msg, uint64_t Offset) {
  return makeError(ErrorCode::Malformed, "names extension: " + Msg, Offset);
}

/// Reads one section: varints bounded by the section.
class SectionCursor {
public:
  SectionCursor(llvm::StringRef Data, uint64_t Base, llvm::StringRef Name)
      : C(Data, Base), Name(Name) {}

  llvm::Expected<uint64_t> uleb(const llvm::Twine &What) {
    const uint64_t At = C.absoluteOffset();
    const uint8_t *P = reinterpret_cast<const uint8_t *>(C.current());
    const uint8_t *End = P + C.remaining();
    unsigned N = 0;
    const char *Err = nullptr;
    uint64_t V = llvm::decodeULEB128(P, &N, End, &Err);
    if (Err)
      return namesMalformed(Name + " " + What + ": " + Err, At);
    if (llvm::Error E = C.skip(N, What))
      return std::move(E);
    return V;
  }

  llvm::Expected<uint32_t> uleb32(const llvm::Twine &What) {
    const uint64_t At = C.absoluteOffset();
    auto V = uleb(What);
    if (!V)
      return V.takeError();
    if (*V > UINT32_MAX)
      return namesMalformed(Name + " " + What + " " + llvm::Twine(*V) +
                                " does not fit in 32 bits",
                            At);
    return uint32_t(*V);
  }

  /// Reads a count and checks that that many items of at least \p MinSize
  /// bytes fit in what remains.
  llvm::Expected<uint64_t> count(uint64_t MinSize, const llvm::Twine &What) {
    const uint64_t At = C.absoluteOffset();
    auto N = uleb(What + " count");
    if (!N)
      return N.takeError();
    if (MinSize && *N > C.remaining() / MinSize)
      return namesMalformed(Name + " " + What + " count " + llvm::Twine(*N) +
                                " does not fit in the " +
                                llvm::Twine(C.remaining()) +
                                " bytes that remain",
                            At);
    return *N;
  }

  /// Reads entry \p I's u64 id (little-endian), named \p Entry \p Field
  /// ("type", "context id"), which must be above \p Prev, the previous
  /// entry's when there is one (the tables keyed by context id).
  llvm::Expected<uint64_t> increasingId(uint64_t I,
                                        std::optional<uint64_t> Prev,
                                        llvm::StringRef Entry,
                                        llvm::StringRef Field) {
    const uint64_t At = C.absoluteOffset();
    uint64_t Id;
    if (llvm::Error E = C.readInto(Id, Entry + " " + Field))
      return std::move(E);
    if (Prev && Id <= *Prev)
      return namesMalformed(Entry + " " + llvm::Twine(I) + " " + Field +
                                " 0x" + llvm::Twine::utohexstr(Id) +
                                " is not above the previous one",
                            At);
    return Id;
  }

  llvm::Error finish() {
    if (!C.atEnd())
      return namesMalformed(Name + " has " + llvm::Twine(C.remaining()) +
                                " bytes after its last entry",
                            C.absoluteOffset());
    return llvm::Error::success();
  }

  DataCursor C;
  std::string Name;
};

} // namespace memprof

#endif
