//===- Error.cpp - The memprof error domain --------------------------------===//
#include "memprof/ProfileData/Error.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace memprof {

char MemProfError::ID = 0;

StringRef errorCodeName(ErrorCode C) {
  switch (C) {
  case ErrorCode::Empty:
    return "empty";
  case ErrorCode::BadMagic:
    return "bad_magic";
  case ErrorCode::UnsupportedVersion:
    return "unsupported_version";
  case ErrorCode::Truncated:
    return "truncated";
  case ErrorCode::Malformed:
    return "malformed";
  case ErrorCode::IO:
    return "io";
  case ErrorCode::Symbolization:
    return "symbolization";
  case ErrorCode::Incompatible:
    return "incompatible";
  case ErrorCode::CounterOverflow:
    return "counter_overflow";
  case ErrorCode::TooLarge:
    return "too_large";
  case ErrorCode::Usage:
    return "usage";
  case ErrorCode::NotFound:
    return "not_found";
  }
  return "error";
}

void MemProfError::log(raw_ostream &OS) const {
  OS << errorCodeName(Code) << ": " << Msg;
  if (Offset != NoOffset)
    OS << " (at offset " << Offset << ")";
}

std::error_code MemProfError::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

namespace {
/// A file-name prefix around another error, so that the class survives.
class FileError final : public ErrorInfo<FileError> {
public:
  static char ID;
  FileError(std::string File, std::unique_ptr<ErrorInfoBase> Inner)
      : File(std::move(File)), Inner(std::move(Inner)) {}
  void log(raw_ostream &OS) const override {
    OS << File << ": ";
    Inner->log(OS);
  }
  std::error_code convertToErrorCode() const override {
    return Inner->convertToErrorCode();
  }
  std::string File;
  std::unique_ptr<ErrorInfoBase> Inner;
};
char FileError::ID = 0;
} // namespace

Error withFile(StringRef File, Error E) {
  if (!E)
    return E;
  Error Out = Error::success();
  handleAllErrors(std::move(E), [&](std::unique_ptr<ErrorInfoBase> EI) {
    Out = joinErrors(std::move(Out),
                     make_error<FileError>(File.str(), std::move(EI)));
  });
  return Out;
}

} // namespace memprof
