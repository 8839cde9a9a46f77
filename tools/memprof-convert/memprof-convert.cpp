//===- memprof-convert.cpp - Convert MemProf profiles between forms -------===//
#include "ToolCommon.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/IndexedProfile.h"
#include "memprof/ProfileData/MemProfJSON.h"
#include "memprof/ProfileData/MemProfYAML.h"
#include "memprof/ProfileData/ProfileNames.h"
#include "memprof/ProfileData/RawReader.h"
#include "memprof/ProfileData/RawText.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <CLI/CLI.hpp>
#include <optional>

using namespace llvm;
using namespace memprof;

namespace {

enum class Form { Indexed, Raw, YAML, RawText };

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
  }
  return "";
}

Expected<Form> detect(StringRef Data) {
  if (isIndexedProfile(Data))
    return Form::Indexed;
  if (isRawProfile(Data))
    return Form::Raw;
  if (isMemProfYAML(Data))
    return Form::YAML;
  if (isRawText(Data))
    return Form::RawText;
  if (Data.empty())
    return makeError(ErrorCode::Empty, "the file is empty", 0);
  std::string Hint;
  if (Data.contains("HeapProfileRecords"))
    Hint = " (MemProf YAML must begin with '---', as llvm-profdata requires)";
  return makeError(ErrorCode::BadMagic,
                   "not an indexed or raw MemProf profile, LLVM MemProf YAML "
                   "or memprof raw text" +
                       Twine(Hint),
                   0);
}

struct Options {
  unsigned MemProfVersion = 3;
  std::string Schema = "auto";
  bool RoundTrip = false;
  bool Names = false;
};

/// The names extension of an indexed file, if it has a readable one.
std::optional<ProfileNames> namesOf(StringRef Path, StringRef Data) {
  if (!hasNamesExtension(Data))
    return std::nullopt;
  auto N = readNamesExtension(Data);
  if (!N) {
    tool::warning(Path, "names extension ignored: " + toString(N.takeError()));
    return std::nullopt;
  }
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

/// LLVM YAML or an indexed profile, as the indexed bytes --to-indexed
/// writes. Warns about what the chosen version or schema drops.
Expected<std::string> toIndexed(StringRef Path, StringRef Data, Form F,
                                const Options &O) {
  IndexedMemProf P;
  CounterProfile Counters; // an indexed input's PGO counters
  std::optional<ProfileNames> Names; // an indexed input's, carried over
  bool InputFull = false;
  if (F == Form::YAML) {
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
    P = std::move(Y->Profile);
  } else if (F == Form::Indexed) {
    IndexedProfileInfo Info;
    // The counters of an indexed input are carried over unchanged.
    auto R = readIndexedProfile(Data, &Info, nullptr, &Counters);
    if (!R)
      return R.takeError();
    if (Info.MemProfVersion == 0)
      return makeError(ErrorCode::Malformed,
                       "the indexed profile has no MemProf section");
    if (hasDataAccessProfile(Data))
      tool::warning(Path, "the data-access profile is not carried over");
    uint32_t HotCold = schemaMask(hotColdSchema());
    InputFull = (schemaMask(Info.Schema) & ~HotCold) != 0;
    // Rewriting with the same version and schema gives the same bytes.
    P = inRoundTripOrder(*R);
    Names = namesOf(Path, Data);
  } else {
    return makeError(ErrorCode::Usage,
                     formName(F) + " cannot become an indexed profile here: " +
                         (F == Form::Raw
                              ? "raw profiles need symbolization; use "
                                "memprof-merge"
                              : "compile it with --to-raw, then use "
                                "memprof-merge"));
  }
  IndexedWriterOptions WO;
  WO.MemProfVersion = O.MemProfVersion;
  WO.FullSchema = fullSchema(O, InputFull);
  SmallVector<char, 0> Bytes;
  auto WS = writeIndexedProfile(Counters, &P, WO, Bytes);
  if (!WS)
    return WS.takeError();
  if (WS->SaturatedFields)
    tool::warning(Path, Twine(WS->SaturatedFields) +
                            " 32-bit MemInfoBlock fields were saturated");
  if (Names) {
    auto NS = appendNamesExtension(Bytes, P, *Names);
    if (!NS)
      return NS.takeError();
  }
  return std::string(Bytes.data(), Bytes.size());
}

Expected<std::string> toText(StringRef Path, StringRef Data, Form F,
                             const Options &O) {
  std::string Out;
  raw_string_ostream OS(Out);
  switch (F) {
  case Form::Indexed:
  case Form::YAML: {
    // For YAML: what `show --memory` prints for the file --to-indexed writes.
    std::string Bytes;
    if (F == Form::YAML) {
      auto B = toIndexed(Path, Data, F, O);
      if (!B)
        return B.takeError();
      Bytes = std::move(*B);
      Data = Bytes;
    }
    bool Differ = false;
    if (Error E = writeIndexedAsYAML(Data, OS,
                                     O.RoundTrip ? YAMLRecordOrder::RoundTrip
                                                 : YAMLRecordOrder::LLVMShow,
                                     &Differ))
      return std::move(E);
    if (O.Names) {
      if (auto N = namesOf(Path, Data))
        Out = annotateYAMLWithNames(Out, *N);
      else
        tool::warning(Path, "the profile carries no names; written without");
    }
    if (Differ && !O.RoundTrip)
      tool::note(Path + ": records are in llvm-profdata's order; reading this "
                        "text back reorders hash-table chains (as "
                        "llvm-profdata's own show/merge does); --round-trip "
                        "lists them in an order that rebuilds these bytes");
    return Out;
  }
  case Form::Raw:
    writeRawText(Data, OS);
    return Out;
  case Form::RawText: {
    auto Bytes = compileRawText(Data);
    if (!Bytes)
      return Bytes.takeError();
    writeRawText(*Bytes, OS);
    return Out;
  }
  }
  return Out;
}

Expected<std::string> toJSON(StringRef Path, StringRef Data, Form F,
                             const Options &O) {
  std::string Indexed;
  if (F == Form::YAML) {
    auto Bytes = toIndexed(Path, Data, F, O);
    if (!Bytes)
      return Bytes.takeError();
    Indexed = std::move(*Bytes);
    Data = Indexed;
  } else if (F != Form::Indexed) {
    return makeError(ErrorCode::Usage,
                     formName(F) + " has no JSON form: raw profiles hold "
                                   "addresses, not frames; merge them with "
                                   "memprof-merge first, or use --to-text");
  }
  IndexedProfileInfo Info;
  std::optional<MemProfSummary> Stored;
  auto P = readIndexedProfile(Data, &Info, &Stored);
  if (!P)
    return P.takeError();
  if (Info.MemProfVersion == 0)
    return makeError(ErrorCode::Malformed,
                     "the indexed profile has no MemProf section");
  std::string Out;
  raw_string_ostream OS(Out);
  std::optional<ProfileNames> Names = namesOf(Path, Data);
  writeMemProfJSON(OS, *P, unsigned(Info.MemProfVersion), Info.Schema,
                   Stored ? *Stored : computeReaderSummary(*P),
                   Names ? &*Names : nullptr);
  return Out;
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
  tool::tuneAllocator();
  tool::installOutOfMemoryHandler(
      "convert a smaller profile, or raise the memory limit");

  CLI::App App{
      "Convert MemProf profiles between their binary and text forms.\n\n"
      "  --to-text     indexed profile -> LLVM MemProf YAML, byte for byte\n"
      "                what `llvm-profdata show --memory` prints;\n"
      "                raw profile -> memprof raw text (for reading and\n"
      "                debugging)\n"
      "  --to-indexed  LLVM MemProf YAML (as llvm-profdata reads it) ->\n"
      "                indexed profile; an indexed profile is rewritten\n"
      "  --to-raw      memprof raw text -> raw profile bytes\n"
      "  --to-json     indexed profile or YAML -> JSON for scripts\n\n"
      "The input form is recognized from its content. Text and JSON go to\n"
      "standard output unless -o is given; binary output needs -o.",
      "memprof-convert"};
  std::string Input, Output, InputFormat = "auto";
  bool ToText = false, ToIndexed = false, ToRaw = false, ToJSON = false;
  bool FullSchemaFlag = false;
  Options O;
  App.add_option("input", Input,
                 "Indexed (.profdata) or raw (.memprofraw) profile, LLVM "
                 "MemProf YAML, or memprof raw text ('-' for standard input)")
      ->required();
  auto *Modes = App.add_option_group("mode", "What to write (exactly one)");
  Modes->add_flag("--to-text", ToText,
                  "LLVM MemProf YAML (from indexed or YAML input) or memprof "
                  "raw text (from raw or raw text input)");
  Modes->add_flag("--to-indexed", ToIndexed,
                  "An indexed profile (from YAML or indexed input)");
  Modes->add_flag("--to-raw", ToRaw,
                  "A raw profile (from memprof raw text)");
  Modes->add_flag(
      "--to-json", ToJSON,
      "JSON (from indexed or YAML input); see docs/text-formats.md");
  App.add_option("--input-format", InputFormat,
                 "What the input is: auto (recognized from its content), "
                 "indexed, raw, yaml or raw-text. With raw, any bytes (a "
                 "damaged magic, a prefix) become raw text")
      ->check(CLI::IsMember({"auto", "indexed", "raw", "yaml", "raw-text"}))
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
               "--to-text: list records in the order from which llvm-profdata "
               "and --to-indexed rebuild the input's record table byte for "
               "byte; differs from `show --memory` only within hash-table "
               "chains that hold several records");
  App.add_flag("--names", O.Names,
               "--to-text: add function names and source locations from the "
               "profile's names extension (memprof-merge writes it) as YAML "
               "comments; llvm-profdata reads the text as without them");
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
  if (int(ToText) + int(ToIndexed) + int(ToRaw) + int(ToJSON) != 1)
    tool::fatal("", "give exactly one of --to-text, --to-indexed, --to-raw "
                    "and --to-json (see --help)");
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
                                                 : detect(Data);
  if (!F)
    tool::fatal(Name, F.takeError());

  Expected<std::string> Result =
      ToText      ? toText(Name, Data, *F, O)
      : ToIndexed ? toIndexed(Name, Data, *F, O)
      : ToRaw     ? toRaw(Data, *F)
                  : toJSON(Name, Data, *F, O);
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
