//===- memprof-convert.cpp - Convert MemProf profiles between forms -------===//
#include "ToolCommon.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/Export.h"
#include "memprof/ProfileData/TimelineChart.h"
#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/InstrProfData.h"
#include "memprof/ProfileData/MemProfJSON.h"
#include "memprof/ProfileData/MemProfYAML.h"
#include "memprof/ProfileData/ProfileNames.h"
#include "memprof/ProfileData/RawReader.h"
#include "memprof/ProfileData/RawText.h"
#include "memprof/ProfileData/Report.h"
#include "memprof/ProfileData/Symbolizer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <CLI/CLI.hpp>
#include <optional>

using namespace llvm;
using namespace memprof;

namespace {

enum class Form { Indexed, Raw, YAML, RawText, CounterRaw, CounterText };

StringRef formName(Form F) {
  switch (F) {
  case Form::Indexed:
    return "an indexed profile";
  case Form::Raw:
    return "a raw profile";
  case Form::YAML:
    return "LLVM MemProf YAML";
  case Form::RawText:
    return "memprof raw text";
  case Form::CounterRaw:
    return "a raw counters profile (.profraw)";
  case Form::CounterText:
    return "LLVM's counters text (.proftext)";
  }
  return "";
}

Expected<Form> detect(StringRef Data) {
  if (isIndexedProfile(Data))
    return Form::Indexed;
  if (isRawProfile(Data))
    return Form::Raw;
  if (isRawInstrProf(Data))
    return Form::CounterRaw;
  if (isMemProfYAML(Data))
    return Form::YAML;
  if (isRawText(Data))
    return Form::RawText;
  if (isInstrProfText(Data))
    return Form::CounterText;
  if (Data.empty())
    return makeError(ErrorCode::Empty, "the file is empty", 0);
  std::string Hint;
  if (Data.contains("HeapProfileRecords"))
    Hint = " (MemProf YAML must begin with '---', as llvm-profdata requires)";
  return makeError(ErrorCode::BadMagic,
                   "not an indexed or raw profile, LLVM MemProf YAML or "
                   "counters text, or memprof raw text" +
                       Twine(Hint),
                   0);
}

struct Options {
  unsigned MemProfVersion = 3;
  std::string Schema = "auto";
  bool RoundTrip = false;
  bool Names = false;
  bool KeepVTableSymbols = false;
  bool MemProfVersionGiven = false; // --memprof-version on the command line
};

/// The names extension of an indexed file, if it has a readable one (whose
/// types and heap contexts agree with \p P, its LLVM part, when given), and
/// its heap data into \p Heap when given.
std::optional<ProfileNames> namesOf(StringRef Path, StringRef Data,
                                    HeapProfile *Heap = nullptr,
                                    const IndexedMemProf *P = nullptr) {
  HeapProfile H;
  if (Heap)
    *Heap = HeapProfile();
  if (!hasNamesExtension(Data))
    return std::nullopt;
  auto N = readNamesExtension(Data, nullptr, &H);
  auto Check = [&]() -> Error {
    if (!N)
      return N.takeError();
    if (!P)
      return Error::success();
    if (Error E = checkNamesContexts(*N, *P))
      return E;
    return checkHeapContexts(H, *P);
  };
  Error E = Check();
  if (E) {
    tool::warning(Path, "names extension ignored: " + toString(std::move(E)));
    return std::nullopt;
  }
  if (Heap)
    *Heap = std::move(H);
  return std::move(*N);
}

/// The writer schema: as asked, or "auto": the input file's own (indexed),
/// or the smallest of hot/cold and full that holds every field named (YAML).
bool fullSchema(const Options &O, bool InputFull) {
  if (O.Schema == "full")
    return true;
  if (O.Schema == "hot-cold")
    return false;
  return InputFull;
}

/// Splits the combined text form: LLVM's counters text, then, from the
/// first line that is exactly "---", LLVM MemProf YAML.
std::pair<StringRef, StringRef> splitCombined(StringRef Data) {
  size_t At = 0;
  while (At < Data.size()) {
    size_t EOL = Data.find('\n', At);
    StringRef Line = Data.slice(At, EOL).rtrim('\r');
    if (Line == "---")
      return {Data.take_front(At), Data.drop_front(At)};
    if (EOL == StringRef::npos)
      break;
    At = EOL + 1;
  }
  return {Data, StringRef()};
}

/// Merges counter profiles as llvm-profdata gives one input's records to its
/// writer, warning as it warns.
Expected<CounterProfile> mergeCounters(StringRef Path,
                                       const CounterProfile &In) {
  CounterMerger M;
  std::vector<CounterWarning> Warnings;
  if (Error E = M.add(In, 1, Warnings))
    return std::move(E);
  for (const CounterWarning &W : Warnings)
    tool::warning(Path, W.Function + ": " + counterIssueText(W.Issue));
  return M.build();
}

/// What a file holds, in the one profile model.
struct Loaded {
  CounterProfile Counters;            // Present when the input has counters
  std::optional<IndexedMemProf> MemProf; // when it has MemProf data
  bool InputFull = false;             // its MemProf part needs all 27 fields
  std::optional<ProfileNames> Names;  // an indexed input's, carried over
  HeapProfile Heap;                   // and its heap data
  /// The MemProf version the combined text records, when it does.
  std::optional<unsigned> MemProfVersion;
};

constexpr StringLiteral MemProfVersionNote = "# memprof: memprof-version ";

Expected<std::optional<IndexedMemProf>>
loadYAML(StringRef Path, StringRef Data, const Options &O, bool &InputFull) {
  auto Y = readMemProfYAML(Data);
  if (!Y)
    return Y.takeError();
  InputFull = Y->impliesFullSchema();
  if (Y->HasCalleeGuids && O.MemProfVersion < 4)
    tool::warning(Path, "callee GUIDs are stored only in MemProf V4; they "
                        "are dropped (use --memprof-version=4)");
  if (InputFull && !fullSchema(O, InputFull))
    tool::warning(Path, "MemInfoBlock fields beyond the hot/cold four are "
                        "dropped (use --memprof-full-schema)");
  if (Y->DuplicateRecords)
    tool::warning(Path, Twine(Y->DuplicateRecords) +
                            " records repeat an earlier GUID; the first "
                            "one of each is kept, as llvm-profdata does");
  return std::optional<IndexedMemProf>(std::move(Y->Profile));
}

Expected<Loaded> load(StringRef Path, StringRef Data, Form F,
                      const Options &O) {
  Loaded L;
  switch (F) {
  case Form::YAML: {
    auto M = loadYAML(Path, Data, O, L.InputFull);
    if (!M)
      return M.takeError();
    L.MemProf = std::move(*M);
    return std::move(L);
  }
  case Form::Indexed: {
    IndexedProfileInfo Info;
    // The counters of an indexed input are carried over unchanged.
    auto R = readIndexedProfile(Data, &Info, nullptr, &L.Counters);
    if (!R)
      return R.takeError();
    if (Info.MemProfVersion != 0) {
      if (hasDataAccessProfile(Data))
        tool::warning(Path, "the data-access profile is not carried over");
      uint32_t HotCold = schemaMask(hotColdSchema());
      L.InputFull = (schemaMask(Info.Schema) & ~HotCold) != 0;
      // Rewriting with the same version and schema gives the same bytes.
      L.Names = namesOf(Path, Data, &L.Heap, &*R);
      L.MemProf = inRoundTripOrder(*R);
      return std::move(L);
    } else if (!L.Counters.Present) {
      return makeError(ErrorCode::Malformed,
                       "the indexed profile has neither counters nor a "
                       "MemProf section");
    }
    L.Names = namesOf(Path, Data, &L.Heap, L.MemProf ? &*L.MemProf : nullptr);
    return std::move(L);
  }
  case Form::CounterRaw: {
    auto C = readRawInstrProf(Data);
    if (!C)
      return C.takeError();
    // As llvm-profdata merge: vtable names only when asked for.
    if (!O.KeepVTableSymbols)
      C->VTableNames.clear();
    auto M = mergeCounters(Path, *C);
    if (!M)
      return M.takeError();
    L.Counters = std::move(*M);
    return std::move(L);
  }
  case Form::CounterText: {
    auto [Text, YAML] = splitCombined(Data);
    std::vector<std::string> InValues;
    auto C = readInstrProfText(Text, &InValues);
    if (!C)
      return C.takeError();
    // As llvm-profdata merge: the vtable names the values use only when
    // asked for; those our comments list are the file's own.
    if (O.KeepVTableSymbols)
      for (std::string &N : InValues)
        if (!llvm::is_contained(C->VTableNames, N))
          C->VTableNames.push_back(std::move(N));
    auto M = mergeCounters(Path, *C);
    if (!M)
      return M.takeError();
    L.Counters = std::move(*M);
    if (!YAML.empty()) {
      // The section version the combined form records, unless overridden.
      for (StringRef Line : split(Text, '\n')) {
        Line = Line.rtrim('\r');
        if (!Line.consume_front(MemProfVersionNote))
          continue;
        unsigned V;
        if (Line.getAsInteger(10, V) || V < 2 || V > 4)
          return makeError(ErrorCode::Malformed,
                           "the memprof-version comment names no MemProf "
                           "version this tool writes (2, 3 or 4)");
        L.MemProfVersion = V;
      }
      auto MP = loadYAML(Path, YAML, O, L.InputFull);
      if (!MP) {
        size_t Line = Text.count('\n');
        return makeError(ErrorCode::Malformed,
                         "the MemProf part (from line " + Twine(Line + 1) +
                             "): " + toString(MP.takeError()));
      }
      L.MemProf = std::move(*MP);
    }
    return std::move(L);
  }
  case Form::Raw:
  case Form::RawText:
    break;
  }
  return makeError(ErrorCode::Usage,
                   formName(F) + " cannot become an indexed profile here: " +
                       (F == Form::Raw ? "raw profiles need symbolization; use "
                                         "memprof-merge"
                                       : "compile it with --to-raw, then use "
                                         "memprof-merge"));
}

/// An input that is not a raw MemProf profile or raw text, as the indexed
/// bytes --to-indexed writes. Warns about what the chosen version or schema
/// drops.
Expected<std::string> toIndexed(StringRef Path, StringRef Data, Form F,
                                const Options &O) {
  auto L = load(Path, Data, F, O);
  if (!L)
    return L.takeError();
  IndexedWriterOptions WO;
  WO.MemProfVersion = O.MemProfVersion;
  if (L->MemProfVersion && !O.MemProfVersionGiven)
    WO.MemProfVersion = *L->MemProfVersion;
  WO.FullSchema = fullSchema(O, L->InputFull);
  SmallVector<char, 0> Bytes;
  IndexedMemProf *MP = L->MemProf ? &*L->MemProf : nullptr;
  auto WS = writeIndexedProfile(L->Counters, MP, WO, Bytes);
  if (!WS)
    return WS.takeError();
  if (WS->SaturatedFields)
    tool::warning(Path, Twine(WS->SaturatedFields) +
                            " 32-bit MemInfoBlock fields were saturated");
  if (L->Names && MP) {
    auto NS = appendNamesExtension(Bytes, *MP, *L->Names, &L->Heap);
    if (!NS)
      return NS.takeError();
  }
  return std::string(Bytes.data(), Bytes.size());
}

/// Points \p Data at the indexed bytes of an input of form \p F: its own,
/// or those --to-indexed writes for it, kept in \p Storage.
Error asIndexed(StringRef Path, StringRef &Data, Form F, const Options &O,
                std::string &Storage) {
  if (F == Form::Indexed)
    return Error::success();
  auto B = toIndexed(Path, Data, F, O);
  if (!B)
    return B.takeError();
  Storage = std::move(*B);
  Data = Storage;
  return Error::success();
}

/// The MemProf YAML of an indexed profile (with --names, annotated).
Error writeMemProfPart(StringRef Path, StringRef Indexed, raw_ostream &OS,
                       const Options &O, bool RoundTrip) {
  std::string Out;
  raw_string_ostream YS(Out);
  bool Differ = false;
  if (Error E = writeIndexedAsYAML(Indexed, YS,
                                   RoundTrip ? YAMLRecordOrder::RoundTrip
                                             : YAMLRecordOrder::LLVMShow,
                                   &Differ))
    return E;
  if (O.Names) {
    if (auto N = namesOf(Path, Indexed))
      Out = annotateYAMLWithNames(Out, *N);
    else
      tool::warning(Path, "the profile carries no names; written without");
  }
  if (Differ && !RoundTrip)
    tool::note(Path + ": records are in llvm-profdata's order; reading this "
                      "text back reorders hash-table chains (as "
                      "llvm-profdata's own show/merge does); --round-trip "
                      "lists them in an order that rebuilds these bytes");
  OS << Out;
  return Error::success();
}

Expected<std::string> toText(StringRef Path, StringRef Data, Form F,
                             const Options &O) {
  std::string Out;
  raw_string_ostream OS(Out);
  if (F == Form::Raw) {
    writeRawText(Data, OS);
    return Out;
  }
  if (F == Form::RawText) {
    auto Bytes = compileRawText(Data);
    if (!Bytes)
      return Bytes.takeError();
    writeRawText(*Bytes, OS);
    return Out;
  }
  // Anything else: the text of the indexed profile it is or becomes (for
  // YAML, what `show --memory` prints for the file --to-indexed writes).
  std::string Bytes;
  if (Error E = asIndexed(Path, Data, F, O, Bytes))
    return std::move(E);
  IndexedProfileInfo Info;
  CounterProfile Counters;
  auto R = readIndexedProfile(Data, &Info, nullptr, &Counters);
  if (!R)
    return R.takeError();
  const bool HasMemProf = Info.MemProfVersion != 0;
  if (Counters.Present) {
    // Counters alone: llvm-profdata's `merge --text`, which names vtables
    // only with --keep-vtable-symbols. With MemProf data as well, the
    // combined form, written to rebuild the same bytes.
    const bool RoundTrip = O.RoundTrip || HasMemProf;
    if (!RoundTrip && !O.KeepVTableSymbols)
      Counters.VTableNames.clear();
    if (Error E = writeInstrProfText(Counters, OS, RoundTrip))
      return std::move(E);
    if (HasMemProf) {
      OS << MemProfVersionNote << Info.MemProfVersion << "\n";
      OS << "# memprof: the MemProf part follows, LLVM MemProf YAML from the "
            "line '---' to the end\n";
      if (Error E = writeMemProfPart(Path, Data, OS, O, /*RoundTrip=*/true))
        return std::move(E);
    }
    return Out;
  }
  if (Error E = writeMemProfPart(Path, Data, OS, O, O.RoundTrip))
    return std::move(E);
  return Out;
}

/// An input read for --to-json, written by writeJSON.
struct JSONInput {
  std::string Indexed; // an input's indexed bytes, when it is not indexed
  IndexedProfileInfo Info;
  CounterProfile Counters;
  std::optional<IndexedMemProf> MemProf;
  MemProfSummary Summary;
  std::optional<ProfileNames> Names;
  HeapProfile Heap;
};

Expected<std::unique_ptr<JSONInput>> readForJSON(StringRef Path, StringRef Data,
                                                 Form F, const Options &O) {
  if (F == Form::Raw || F == Form::RawText)
    return makeError(ErrorCode::Usage,
                     formName(F) + " has no JSON form: raw profiles hold "
                                   "addresses, not frames; merge them with "
                                   "memprof-merge first, or use --to-text");
  auto In = std::make_unique<JSONInput>();
  if (Error E = asIndexed(Path, Data, F, O, In->Indexed))
    return std::move(E);
  std::optional<MemProfSummary> Stored;
  auto P = readIndexedProfile(Data, &In->Info, &Stored, &In->Counters);
  if (!P)
    return P.takeError();
  if (In->Info.MemProfVersion != 0) {
    In->Summary = Stored ? *Stored : computeReaderSummary(*P);
    In->MemProf = std::move(*P);
  }
  In->Names = namesOf(Path, Data, &In->Heap,
                      In->MemProf ? &*In->MemProf : nullptr);
  return std::move(In);
}

void writeJSON(const JSONInput &In, unsigned FormatVersion, raw_ostream &OS,
               tool::ProgressLine &Progress) {
  ProfileJSONParts Parts;
  if (In.Counters.Present)
    Parts.Counters = &In.Counters;
  if (In.MemProf) {
    Parts.MemProf = &*In.MemProf;
    Parts.MemProfVersion = unsigned(In.Info.MemProfVersion);
    Parts.Schema = In.Info.Schema;
    Parts.Summary = &In.Summary;
  }
  Parts.Names = In.Names ? &*In.Names : nullptr;
  Parts.Heap = In.Heap.present() ? &In.Heap : nullptr;
  Parts.FormatVersion = FormatVersion;
  auto Tick = [&](uint64_t Done, uint64_t Total) {
    Progress.update(Done, Total, "records");
  };
  Parts.Progress = Tick;
  writeProfileJSON(OS, Parts);
}

/// Writes an output as \p Write makes it, never whole in memory: to
/// standard output (no -o, or -o -), or to a temporary file beside \p Output
/// renamed into place.
void emit(StringRef Output, function_ref<void(raw_ostream &)> Write) {
  if (Output.empty() || Output == "-") {
    Write(outs());
    tool::finishStdout();
    return;
  }
  if (Error E = tool::writeFileAtomically(Output, [&](raw_ostream &OS) {
        Write(OS);
        return Error::success();
      }))
    tool::fatal(Output, std::move(E));
}

Expected<std::string> toRaw(StringRef Data, Form F) {
  if (F == Form::RawText)
    return compileRawText(Data);
  if (F == Form::Raw)
    return Data.str();
  return makeError(ErrorCode::Usage,
                   formName(F) + " cannot become a raw profile; --to-raw "
                                 "compiles memprof raw text");
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  tool::setToolName("memprof-convert");
  tool::setReadsCounters();
  tool::tuneAllocator();
  tool::installOutOfMemoryHandler(
      "convert a smaller profile, or raise the memory limit");

  CLI::App App{
      "Convert profiles between their binary and text forms.\n\n"
      "  --to-text     indexed profile -> its text: MemProf as LLVM MemProf\n"
      "                YAML, byte for byte what `llvm-profdata show --memory`\n"
      "                prints; PGO counters as LLVM's .proftext, byte for\n"
      "                byte what `llvm-profdata merge --text` writes; both:\n"
      "                the counters text, then the YAML from a line '---'\n"
      "                (the combined form, which rebuilds the same bytes);\n"
      "                raw MemProf profile -> memprof raw text (for reading\n"
      "                and debugging)\n"
      "  --to-indexed  LLVM MemProf YAML, .proftext, the combined form or a\n"
      "                .profraw (as llvm-profdata reads them) -> indexed\n"
      "                profile; an indexed profile is rewritten\n"
      "  --to-raw      memprof raw text -> raw profile bytes\n"
      "  --to-json     anything --to-indexed reads -> JSON for scripts\n"
      "  --to-pprof    raw or indexed MemProf profile -> pprof's profile.proto\n"
      "                (gzip), for go tool pprof, speedscope, Perfetto\n"
      "  --to-flamegraph  raw or indexed MemProf profile -> an interactive\n"
      "                SVG flame graph\n"
      "  --to-folded   raw or indexed MemProf profile -> folded stacks\n"
      "                (flamegraph.pl, inferno, speedscope)\n"
      "  --to-timeline raw or indexed profile of memprof's runtime -> an\n"
      "                SVG chart of the live heap over time, the peak\n"
      "                marked, the largest contexts stacked\n\n"
      "Raw profiles are symbolized for the pictures as memprof-show\n"
      "symbolizes them (--profiled-binary, --debug-dir, ...).\n"
      "The input form is recognized from its content. Text and JSON go to\n"
      "standard output unless -o is given; binary output needs -o.",
      "memprof-convert"};
  std::string Input, Output, InputFormat = "auto";
  bool ToText = false, ToIndexed = false, ToRaw = false, ToJSON = false;
  bool ToPprof = false, ToFlameGraph = false, ToFolded = false;
  bool ToTimeline = false;
  std::string WeightArg = "bytes", DiffBase, Title;
  bool FullNames = false, NoGaps = false;
  unsigned JSONFormat = MemProfJSONVersion;
  std::string Progress = "auto";
  ModuleSearch Search;
  bool FullSchemaFlag = false;
  Options O;
  App.add_option("input", Input,
                 "Indexed (.profdata) or raw (.memprofraw, .profraw) profile, "
                 "LLVM MemProf YAML or counters text (.proftext), the "
                 "combined text, or memprof raw text ('-' for standard "
                 "input)")
      ->required();
  auto *Modes = App.add_option_group("mode", "What to write (exactly one)");
  Modes->add_flag("--to-text", ToText,
                  "LLVM MemProf YAML, .proftext or the combined form (from "
                  "any input but raw MemProf) or memprof raw text (from raw "
                  "MemProf or raw text input)");
  Modes->add_flag("--to-indexed", ToIndexed,
                  "An indexed profile (from any input but raw MemProf and "
                  "raw text)");
  Modes->add_flag("--to-raw", ToRaw,
                  "A raw profile (from memprof raw text)");
  Modes->add_flag(
      "--to-json", ToJSON,
      "JSON, MemProf and counters (from any input but raw MemProf "
      "and raw text); see docs/text-formats.md");
  Modes->add_flag("--to-pprof", ToPprof,
                  "pprof's profile.proto, gzip-compressed (needs -o): a "
                  "sample per allocation context, alloc_objects and "
                  "alloc_space first (docs/memprof-convert.md#pprof)");
  Modes->add_flag("--to-flamegraph", ToFlameGraph,
                  "A self-contained interactive SVG flame graph of --weight, "
                  "cold contexts in blue");
  Modes->add_flag("--to-folded", ToFolded,
                  "Folded stacks: root first, ';'-separated, then the "
                  "--weight");
  Modes->add_flag("--to-timeline", ToTimeline,
                  "An SVG chart of the live heap over time (the timeline of "
                  "the run with the highest peak: docs/heap-data.md), the "
                  "peak marked, the largest contexts stacked under the "
                  "total");
  App.add_option("--weight", WeightArg,
                 "--to-flamegraph, --to-folded: what a context weighs: "
                 "bytes, count (allocations), accesses or lifetime (total "
                 "ms); from heap data (docs/heap-data.md), peak-bytes and "
                 "peak-blocks (live at the process's peak), live-bytes and "
                 "live-blocks (live at the dump: at exit, never freed)")
      ->check(CLI::IsMember(weightNames()))
      ->capture_default_str();
  App.add_option("--diff-base", DiffBase,
                 "--to-pprof: a profile whose samples are added negated and "
                 "labelled pprof::base, as pprof -diff_base does, so pprof "
                 "shows the change from it")
      ->type_name("PROFILE");
  App.add_option("--title", Title, "--to-flamegraph, --to-timeline: the title")
      ->type_name("TEXT");
  App.add_flag("--full-names", FullNames,
               "--to-flamegraph, --to-folded, --to-timeline: full demangled "
               "names (by "
               "default template arguments and parameters are folded)");
  App.add_flag("--no-gaps", NoGaps,
               "--to-pprof, --to-flamegraph, --to-folded: drop the frames of "
               "raw inputs that cannot be symbolized, as memprof-merge does");
  tool::addModuleSearchOptions(App, Search);
  App.add_option("--json-format", JSONFormat,
                 "--to-json: the layout's format_version: 2 (files, "
                 "functions, frames and stacks once each, referred to by "
                 "id) or 1 (every frame of every stack in full, as before "
                 "version 2; many times larger)")
      ->check(CLI::IsMember({1u, 2u}))
      ->capture_default_str();
  App.add_option("--progress", Progress,
                 "How far --to-json and the pictures have come, on stderr at "
                 "most once a second: auto (on a terminal, once the run "
                 "takes over a second), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  App.add_option("--input-format", InputFormat,
                 "What the input is: auto (recognized from its content), "
                 "indexed, raw, yaml, raw-text, profraw or proftext (LLVM's "
                 "counters text, or the combined form). With raw, any bytes "
                 "(a damaged magic, a prefix) become raw text")
      ->check(CLI::IsMember({"auto", "indexed", "raw", "yaml", "raw-text",
                             "profraw", "proftext"}))
      ->capture_default_str();
  App.add_option("-o,--output", Output,
                 "Output file, written atomically ('-' for standard output)")
      ->type_name("FILE");
  App.add_option("--memprof-version", O.MemProfVersion,
                 "MemProf section version of indexed output (2, 3 or 4)")
      ->check(CLI::IsMember({2u, 3u, 4u}))
      ->capture_default_str();
  App.add_flag("--memprof-full-schema", FullSchemaFlag,
               "Write all 27 MemInfoBlock fields (same as "
               "--memprof-schema=full)");
  App.add_flag("--round-trip", O.RoundTrip,
               "--to-text: write what rebuilds the input's bytes: MemProf "
               "records in the order from which llvm-profdata and "
               "--to-indexed rebuild the record table (differs from `show "
               "--memory` only within hash-table chains that hold several "
               "records); counters with '# memprof:' comments for what "
               "LLVM's text cannot hold (binary ids, vtable names, unnamed "
               "call targets). The combined form always does this");
  App.add_flag("--names", O.Names,
               "--to-text: add function names and source locations from the "
               "profile's names extension (memprof-merge writes it) as YAML "
               "comments; llvm-profdata reads the text as without them");
  App.add_flag("--keep-vtable-symbols", O.KeepVTableSymbols,
               "As llvm-profdata merge --keep-vtable-symbols: --to-indexed of "
               "a .profraw or counters text keeps the vtable names it uses, "
               "--to-text names vtable values by them (by default, as "
               "there, neither; an indexed input's vtable names are kept in "
               "--to-indexed and in --round-trip text)");
  App.add_option("--memprof-schema", O.Schema,
                 "MemInfoBlock fields of indexed output: hot-cold (the four "
                 "llvm-profdata writes by default), full (all 27), or auto: "
                 "the input file's own, and for YAML full only when it names "
                 "a field beyond the four")
      ->check(CLI::IsMember({"auto", "hot-cold", "full"}))
      ->capture_default_str();
  App.footer(
      "Raw profiles become indexed ones only through memprof-merge, "
      "which symbolizes them.\nSee docs/text-formats.md for the raw text "
      "and JSON forms.");
  if (!tool::parseCommandLine(App, argc, argv))
    return 0;
  tool::ProgressLine Progressed(Progress);
  if (int(ToText) + int(ToIndexed) + int(ToRaw) + int(ToJSON) +
          int(ToPprof) + int(ToFlameGraph) + int(ToFolded) +
          int(ToTimeline) !=
      1)
    tool::fatal("", "give exactly one of --to-text, --to-indexed, --to-raw, "
                    "--to-json, --to-pprof, --to-flamegraph, --to-folded and "
                    "--to-timeline (see --help)");
  if (App.count("--json-format") && !ToJSON)
    tool::fatal("", "--json-format goes with --to-json (see --help)");
  if (!DiffBase.empty() && !ToPprof)
    tool::fatal("", "--diff-base goes with --to-pprof (memprof-show --diff "
                    "compares profiles in text and JSON)");
  // The pictures' options mean nothing to the other modes: say so rather
  // than ignore them.
  if (ToTimeline && App.count("--weight"))
    tool::fatal("", "--weight goes with --to-flamegraph or --to-folded: the "
                    "timeline shows live bytes");
  if (!(ToPprof || ToFlameGraph || ToFolded || ToTimeline))
    for (const char *Opt :
         {"--weight", "--title", "--full-names", "--no-gaps",
          "--profiled-binary", "--debug-dir", "--no-system-dirs",
          "--no-debuginfod"})
      if (App.count(Opt))
        tool::fatal("", Twine(Opt) +
                            (StringRef(Opt) == "--weight"
                                 ? " goes with --to-pprof, --to-flamegraph or "
                                   "--to-folded (see --help)"
                                 : " goes with --to-pprof, --to-flamegraph, "
                                   "--to-folded or --to-timeline (see "
                                   "--help)"));
  if (ToPprof || ToFlameGraph || ToFolded || ToTimeline) {
    if (Input == "-")
      tool::fatal("", "--to-pprof, --to-flamegraph, --to-folded and "
                      "--to-timeline read a file, not standard input");
    if (ToPprof && Output.empty())
      tool::fatal("", "binary output needs -o FILE (or -o - for standard "
                      "output)");
    std::vector<std::string> Inputs{Input};
    if (!DiffBase.empty())
      Inputs.push_back(DiffBase);
    tool::refuseOutputOverInputs(Inputs,
                                 Output == "-" ? StringRef() : StringRef(Output));
    ReportOptions Opts;
    Opts.TopContexts = SIZE_MAX;
    Opts.InternFrames = true;
    Report R = tool::loadReport({Input}, Search, false, !NoGaps, Opts);
    auto Tick = [&](uint64_t Done, uint64_t Total) {
      Progressed.update(Done, Total, "contexts");
    };
    if ((ToFolded || ToFlameGraph) && isHeapWeight(*parseWeight(WeightArg)) &&
        !R.Heap)
      tool::fatal(Input, "no heap data: --weight " + WeightArg +
                             " needs a profile of memprof's runtime that "
                             "recorded it (profiles of clang's runtime and "
                             "llvm-profdata's have none); bytes, count, "
                             "accesses and lifetime weigh any profile");
    // The folded stacks of a large profile run to hundreds of megabytes:
    // written as they are made.
    if (ToPprof) {
      std::optional<Report> Base;
      if (!DiffBase.empty())
        Base = tool::loadReport({DiffBase}, Search, false, !NoGaps, Opts);
      auto P = writePprof(R, Base ? &*Base : nullptr, Tick);
      if (!P)
        tool::fatal(Input, P.takeError());
      emit(Output, [&](raw_ostream &OS) { OS << *P; });
    } else if (ToTimeline) {
      if (!R.Heap)
        tool::fatal(Input, "no heap data to draw: --to-timeline needs a "
                           "profile of memprof's runtime that recorded it "
                           "(profiles of clang's runtime and llvm-profdata's "
                           "have none)");
      TimelineChart C = timelineChartOf(
          R,
          Title.empty() ? "Heap over time: " + sys::path::filename(Input).str()
                        : Title,
          FullNames);
      emit(Output, [&](raw_ostream &OS) { writeTimelineSvg(C, OS); });
    } else if (ToFolded) {
      emit(Output, [&](raw_ostream &OS) {
        writeFolded(R, *parseWeight(WeightArg), FullNames, OS, Tick);
      });
    } else {
      FlameGraphOptions FO;
      FO.W = *parseWeight(WeightArg);
      FO.FullNames = FullNames;
      FO.Title = Title.empty() ? "Heap flame graph of " +
                                     sys::path::filename(Input).str() + " (" +
                                     weightName(FO.W).str() + ")"
                               : Title;
      emit(Output, [&](raw_ostream &OS) { writeFlameGraph(R, FO, OS, Tick); });
    }
    return 0;
  }
  O.MemProfVersionGiven = App.count("--memprof-version") > 0;
  if (FullSchemaFlag) {
    if (O.Schema != "auto" && O.Schema != "full")
      tool::fatal("", "--memprof-full-schema contradicts --memprof-schema=" +
                          O.Schema);
    O.Schema = "full";
  }
  const bool Binary = ToIndexed || ToRaw;
  if (Binary && Output.empty())
    tool::fatal("", "binary output needs -o FILE (or -o - for standard "
                    "output)");
  if (Input != "-" && !Output.empty() && Output != "-" &&
      tool::sameFile(Input, Output))
    tool::fatal(Input,
                "the output would overwrite the input; choose another -o");

  std::unique_ptr<MemoryBuffer> Buffer;
  if (Input == "-") {
    auto B = MemoryBuffer::getSTDIN();
    if (!B)
      tool::fatal(
          "<stdin>",
          makeError(ErrorCode::IO, "cannot read: " + B.getError().message()));
    Buffer = std::move(*B);
  } else {
    auto B = tool::readInput(Input);
    if (!B)
      tool::fatal(Input, B.takeError());
    Buffer = std::move(*B);
  }
  StringRef Name = Input == "-" ? StringRef("<stdin>") : StringRef(Input);
  StringRef Data = Buffer->getBuffer();
  Expected<Form> F = InputFormat == "indexed"    ? Form::Indexed
                     : InputFormat == "raw"      ? Form::Raw
                     : InputFormat == "yaml"     ? Form::YAML
                     : InputFormat == "raw-text" ? Form::RawText
                     : InputFormat == "profraw"  ? Form::CounterRaw
                     : InputFormat == "proftext" ? Form::CounterText
                                                 : detect(Data);
  if (!F)
    tool::fatal(Name, F.takeError());

  if (ToJSON) {
    // Read first (an error leaves no output), then written as it is made.
    auto In = readForJSON(Name, Data, *F, O);
    if (!In)
      tool::fatal(Name, In.takeError());
    emit(Output, [&](raw_ostream &OS) {
      writeJSON(**In, JSONFormat, OS, Progressed);
    });
    return 0;
  }
  Expected<std::string> Result = ToText      ? toText(Name, Data, *F, O)
                                 : ToIndexed ? toIndexed(Name, Data, *F, O)
                                             : toRaw(Data, *F);
  if (!Result)
    tool::fatal(Name, Result.takeError());

  if (Output.empty() || Output == "-") {
    outs() << *Result;
    tool::finishStdout();
    return 0;
  }
  if (Error E = tool::writeFileAtomically(Output, *Result))
    tool::fatal(Output, std::move(E));
  return 0;
}
