//===- InstrProfMergeTest.cpp - CounterMerger against llvm-profdata-22 -----===//
//
// The oracle is llvm-profdata-22 itself through its text format: the test
// writes text profiles, merges them with `llvm-profdata-22 merge
// --num-threads=1` (several writer threads would change which record wins a
// count mismatch, spec 2.1), parses the result and compares it with what
// CounterMerger makes of the same content. Record order under one name is
// read from `show --all-functions` on an indexed output. None of this uses
// another memprof reader or writer. The tests skip without llvm-profdata-22.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/InstrProfData.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <map>
#include <random>
#include <set>

using namespace memprof;
using namespace llvm;
namespace ip = memprof::instrprof;

namespace {

/// MD5lo of a name, computed here with llvm::MD5 so that the oracle stays
/// independent of instrProfNameRef.
uint64_t md5lo(StringRef S) { return llvm::MD5Hash(S); }

const char *const ExternalSymbol = "** External Symbol **";

//===----------------------------------------------------------------------===//
// Running llvm-profdata-22
//===----------------------------------------------------------------------===//

class TempDir {
public:
  TempDir() {
    if (std::error_code EC =
            sys::fs::createUniqueDirectory("instrprof-merge-test", Path))
      ADD_FAILURE() << "createUniqueDirectory: " << EC.message();
  }
  ~TempDir() { sys::fs::remove_directories(Path); }
  std::string file(StringRef Name) const {
    return (Twine(Path) + "/" + Name).str();
  }

private:
  SmallString<128> Path;
};

std::string profdataPath() {
  static std::string Path = [] {
    ErrorOr<std::string> P = sys::findProgramByName("llvm-profdata-22");
    return P ? *P : std::string();
  }();
  return Path;
}

#define REQUIRE_PROFDATA()                                                     \
  do {                                                                         \
    if (profdataPath().empty())                                                \
      GTEST_SKIP() << "llvm-profdata-22 is not on PATH";                       \
  } while (0)

void writeFile(const std::string &Path, StringRef Text) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  ASSERT_FALSE(EC) << Path << ": " << EC.message();
  OS << Text;
}

std::string readFile(const std::string &Path) {
  auto B = MemoryBuffer::getFile(Path);
  if (!B)
    return std::string();
  return (*B)->getBuffer().str();
}

struct RunResult {
  int Status = -1;
  std::string Out, Err;
};

/// Runs llvm-profdata-22 with \p Args; stdout and stderr are kept.
RunResult runProfdata(const TempDir &D, ArrayRef<std::string> Args) {
  std::string OutPath = D.file("stdout.txt"), ErrPath = D.file("stderr.txt");
  // ExecuteAndWait opens redirect files without O_TRUNC.
  sys::fs::remove(OutPath);
  sys::fs::remove(ErrPath);
  std::vector<StringRef> Argv = {"llvm-profdata-22"};
  for (const std::string &A : Args)
    Argv.push_back(A);
  std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(OutPath),
                                          StringRef(ErrPath)};
  std::string Msg;
  RunResult R;
  R.Status = sys::ExecuteAndWait(profdataPath(), Argv, std::nullopt,
                                 Redirects, 0, 0, &Msg);
  R.Out = readFile(OutPath);
  R.Err = readFile(ErrPath) + Msg;
  return R;
}

//===----------------------------------------------------------------------===//
// The text format (spec 4.1/4.2), written and read here
//===----------------------------------------------------------------------===//

const char *const KindNames[] = {"IPVK_IndirectCallTarget", "IPVK_MemOPSize",
                                 "IPVK_VTableTarget"};

/// Names of kind 0 and 2 values: the text format stores names, not MD5s.
struct Symbols {
  std::map<uint64_t, std::string> NameOf;
  void add(const std::string &N) { NameOf[md5lo(N)] = N; }
  std::string name(uint64_t V) const {
    auto It = NameOf.find(V);
    return It == NameOf.end() ? std::string(ExternalSymbol) : It->second;
  }
};

std::string toText(const CounterProfile &P, const Symbols &Syms) {
  std::string S;
  raw_string_ostream OS(S);
  if (P.Variant & ip::VariantCSIR)
    OS << ":csir\n";
  else if (P.Variant & ip::VariantIR)
    OS << ":ir\n";
  if (P.Variant & ip::VariantEntryFirst)
    OS << ":entry_first\n";
  if (P.Variant & ip::VariantLoopEntries)
    OS << ":instrument_loop_entries\n";
  if (P.Variant & ip::VariantByteCoverage)
    OS << ":single_byte_coverage\n";
  if (P.Variant & ip::VariantTemporal) {
    OS << ":temporal_prof_traces\n# Num Temporal Profile Traces:\n"
       << P.Traces.size() << "\n# Temporal Profile Trace Stream Size:\n"
       << P.TraceStreamSize << "\n";
    for (const TemporalTrace &T : P.Traces) {
      OS << "# Weight:\n" << T.Weight << "\n";
      for (uint64_t R : T.FunctionNameRefs)
        OS << Syms.name(R) << ",";
      if (T.FunctionNameRefs.empty())
        OS << ","; // an empty trace: a line the reader splits into nothing
      OS << "\n";
    }
  }
  for (const FunctionCounters &R : P.Records) {
    OS << R.Name << "\n# Func Hash:\n" << R.Hash << "\n# Num Counters:\n"
       << R.Counts.size() << "\n# Counter Values:\n";
    for (uint64_t C : R.Counts)
      OS << C << "\n";
    // Always a bitmap line, "$0" too: LLVM 22's text reader reuses its
    // record, and Clear() leaves BitmapBytes alone, so a record without the
    // line inherits the bitmap of the one before when that one was merged
    // into an existing record (a new one is moved from and left empty).
    OS << "# Num Bitmap Bytes:\n$" << R.Bitmap.size()
       << "\n# Bitmap Byte Values:\n";
    for (uint8_t B : R.Bitmap)
      OS << "0x" << utohexstr(B) << "\n";
    unsigned NumKinds = 0;
    for (const auto &Sites : R.Sites)
      NumKinds += !Sites.empty();
    if (NumKinds) {
      OS << "# Num Value Kinds:\n" << NumKinds << "\n";
      for (unsigned K = 0; K < ip::NumValueKinds; ++K) {
        if (R.Sites[K].empty())
          continue;
        OS << "# ValueKind = " << KindNames[K] << ":\n"
           << K << "\n# NumValueSites:\n"
           << R.Sites[K].size() << "\n";
        for (const InstrProfValueSite &Site : R.Sites[K]) {
          OS << Site.size() << "\n";
          for (const InstrProfValue &V : Site) {
            if (K == ip::ValueKindMemOPSize)
              OS << V.Value;
            else
              OS << Syms.name(V.Value);
            OS << ":" << V.Count << "\n";
          }
        }
      }
    }
    OS << "\n";
  }
  return S;
}

/// Lines of a text profile as LLVM's reader sees them: '#' comments and
/// blank lines skipped.
class Lines {
public:
  explicit Lines(StringRef Text) {
    SmallVector<StringRef, 0> All;
    Text.split(All, '\n');
    for (StringRef L : All) {
      L = L.rtrim("\r");
      if (L.trim().empty() || L.starts_with("#"))
        continue;
      Items.push_back(L);
    }
  }
  bool done() const { return Pos >= Items.size(); }
  StringRef peek() const { return done() ? StringRef() : Items[Pos]; }
  StringRef next() { return done() ? StringRef() : Items[Pos++]; }
  uint64_t nextInt(unsigned Radix = 10) {
    uint64_t V = 0;
    StringRef L = next();
    if (L.trim().getAsInteger(Radix, V))
      ADD_FAILURE() << "not an integer: '" << L.str() << "'";
    return V;
  }

private:
  std::vector<StringRef> Items;
  size_t Pos = 0;
};

uint64_t valueOfName(StringRef N) {
  return N == ExternalSymbol ? 0 : md5lo(N);
}

CounterProfile parseText(StringRef Text) {
  CounterProfile P;
  P.Present = true;
  Lines L(Text);
  while (!L.done() && L.peek().starts_with(":")) {
    std::string H = L.next().drop_front().trim().lower();
    if (H == "ir")
      P.Variant |= ip::VariantIR;
    else if (H == "csir")
      P.Variant |= ip::VariantIR | ip::VariantCSIR;
    else if (H == "entry_first")
      P.Variant |= ip::VariantEntryFirst;
    else if (H == "instrument_loop_entries")
      P.Variant |= ip::VariantLoopEntries;
    else if (H == "single_byte_coverage")
      P.Variant |= ip::VariantByteCoverage;
    else if (H == "temporal_prof_traces") {
      P.Variant |= ip::VariantTemporal;
      uint64_t N = L.nextInt();
      P.TraceStreamSize = L.nextInt();
      for (uint64_t I = 0; I < N; ++I) {
        TemporalTrace T;
        T.Weight = L.nextInt();
        SmallVector<StringRef, 16> Names;
        L.next().split(Names, ',', -1, /*KeepEmpty=*/false);
        for (StringRef Nm : Names)
          T.FunctionNameRefs.push_back(md5lo(Nm));
        P.Traces.push_back(std::move(T));
      }
    } else
      ADD_FAILURE() << "unknown header :" << H;
  }
  while (!L.done()) {
    FunctionCounters R;
    R.Name = L.next().str();
    R.Hash = L.nextInt(0);
    uint64_t N = L.nextInt();
    for (uint64_t I = 0; I < N; ++I)
      R.Counts.push_back(L.nextInt());
    if (L.peek().starts_with("$")) {
      uint64_t NB = 0;
      EXPECT_FALSE(L.next().drop_front().trim().getAsInteger(0, NB));
      for (uint64_t I = 0; I < NB; ++I)
        R.Bitmap.push_back(static_cast<uint8_t>(L.nextInt(0)));
    }
    uint64_t NumKinds;
    if (!L.done() && !L.peek().trim().getAsInteger(10, NumKinds)) {
      L.next();
      for (uint64_t K = 0; K < NumKinds; ++K) {
        uint64_t Kind = L.nextInt();
        EXPECT_LT(Kind, ip::NumValueKinds);
        if (Kind >= ip::NumValueKinds)
          return P;
        uint64_t NumSites = L.nextInt();
        for (uint64_t S = 0; S < NumSites; ++S) {
          InstrProfValueSite Site;
          uint64_t NV = L.nextInt();
          for (uint64_t V = 0; V < NV; ++V) {
            auto [Val, Cnt] = L.next().rsplit(':');
            InstrProfValue IV;
            EXPECT_FALSE(Cnt.getAsInteger(10, IV.Count)) << Cnt.str();
            if (Kind == ip::ValueKindMemOPSize)
              EXPECT_FALSE(Val.getAsInteger(10, IV.Value)) << Val.str();
            else
              IV.Value = valueOfName(Val);
            Site.push_back(IV);
          }
          R.Sites[Kind].push_back(std::move(Site));
        }
      }
    }
    P.Records.push_back(std::move(R));
  }
  return P;
}

/// The records ordered as the text writer orders them: by name bytes, then
/// hash ((name, hash) is unique in a merged profile).
std::vector<FunctionCounters> textOrder(std::vector<FunctionCounters> Rs) {
  std::sort(Rs.begin(), Rs.end(),
                   [](const FunctionCounters &A, const FunctionCounters &B) {
                     int C = StringRef(A.Name).compare(B.Name);
                     return C ? C < 0 : A.Hash < B.Hash;
                   });
  return Rs;
}

std::string describe(const FunctionCounters &R) {
  std::string S;
  raw_string_ostream OS(S);
  OS << R.Name << " #" << R.Hash << " counts[";
  for (uint64_t C : R.Counts)
    OS << C << " ";
  OS << "] bitmap[";
  for (uint8_t B : R.Bitmap)
    OS << unsigned(B) << " ";
  OS << "]";
  for (unsigned K = 0; K < ip::NumValueKinds; ++K) {
    OS << " k" << K << "{";
    for (const InstrProfValueSite &Site : R.Sites[K]) {
      OS << "(";
      for (const InstrProfValue &V : Site)
        OS << V.Value << ":" << V.Count << " ";
      OS << ")";
    }
    OS << "}";
  }
  return S;
}

void expectSameRecords(const std::vector<FunctionCounters> &Expected,
                       const std::vector<FunctionCounters> &Actual) {
  ASSERT_EQ(Expected.size(), Actual.size());
  for (size_t I = 0; I < Expected.size(); ++I)
    EXPECT_TRUE(Expected[I] == Actual[I])
        << "record " << I << "\n llvm-profdata: " << describe(Expected[I])
        << "\n CounterMerger: " << describe(Actual[I]);
}

/// Bits the text format carries.
constexpr uint64_t TextVariantBits =
    ip::VariantIR | ip::VariantCSIR | ip::VariantEntryFirst |
    ip::VariantLoopEntries | ip::VariantByteCoverage | ip::VariantTemporal;

struct Input {
  std::string File; ///< name inside the temp dir
  CounterProfile Profile;
  uint64_t Weight = 1;
};

struct MergeOutcome {
  CounterProfile LLVM;    ///< parsed from merge --text
  CounterProfile Ours;    ///< CounterMerger::build()
  std::string Stderr;     ///< llvm-profdata's
  std::set<std::pair<std::string, std::string>> LLVMWarnings; ///< file, "func: text"
  std::set<std::pair<std::string, std::string>> OurWarnings;
};

/// Merges \p Inputs with llvm-profdata-22 (weight-1 inputs positional,
/// the others --weighted-input, which the tool reads after the positional
/// ones) and with CounterMerger in the order the tool uses.
MergeOutcome mergeBoth(const TempDir &D, const std::vector<Input> &Inputs,
                       const Symbols &Syms) {
  MergeOutcome O;
  std::vector<std::string> Args = {"merge", "--text", "--num-threads=1"};
  std::vector<const Input *> Order;
  for (const Input &In : Inputs) {
    writeFile(D.file(In.File), toText(In.Profile, Syms));
    if (In.Weight == 1) {
      Args.push_back(D.file(In.File));
      Order.push_back(&In);
    }
  }
  for (const Input &In : Inputs)
    if (In.Weight != 1) {
      Args.push_back("--weighted-input=" + std::to_string(In.Weight) + "," +
                     D.file(In.File));
      Order.push_back(&In);
    }
  std::string OutPath = D.file("merged.txt");
  Args.push_back("-o");
  Args.push_back(OutPath);
  sys::fs::remove(OutPath);
  RunResult R = runProfdata(D, Args);
  EXPECT_EQ(R.Status, 0) << R.Err;
  O.Stderr = R.Err;
  O.LLVM = parseText(readFile(OutPath));

  // "<path>: <func>: <message>", then perhaps a hint line.
  SmallVector<StringRef, 0> ErrLines;
  StringRef(O.Stderr).split(ErrLines, '\n');
  for (StringRef Line : ErrLines) {
    for (const Input &In : Inputs) {
      std::string Prefix = D.file(In.File) + ": ";
      if (Line.starts_with(Prefix))
        O.LLVMWarnings.insert({In.File, Line.drop_front(Prefix.size()).str()});
    }
  }

  CounterMerger M;
  for (const Input *In : Order) {
    std::vector<CounterWarning> W;
    EXPECT_FALSE(errorToBool(M.add(In->Profile, In->Weight, W)));
    for (const CounterWarning &CW : W)
      O.OurWarnings.insert(
          {In->File, CW.Function + ": " + counterIssueText(CW.Issue).str()});
  }
  O.Ours = M.build();
  return O;
}

/// Compares everything the text format shows. LLVM reports one warning per
/// input record (the first issue found); CounterMerger one per issue and
/// function, so LLVM's are a subset of ours, for the same functions.
void expectSameMerge(const MergeOutcome &O) {
  EXPECT_EQ(O.LLVM.Variant & TextVariantBits, O.Ours.Variant & TextVariantBits);
  expectSameRecords(O.LLVM.Records, textOrder(O.Ours.Records));
  EXPECT_EQ(O.LLVM.TraceStreamSize, O.Ours.TraceStreamSize);
  EXPECT_EQ(O.LLVM.Traces, O.Ours.Traces);
  for (const auto &W : O.LLVMWarnings)
    EXPECT_TRUE(O.OurWarnings.count(W))
        << "llvm-profdata warned " << W.first << ": " << W.second
        << ", CounterMerger did not";
  std::set<std::pair<std::string, std::string>> LLVMFuncs, OurFuncs;
  for (const auto &W : O.LLVMWarnings)
    LLVMFuncs.insert({W.first, StringRef(W.second).rsplit(": ").first.str()});
  for (const auto &W : O.OurWarnings)
    OurFuncs.insert({W.first, StringRef(W.second).rsplit(": ").first.str()});
  EXPECT_EQ(LLVMFuncs, OurFuncs) << O.Stderr;
}

FunctionCounters rec(StringRef Name, uint64_t Hash,
                     std::vector<uint64_t> Counts) {
  FunctionCounters R;
  R.Name = Name.str();
  R.Hash = Hash;
  R.Counts = std::move(Counts);
  return R;
}

CounterProfile irProfile(std::vector<FunctionCounters> Records) {
  CounterProfile P;
  P.Present = true;
  P.Variant = ip::VariantIR;
  P.Records = std::move(Records);
  return P;
}

//===----------------------------------------------------------------------===//
// Hand-written cases, each rule of spec 2.3 once
//===----------------------------------------------------------------------===//

TEST(InstrProfMerge, IssueTextIsLLVMs) {
  EXPECT_EQ(counterIssueText(CounterIssue::CountMismatch),
            "function basic block count change detected (counter mismatch)");
  EXPECT_EQ(counterIssueText(CounterIssue::CounterOverflow),
            "counter overflow");
  EXPECT_EQ(counterIssueText(CounterIssue::BitmapMismatch),
            "function bitmap size change detected (bitmap size mismatch)");
  EXPECT_EQ(counterIssueText(CounterIssue::ValueSiteCountMismatch),
            "function value site count change detected (counter mismatch)");
}

TEST(InstrProfMerge, TargetValuesAreNameRefs) {
  // The oracle hashes names with llvm::MD5 itself; the readers fill kind-0/2
  // values with instrProfNameRef. Both must be one function.
  for (const char *N : {"main", "a.c;_ZL4add1i", "x.c:local", "_ZTV2Sq", ""})
    EXPECT_EQ(instrProfNameRef(N), md5lo(N)) << N;
  EXPECT_EQ(md5lo("_Z5applyPFiiEi"), 0x8745DFABD59E1A0BULL); // spec 5.2
}

TEST(InstrProfMerge, RulesMatchLlvmProfdata) {
  REQUIRE_PROFDATA();
  TempDir D;
  Symbols Syms;
  for (const char *N : {"main", "tgt_a", "tgt_b", "tgt_c", "vt_x", "vt_y",
                        "mismatch", "overflow", "bitmaps", "bitsize",
                        "sites", "hot", "warm", "mixed", "only_b"})
    Syms.add(N);
  uint64_t A = md5lo("tgt_a"), B = md5lo("tgt_b"), C = md5lo("tgt_c");
  uint64_t VX = md5lo("vt_x"), VY = md5lo("vt_y");

  auto MakeA = [&] {
    std::vector<FunctionCounters> Rs;
    FunctionCounters Main = rec("main", 0x1234, {5, 0, 7});
    Main.Bitmap = {0x12, 0x01};
    Main.Sites[0] = {{{A, 3}, {B, 3}, {0, 1}}, {}};
    Main.Sites[1] = {{{8, 4}, {1, 4}, {9, 10}}};
    Main.Sites[2] = {{{VX, 2}}};
    Rs.push_back(Main);
    Rs.push_back(rec("mismatch", 1, {1, 2}));
    Rs.push_back(rec("overflow", 2, {UINT64_MAX - 5, 3, 1ULL << 62}));
    FunctionCounters Bits = rec("bitmaps", 3, {1});
    Bits.Bitmap = {0x12, 0x80, 0};
    Rs.push_back(Bits);
    FunctionCounters BitSize = rec("bitsize", 4, {1});
    BitSize.Bitmap = {1};
    BitSize.Sites[1] = {{{1, 1}, {2, 2}}};
    Rs.push_back(BitSize);
    FunctionCounters Sites = rec("sites", 5, {1});
    Sites.Sites[0] = {{{A, 1}}};
    Sites.Sites[1] = {{{16, 2}}, {{17, 1}}};
    Rs.push_back(Sites);
    Rs.push_back(rec("hot", 6, {ip::PseudoHot, 4}));
    Rs.push_back(rec("warm", 7, {ip::PseudoWarm, 4}));
    Rs.push_back(rec("mixed", 8, {ip::PseudoWarm, 4}));
    for (const char *T : {"tgt_a", "tgt_b", "tgt_c", "vt_x", "vt_y"})
      Rs.push_back(rec(T, 9, {0}));
    return irProfile(Rs);
  };
  auto MakeB = [&] {
    std::vector<FunctionCounters> Rs;
    FunctionCounters Main = rec("main", 0x1234, {1, 1, 100});
    Main.Bitmap = {0x05, 0x00};
    Main.Sites[0] = {{{C, 3}, {A, 1}}, {{B, 9}}};
    Main.Sites[1] = {{{8, 6}, {17, 4}, {1, 1}}};
    Main.Sites[2] = {{{VY, 2}, {VX, 1}}};
    Rs.push_back(Main);
    Rs.push_back(rec("mismatch", 1, {1, 2, 3}));
    Rs.push_back(rec("overflow", 2, {100, 3, 1ULL << 62}));
    FunctionCounters Bits = rec("bitmaps", 3, {2});
    Bits.Bitmap = {0x05, 0x01, 0x40};
    Rs.push_back(Bits);
    FunctionCounters BitSize = rec("bitsize", 4, {2});
    BitSize.Bitmap = {1, 2};
    BitSize.Sites[1] = {{{1, 5}, {3, 1}}};
    Rs.push_back(BitSize);
    FunctionCounters Sites = rec("sites", 5, {1});
    Sites.Sites[0] = {{{A, 1}}, {{B, 1}}}; // 2 sites against 1: kind kept
    Sites.Sites[1] = {{{16, 2}}, {{18, 7}}};
    Rs.push_back(Sites);
    Rs.push_back(rec("hot", 6, {ip::PseudoWarm, 9}));
    Rs.push_back(rec("warm", 7, {ip::PseudoWarm, 9}));
    Rs.push_back(rec("mixed", 8, {3, 9}));
    Rs.push_back(rec("only_b", 10, {ip::PseudoHot, 2}));
    return irProfile(Rs);
  };

  for (uint64_t WeightB : {1, 3}) {
    SCOPED_TRACE("weight of b.txt: " + std::to_string(WeightB));
    std::vector<Input> Inputs = {{"a.txt", MakeA(), 1},
                                 {"b.txt", MakeB(), WeightB}};
    MergeOutcome O = mergeBoth(D, Inputs, Syms);
    expectSameMerge(O);

    // The expectations the comparison stands on, spelled out once.
    auto Find = [&](StringRef N) -> const FunctionCounters * {
      for (const FunctionCounters &R : O.Ours.Records)
        if (R.Name == N)
          return &R;
      return nullptr;
    };
    ASSERT_TRUE(Find("mismatch"));
    EXPECT_EQ(Find("mismatch")->Counts, (std::vector<uint64_t>{1, 2}));
    EXPECT_EQ(Find("overflow")->Counts[0], ip::MaxCount);
    EXPECT_EQ(Find("bitmaps")->Bitmap,
              (std::vector<uint8_t>{0x17, 0x81, 0x40}));
    EXPECT_EQ(Find("bitsize")->Bitmap, (std::vector<uint8_t>{1}));
    EXPECT_EQ(Find("bitsize")->Counts[0], 1 + 2 * WeightB);
    EXPECT_EQ(Find("bitsize")->Sites[1][0],
              (InstrProfValueSite{{2, 2}, {1, 1}})); // values not merged
    EXPECT_EQ(Find("sites")->Sites[0].size(), 1u);
    // A value only the weighted input has joins unweighted
    // (InstrProfValueSiteRecord::merge pushes it as read); matched values
    // are weighted: 16 is 2 + 2 * W.
    EXPECT_EQ(Find("sites")->Sites[1][1],
              (InstrProfValueSite{{18, 7}, {17, 1}}));
    EXPECT_EQ(Find("sites")->Sites[1][0],
              (InstrProfValueSite{{16, 2 + 2 * WeightB}}));
    EXPECT_EQ(Find("hot")->Counts, (std::vector<uint64_t>{ip::PseudoHot, 4}));
    EXPECT_EQ(Find("warm")->Counts,
              (std::vector<uint64_t>{ip::PseudoWarm, 4}));
    EXPECT_EQ(Find("mixed")->Counts,
              (std::vector<uint64_t>{ip::PseudoWarm, 4}));
    // A first-seen pseudo count is scaled like any count (InstrProfRecord::
    // scale knows no pseudo counts): 2^64-1 * 3 saturates, then clamps.
    EXPECT_EQ(Find("only_b")->Counts[0],
              WeightB > 1 ? ip::MaxCount : ip::PseudoHot);
    EXPECT_TRUE(O.OurWarnings.count(
        {"b.txt", "mismatch: " + counterIssueText(CounterIssue::CountMismatch)
                                     .str()}));
    EXPECT_TRUE(O.OurWarnings.count(
        {"b.txt", "mixed: " + counterIssueText(CounterIssue::CountMismatch)
                                  .str()}));
  }
}

TEST(InstrProfMerge, ExampleOverflowFromSpec) {
  // Spec 2.3: 2^64-6 + 100 -> 2^64-3 with a warning.
  CounterMerger M;
  std::vector<CounterWarning> W;
  ASSERT_FALSE(errorToBool(
      M.add(irProfile({rec("f", 1, {UINT64_MAX - 5})}), 1, W)));
  ASSERT_FALSE(errorToBool(M.add(irProfile({rec("f", 1, {100})}), 1, W)));
  CounterProfile P = M.build();
  ASSERT_EQ(P.Records.size(), 1u);
  EXPECT_EQ(P.Records[0].Counts[0], 18446744073709551613ULL);
  ASSERT_EQ(W.size(), 1u);
  EXPECT_EQ(W[0].Issue, CounterIssue::CounterOverflow);
  EXPECT_EQ(W[0].Function, "f");
}

TEST(InstrProfMerge, ValueSitesCutTo255AndTiesMatchLlvmProfdata) {
  REQUIRE_PROFDATA();
  TempDir D;
  Symbols Syms;
  std::vector<std::string> Targets;
  for (int I = 0; I < 40; ++I) {
    Targets.push_back("t" + std::to_string(I));
    Syms.add(Targets.back());
  }
  Syms.add("f");
  auto Make = [&](unsigned Seed) {
    std::mt19937 G(Seed);
    FunctionCounters F = rec("f", 42, {1});
    InstrProfValueSite Mem, Ict;
    // 200 memop sizes from 0..399 each, few distinct counts: the two lists
    // overlap in about half their values and exceed 255 together.
    std::set<uint64_t> Used;
    while (Mem.size() < 200) {
      uint64_t V = G() % 400;
      if (Used.insert(V).second)
        Mem.push_back({V, G() % 4});
    }
    // Every target twice, and 24 unknown targets (value 0) with counts that
    // tie: the order LLVM's unstable sort by value leaves them in shows.
    for (int R = 0; R < 2; ++R)
      for (const std::string &T : Targets)
        Ict.push_back({md5lo(T), G() % 3});
    for (int I = 0; I < 24; ++I)
      Ict.push_back({0, G() % 5});
    F.Sites[1] = {Mem};
    F.Sites[0] = {Ict};
    std::vector<FunctionCounters> Rs = {F};
    for (const std::string &T : Targets)
      Rs.push_back(rec(T, 1, {1}));
    return irProfile(Rs);
  };
  std::vector<Input> Inputs = {
      {"a.txt", Make(1), 1}, {"b.txt", Make(2), 3}, {"c.txt", Make(3), 1}};
  MergeOutcome O = mergeBoth(D, Inputs, Syms);
  expectSameMerge(O);
  for (const FunctionCounters &R : O.Ours.Records)
    if (R.Name == "f") {
      EXPECT_EQ(R.Sites[1][0].size(), ip::MaxValuesPerSite);
      // Equal values pair occurrence by occurrence: each input's two
      // entries per target and 24 zeros stay 2 and 24.
      EXPECT_EQ(R.Sites[0][0].size(), 2 * Targets.size() + 24);
    }
}

//===----------------------------------------------------------------------===//
// Random profiles against llvm-profdata-22
//===----------------------------------------------------------------------===//

struct Shape {
  uint64_t Hash;
  size_t NumCounts, NumBitmap;
  std::array<size_t, ip::NumValueKinds> NumSites;
};

class RandomProfiles {
public:
  explicit RandomProfiles(unsigned Seed) : G(Seed) {
    const char *Fixed[] = {"main", "a.c;_ZL4add1i", "x.c:local", "_Z1fv",
                           "_ZN1S4areaEv"};
    for (const char *N : Fixed)
      Names.push_back(N);
    for (int I = 0; I < 25; ++I)
      Names.push_back("fn" + std::to_string(I));
    for (const std::string &N : Names)
      Syms.add(N);
    for (size_t N = 0; N < Names.size(); ++N) {
      std::vector<Shape> Ss;
      size_t NumHashes = 1 + (pick(4) == 0 ? pick(4) : 0);
      for (size_t H = 0; H < NumHashes; ++H) {
        Shape S;
        S.Hash = G() | (uint64_t(G()) << 32);
        if (pick(3) == 0)
          S.Hash |= ip::CSHashBit;
        else
          S.Hash &= ~ip::CSHashBit;
        S.NumCounts = 1 + pick(5);
        S.NumBitmap = pick(3) == 0 ? 1 + pick(4) : 0;
        for (auto &NS : S.NumSites)
          NS = pick(3) == 0 ? 1 + pick(3) : 0;
        Ss.push_back(S);
      }
      Shapes.push_back(Ss);
    }
  }

  /// One input; the first holds every name so that every kind-0/2 value has
  /// a name in the merged text.
  CounterProfile make(bool All, uint64_t Variant) {
    CounterProfile P;
    P.Present = true;
    P.Variant = Variant;
    for (size_t N = 0; N < Names.size(); ++N) {
      if (!All && pick(4) == 0)
        continue;
      for (const Shape &S0 : Shapes[N]) {
        if (!All && pick(5) == 0)
          continue;
        Shape S = S0;
        // Occasional mismatches: counters, bitmap, sites of one kind.
        if (pick(12) == 0)
          S.NumCounts += 1;
        if (pick(12) == 0)
          S.NumBitmap = S.NumBitmap ? 0 : 2;
        if (pick(12) == 0)
          S.NumSites[pick(3)] += 1;
        P.Records.push_back(record(Names[N], S));
        if (pick(15) == 0) // the same record twice in one input
          P.Records.push_back(record(Names[N], S));
      }
    }
    std::shuffle(P.Records.begin(), P.Records.end(), G);
    return P;
  }

  std::vector<std::string> Names;
  Symbols Syms;

private:
  uint64_t pick(uint64_t N) { return G() % N; }

  uint64_t count() {
    switch (pick(20)) {
    case 0:
      return (1ULL << 63) + pick(1000); // sums overflow
    case 1:
      return UINT64_MAX - 2 - pick(3);
    default:
      return pick(20);
    }
  }

  FunctionCounters record(const std::string &Name, const Shape &S) {
    FunctionCounters R;
    R.Name = Name;
    R.Hash = S.Hash;
    for (size_t I = 0; I < S.NumCounts; ++I)
      R.Counts.push_back(count());
    if (pick(25) == 0)
      R.Counts[0] = pick(2) ? ip::PseudoHot : ip::PseudoWarm;
    for (size_t I = 0; I < S.NumBitmap; ++I)
      R.Bitmap.push_back(static_cast<uint8_t>(G()));
    for (unsigned K = 0; K < ip::NumValueKinds; ++K)
      for (size_t I = 0; I < S.NumSites[K]; ++I) {
        InstrProfValueSite Site;
        size_t NV = pick(6) == 0 ? 30 + pick(200) : pick(6);
        for (size_t V = 0; V < NV; ++V) {
          InstrProfValue IV;
          if (K == ip::ValueKindMemOPSize)
            IV.Value = pick(300);
          else
            IV.Value = pick(8) == 0 ? 0 : md5lo(Names[pick(Names.size())]);
          IV.Count = pick(30) == 0 ? (1ULL << 63) + pick(5) : pick(6);
          Site.push_back(IV);
        }
        R.Sites[K].push_back(std::move(Site));
      }
    return R;
  }

  std::mt19937 G;
  std::vector<std::vector<Shape>> Shapes;
};

TEST(InstrProfMerge, RandomProfilesMatchLlvmProfdata) {
  REQUIRE_PROFDATA();
  TempDir D;
  const uint64_t Variants[] = {ip::VariantIR, ip::VariantIR | ip::VariantCSIR,
                               0, ip::VariantIR | ip::VariantEntryFirst};
  std::set<std::string> IssuesSeen;
  bool FullSite = false, PseudoSeen = false;
  for (unsigned Seed = 1; Seed <= 16; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    RandomProfiles RP(Seed);
    uint64_t V = Variants[Seed % 4];
    std::vector<Input> Inputs = {{"r1.txt", RP.make(true, V), 1},
                                 {"r2.txt", RP.make(false, V), 1 + Seed % 3},
                                 {"r3.txt", RP.make(false, V), 1},
                                 {"r4.txt", RP.make(false, V), 2}};
    MergeOutcome O = mergeBoth(D, Inputs, RP.Syms);
    expectSameMerge(O);
    if (HasFailure())
      break;
    for (const auto &W : O.OurWarnings)
      IssuesSeen.insert(StringRef(W.second).rsplit(": ").second.str());
    for (const FunctionCounters &R : O.Ours.Records) {
      PseudoSeen |= R.Counts[0] >= ip::PseudoWarm;
      for (const auto &Sites : R.Sites)
        for (const InstrProfValueSite &S : Sites)
          FullSite |= S.size() == ip::MaxValuesPerSite;
    }
  }
  // The seeds exercise every rule.
  EXPECT_EQ(IssuesSeen.size(), 4u);
  EXPECT_TRUE(FullSite);
  EXPECT_TRUE(PseudoSeen);
}

//===----------------------------------------------------------------------===//
// Record order under one name (spec 3.3)
//===----------------------------------------------------------------------===//

/// "name -> hashes" in the order `show --all-functions` lists them.
std::map<std::string, std::vector<uint64_t>> showOrder(StringRef Out) {
  std::map<std::string, std::vector<uint64_t>> M; // name -> hashes
  std::string Cur;
  SmallVector<StringRef, 0> Ls;
  Out.split(Ls, '\n');
  for (StringRef L : Ls) {
    if (L.starts_with("  ") && !L.starts_with("   ") && L.ends_with(":"))
      Cur = L.trim().drop_back().str();
    else if (L.trim().starts_with("Hash: ")) {
      uint64_t H = 0;
      EXPECT_FALSE(L.trim().drop_front(6).getAsInteger(0, H)) << L.str();
      M[Cur].push_back(H);
    }
  }
  return M;
}

using OrderMap = std::map<std::string, std::vector<uint64_t>>;

/// "" when equal, else where the two orders part.
std::string orderDiff(const OrderMap &Want, const OrderMap &Got) {
  std::string S;
  raw_string_ostream OS(S);
  for (const auto &[Name, Hs] : Want) {
    auto It = Got.find(Name);
    if (It == Got.end()) {
      OS << Name << " missing; ";
      continue;
    }
    const std::vector<uint64_t> &G = It->second;
    if (Hs.size() != G.size())
      OS << Name << ": " << Hs.size() << " vs " << G.size() << " records; ";
    for (size_t I = 0; I < std::min(Hs.size(), G.size()); ++I)
      if (Hs[I] != G[I]) {
        OS << Name << ": position " << I << " holds 0x" << utohexstr(Hs[I])
           << " vs 0x" << utohexstr(G[I]) << "; ";
        break;
      }
  }
  if (Want.size() != Got.size())
    OS << Want.size() << " vs " << Got.size() << " names";
  return S;
}

TEST(InstrProfMerge, LlvmRecordOrderUnitCases) {
  EXPECT_TRUE(llvmRecordOrder({}).empty());
  EXPECT_EQ(llvmRecordOrder({7}), (std::vector<size_t>{0}));
  // A repeated key is one map entry.
  EXPECT_EQ(llvmRecordOrder({5, 5}).size(), 1u);
  // LLVM's DenseMap sentinels (empty 2^64-1, tombstone 2^64-2) are ordinary
  // keys here.
  std::vector<size_t> O = llvmRecordOrder({UINT64_MAX, UINT64_MAX - 1, 1});
  std::sort(O.begin(), O.end());
  EXPECT_EQ(O, (std::vector<size_t>{0, 1, 2}));
  // Bucket = low bits of mix(hash); with 4 buckets and two keys the order
  // is the bucket order.
  auto Mix = [](uint64_t X) {
    X *= 0xbf58476d1ce4e5b9ULL;
    return static_cast<unsigned>(X ^ (X >> 31));
  };
  uint64_t H0 = 0, H1 = 0;
  for (uint64_t H = 1; !H0 || !H1; ++H) {
    if ((Mix(H) & 3) == 3 && !H0)
      H0 = H;
    else if ((Mix(H) & 3) == 0 && !H1)
      H1 = H;
  }
  EXPECT_EQ(llvmRecordOrder({H0, H1}), (std::vector<size_t>{1, 0}));
}

TEST(InstrProfMerge, RecordOrderMatchesIndexedTable) {
  REQUIRE_PROFDATA();
  TempDir D;
  std::mt19937_64 G(7);
  // One name per size, sizes around the growth points: the 3rd key grows 4
  // inline buckets to 64, the 48th to 128, the 96th to 256.
  const size_t Sizes[] = {1, 2, 3, 4, 5, 9, 47, 48, 49, 95, 96, 97, 200};
  for (bool CS : {false, true}) {
    SCOPED_TRACE(CS ? "CS and non-CS hashes" : "non-CS hashes");
    // Records of all names interleaved, and a second input that adds
    // hashes after the first: insertion order is first-seen order.
    std::vector<FunctionCounters> First, Second;
    OrderMap Inserted;
    const size_t MaxN = Sizes[std::size(Sizes) - 1];
    for (size_t I = 0; I < MaxN; ++I)
      for (size_t N : Sizes) {
        if (I >= N)
          continue;
        std::string Name = "n" + std::to_string(N);
        uint64_t H = G() & ~ip::CSHashBit;
        if (CS && G() % 2)
          H |= ip::CSHashBit;
        Inserted[Name].push_back(H);
        (I < N / 2 + 1 ? First : Second).push_back(rec(Name, H, {I}));
      }
    CounterProfile P1 = irProfile(First), P2 = irProfile(Second);
    if (CS)
      P1.Variant = P2.Variant = ip::VariantIR | ip::VariantCSIR;
    Symbols Syms;
    writeFile(D.file("o1.txt"), toText(P1, Syms));
    writeFile(D.file("o2.txt"), toText(P2, Syms));
    std::string Indexed = D.file("o.profdata");
    RunResult R = runProfdata(D, {"merge", "--num-threads=1", D.file("o1.txt"),
                                  D.file("o2.txt"), "-o", Indexed});
    ASSERT_EQ(R.Status, 0) << R.Err;
    // `show` lists the table in payload order; CS records only with
    // --showcs, the others only without.
    RunResult Show = runProfdata(D, {"show", "--all-functions", Indexed});
    ASSERT_EQ(Show.Status, 0) << Show.Err;
    OrderMap Shown = showOrder(Show.Out);
    auto Key = [&](const std::string &Name, uint64_t Hash) {
      return CS && (Hash & ip::CSHashBit) ? Name + " (CS)" : Name;
    };
    if (CS) {
      RunResult ShowCS =
          runProfdata(D, {"show", "--all-functions", "--showcs", Indexed});
      ASSERT_EQ(ShowCS.Status, 0) << ShowCS.Err;
      for (auto &[Name, Hs] : showOrder(ShowCS.Out))
        Shown[Name + " (CS)"] = Hs;
    }

    CounterMerger M;
    std::vector<CounterWarning> W;
    ASSERT_FALSE(errorToBool(M.add(P1, 1, W)));
    ASSERT_FALSE(errorToBool(M.add(P2, 1, W)));
    CounterProfile Built = M.build();
    OrderMap FromBuild, FromOrder;
    for (const FunctionCounters &Rec : Built.Records)
      FromBuild[Key(Rec.Name, Rec.Hash)].push_back(Rec.Hash);
    for (auto &[Name, Hs] : Inserted)
      for (size_t I : llvmRecordOrder(Hs))
        FromOrder[Key(Name, Hs[I])].push_back(Hs[I]);
    EXPECT_EQ(orderDiff(Shown, FromOrder), "");
    EXPECT_EQ(orderDiff(Shown, FromBuild), "");
    // Names come sorted byte-wise: "n1" < "n200" < "n3" ...
    std::vector<std::string> NameOrder;
    for (const FunctionCounters &Rec : Built.Records)
      if (NameOrder.empty() || NameOrder.back() != Rec.Name)
        NameOrder.push_back(Rec.Name);
    EXPECT_TRUE(std::is_sorted(NameOrder.begin(), NameOrder.end()));
    EXPECT_EQ(NameOrder.size(), std::size(Sizes));
  }
}

//===----------------------------------------------------------------------===//
// Kinds (our refusals, spec 7)
//===----------------------------------------------------------------------===//

CounterProfile kindProfile(uint64_t Variant) {
  CounterProfile P = irProfile({rec("f", 1, {1})});
  P.Variant = Variant;
  return P;
}

std::string addError(CounterMerger &M, const CounterProfile &P) {
  std::vector<CounterWarning> W;
  Error E = M.add(P, 1, W);
  if (!E)
    return "";
  std::string Msg;
  handleAllErrors(std::move(E), [&](const MemProfError &ME) {
    EXPECT_EQ(ME.code(), ErrorCode::Incompatible);
    Msg = ME.detail();
  });
  return Msg;
}

TEST(InstrProfMerge, KindConflictsAreRefused) {
  const uint64_t IR = ip::VariantIR, CS = ip::VariantCSIR,
                 EF = ip::VariantEntryFirst, LE = ip::VariantLoopEntries,
                 BC = ip::VariantByteCoverage,
                 FEO = ip::VariantFunctionEntryOnly | ip::VariantByteCoverage,
                 TP = ip::VariantTemporal;
  struct Case {
    uint64_t First, Second;
    const char *Error; ///< a part of the message, or nullptr: merges
    uint64_t Result;
  } Cases[] = {
      {0, IR,
       "cannot merge a front-end (-fprofile-instr-generate) profile with an "
       "IR (-fprofile-generate) profile",
       0},
      {IR, 0, "front-end (-fprofile-instr-generate)", 0},
      {0, 0, nullptr, 0},
      {IR | BC, IR, "block-coverage (-pgo-block-coverage)", 0},
      {IR, IR | BC, "with a profile of counters", 0},
      // Function-entry coverage goes with nothing else; LLVM refuses it with
      // entry-first or loop entries only, and merges it with the rest.
      {IR | FEO, IR | EF,
       "cannot merge a function-entry coverage (-pgo-function-entry-coverage) "
       "profile with a profile of another kind",
       0},
      {IR | EF | BC, IR | FEO, "function-entry coverage", 0},
      {IR | FEO, IR | LE | BC, "function-entry coverage", 0},
      {IR | LE, IR | FEO, "function-entry coverage", 0},
      {IR | BC, IR | FEO, "function-entry coverage", 0},
      {IR | FEO, IR | FEO, nullptr, IR | FEO},
      {IR, IR | CS, nullptr, IR | CS},
      {IR | CS, IR, nullptr, IR | CS},
      // Entry-first and loop-entry counters sit on other edges than plain
      // ones under the same hashes: LLVM adds them up silently.
      {IR | EF, IR, "entry-first (-pgo-instrument-entry)", 0},
      {IR, IR | EF, "without entry-first", 0},
      {IR, IR | LE, "loop-entries (-pgo-instrument-loop-entries)", 0},
      {IR | EF, IR | EF, nullptr, IR | EF},
      {IR | TP, IR, nullptr, IR | TP},
      {IR, IR | ip::VariantMemProf, nullptr, IR},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE("0x" + utohexstr(C.First) + " then 0x" + utohexstr(C.Second));
    CounterMerger M;
    ASSERT_EQ(addError(M, kindProfile(C.First)), "");
    std::string Err = addError(M, kindProfile(C.Second | (1ULL << 40)));
    if (C.Error) {
      EXPECT_NE(Err.find(C.Error), std::string::npos) << Err;
      // Nothing of the refused input was added.
      EXPECT_EQ(M.variant(), C.First);
      EXPECT_EQ(M.build().Records[0].Counts[0], 1u);
    } else {
      EXPECT_EQ(Err, "");
      EXPECT_EQ(M.variant() & ~(1ULL << 40), C.Result);
      EXPECT_EQ(M.build().Records[0].Counts[0], 2u);
    }
  }
}

TEST(InstrProfMerge, AbsentProfileAddsNothing) {
  CounterMerger M;
  CounterProfile Absent = irProfile({rec("f", 1, {5})});
  Absent.Present = false;
  Absent.Variant = 0; // front-end bits: would conflict if it counted
  Absent.BinaryIds = {"id"};
  std::vector<CounterWarning> W;
  ASSERT_FALSE(errorToBool(M.add(Absent, 1, W)));
  EXPECT_FALSE(M.present());
  EXPECT_EQ(M.numRecords(), 0u);
  EXPECT_FALSE(M.build().Present);
  ASSERT_FALSE(errorToBool(M.add(kindProfile(ip::VariantIR), 1, W)));
  ASSERT_FALSE(errorToBool(M.add(Absent, 1, W)));
  CounterProfile P = M.build();
  EXPECT_TRUE(P.Present);
  EXPECT_EQ(P.Variant, ip::VariantIR);
  EXPECT_TRUE(P.BinaryIds.empty());
  ASSERT_EQ(P.Records.size(), 1u);
  EXPECT_EQ(P.Records[0].Counts[0], 1u);

  // A present profile without records still sets the kind.
  CounterMerger M2;
  CounterProfile Empty;
  Empty.Present = true;
  ASSERT_FALSE(errorToBool(M2.add(Empty, 1, W)));
  EXPECT_TRUE(M2.present());
  EXPECT_NE(addError(M2, kindProfile(ip::VariantIR)), "");
}

//===----------------------------------------------------------------------===//
// Warnings, ids, vtable names
//===----------------------------------------------------------------------===//

TEST(InstrProfMerge, OneWarningPerIssueAndFunctionPerAdd) {
  CounterMerger M;
  std::vector<CounterWarning> W;
  FunctionCounters F1 = rec("f", 1, {5});
  F1.Sites[0] = {{}};
  FunctionCounters F2 = rec("f", 2, {1, 1});
  ASSERT_FALSE(errorToBool(M.add(irProfile({F1, F2, rec("g", 1, {1})}), 1, W)));
  EXPECT_TRUE(W.empty());

  // Two records of f mismatch, and one overflows its counters and values
  // twice over: one warning for each (issue, function).
  FunctionCounters F1b = rec("f", 1, {UINT64_MAX - 3});
  F1b.Sites[0] = {{}, {}};
  CounterProfile Second =
      irProfile({F1b, rec("f", 2, {1}), rec("f", 2, {1, 2, 3}),
                 rec("g", 1, {1, 2}), rec("g", 1, {3, 4})});
  ASSERT_FALSE(errorToBool(M.add(Second, 1, W)));
  std::vector<std::pair<CounterIssue, std::string>> Got;
  for (const CounterWarning &CW : W)
    Got.push_back({CW.Issue, CW.Function});
  std::vector<std::pair<CounterIssue, std::string>> Want = {
      {CounterIssue::CounterOverflow, "f"},
      {CounterIssue::ValueSiteCountMismatch, "f"},
      {CounterIssue::CountMismatch, "f"},
      {CounterIssue::CountMismatch, "g"}};
  EXPECT_EQ(Got, Want);

  // The next add() warns again.
  W.clear();
  ASSERT_FALSE(errorToBool(M.add(irProfile({rec("g", 1, {1, 2})}), 1, W)));
  ASSERT_EQ(W.size(), 1u);
  EXPECT_EQ(W[0].Issue, CounterIssue::CountMismatch);
  EXPECT_EQ(M.numRecords(), 3u);
}

TEST(InstrProfMerge, BinaryIdsSortedUniqueAndVTableNamesFirstSeen) {
  CounterMerger M;
  std::vector<CounterWarning> W;
  CounterProfile A = kindProfile(ip::VariantIR);
  A.BinaryIds = {std::string("\xff\x01", 2), "abc", std::string("ab")};
  A.VTableNames = {"_ZTV2C5", "_ZTV2C0"};
  CounterProfile B = kindProfile(ip::VariantIR);
  B.BinaryIds = {"abc", std::string("\x01", 1), "ab"};
  B.VTableNames = {"_ZTV2C0", "_ZTV2C2", "_ZTV2C5"};
  ASSERT_FALSE(errorToBool(M.add(A, 1, W)));
  ASSERT_FALSE(errorToBool(M.add(B, 2, W)));
  CounterProfile P = M.build();
  // Byte-wise (unsigned) order, shorter prefix first.
  EXPECT_EQ(P.BinaryIds,
            (std::vector<std::string>{std::string("\x01", 1), "ab", "abc",
                                      std::string("\xff\x01", 2)}));
  EXPECT_EQ(P.VTableNames,
            (std::vector<std::string>{"_ZTV2C5", "_ZTV2C0", "_ZTV2C2"}));
  EXPECT_EQ(P.Records[0].Counts[0], 3u);
}

TEST(InstrProfMerge, SentinelHashesAreKept) {
  // LLVM's SmallDenseMap cannot hold 2^64-1 or 2^64-2 as keys: llvm-profdata
  // 22 drops such records with a count_mismatch warning. Ours keeps them.
  CounterMerger M;
  std::vector<CounterWarning> W;
  ASSERT_FALSE(errorToBool(M.add(
      irProfile({rec("f", UINT64_MAX, {5}), rec("f", UINT64_MAX - 1, {6}),
                 rec("f", 3, {7})}),
      1, W)));
  EXPECT_TRUE(W.empty());
  EXPECT_EQ(M.build().Records.size(), 3u);
}

//===----------------------------------------------------------------------===//
// Temporal traces (spec 2.6)
//===----------------------------------------------------------------------===//

CounterProfile traceProfile(std::vector<TemporalTrace> Traces,
                            uint64_t StreamSize,
                            const std::vector<std::string> &Names) {
  std::vector<FunctionCounters> Rs;
  for (const std::string &N : Names)
    Rs.push_back(rec(N, 1, {1}));
  CounterProfile P = irProfile(Rs);
  P.Variant |= ip::VariantTemporal;
  P.Traces = std::move(Traces);
  P.TraceStreamSize = StreamSize;
  return P;
}

TEST(InstrProfMerge, TraceReservoirMatchesLlvmProfdata) {
  REQUIRE_PROFDATA();
  TempDir D;
  std::vector<std::string> Names;
  Symbols Syms;
  for (int I = 0; I < 60; ++I) {
    Names.push_back("tf" + std::to_string(I));
    Syms.add(Names.back());
  }
  std::mt19937 G(11);
  auto Trace = [&](size_t Len, uint64_t Weight) {
    TemporalTrace T;
    T.Weight = Weight;
    for (size_t I = 0; I < Len; ++I)
      T.FunctionNameRefs.push_back(md5lo(Names[G() % Names.size()]));
    return T;
  };
  auto Many = [&](size_t N) {
    std::vector<TemporalTrace> Ts;
    for (size_t I = 0; I < N; ++I)
      Ts.push_back(Trace(1 + G() % 6, 1 + G() % 4));
    return Ts;
  };

  {
    SCOPED_TRACE("150 traces with an over-long and an empty one, a sampled "
                 "source of 40 (stream 500), then 120");
    std::vector<TemporalTrace> First = Many(150);
    First[3] = Trace(ip::MaxTraceLength + 5, 2);
    First[10] = TemporalTrace{3, {}};
    std::vector<Input> Inputs = {
        {"t1.txt", traceProfile(First, 150, Names), 1},
        {"t2.txt", traceProfile(Many(40), 500, Names), 1},
        {"t3.txt", traceProfile(Many(120), 121, Names), 1}};
    MergeOutcome O = mergeBoth(D, Inputs, Syms);
    expectSameMerge(O);
    EXPECT_EQ(O.Ours.Traces.size(), ip::TraceReservoirSize);
    EXPECT_EQ(O.Ours.TraceStreamSize, 150u + 500u + 121u);
  }
  {
    SCOPED_TRACE("an over-long trace is cut, an empty one dropped");
    std::vector<TemporalTrace> Ts = {Trace(ip::MaxTraceLength + 5, 2),
                                     TemporalTrace{3, {}}, Trace(4, 1)};
    MergeOutcome O =
        mergeBoth(D, {{"cut.txt", traceProfile(Ts, 3, Names), 1}}, Syms);
    expectSameMerge(O);
    ASSERT_EQ(O.Ours.Traces.size(), 2u);
    EXPECT_EQ(O.Ours.Traces[0].FunctionNameRefs.size(), ip::MaxTraceLength);
    EXPECT_EQ(O.Ours.Traces[1], Ts[2]);
    EXPECT_EQ(O.Ours.TraceStreamSize, 3u);
  }
  {
    SCOPED_TRACE("105 inputs of one trace each: nothing replaced after 100");
    std::vector<Input> Inputs;
    for (int I = 0; I < 105; ++I)
      Inputs.push_back({"one" + std::to_string(I) + ".txt",
                        traceProfile({Trace(3, 1)}, 1, Names), 1});
    MergeOutcome O = mergeBoth(D, Inputs, Syms);
    expectSameMerge(O);
    ASSERT_EQ(O.Ours.Traces.size(), ip::TraceReservoirSize);
    EXPECT_EQ(O.Ours.Traces.back(), Inputs[99].Profile.Traces[0]);
    EXPECT_EQ(O.Ours.TraceStreamSize, 105u);
  }
}

TEST(InstrProfMerge, TraceWeightAndEmptyInputs) {
  CounterMerger M;
  std::vector<CounterWarning> W;
  // A raw profile's one trace has weight 1: it takes the input's weight.
  CounterProfile Raw = traceProfile({TemporalTrace{1, {1, 2, 3}}}, 1, {"f"});
  ASSERT_FALSE(errorToBool(M.add(Raw, 3, W)));
  // Only empty traces: neither traces nor stream size count.
  CounterProfile Empty = traceProfile({TemporalTrace{1, {}}}, 4, {"f"});
  ASSERT_FALSE(errorToBool(M.add(Empty, 1, W)));
  CounterProfile None = traceProfile({}, 9, {"f"});
  ASSERT_FALSE(errorToBool(M.add(None, 1, W)));
  CounterProfile P = M.build();
  ASSERT_EQ(P.Traces.size(), 1u);
  EXPECT_EQ(P.Traces[0].Weight, 3u);
  EXPECT_EQ(P.Traces[0].FunctionNameRefs, (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(P.TraceStreamSize, 1u);
}

} // namespace
