//===- ByteWriter.h - Little-endian appends for the binary writers -*- C++ -*-===//
#ifndef MEMPROF_PROFILEDATA_BYTEWRITER_H
#define MEMPROF_PROFILEDATA_BYTEWRITER_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/LEB128.h"
#include <cstdint>

namespace memprof {

/// Appends \p V to \p Out as a little-endian integer of its own width.
template <typename T>
inline void writeLE(llvm::SmallVectorImpl<char> &Out, T V) {
  char Buf[sizeof(T)];
  llvm::support::endian::write<T, llvm::endianness::little>(Buf, V);
  Out.append(Buf, Buf + sizeof(T));
}

inline void write8(llvm::SmallVectorImpl<char> &Out, uint8_t V) {
  writeLE<uint8_t>(Out, V);
}
inline void write16(llvm::SmallVectorImpl<char> &Out, uint16_t V) {
  writeLE<uint16_t>(Out, V);
}
inline void write32(llvm::SmallVectorImpl<char> &Out, uint32_t V) {
  writeLE<uint32_t>(Out, V);
}
inline void write64(llvm::SmallVectorImpl<char> &Out, uint64_t V) {
  writeLE<uint64_t>(Out, V);
}

/// Appends \p V as an unsigned LEB128 varint.
inline void writeULEB(llvm::SmallVectorImpl<char> &Out, uint64_t V) {
  uint8_t Buf[10];
  unsigned N = llvm::encodeULEB128(V, Buf);
  Out.append(reinterpret_cast<char *>(Buf), reinterpret_cast<char *>(Buf) + N);
}

} // namespace memprof

#endif
