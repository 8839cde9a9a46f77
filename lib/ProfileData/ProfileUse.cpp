//===- ProfileUse.cpp - The clang flags that build with a profile ---------===//
#include "memprof/ProfileData/ProfileUse.h"
#include "memprof/ProfileData/Error.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace memprof {

// Every message below ends with what to do; a raw input is the usual slip
// (the runs' files given where the merged one belongs).
static constexpr StringLiteral MergeHint =
    "memprof-merge RUN.profraw RUN.memprofraw... -o app.profdata";

Expected<ProfileUse> decideProfileUse(StringRef Path, const ProfileHeader &H) {
  auto NotIndexed = [&](StringRef What, const Twine &How) {
    return makeError(ErrorCode::Incompatible,
                     What + ", which clang does not read: " + How +
                         " and build with that");
  };
  const std::string Merge =
      ("merge the runs' files into an indexed profile (" + MergeHint + ")")
          .str();
  if (H.Kind == "raw")
    return NotIndexed("a raw MemProf profile (.memprofraw)", Merge);
  if (H.Kind == "raw-counters")
    return NotIndexed("a raw PGO counter profile (.profraw)", Merge);
  if (H.Kind == "counters-text")
    return NotIndexed("LLVM's counters text (.proftext)",
                      "convert it to an indexed profile (memprof-convert "
                      "--to-indexed " +
                          Path + " -o app.profdata)");

  ProfileUse U;
  U.Counters = H.FunctionRecords != 0;
  U.MemProf = H.Contexts != 0;
  if (!U.Counters && !U.MemProf)
    return makeError(
        ErrorCode::Empty,
        "holds neither PGO counters (no function records) nor heap data (no "
        "allocation contexts), so there is nothing to build with: merge the "
        ".profraw and .memprofraw files that runs of the instrumented "
        "program wrote (" +
            MergeHint + ")");
  if (H.Counters && !U.Counters)
    U.Warnings.push_back("its PGO counter part holds no function records: "
                         "no -fprofile-use");
  if (H.MemProf && !U.MemProf)
    U.Warnings.push_back("its MemProf part holds no allocation contexts: no "
                         "-fmemory-profile-use");
  if (U.MemProf)
    U.Flags.assign(std::begin(MemProfUseDebugFlags),
                   std::end(MemProfUseDebugFlags));
  if (U.Counters)
    U.Flags.push_back(("-fprofile-use=" + Path).str());
  if (U.MemProf)
    U.Flags.push_back(("-fmemory-profile-use=" + Path).str());
  return U;
}

Error explainUnusable(Error E) {
  return handleErrors(std::move(E), [](const MemProfError &M) -> Error {
    // The offset before the advice, which would otherwise follow it.
    std::string At = M.offset() == MemProfError::NoOffset
                         ? std::string()
                         : " (at offset " + std::to_string(M.offset()) + ")";
    return makeError(M.code(), M.detail() + At +
                                   "; clang builds with the indexed profile "
                                   "memprof-merge writes (" +
                                   MergeHint + ")");
  });
}

Expected<ProfileUse> readProfileUse(StringRef Path, StringRef Data) {
  Expected<ProfileHeader> H = readProfileHeader(Data);
  if (!H)
    return explainUnusable(H.takeError());
  return decideProfileUse(Path, *H);
}

std::string shellCommandLine(ArrayRef<std::string> Words) {
  std::string Out;
  for (const std::string &W : Words) {
    if (!Out.empty())
      Out += ' ';
    bool Plain = !W.empty() && llvm::all_of(W, [](char C) {
      return isAlnum(C) || StringRef("_@%+=:,./-").contains(C);
    });
    if (Plain) {
      Out += W;
      continue;
    }
    Out += '\'';
    for (char C : W) {
      if (C == '\'')
        Out += "'\\''"; // close, an escaped quote, reopen
      else
        Out += C;
    }
    Out += '\'';
  }
  return Out;
}

} // namespace memprof
