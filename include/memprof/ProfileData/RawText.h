//===- RawText.h - A readable text form of raw MemProf profiles -*- C++ -*-===//
//
// A line-based description of a raw profile file (docs/text-formats.md):
// dumps with their version, segments with hex build ids, MIBs with every
// field by name, histograms and stacks with hex PCs. Decompiling any bytes
// and compiling the text back gives the same bytes, whatever they hold; parts
// that are not a well-formed dump are kept as hex. The text may also override
// header fields, counts and sizes and truncate the result, so tests can build
// malformed raw files from readable text.
//
//===----------------------------------------------------------------------===//
#ifndef MEMPROF_PROFILEDATA_RAWTEXT_H
#define MEMPROF_PROFILEDATA_RAWTEXT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <string>

namespace memprof {

/// The first line of every raw text: "memprof-raw-text 1".
constexpr const char *RawTextMarker = "memprof-raw-text";
constexpr unsigned RawTextVersion = 1;

/// True when the first line that is neither blank nor a comment starts with
/// the marker.
bool isRawText(llvm::StringRef Buffer);

/// Describes the file \p Buffer (any bytes) as raw text.
void writeRawText(llvm::StringRef Buffer, llvm::raw_ostream &OS);

struct RawTextLimits {
  /// Largest file the text may compile to.
  uint64_t MaxOutputBytes = 1ULL << 30;
};

/// Compiles raw text into the bytes of a raw profile file. Errors name the
/// line.
llvm::Expected<std::string>
compileRawText(llvm::StringRef Text,
               const RawTextLimits &Limits = RawTextLimits());

} // namespace memprof

#endif
