//===- DataCursor.h - Bounds-checked little-endian reading ------*- C++ -*-===//
//
// Every read from a file goes through this cursor: each read checks the bytes
// that remain first, and a failed read leaves an error naming what was being
// read and the absolute offset, so no value from a file reaches an unchecked
// index or allocation.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_DATACURSOR_H
#define MEMPROF_PROFILEDATA_DATACURSOR_H

#include "memprof/ProfileData/Error.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Endian.h"
#include <cstdint>
#include <cstring>

namespace memprof {

class DataCursor {
public:
  /// \p Base is the absolute offset of Data[0] in the file, for messages.
  DataCursor(llvm::StringRef Data, uint64_t Base = 0) : Data(Data), Base(Base) {}

  uint64_t tell() const { return Pos; }
  uint64_t absoluteOffset() const { return Base + Pos; }
  uint64_t size() const { return Data.size(); }
  uint64_t remaining() const { return Data.size() - Pos; }
  bool atEnd() const { return Pos == Data.size(); }
  const char *current() const { return Data.data() + Pos; }

  /// Fails unless at least \p N bytes remain.
  llvm::Error need(uint64_t N, const llvm::Twine &What) const {
    if (N <= remaining())
      return llvm::Error::success();
    return makeError(ErrorCode::Truncated,
                     What + " needs " + llvm::Twine(N) + " bytes but " +
                         llvm::Twine(remaining()) + " remain",
                     absoluteOffset());
  }

  /// Fails unless \p Count items of \p ItemSize bytes fit in what remains.
  /// Guards every allocation sized by a count read from a file.
  llvm::Error needItems(uint64_t Count, uint64_t ItemSize,
                        const llvm::Twine &What) const {
    if (ItemSize != 0 && Count > remaining() / ItemSize)
      return makeError(ErrorCode::Malformed,
                       What + " count " + llvm::Twine(Count) +
                           " does not fit in the " + llvm::Twine(remaining()) +
                           " bytes that remain",
                       absoluteOffset());
    return llvm::Error::success();
  }

  llvm::Error seek(uint64_t NewPos, const llvm::Twine &What) {
    if (NewPos > Data.size())
      return makeError(ErrorCode::Malformed,
                       What + " offset " + llvm::Twine(Base + NewPos) +
                           " is past the end (" +
                           llvm::Twine(Base + Data.size()) + ")",
                       absoluteOffset());
    Pos = NewPos;
    return llvm::Error::success();
  }

  llvm::Error skip(uint64_t N, const llvm::Twine &What) {
    if (llvm::Error E = need(N, What))
      return E;
    Pos += N;
    return llvm::Error::success();
  }

  template <typename T> llvm::Expected<T> read(const llvm::Twine &What) {
    if (llvm::Error E = need(sizeof(T), What))
      return std::move(E);
    T V = llvm::support::endian::read<T, llvm::endianness::little>(
        Data.data() + Pos);
    Pos += sizeof(T);
    return V;
  }

  /// read<T> into \p Out. Every read returns its own error: a check made
  /// earlier (a count against the bytes that remain) guards allocations, not
  /// the reads after it, which later reads of the same loop may outrun.
  template <typename T> llvm::Error readInto(T &Out, const llvm::Twine &What) {
    if (llvm::Error E = need(sizeof(T), What))
      return E;
    Out = llvm::support::endian::read<T, llvm::endianness::little>(
        Data.data() + Pos);
    Pos += sizeof(T);
    return llvm::Error::success();
  }

  /// Reads an integer of \p Width bytes (2, 4 or 8) into a u64.
  llvm::Expected<uint64_t> readWidth(unsigned Width, const llvm::Twine &What) {
    auto Widen = [](auto V) -> llvm::Expected<uint64_t> {
      if (!V)
        return V.takeError();
      return uint64_t(*V);
    };
    if (Width == 2)
      return Widen(read<uint16_t>(What));
    if (Width == 4)
      return Widen(read<uint32_t>(What));
    return read<uint64_t>(What);
  }

  llvm::Expected<llvm::StringRef> readBytes(uint64_t N,
                                            const llvm::Twine &What) {
    if (llvm::Error E = need(N, What))
      return std::move(E);
    llvm::StringRef S = Data.substr(Pos, N);
    Pos += N;
    return S;
  }

private:
  llvm::StringRef Data;
  uint64_t Base;
  uint64_t Pos = 0;
};

} // namespace memprof

#endif
