//===- Error.h - The one error domain of the memprof project --------------===//
#ifndef MEMPROF_PROFILEDATA_ERROR_H
#define MEMPROF_PROFILEDATA_ERROR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>

namespace memprof {

enum class ErrorCode {
  Empty = 1,
  BadMagic,
  UnsupportedVersion,
  Truncated,
  Malformed,
  IO,
  Symbolization,
  Incompatible,
  CounterOverflow,
  TooLarge,
  Usage,
  NotFound,
};

/// Short class name printed in front of every message ("truncated", ...).
llvm::StringRef errorCodeName(ErrorCode C);

/// An error with a class, a message and, where known, the byte offset in the
/// input where the problem was found.
class MemProfError : public llvm::ErrorInfo<MemProfError> {
public:
  static char ID;
  static constexpr uint64_t NoOffset = ~0ULL;

  MemProfError(ErrorCode Code, std::string Msg, uint64_t Offset = NoOffset)
      : Code(Code), Msg(std::move(Msg)), Offset(Offset) {}

  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

  ErrorCode code() const { return Code; }
  const std::string &detail() const { return Msg; }
  uint64_t offset() const { return Offset; }

private:
  ErrorCode Code;
  std::string Msg;
  uint64_t Offset;
};

inline llvm::Error makeError(ErrorCode Code, const llvm::Twine &Msg,
                             uint64_t Offset = MemProfError::NoOffset) {
  return llvm::make_error<MemProfError>(Code, Msg.str(), Offset);
}

/// Prefixes an error's message with a file name: "FILE: message".
llvm::Error withFile(llvm::StringRef File, llvm::Error E);

} // namespace memprof

#endif
