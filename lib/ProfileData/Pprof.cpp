//===- Pprof.cpp - pprof's profile.proto from a report's contexts ---------===//
//
// One sample per allocation context; the layout is described for users in
// docs/memprof-convert.md#pprof. Every table is filled in the order of the
// report's contexts (rank order, then the base's), so the same report gives
// the same bytes.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/Export.h"
#include "profile.pb.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/JSON.h"
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <zlib.h>
#include <climits>
#include <map>
#include <tuple>

using namespace llvm;
namespace pb = perftools::profiles;

namespace memprof {

namespace {

/// A sample type: the field it sums, and pprof's type and unit names.
struct SampleField {
  MIBTag Field;
  StringLiteral Type, Unit;
};

/// Always written, first and in this order: pprof's heap views (and
/// `-sample_index=alloc_space`) look for these names.
constexpr SampleField AllocFields[] = {
    {MIBTag::AllocCount, "alloc_objects", "count"},
    {MIBTag::TotalSize, "alloc_space", "bytes"},
};
/// Written after them when some context of the profile (or of the base)
/// stores the field. pprof scales "milliseconds" itself; the density keeps
/// the runtime's integer unit, hundredths of an access per byte per second
/// (memprof-show prints it times 0.01), a unit pprof does not know and so
/// prints as it is. Summed over allocations like every MemInfoBlock total,
/// so `pprof -mean` gives the per-allocation average the cold classifier
/// compares.
constexpr SampleField ExtraFields[] = {
    {MIBTag::TotalLifetime, "lifetime", "milliseconds"},
    {MIBTag::TotalAccessCount, "accesses", "count"},
    {MIBTag::TotalLifetimeAccessDensity, "lifetime_access_density",
     "centiaccesses/byte/s"},
};

/// What a sample value holds: a MemInfoBlock total, or a heap value
/// (docs/heap-data.md).
struct SampleSource {
  enum Kind : uint8_t { MIB, InuseObjects, InuseSpace, PeakObjects, PeakSpace };
  Kind K = MIB;
  MIBTag Field = MIBTag::AllocCount;

  uint64_t of(const ReportContext &C) const {
    switch (K) {
    case MIB:
      return C.field(Field).value_or(0);
    case InuseObjects:
      return C.Heap.LiveBlocks;
    case InuseSpace:
      return C.Heap.LiveBytes;
    case PeakObjects:
      return C.Heap.PeakBlocks;
    case PeakSpace:
      return C.Heap.PeakBytes;
    }
    return 0;
  }
};

/// With heap data, after the alloc pair, as Go's heap profiles order them
/// (pprof's -inuse_space and -sample_index=inuse_space find them): what was
/// live at the end, then at the peak.
struct HeapSampleType {
  SampleSource::Kind K;
  StringLiteral Type, Unit;
};
constexpr HeapSampleType HeapTypes[] = {
    {SampleSource::InuseObjects, "inuse_objects", "count"},
    {SampleSource::InuseSpace, "inuse_space", "bytes"},
    {SampleSource::PeakObjects, "peak_objects", "count"},
    {SampleSource::PeakSpace, "peak_space", "bytes"},
};

/// pprof's values are int64; our totals saturate at 2^64-1.
int64_t toValue(uint64_t V) {
  return V > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(V);
}

/// Identifies a module: by its build id, or by its file when it has none.
/// Frames outside every module (and named frames above the allocation
/// site, whose module no input records) have no mapping.
std::string moduleKey(StringRef BuildId, StringRef Path) {
  if (!BuildId.empty())
    return ("b:" + BuildId).str();
  if (!Path.empty())
    return ("p:" + Path).str();
  return "";
}

/// pprof's test for a shared library's file name (libRx: "[.]so$" or
/// "[.]so[._][0-9]").
bool isSharedLibrary(StringRef Path) {
  for (size_t At = Path.find(".so"); At != StringRef::npos;
       At = Path.find(".so", At + 1)) {
    StringRef Rest = Path.drop_front(At + 3);
    if (Rest.empty() ||
        (Rest.size() >= 2 && (Rest[0] == '.' || Rest[0] == '_') &&
         isDigit(Rest[1])))
      return true;
  }
  return false;
}

class PprofBuilder {
public:
  explicit PprofBuilder(pb::Profile &P) : P(P) { str(""); }

  /// The index of \p S in the string table. proto3 strings must be UTF-8,
  /// and names and paths come from files.
  int64_t str(StringRef S) {
    auto Found = Strings.find(S);
    if (Found != Strings.end())
      return Found->second;
    std::string Valid = validUTF8(S);
    auto [It, New] = Strings.try_emplace(Valid, P.string_table_size());
    if (New)
      P.add_string_table(Valid);
    // The repaired form too, when it differs, finds the same entry.
    if (Valid != S)
      Strings.try_emplace(S, It->second);
    return It->second;
  }

  /// Notes the module \p Key (a moduleKey) with what is known of it; its
  /// mapping id is a provisional one until finishMappings.
  uint64_t module(const std::string &Key, StringRef BuildId, StringRef Path) {
    if (Key.empty())
      return 0;
    auto [It, New] = Modules.try_emplace(Key);
    ModuleInfo &M = It->second;
    if (New) {
      M.Provisional = Modules.size();
      M.BuildId = BuildId.str();
    }
    if (M.Path.empty())
      M.Path = Path.str();
    return M.Provisional;
  }

  /// Paths of the modules the reports list (raw inputs: the binary that
  /// symbolized them; indexed: the path the names extension records).
  void notePaths(const Report &R) {
    for (const ModuleTotals &M : R.Summary.Modules)
      if (!M.BuildId.empty() && !M.Path.empty())
        KnownPaths.try_emplace(M.BuildId, M.Path);
  }

  /// What is known of one report's frames (each entry of its
  /// ContextFrames): their functions and, for the frames above the
  /// allocation site, their locations, found once.
  struct FrameCache {
    explicit FrameCache(const Report &R)
        : Frames(R), Functions(Frames.size(), 0), Locations(Frames.size(), 0) {}
    ContextFrames Frames;
    std::vector<uint64_t> Functions; // 0: not yet known
    std::vector<uint64_t> Locations; // a caller's one-frame location
    /// Callers' locations of several frames (a run of inlined frames).
    DenseMap<ArrayRef<uint32_t>, uint64_t> Runs;
    BumpPtrAllocator RunKeys;
  };

  /// Appends one sample of the report's context \p Index, its values
  /// negated and labelled as pprof's -diff_base labels the base when
  /// \p IsBase.
  void addSample(FrameCache &FC, size_t Index, ArrayRef<SampleSource> Fields,
                 bool IsBase) {
    const ReportContext &C = FC.Frames.report().Contexts[Index];
    std::vector<int64_t> Values;
    bool AnyNonZero = false;
    for (const SampleSource &F : Fields) {
      int64_t V = toValue(F.of(C));
      AnyNonZero |= V != 0;
      Values.push_back(IsBase ? -V : V);
    }
    // pprof's Scale(-1) of the base drops the samples left with no value.
    if (IsBase && !AnyNonZero)
      return;
    pb::Sample *S = P.add_sample();
    S->mutable_value()->Reserve(Values.size());
    for (int64_t V : Values)
      S->add_value(V);
    addLocations(FC, Index, *S);
    auto Label = [&](StringRef Key, StringRef Value) {
      pb::Label *L = S->add_label();
      L->set_key(str(Key));
      L->set_str(str(Value));
    };
    if (C.Class)
      Label("class", allocClassName(*C.Class));
    Label("context_id", hexValue(C.Id));
    // The allocated type, where known (a missing label is pprof's
    // "unknown": -tags counts such samples apart).
    if (!C.Type.empty())
      Label("type", C.Type);
    if (IsBase)
      Label("pprof::base", "true");
  }

  /// Gives the mappings their final ids and writes them. pprof names the
  /// profile's main binary by the first mapping (the report header's
  /// "File:" and "Build ID:"), so the modules with a file that is no
  /// shared library come first, as pprof's own heuristic for legacy
  /// profiles orders them; then the modules as the reports rank them.
  void finishMappings(ArrayRef<const Report *> Reports) {
    std::map<std::string, size_t> Rank;
    for (const Report *R : Reports)
      for (const ModuleTotals &M : R->Summary.Modules)
        if (!M.BuildId.empty())
          Rank.try_emplace(moduleKey(M.BuildId, ""), Rank.size());
    for (auto &[Key, M] : Modules)
      if (auto It = KnownPaths.find(M.BuildId);
          M.Path.empty() && It != KnownPaths.end())
        M.Path = It->second;
    auto SortKey = [&](const std::pair<const std::string, ModuleInfo> &E) {
      auto It = Rank.find(E.first);
      bool Main = !E.second.Path.empty() && !isSharedLibrary(E.second.Path);
      return std::make_tuple(!Main, It == Rank.end() ? SIZE_MAX : It->second,
                             StringRef(E.first));
    };
    std::vector<const std::pair<const std::string, ModuleInfo> *> Order;
    for (const auto &E : Modules)
      Order.push_back(&E);
    llvm::sort(Order, [&](const auto *A, const auto *B) {
      return SortKey(*A) < SortKey(*B);
    });
    std::vector<uint64_t> Final(Modules.size() + 1, 0);
    for (size_t I = 0; I < Order.size(); ++I)
      Final[Order[I]->second.Provisional] = I + 1;

    // Flags[0]: the locations of no known module.
    std::vector<MappingFlags> Flags(Order.size() + 1);
    for (pb::Location &L : *P.mutable_location()) {
      uint64_t Id = Final[L.mapping_id()];
      L.set_mapping_id(Id);
      MappingFlags &F = Flags[Id];
      F.Inline |= L.line_size() > 1;
      for (const pb::Line &Ln : L.line()) {
        F.Lines |= Ln.line() != 0;
        F.Files |= FunctionHasFile[Ln.function_id()];
      }
    }
    auto AddMapping = [&](uint64_t Id, StringRef Path, StringRef BuildId,
                          const MappingFlags &F) {
      pb::Mapping *Map = P.add_mapping();
      Map->set_id(Id);
      // The whole address space at offset 0: the locations' addresses are
      // already the module's own (the PC less the load bias), pprof's
      // convention for a mapping that needs no further adjustment.
      Map->set_memory_start(0);
      Map->set_memory_limit(UINT64_MAX);
      Map->set_file_offset(0);
      Map->set_filename(str(Path));
      Map->set_build_id(str(BuildId));
      // Every location has its function line (a gap's names the module and
      // offset), which also keeps pprof from symbolizing again: named
      // locations hold no address (indexed profiles store none), and
      // pprof would replace their lines with whatever address 0 gives.
      Map->set_has_functions(true);
      Map->set_has_filenames(F.Files);
      Map->set_has_line_numbers(F.Lines);
      Map->set_has_inline_frames(F.Inline);
    };
    for (size_t I = 0; I < Order.size(); ++I)
      AddMapping(I + 1, Order[I]->second.Path, Order[I]->second.BuildId,
                 Flags[I + 1]);
    // With no mapping at all (an indexed profile whose names record no
    // module), pprof would add an unsymbolized one of its own over every
    // location and try to symbolize them; an empty, symbolized mapping
    // that no location uses stops that.
    if (Order.empty() && P.location_size())
      AddMapping(1, "", "", Flags[0]);
  }

private:
  struct ModuleInfo {
    uint64_t Provisional = 0;
    std::string BuildId, Path;
  };
  struct MappingFlags {
    bool Files = false, Lines = false, Inline = false;
  };
  using LineKey = std::pair<uint64_t, int64_t>; // function id, line
  using LocationKey = std::tuple<uint64_t, uint64_t, std::vector<LineKey>>;

  pb::Profile &P;
  StringMap<int64_t> Strings;
  std::map<std::tuple<int64_t, int64_t, int64_t>, uint64_t> Functions;
  std::vector<bool> FunctionHasFile{false}; // by function id
  std::map<LocationKey, uint64_t> Locations;
  std::map<std::string, ModuleInfo> Modules;
  std::map<std::string, std::string> KnownPaths; // build id -> path

  uint64_t function(const ReportFrame &F) {
    // frameLabel names unnamed functions by GUID and gaps by module and
    // offset: what pprof shows for the frame.
    std::string Name = frameLabel(F, /*FullNames=*/true);
    StringRef System = Name;
    if (F.Gap && !F.Gap->Symbol.empty())
      System = F.Gap->Symbol;
    else if (!F.Gap && !F.LinkageName.empty())
      System = F.LinkageName;
    std::tuple<int64_t, int64_t, int64_t> Key{str(Name), str(System),
                                              str(F.File)};
    auto [It, New] = Functions.try_emplace(Key, P.function_size() + 1);
    if (New) {
      pb::Function *Fn = P.add_function();
      Fn->set_id(It->second);
      Fn->set_name(std::get<0>(Key));
      Fn->set_system_name(std::get<1>(Key));
      Fn->set_filename(std::get<2>(Key));
      FunctionHasFile.push_back(!F.File.empty());
    }
    return It->second;
  }

  /// The location of \p Run: a frame and those inlined into it, which
  /// precede it. pprof wants the innermost function first, which is the
  /// frames' own order (allocation site first). The callers' locations
  /// depend on their frames alone and are found once per run.
  uint64_t location(FrameCache &FC, const ReportContext &C,
                    ArrayRef<uint32_t> Run, bool IsLeaf) {
    if (IsLeaf)
      return newLocation(FC, C, Run, IsLeaf);
    if (Run.size() == 1) {
      uint64_t &L = FC.Locations[Run[0]];
      if (!L)
        L = newLocation(FC, C, Run, IsLeaf);
      return L;
    }
    auto Found = FC.Runs.find(Run);
    if (Found != FC.Runs.end())
      return Found->second;
    uint64_t L = newLocation(FC, C, Run, IsLeaf);
    uint32_t *Key = FC.RunKeys.Allocate<uint32_t>(Run.size());
    std::copy(Run.begin(), Run.end(), Key);
    FC.Runs.try_emplace(ArrayRef<uint32_t>(Key, Run.size()), L);
    return L;
  }

  uint64_t newLocation(FrameCache &FC, const ReportContext &C,
                       ArrayRef<uint32_t> Run, bool IsLeaf) {
    std::vector<LineKey> Lines;
    Lines.reserve(Run.size());
    const FrameGap *Gap = nullptr;
    for (uint32_t Id : Run) {
      const ReportFrame &F = FC.Frames.frame(Id);
      uint64_t &Fn = FC.Functions[Id];
      if (!Fn)
        Fn = function(F);
      Lines.push_back({Fn, int64_t(F.Line)});
      if (F.Gap && !Gap)
        Gap = &*F.Gap;
    }
    // A gap knows its module and address. Of named frames only the
    // allocation site's module is recorded (ReportContext::ModuleBuildId);
    // the callers' modules are unknown, so they have no mapping.
    uint64_t Mapping = 0, Address = 0;
    if (Gap) {
      Address = Gap->Offset;
      if (Gap->Reason != GapReason::OutsideSegments)
        Mapping = module(moduleKey(Gap->BuildId, Gap->Path), Gap->BuildId,
                         Gap->Path);
    } else if (IsLeaf) {
      Mapping = module(moduleKey(C.ModuleBuildId, ""), C.ModuleBuildId, "");
    }
    LocationKey Key{Mapping, Address, std::move(Lines)};
    auto [It, New] = Locations.try_emplace(std::move(Key), P.location_size() + 1);
    if (New) {
      pb::Location *L = P.add_location();
      L->set_id(It->second);
      L->set_mapping_id(Mapping); // provisional until finishMappings
      L->set_address(Address);
      for (const LineKey &K : std::get<2>(It->first)) {
        pb::Line *Ln = L->add_line();
        Ln->set_function_id(K.first);
        Ln->set_line(K.second);
      }
    }
    return It->second;
  }

  /// The context's frames as pprof's locations, leaf first: a run of
  /// inlined frames and the frame they are inlined into make one location.
  void addLocations(FrameCache &FC, size_t Index, pb::Sample &S) {
    const ReportContext &C = FC.Frames.report().Contexts[Index];
    ArrayRef<uint32_t> Frames = FC.Frames.of(Index);
    S.mutable_location_id()->Reserve(Frames.size());
    size_t Begin = 0;
    for (size_t I = 0; I < Frames.size(); ++I) {
      // The last frame closes its run even if marked inlined: nothing
      // follows for it to be inlined into.
      if (FC.Frames.frame(Frames[I]).IsInlineFrame && I + 1 < Frames.size())
        continue;
      S.add_location_id(
          location(FC, C, Frames.slice(Begin, I + 1 - Begin), Begin == 0));
      Begin = I + 1;
    }
  }
};

Expected<std::string> gzip(StringRef Data) {
  z_stream Z{};
  // windowBits 15 + 16: a gzip wrapper, whose header zlib writes with
  // mtime 0 and no file name, so the bytes depend on the data alone.
  if (deflateInit2(&Z, /*level=*/6, Z_DEFLATED, 15 + 16, /*memLevel=*/8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    return makeError(ErrorCode::IO, "pprof export: cannot start gzip: " +
                                        Twine(Z.msg ? Z.msg : "zlib error"));
  std::string Out;
  Out.resize(deflateBound(&Z, Data.size()));
  Z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(Data.data()));
  Z.avail_in = Data.size();
  Z.next_out = reinterpret_cast<Bytef *>(Out.data());
  Z.avail_out = Out.size();
  // deflateBound covers the whole output, so one Z_FINISH call completes.
  int RC = deflate(&Z, Z_FINISH);
  size_t Written = Out.size() - Z.avail_out;
  std::string Msg = Z.msg ? Z.msg : "zlib error";
  deflateEnd(&Z);
  if (RC != Z_STREAM_END)
    return makeError(ErrorCode::IO,
                     "pprof export: gzip compression failed: " + Msg);
  Out.resize(Written);
  return Out;
}

} // namespace

Expected<std::string> writePprof(const Report &R, const Report *Base,
                                 ProgressFn Progress) {
  pb::Profile P;
  PprofBuilder B(P);

  std::vector<SampleSource> Fields;
  for (const SampleField &F : AllocFields) {
    pb::ValueType *T = P.add_sample_type();
    T->set_type(B.str(F.Type));
    T->set_unit(B.str(F.Unit));
    Fields.push_back({SampleSource::MIB, F.Field});
  }
  // Heap data when either side has some (the other's values are 0).
  if (R.Heap || (Base && Base->Heap))
    for (const HeapSampleType &H : HeapTypes) {
      pb::ValueType *T = P.add_sample_type();
      T->set_type(B.str(H.Type));
      T->set_unit(B.str(H.Unit));
      Fields.push_back({H.K});
    }
  // The union of both sides' fields: pprof combines a base only with a
  // profile of the same sample types.
  uint32_t Known = knownFields(R) | (Base ? knownFields(*Base) : 0);
  for (const SampleField &F : ExtraFields) {
    if (!(Known & (1u << (unsigned(F.Field) - 1))))
      continue;
    pb::ValueType *T = P.add_sample_type();
    T->set_type(B.str(F.Type));
    T->set_unit(B.str(F.Unit));
    Fields.push_back({SampleSource::MIB, F.Field});
  }
  P.set_default_sample_type(B.str("alloc_space"));

  for (const ReportInput &I : R.Inputs)
    P.add_comment(B.str("memprof: " + I.Path));
  if (Base)
    for (const ReportInput &I : Base->Inputs)
      P.add_comment(B.str("memprof diff base: " + I.Path));

  B.notePaths(R);
  if (Base)
    B.notePaths(*Base);
  const uint64_t Total = R.Contexts.size() + (Base ? Base->Contexts.size() : 0);
  uint64_t Done = 0;
  auto Tick = [&] {
    if (Progress && (++Done % 4096 == 0 || Done == Total))
      Progress(Done, Total);
  };
  P.mutable_sample()->Reserve(int(std::min<uint64_t>(Total, INT_MAX)));
  {
    PprofBuilder::FrameCache FC(R);
    for (size_t I = 0; I < R.Contexts.size(); ++I, Tick())
      B.addSample(FC, I, Fields, /*IsBase=*/false);
  }
  if (Base) {
    PprofBuilder::FrameCache FC(*Base);
    for (size_t I = 0; I < Base->Contexts.size(); ++I, Tick())
      B.addSample(FC, I, Fields, /*IsBase=*/true);
  }
  std::vector<const Report *> Reports{&R};
  if (Base)
    Reports.push_back(Base);
  B.finishMappings(Reports);

  // protobuf refuses messages of 2 GiB or more; below that, zlib's 32-bit
  // counts (uInt) hold the input and its deflateBound too.
  size_t Size = P.ByteSizeLong();
  if (Size > size_t(INT_MAX))
    return makeError(ErrorCode::TooLarge,
                     "pprof export: the profile would take " + Twine(Size) +
                         " bytes, more than protobuf writes (2 GiB)");
  std::string Bytes;
  {
    google::protobuf::io::StringOutputStream SOS(&Bytes);
    google::protobuf::io::CodedOutputStream COS(&SOS);
    COS.SetSerializationDeterministic(true);
    if (!P.SerializeToCodedStream(&COS) || COS.HadError())
      return makeError(ErrorCode::IO, "pprof export: serialization failed");
  }
  return gzip(Bytes);
}

} // namespace memprof
