//===- ProfileUseTest.cpp - The clang flags a profile's content calls for -===//
#include "memprof/ProfileData/ProfileUse.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/InstrProfData.h"
#include "gtest/gtest.h"

using namespace memprof;
using namespace llvm;

namespace {

using Flags = std::vector<std::string>;

IndexedMemProf oneContext() {
  IndexedMemProf P;
  GUID Leaf = functionGUID("alloc"), Main = functionGUID("main");
  CallStackId Id =
      P.addCallStack({Frame{Leaf, 1, 3, false}, Frame{Main, 5, 7, false}});
  MemInfoBlock B;
  B.AllocCount = 1;
  B.TotalSize = 64;
  P.Records[Leaf].AllocSites.push_back({Id, B});
  return P;
}

CounterProfile oneRecord() {
  CounterProfile C;
  C.Present = true;
  C.Variant = instrprof::VariantIR;
  FunctionCounters F;
  F.Name = "main";
  F.Hash = 0x1234;
  F.Counts = {5};
  C.Records.push_back(F);
  return C;
}

/// The bytes of an indexed profile with the given parts; a null part is
/// left out (both null: an IR profile without records).
std::string indexed(const CounterProfile *C, const IndexedMemProf *P) {
  SmallVector<char, 0> Out;
  IndexedWriterOptions Opts;
  CounterProfile None;
  Expected<IndexedWriteStats> S =
      C || !P ? writeIndexedProfile(C ? *C : None, P, Opts, Out)
              : writeIndexedProfile(*P, Opts, Out);
  EXPECT_TRUE(bool(S)) << toString(S.takeError());
  return std::string(Out.begin(), Out.end());
}

std::string errorText(Error E) {
  std::string Text;
  handleAllErrors(std::move(E),
                  [&](const ErrorInfoBase &EI) { Text = EI.message(); });
  return Text;
}

TEST(ProfileUse, HeapOnlyGetsMemProfUseAndItsDebugInfo) {
  IndexedMemProf P = oneContext();
  auto U = readProfileUse("heap.profdata", indexed(nullptr, &P));
  ASSERT_TRUE(bool(U)) << toString(U.takeError());
  EXPECT_TRUE(U->MemProf);
  EXPECT_FALSE(U->Counters);
  EXPECT_EQ(U->Flags, (Flags{"-gmlt", "-fdebug-info-for-profiling",
                             "-fmemory-profile-use=heap.profdata"}));
  EXPECT_TRUE(U->Warnings.empty());
}

TEST(ProfileUse, CountersOnlyGetProfileUseAlone) {
  CounterProfile C = oneRecord();
  auto U = readProfileUse("c.profdata", indexed(&C, nullptr));
  ASSERT_TRUE(bool(U)) << toString(U.takeError());
  EXPECT_EQ(U->Flags, (Flags{"-fprofile-use=c.profdata"}));
  EXPECT_TRUE(U->Warnings.empty());
}

TEST(ProfileUse, BothGetEverything) {
  CounterProfile C = oneRecord();
  IndexedMemProf P = oneContext();
  auto U = readProfileUse("b.profdata", indexed(&C, &P));
  ASSERT_TRUE(bool(U)) << toString(U.takeError());
  EXPECT_EQ(U->Flags, (Flags{"-gmlt", "-fdebug-info-for-profiling",
                             "-fprofile-use=b.profdata",
                             "-fmemory-profile-use=b.profdata"}));
}

TEST(ProfileUse, AnEmptyPartGetsNoFlagButAWarning) {
  CounterProfile C = oneRecord();
  IndexedMemProf Empty;
  auto U = readProfileUse("p.profdata", indexed(&C, &Empty));
  ASSERT_TRUE(bool(U)) << toString(U.takeError());
  EXPECT_EQ(U->Flags, (Flags{"-fprofile-use=p.profdata"}));
  ASSERT_EQ(U->Warnings.size(), 1u);
  EXPECT_NE(U->Warnings[0].find("no allocation contexts"), std::string::npos);
}

TEST(ProfileUse, NeitherIsAnErrorThatSaysWhatToDo) {
  IndexedMemProf Empty;
  for (const std::string &Bytes :
       {indexed(nullptr, &Empty), indexed(nullptr, nullptr)}) {
    auto U = readProfileUse("n.profdata", Bytes);
    ASSERT_FALSE(bool(U));
    std::string Why = errorText(U.takeError());
    EXPECT_NE(Why.find("empty: holds neither PGO counters"), std::string::npos)
        << Why;
    EXPECT_NE(Why.find("memprof-merge"), std::string::npos) << Why;
  }
}

TEST(ProfileUse, FilesClangDoesNotReadAreRefused) {
  for (const char *Kind : {"raw", "raw-counters", "counters-text"}) {
    ProfileHeader H;
    H.Kind = Kind;
    H.MemProf = true;
    H.Contexts = 1;
    auto U = decideProfileUse("x", H);
    ASSERT_FALSE(bool(U)) << Kind;
    std::string Why = errorText(U.takeError());
    EXPECT_NE(Why.find("incompatible: "), std::string::npos) << Why;
    EXPECT_NE(Why.find("which clang does not read"), std::string::npos) << Why;
  }
  auto Garbage = readProfileUse("g", "garbage!garbage!");
  ASSERT_FALSE(bool(Garbage));
  std::string Why = errorText(Garbage.takeError());
  EXPECT_EQ(Why.rfind("bad_magic: ", 0), 0u) << Why;
  EXPECT_NE(Why.find("(at offset 0); clang builds with the indexed profile"),
            std::string::npos)
      << Why;
}

TEST(ProfileUse, ShellQuoting) {
  EXPECT_EQ(shellCommandLine({"-gmlt", "-fprofile-use=/a/b_c-d.1,x+y@z%:"}),
            "-gmlt -fprofile-use=/a/b_c-d.1,x+y@z%:");
  EXPECT_EQ(shellCommandLine({"-fprofile-use=a b", "it's", "$HOME", ""}),
            "'-fprofile-use=a b' 'it'\\''s' '$HOME' ''");
  EXPECT_EQ(shellCommandLine({}), "");
}

} // namespace
