//===- memprof-bundle.cpp - Raw profiles and their modules in one directory ===//
#include "ToolCommon.h"
#include "memprof/ProfileData/Bundle.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/RawReader.h"
#include "memprof/ProfileData/Symbolizer.h"
#include "memprof/ProfileData/Vdso.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/BuryPointer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <CLI/CLI.hpp>
#include <map>
#include <unistd.h>

using namespace llvm;
using namespace memprof;

namespace {

/// "executable" when the file holds the module's code: an ELF executable or
/// shared object with an executable PT_LOAD whose code is in the file (an
/// SHF_EXECINSTR section that is not SHT_NOBITS, or, without section
/// headers, an executable PT_LOAD with file bytes); otherwise "debuginfo"
/// (a separate debug file, whose code sections are SHT_NOBITS).
std::string moduleKind(StringRef Path) {
  auto Bin = object::createBinary(Path);
  if (!Bin) {
    consumeError(Bin.takeError());
    return "debuginfo";
  }
  auto *Obj = dyn_cast<object::ELF64LEObjectFile>(Bin->getBinary());
  if (!Obj)
    return "debuginfo";
  const auto &File = Obj->getELFFile();
  uint16_t Type = File.getHeader().e_type;
  if (Type != ELF::ET_EXEC && Type != ELF::ET_DYN)
    return "debuginfo";
  auto Phdrs = File.program_headers();
  if (!Phdrs) {
    consumeError(Phdrs.takeError());
    return "debuginfo";
  }
  bool ExecLoad = false, ExecLoadBytes = false;
  for (const auto &Ph : *Phdrs)
    if (Ph.p_type == ELF::PT_LOAD && (Ph.p_flags & ELF::PF_X)) {
      ExecLoad = true;
      ExecLoadBytes |= Ph.p_filesz != 0;
    }
  if (!ExecLoad)
    return "debuginfo";
  auto Sections = File.sections();
  if (!Sections) {
    consumeError(Sections.takeError());
    return "debuginfo";
  }
  if (Sections->empty())
    return ExecLoadBytes ? "executable" : "debuginfo";
  for (const auto &Sec : *Sections)
    if ((Sec.sh_flags & ELF::SHF_EXECINSTR) && Sec.sh_type != ELF::SHT_NOBITS &&
        Sec.sh_size != 0)
      return "executable";
  return "debuginfo";
}

struct Module {
  std::string RawId;
  std::vector<std::string> Paths; // recorded by the runtime, distinct
};

/// The directory being written, removed on failure: nothing half-written
/// is left behind.
std::string TempDir;

[[noreturn]] void failAndClean(StringRef File, const Twine &Msg) {
  if (!TempDir.empty())
    sys::fs::remove_directories(TempDir);
  tool::fatal(File, Msg);
}

[[noreturn]] void failAndClean(StringRef File, Error E) {
  if (!TempDir.empty())
    sys::fs::remove_directories(TempDir);
  tool::fatal(File, std::move(E));
}

void makeDir(const Twine &Path) {
  if (std::error_code EC = sys::fs::create_directories(Path))
    failAndClean(Path.str(), "cannot create the directory: " + EC.message());
}

uint64_t copyInto(StringRef From, const Twine &To) {
  if (std::error_code EC = sys::fs::copy_file(From, To))
    failAndClean(From, "cannot copy it into the bundle (" + To.str() +
                           "): " + EC.message());
  uint64_t Size = 0;
  if (std::error_code EC = sys::fs::file_size(To, Size))
    failAndClean(To.str(), "cannot read its size: " + EC.message());
  return Size;
}

std::string absolute(StringRef P) {
  SmallString<256> A(P);
  sys::fs::make_absolute(A);
  sys::path::remove_dots(A, /*remove_dot_dot=*/true);
  return std::string(A);
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  tool::setToolName("memprof-bundle", "a bundle directory: the raw profiles, "
                                      "the module files they need, manifest.json "
                                      "(schema version 1)");
  tool::tuneAllocator();
  tool::installOutOfMemoryHandler("bundle fewer profiles at a time, or raise "
                                  "the memory limit");

  CLI::App App{
      "Collect raw MemProf profiles and every module they reference (the\n"
      "program, its shared libraries, or their separate debug files: the file\n"
      "that symbolizes each) into one directory with a JSON manifest, so that\n"
      "memprof-merge --bundle and memprof-show --bundle can symbolize them on\n"
      "another machine with nothing else at hand.\n\n"
      "Modules are found by build id as memprof-merge finds them: the\n"
      "--profiled-binary files, the paths the runtime recorded, --debug-dir\n"
      "directories, the system's library directories and debuginfod servers.",
      "memprof-bundle"};
  std::vector<std::string> Inputs;
  ModuleSearch Search;
  std::string Output;
  bool NoCopy = false, Schema = false, Quiet = false;
  std::string List;
  App.add_option("inputs", Inputs, "Raw MemProf profiles (.memprofraw)");
  App.add_option("-o,--output", Output,
                 "The bundle directory to create (required; it must not "
                 "exist, or be empty)")
      ->type_name("DIR");
  tool::addModuleSearchOptions(App, Search);
  App.add_flag("--no-copy", NoCopy,
               "Copy nothing: the manifest names the profiles and the modules' "
               "files where they are (absolute paths), for use on this machine");
  App.add_flag("--schema", Schema,
               "Print the manifest's JSON schema (draft 2020-12) and exit");
  App.add_flag("-q,--quiet", Quiet, "Print only errors and warnings");
  App.add_option("--list", List,
                 "Check the bundle DIR as memprof-merge --bundle reads it and "
                 "print its profiles and modules' files as JSON (absolute "
                 "paths), for scripts such as memprof-fleet; then exit")
      ->type_name("DIR");
  App.footer("The bundle is written into DIR.tmp-<pid>-XXXXXX beside DIR and renamed\n"
             "into place at the end: a failure leaves no DIR. docs/bundles.md\n"
             "describes the layout and the manifest.");
  if (!tool::parseCommandLine(App, argc, argv))
    return 0;
  if (Schema) {
    outs() << bundleManifestSchema();
    tool::finishStdout();
    return 0;
  }
  if (!List.empty()) {
    Expected<BundleManifest> M = readBundle(List);
    if (!M)
      tool::fatal(List, M.takeError());
    json::Array Profiles, Modules;
    for (const std::string &P : M->Profiles)
      Profiles.push_back(P);
    for (const BundleModule &Mod : M->Modules)
      Modules.push_back(json::Object{{"build_id", Mod.BuildId},
                                     {"file", Mod.File}});
    outs() << formatv("{0:2}", json::Value(json::Object{
                                   {"profiles", std::move(Profiles)},
                                   {"modules", std::move(Modules)}}))
           << "\n";
    tool::finishStdout();
    return 0;
  }
  if (Inputs.empty())
    tool::fatal("", "no input files; give raw profiles (see --help)");
  if (Output.empty())
    tool::fatal("", "no output directory; give -o DIR (see --help)");

  // An existing DIR is taken only when it is an empty directory.
  if (sys::fs::exists(Output)) {
    if (!sys::fs::is_directory(Output))
      tool::fatal(Output, "exists and is not a directory; choose another -o");
    std::error_code EC;
    sys::fs::directory_iterator I(Output, EC);
    if (EC)
      tool::fatal(Output, "cannot read the directory: " + EC.message());
    if (I != sys::fs::directory_iterator())
      tool::fatal(Output, "exists and is not empty; choose another -o or "
                          "remove it");
  }

  // Every input must be a raw profile; each bad one is reported.
  std::map<std::string, Module> Modules; // by hex build id: sorted output
  unsigned Bad = 0, NoBuildId = 0;
  for (const std::string &Path : Inputs) {
    auto Buf = tool::readInput(Path);
    if (!Buf) {
      tool::error(Path, Buf.takeError());
      ++Bad;
      continue;
    }
    StringRef Data = (*Buf)->getBuffer();
    if (!isRawProfile(Data) && Data.size() >= 8) {
      tool::error(Path, "not a raw MemProf profile (.memprofraw): a bundle "
                        "holds raw profiles only (an indexed profile needs "
                        "no modules)");
      ++Bad;
      continue;
    }
    auto P = readRawProfile(Data);
    if (!P) {
      tool::error(Path, P.takeError());
      ++Bad;
      continue;
    }
    for (const SegmentInfo &S : P->Segments) {
      if (S.BuildId.empty()) {
        ++NoBuildId;
        continue;
      }
      // The vDSO has no file to bundle (docs/bundles.md): skipped quietly.
      if (isVdsoSegment(S, P->Segments))
        continue;
      Module &M = Modules[buildIdToHex(S.BuildId)];
      M.RawId = S.BuildId;
      if (!S.Path.empty() && !is_contained(M.Paths, S.Path))
        M.Paths.push_back(S.Path);
    }
  }
  if (Bad)
    return 1;
  if (NoBuildId)
    tool::warning("", Twine(NoBuildId) +
                          " segments have no build id: their modules cannot "
                          "be matched to a file and are left out of the "
                          "bundle");

  auto L = ElfBinaryLocator::create(Search);
  if (!L)
    tool::fatal("", L.takeError());
  std::unique_ptr<ElfBinaryLocator> Locator = std::move(*L);
  for (const auto &[Hex, M] : Modules)
    for (const std::string &P : M.Paths)
      Locator->addModulePath(M.RawId, P);

  struct Found {
    std::string Hex, Path;
  };
  std::vector<Found> Files;
  BundleManifest Manifest;
  Manifest.Copied = !NoCopy;
  for (const auto &[Hex, M] : Modules) {
    auto F = Locator->find(M.RawId);
    if (!F) {
      tool::warning("", "module " + Hex + ": " + toString(F.takeError()));
      Manifest.Missing.push_back(Hex);
    } else if (!*F) {
      Manifest.Missing.push_back(Hex);
    } else {
      Files.push_back({Hex, absolute((*F)->path())});
    }
  }
  for (const std::string &N : Locator->notes())
    tool::warning("", N);
  for (const std::string &Hex : Manifest.Missing) {
    const Module &M = Modules[Hex];
    tool::warning("", "module " + Hex +
                          (M.Paths.empty()
                               ? std::string()
                               : " (" + M.Paths.front() +
                                     " in the profiled process)") +
                          ": no file with its build id found; its frames "
                          "cannot be symbolized from the bundle (give it "
                          "with --profiled-binary or --debug-dir)");
  }

  // Written beside DIR and renamed into place at the end.
  std::string AbsOut = absolute(Output);
  SmallString<256> Tmp;
  if (std::error_code EC = sys::fs::createUniqueDirectory(
          AbsOut + ".tmp-" + std::to_string(::getpid()), Tmp))
    tool::fatal(Output, "cannot create a temporary directory beside it: " +
                            EC.message());
  TempDir = std::string(Tmp);

  uint64_t ModuleBytes = 0;
  if (NoCopy) {
    for (const std::string &P : Inputs)
      Manifest.Profiles.push_back(absolute(P));
  } else {
    makeDir(TempDir + "/profiles");
    for (size_t I = 0; I < Inputs.size(); ++I) {
      std::string Rel = ("profiles/" + Twine(I) + "-" +
                         sys::path::filename(Inputs[I]))
                            .str();
      copyInto(Inputs[I], TempDir + "/" + Rel);
      Manifest.Profiles.push_back(Rel);
    }
  }
  for (const Found &F : Files) {
    BundleModule Mod;
    Mod.BuildId = F.Hex;
    Mod.FoundAt = F.Path;
    if (NoCopy) {
      Mod.File = F.Path;
      if (std::error_code EC = sys::fs::file_size(F.Path, Mod.Size))
        failAndClean(F.Path, "cannot read its size: " + EC.message());
    } else {
      Mod.File = ("modules/" + F.Hex + "/" + sys::path::filename(F.Path)).str();
      makeDir(TempDir + "/modules/" + F.Hex);
      Mod.Size = copyInto(F.Path, TempDir + "/" + Mod.File);
    }
    Mod.Kind = moduleKind(NoCopy ? F.Path : TempDir + "/" + Mod.File);
    ModuleBytes += Mod.Size;
    Manifest.Modules.push_back(std::move(Mod));
  }

  std::string ManifestPath = TempDir + "/" + BundleManifestName;
  if (Error E = tool::writeFileAtomically(ManifestPath,
                                          writeBundleManifest(Manifest)))
    failAndClean(ManifestPath, std::move(E));
  // What memprof-merge --bundle will read must pass its checks.
  if (auto Back = readBundle(TempDir); !Back)
    failAndClean("", Back.takeError());
  if (std::error_code EC = sys::fs::rename(TempDir, AbsOut))
    failAndClean(Output, "cannot rename " + TempDir +
                             " into place: " + EC.message());
  TempDir.clear();

  if (!Quiet) {
    std::string Line = (Twine(Manifest.Profiles.size()) + " profile" +
                        (Manifest.Profiles.size() == 1 ? "" : "s") + ", " +
                        Twine(Manifest.Modules.size()) + " module" +
                        (Manifest.Modules.size() == 1 ? "" : "s") + " (" +
                        Twine(ModuleBytes) + " bytes) " +
                        (NoCopy ? "referenced from " : "copied to ") + Output)
                           .str();
    if (!Manifest.Missing.empty())
      Line += "; " + std::to_string(Manifest.Missing.size()) + " module" +
              (Manifest.Missing.size() == 1 ? "" : "s") +
              " not found: " + join(Manifest.Missing, " ");
    tool::note(Line);
  }
  BuryPointer(std::move(Locator));
  return 0;
}
