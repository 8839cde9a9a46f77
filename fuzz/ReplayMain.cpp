//===- ReplayMain.cpp - Run a fuzz target over corpus files ----------------===//
//
// Links with a fuzz target instead of libFuzzer so that every corpus runs as
// an ordinary test: each argument is a file or a directory of files.
//
//===----------------------------------------------------------------------===//
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size);

int main(int argc, char **argv) {
  std::vector<std::string> Files;
  for (int I = 1; I < argc; ++I) {
    if (llvm::sys::fs::is_directory(argv[I])) {
      std::error_code EC;
      for (llvm::sys::fs::directory_iterator It(argv[I], EC), End;
           It != End && !EC; It.increment(EC))
        Files.push_back(It->path());
    } else {
      Files.push_back(argv[I]);
    }
  }
  for (const std::string &F : Files) {
    auto Buf = llvm::MemoryBuffer::getFile(F, false, false);
    if (!Buf) {
      llvm::errs() << "replay: cannot read " << F << "\n";
      return 1;
    }
    LLVMFuzzerTestOneInput(
        reinterpret_cast<const uint8_t *>((*Buf)->getBufferStart()),
        (*Buf)->getBufferSize());
  }
  llvm::outs() << "replayed " << Files.size() << " inputs\n";
  return Files.empty() ? 1 : 0;
}
