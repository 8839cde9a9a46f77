//===- Symbolizer.cpp - ELF/DWARF symbolization of profiled PCs -----------===//
//
// DWARF lookups ask LLVM's DWARFContext exactly what LLVM's RawMemProfReader
// asks it (through SymbolizableObjectFile), so frames agree with
// llvm-profdata bit for bit.
// Everything read from a file is untrusted: LLVM's recoverable DWARF errors
// are collected as notes, every Expected is checked, and a candidate file
// that cannot be read is skipped rather than trusted.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/Symbolizer.h"
#include "memprof/ProfileData/AllocTypes.h"
#include "memprof/ProfileData/Debuginfod.h"
#include "memprof/ProfileData/Error.h"
#include "memprof/ProfileData/ProfileNames.h"
#include "memprof/ProfileData/SymbolCache.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/DebugInfo/DIContext.h"
#include "llvm/DebugInfo/DWARF/DWARFCompileUnit.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/DebugInfo/DWARF/DWARFDebugAbbrev.h"
#include "llvm/DebugInfo/DWARF/DWARFDataExtractor.h"
#include "llvm/DebugInfo/DWARF/DWARFFormValue.h"
#include "llvm/DebugInfo/DWARF/DWARFUnit.h"
#include "llvm/Object/BuildID.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

using namespace llvm;

namespace memprof {

std::string buildIdToHex(StringRef BuildId) {
  return toHex(arrayRefFromStringRef(BuildId), /*LowerCase=*/true);
}

ModuleSymbolizer::~ModuleSymbolizer() = default;
BinaryLocator::~BinaryLocator() = default;

namespace {

/// Load biases are multiples of the page size (at least 4 KiB on x86-64).
constexpr uint64_t MinPageSizeBytes = 4096;
/// Bounds on the one-time scan of a search directory.
constexpr unsigned MaxScanDepth = 4;
constexpr unsigned MaxScanFiles = 20000;
/// LLVM's DWARF parser may report the same problem for every lookup; keep the
/// first few per file so that a corrupt binary cannot flood the caller.
constexpr unsigned MaxNotesPerFile = 16;
/// Bounds on what a compressed section may claim to inflate to. DWARF
/// compresses by well under 100:1; these only stop absurd allocations.
constexpr uint64_t MaxCompressionRatio = 1024;
constexpr uint64_t MaxInflatedSectionBytes = 16ULL << 30;

/// Files of compiler-rt's memprof runtime whose frames LLVM drops (spec 2.2).
bool isRuntimeSourceFile(StringRef Path) {
  StringRef Name = sys::path::filename(Path);
  return Name == "memprof_malloc_linux.cpp" ||
         Name == "memprof_interceptors.cpp" || Name == "memprof_new_delete.cpp";
}

/// A function of memprof's own runtime (namespace memprof::rt): never a
/// frame of a context, in either mode (linked in or preloaded).
bool isOwnRuntimeFunction(StringRef LinkageName) {
  return LinkageName.starts_with("_ZN7memprof2rt") ||
         LinkageName.starts_with("_ZNK7memprof2rt");
}

/// Allocation entry points and internals of the profiler runtime, as they
/// appear in a symbol table. Used only for addresses without DWARF, and in
/// every module, the C library included: a frame in libc's own malloc can
/// only be the allocation entry point of the stack, never a caller.
bool isRuntimeSymbol(StringRef Name) {
  // Not strdup and the like: in libc they are real callers of malloc.
  static const char *const Exact[] = {
      "malloc",          "free",          "calloc",        "realloc",
      "reallocarray",    "cfree",         "memalign",      "posix_memalign",
      "aligned_alloc",   "valloc",        "pvalloc",       "malloc_usable_size",
      "__libc_malloc",   "__libc_free",   "__libc_calloc", "__libc_realloc",
      "__libc_memalign", "__libc_valloc", "__libc_pvalloc"};
  for (const char *E : Exact)
    if (Name == E)
      return true;
  static const char *const Prefixes[] = {
      "_Znw", "_Zna", "_Zdl", "_Zda", "__interceptor_", "___interceptor_",
      "__memprof", "__sanitizer",
      // C++ internals of the runtime: namespaces __memprof and __sanitizer.
      "_ZN9__memprof", "_ZNK9__memprof", "_ZN11__sanitizer",
      "_ZNK11__sanitizer"};
  for (const char *P : Prefixes)
    if (Name.starts_with(P))
      return true;
  return isOwnRuntimeFunction(Name);
}

/// Collects recoverable problems of one file, bounded.
struct NoteSink {
  std::vector<std::string> *Notes = nullptr;
  std::string Path;
  unsigned Count = 0;

  void add(const Twine &Msg) {
    ++Count;
    if (!Notes)
      return;
    if (Count <= MaxNotesPerFile)
      Notes->push_back((Path + ": " + Msg).str());
    else if (Count == MaxNotesPerFile + 1)
      Notes->push_back(Path + ": further problems not shown");
  }
  void add(Error E) { add(toString(std::move(E))); }
};

/// Forms that DWARFFormValue::extractValue reads. On any other form it
/// reaches llvm_unreachable, which in a release libLLVM is a wild jump.
bool isExtractableForm(dwarf::Form F) {
  switch (F) {
  case dwarf::DW_FORM_addr:
  case dwarf::DW_FORM_ref_addr:
  case dwarf::DW_FORM_exprloc:
  case dwarf::DW_FORM_block:
  case dwarf::DW_FORM_block1:
  case dwarf::DW_FORM_block2:
  case dwarf::DW_FORM_block4:
  case dwarf::DW_FORM_data1:
  case dwarf::DW_FORM_ref1:
  case dwarf::DW_FORM_flag:
  case dwarf::DW_FORM_strx1:
  case dwarf::DW_FORM_addrx1:
  case dwarf::DW_FORM_data2:
  case dwarf::DW_FORM_ref2:
  case dwarf::DW_FORM_strx2:
  case dwarf::DW_FORM_addrx2:
  case dwarf::DW_FORM_strx3:
  case dwarf::DW_FORM_data4:
  case dwarf::DW_FORM_ref4:
  case dwarf::DW_FORM_ref_sup4:
  case dwarf::DW_FORM_strx4:
  case dwarf::DW_FORM_addrx4:
  case dwarf::DW_FORM_data8:
  case dwarf::DW_FORM_ref8:
  case dwarf::DW_FORM_ref_sup8:
  case dwarf::DW_FORM_data16:
  case dwarf::DW_FORM_sdata:
  case dwarf::DW_FORM_udata:
  case dwarf::DW_FORM_ref_udata:
  case dwarf::DW_FORM_rnglistx:
  case dwarf::DW_FORM_loclistx:
  case dwarf::DW_FORM_GNU_addr_index:
  case dwarf::DW_FORM_GNU_str_index:
  case dwarf::DW_FORM_addrx:
  case dwarf::DW_FORM_strx:
  case dwarf::DW_FORM_LLVM_addrx_offset:
  case dwarf::DW_FORM_string:
  case dwarf::DW_FORM_strp:
  case dwarf::DW_FORM_sec_offset:
  case dwarf::DW_FORM_GNU_ref_alt:
  case dwarf::DW_FORM_GNU_strp_alt:
  case dwarf::DW_FORM_line_strp:
  case dwarf::DW_FORM_strp_sup:
  case dwarf::DW_FORM_flag_present:
  case dwarf::DW_FORM_ref_sig8:
  case dwarf::DW_FORM_implicit_const:
    return true;
  default:
    // Includes DW_FORM_indirect: the form it names is read per entry.
    return false;
  }
}

/// Checks one DWARF 5 line-table prologue for what crashes LLVM 22's parser
/// (DWARFDebugLine::Prologue::parse, reached from every DWARF lookup):
/// an entry-format form that extractValue does not know, DW_FORM_addr with
/// an address size DataExtractor cannot read, a non-constant form for an
/// index/timestamp/size (dereferenced unchecked), and a huge count of
/// zero-byte entries (an endless push_back). Only the header is walked, with
/// LLVM's own extractor and skipValue; the parse itself stays LLVM's.
Error checkLinePrologue(const DWARFDataExtractor &Section, uint64_t Offset) {
  auto Unsafe = [&](const Twine &Why) {
    return createStringError(inconvertibleErrorCode(),
                             "line table at offset 0x" +
                                 utohexstr(Offset, /*LowerCase=*/true) + ": " +
                                 Why);
  };
  Error Err = Error::success();
  uint64_t Off = Offset;
  auto [TotalLength, Format] = Section.getInitialLength(&Off, &Err);
  uint16_t Version = Section.getU16(&Off, &Err);
  if (Err || Version != 5) {
    // Unreadable headers and other versions are rejected or read safely by
    // LLVM (versions 2-4 have no entry formats).
    consumeError(std::move(Err));
    return Error::success();
  }
  DWARFDataExtractor Data(
      Section, std::min<uint64_t>(
                   Section.size(),
                   Off - 2 + std::min<uint64_t>(TotalLength, Section.size())));
  uint8_t AddrSize = Data.getU8(&Off, &Err);
  Data.getU8(&Off, &Err); // segment selector size
  uint64_t HeaderLength =
      Data.getUnsigned(&Off, Format == dwarf::DWARF64 ? 8 : 4, &Err);
  if (Err) {
    consumeError(std::move(Err));
    return Error::success();
  }
  uint64_t End = Off + std::min<uint64_t>(HeaderLength, Data.size());
  DWARFDataExtractor Prologue(Data, std::min<uint64_t>(End, Data.size()));
  Off += 5; // min_inst_length, max_ops, default_is_stmt, line_base, line_range
  uint8_t OpcodeBase = Prologue.getU8(&Off, &Err);
  if (OpcodeBase > 0)
    Off += OpcodeBase - 1;
  dwarf::FormParams Params{Version, AddrSize, Format};

  for (int Table = 0; Table < 2 && !Err; ++Table) {
    uint8_t FormatCount = Prologue.getU8(&Off, &Err);
    SmallVector<std::pair<uint64_t, dwarf::Form>, 8> Descriptors;
    for (unsigned I = 0; I < FormatCount && !Err; ++I) {
      uint64_t Type = Prologue.getULEB128(&Off, &Err);
      auto Form = static_cast<dwarf::Form>(Prologue.getULEB128(&Off, &Err));
      Descriptors.push_back({Type, Form});
    }
    if (Err)
      break; // LLVM stops here with an error too
    for (auto [Type, Form] : Descriptors) {
      // Directory entries other than the path are skipped by LLVM.
      bool Extracted = Table == 1 || Type == dwarf::DW_LNCT_path;
      if (Extracted && !isExtractableForm(Form))
        return Unsafe("unsupported form 0x" +
                      utohexstr(Form, /*LowerCase=*/true));
      if (Extracted && Form == dwarf::DW_FORM_addr && AddrSize != 1 &&
          AddrSize != 2 && AddrSize != 4 && AddrSize != 8)
        return Unsafe("DW_FORM_addr with address size " + Twine(AddrSize));
      if (Table == 1 &&
          (Type == dwarf::DW_LNCT_directory_index ||
           Type == dwarf::DW_LNCT_timestamp || Type == dwarf::DW_LNCT_size)) {
        DWARFFormValue V(Form);
        if ((!V.isFormClass(DWARFFormValue::FC_Constant) &&
             !V.isFormClass(DWARFFormValue::FC_Flag)) ||
            Form == dwarf::DW_FORM_sdata)
          return Unsafe(
              "non-constant form 0x" + utohexstr(Form, /*LowerCase=*/true) +
              " for content type 0x" + utohexstr(Type, /*LowerCase=*/true));
      }
    }
    uint64_t Count = Prologue.getULEB128(&Off, &Err);
    if (Err)
      break;
    // Walk the entries: the directories to reach the file entry format, and
    // both to bound the number of entries that occupy no bytes.
    for (uint64_t I = 0; I < Count; ++I) {
      uint64_t Before = Off;
      for (auto [Type, Form] : Descriptors)
        if (!DWARFFormValue::skipValue(Form, Prologue, &Off, Params))
          return Unsafe("unskippable form 0x" +
                        utohexstr(Form, /*LowerCase=*/true));
      if (Off == Before && Count > 0xFFFF)
        return Unsafe("too many empty entries");
      if (Off >= Prologue.size() && I + 1 < Count)
        return Error::success(); // LLVM runs out of data and stops
    }
  }
  consumeError(std::move(Err));
  return Error::success();
}

/// Checks the line table of every compile unit, at the offset LLVM's
/// DWARFContext::getLineTableForUnit will parse.
/// Checks the DIEs of every unit in .debug_info for what crashes LLVM 22's
/// DIE extraction (DWARFDebugInfoEntry::extractFast, reached from every DIE
/// walk and lookup): it adds fixed attribute sizes and block lengths
/// (DWARFFormValue::skipValue) to the offset without a bounds check, and the
/// next attribute is then read at that offset, far outside the section.
/// This walk reads the same entries with LLVM's own abbreviations and
/// skipValue, but checks the offset after every attribute, before anything
/// is read at it. Where LLVM stops extracting (unknown abbreviation or form),
/// so does the walk.
Error checkDebugInfo(DWARFContext &Ctx) {
  for (const std::unique_ptr<DWARFUnit> &U : Ctx.info_section_units()) {
    const DWARFAbbreviationDeclarationSet *Abbrevs = U->getAbbreviations();
    if (!Abbrevs)
      continue; // LLVM reports this and extracts nothing
    DWARFDataExtractor Data = U->getDebugInfoExtractor();
    const uint64_t End = std::min<uint64_t>(U->getNextUnitOffset(), Data.size());
    uint64_t Off = U->getOffset() + U->getHeaderSize();
    const dwarf::FormParams Params = U->getFormParams();
    auto Unsafe = [&](uint64_t DieOffset) {
      return createStringError(
          inconvertibleErrorCode(),
          "the DIE at offset 0x" + utohexstr(DieOffset, /*LowerCase=*/true) +
              " runs past the end of its unit (at 0x" +
              utohexstr(U->getOffset(), /*LowerCase=*/true) + ")");
    };
    bool Stop = false;
    while (!Stop && Off < End) {
      const uint64_t DieOffset = Off;
      Error Err = Error::success();
      uint64_t Code = Data.getULEB128(&Off, &Err);
      if (Err) {
        consumeError(std::move(Err));
        break;
      }
      if (Code == 0)
        continue; // a null entry ends a list of children
      const DWARFAbbreviationDeclaration *Decl =
          Abbrevs->getAbbreviationDeclaration(uint32_t(Code));
      if (!Decl || Code > UINT32_MAX)
        break; // LLVM stops extracting this unit here
      for (const DWARFAbbreviationDeclaration::AttributeSpec &Spec :
           Decl->attributes()) {
        const uint64_t Before = Off;
        if (std::optional<int64_t> Fixed = Spec.getByteSize(*U)) {
          Off += uint64_t(*Fixed);
        } else if (!DWARFFormValue::skipValue(Spec.Form, Data, &Off, Params)) {
          Stop = true; // LLVM fails this entry and stops too
          break;
        }
        if (Off < Before || Off > End)
          return Unsafe(DieOffset);
      }
    }
  }
  return Error::success();
}

Error checkLineTables(DWARFContext &Ctx) {
  const DWARFObject &DObj = Ctx.getDWARFObj();
  DWARFDataExtractor Section(DObj, DObj.getLineSection(), Ctx.isLittleEndian(),
                             /*AddressSize=*/0);
  for (const std::unique_ptr<DWARFUnit> &U : Ctx.compile_units()) {
    std::optional<uint64_t> Offset =
        dwarf::toSectionOffset(U->getUnitDIE().find(dwarf::DW_AT_stmt_list));
    if (!Offset || !Section.isValidOffset(*Offset))
      continue;
    if (Error E = checkLinePrologue(Section, *Offset))
      return E;
  }
  return Error::success();
}

/// What LLVM's ELF accessors need before they can be used without a
/// report_fatal_error: ELFObjectFile's symbol accessors (type, size,
/// binding, value) die on a symbol table they cannot read. Returns an error
/// when a symbol table is unreadable (the file is then unusable). (Its
/// relocation iterators, which die on a relocation section they cannot
/// read, are only used by DWARFContext on relocatable objects, which are
/// refused before.)
Error checkElfTables(const object::ELFFile<object::ELF64LE> &EF,
                     bool &CompressionUnsafe) {
  using Shdr = object::ELF64LE::Shdr;
  CompressionUnsafe = false;
  Expected<ArrayRef<Shdr>> SectionsOr = EF.sections();
  if (!SectionsOr)
    return SectionsOr.takeError();
  ArrayRef<Shdr> Sections = *SectionsOr;
  // DWARFContext inflates every SHF_COMPRESSED section into a buffer of the
  // size its header claims; a failed allocation aborts the process.
  for (const Shdr &Sec : Sections) {
    if (!(Sec.sh_flags & ELF::SHF_COMPRESSED) || Sec.sh_type == ELF::SHT_NOBITS)
      continue;
    Expected<ArrayRef<uint8_t>> Data = EF.getSectionContents(Sec);
    if (!Data) {
      consumeError(Data.takeError());
      continue; // DWARFContext cannot read it either
    }
    if (Data->size() < sizeof(object::ELF64LE::Chdr))
      continue; // rejected by LLVM's Decompressor
    // Elf64_Chdr: ch_type u32, ch_reserved u32, ch_size u64, ch_addralign u64.
    const uint64_t SizeBytes = support::endian::read64le(Data->data() + 8);
    if (SizeBytes > MaxInflatedSectionBytes ||
        SizeBytes / MaxCompressionRatio > Data->size())
      CompressionUnsafe = true;
  }
  for (const Shdr &Sec : Sections) {
    if (Sec.sh_type != ELF::SHT_SYMTAB && Sec.sh_type != ELF::SHT_DYNSYM)
      continue;
    if (Expected<object::ELF64LE::SymRange> Syms = EF.symbols(&Sec); !Syms)
      return Syms.takeError();
  }
  return Error::success();
}

/// A symbol-table symbol that covers code.
struct CodeSymbol {
  uint64_t Addr = 0;
  uint64_t End = 0; // exclusive
  uint64_t SectionEnd = 0;
  /// Into the module's string table, which the module keeps mapped: a
  /// library's tens of thousands of symbols are not copied.
  StringRef Name;
  bool IsFunc = false;
  uint8_t BindingRank = 0; // GLOBAL 2, WEAK 1, LOCAL 0
  bool SizeKnown = false;
};

/// True if \p A is a better name for an address than \p B.
bool betterSymbol(const CodeSymbol &A, const CodeSymbol &B) {
  if (A.IsFunc != B.IsFunc)
    return A.IsFunc;
  if (A.Addr != B.Addr)
    return A.Addr > B.Addr;
  if (A.BindingRank != B.BindingRank)
    return A.BindingRank > B.BindingRank;
  if (A.Name.size() != B.Name.size())
    return A.Name.size() < B.Name.size();
  return A.Name < B.Name;
}

struct ExecSegment {
  uint64_t VAddr = 0;
  uint64_t MemSizeBytes = 0;
};

/// One opened ELF file: the binary or a separate debug file.
class ElfModule final : public ModuleSymbolizer {
public:
  /// Opens \p Path. Fails on anything that is not a readable ELF64LE x86-64
  /// file with a build id.
  static Expected<std::unique_ptr<ElfModule>>
  open(StringRef Path, std::vector<std::string> *Notes);
  /// The same for an image already in memory; \p Buffer's identifier is the
  /// path used in messages.
  static Expected<std::unique_ptr<ElfModule>>
  open(std::unique_ptr<MemoryBuffer> Buffer, std::vector<std::string> *Notes);
  /// The first half of open(): the ELF headers, the build id and the
  /// checks of the tables. Before the module is used, loadDwarf() or
  /// adopt() must follow.
  static Expected<std::unique_ptr<ElfModule>>
  openHeaders(std::unique_ptr<MemoryBuffer> Buffer,
              std::vector<std::string> *Notes);
  static Expected<std::unique_ptr<ElfModule>>
  openHeaders(StringRef Path, std::vector<std::string> *Notes);
  /// The second half: the DWARF context and LLVM's symbolizer over it; with
  /// \p ReadDwarf false, neither (the module is named from its symbol table
  /// alone, as a system library is by default).
  Error loadDwarf(bool ReadDwarf);
  /// Takes the frames a symbol cache entry of this file holds instead:
  /// addresses it has are never looked up again, and the DWARF is read
  /// only when an address it lacks is asked for.
  void adopt(SymbolCacheEntry &&E);
  /// What the symbol cache should keep of this module: the frames of every
  /// address looked up, if any was new this run. None for a module whose
  /// DWARF gave problems, so that they are said again next time.
  std::optional<SymbolCacheEntry> cacheEntry() const;
  void markSaved() { Dirty = false; }

  StringRef path() const override { return Path; }
  uint64_t toBinaryAddress(const SegmentInfo &S, uint64_t PC) const override;
  PCSymbols symbolize(uint64_t BinaryAddress) override;
  std::string allocatedType(uint64_t BinaryAddress) override;
  std::string allocatedTypeUncached(uint64_t BinaryAddress);

  StringRef buildId() const { return BuildId; }
  bool hasDwarf() const { return HasDwarf; }
  /// DWARF is not read: a system module named from its symbol table.
  bool symbolTableOnly() const { return SymbolTableOnly; }
  /// The file has a full symbol table (.symtab), not just .dynsym.
  bool hasSymtab() const { return HasSymtab; }
  uint64_t fileSizeBytes() const { return Buffer->getBufferSize(); }

private:
  ElfModule() = default;
  PCSymbols symbolizeUncached(uint64_t Addr) const;
  /// Loads what adopt() deferred; false if that fails (said in the notes).
  bool ensureLoaded();
  void buildSymbolTable() const;
  /// The best code symbol containing \p Addr; sets \p IsRuntime when it or an
  /// alias at the same address is a runtime entry point.
  const CodeSymbol *lookupSymbol(uint64_t Addr, bool &IsRuntime) const;

public:
  /// Adds the names of the symbol table's functions and of every DWARF
  /// subprogram (with its declaration) to \p Names.
  void addNames(ProfileNames &Names, function_ref<bool(GUID)> Wanted) const;

private:

  std::string Path;
  std::unique_ptr<MemoryBuffer> Buffer;
  std::unique_ptr<object::ObjectFile> Obj;
  /// The DWARF (an empty context where it is not used).
  std::unique_ptr<DWARFContext> DwarfOwned;
  std::unique_ptr<NoteSink> Sink; // referenced by the DWARF error handlers
  std::string BuildId;
  bool HasDwarf = false;
  bool SymbolTableOnly = false;
  bool HasSymtab = false;
  bool CompressionUnsafe = false;
  bool Loaded = false;           // loadDwarf() ran
  bool LoadFailed = false;       // ... and failed (an adopted module only)
  bool Dirty = false;            // frames found this run that the cache lacks
  DWARFContext *Dwarf = nullptr; // DwarfOwned; null without DWARF
  std::vector<ExecSegment> ExecSegments;
  // Built on the first symbol-table lookup: addresses with DWARF never need it.
  mutable bool SymbolsBuilt = false;
  mutable std::vector<CodeSymbol> Symbols;  // by Addr
  mutable std::vector<uint64_t> MaxEndUpTo; // max End over Symbols[0..I]
  std::unordered_map<uint64_t, PCSymbols> Cache;
  std::unordered_map<uint64_t, std::string> TypeCache; // allocatedType()
  /// Per compile unit (by offset), built on its first lookup: the return
  /// address of each call site with DW_AT_LLVM_alloc_type -> its type name.
  std::unordered_map<uint64_t, std::unordered_map<uint64_t, std::string>>
      CallSiteTypes;
};

Error fileError(ErrorCode Code, StringRef Path, const Twine &Msg) {
  return makeError(Code, Path + ": " + Msg);
}

/// A module whose headers opened, with its DWARF loaded (open()'s second
/// step, whatever the first read from).
static Expected<std::unique_ptr<ElfModule>>
withDwarf(Expected<std::unique_ptr<ElfModule>> M) {
  if (!M)
    return M.takeError();
  if (Error E = (*M)->loadDwarf(/*ReadDwarf=*/true))
    return std::move(E);
  return M;
}

Expected<std::unique_ptr<ElfModule>>
ElfModule::open(StringRef Path, std::vector<std::string> *Notes) {
  return withDwarf(openHeaders(Path, Notes));
}

Expected<std::unique_ptr<ElfModule>>
ElfModule::open(std::unique_ptr<MemoryBuffer> Buffer,
                std::vector<std::string> *Notes) {
  return withDwarf(openHeaders(std::move(Buffer), Notes));
}

Expected<std::unique_ptr<ElfModule>>
ElfModule::openHeaders(StringRef Path, std::vector<std::string> *Notes) {
  sys::fs::file_status Status;
  if (std::error_code EC = sys::fs::status(Path, Status))
    return fileError(ErrorCode::IO, Path, "cannot open: " + EC.message());
  if (!sys::fs::is_regular_file(Status))
    return fileError(ErrorCode::IO, Path, "not a regular file");
  ErrorOr<std::unique_ptr<MemoryBuffer>> BufOr = MemoryBuffer::getFile(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!BufOr)
    return fileError(ErrorCode::IO, Path,
                     "cannot read: " + BufOr.getError().message());
  return openHeaders(std::move(*BufOr), Notes);
}

Expected<std::unique_ptr<ElfModule>>
ElfModule::openHeaders(std::unique_ptr<MemoryBuffer> Buffer,
                       std::vector<std::string> *Notes) {
  auto M = std::unique_ptr<ElfModule>(new ElfModule());
  M->Path = Buffer->getBufferIdentifier().str();
  M->Buffer = std::move(Buffer);
  StringRef Path = M->Path;
  file_magic Magic = identify_magic(M->Buffer->getBuffer());
  if (Magic != file_magic::elf && Magic != file_magic::elf_executable &&
      Magic != file_magic::elf_shared_object &&
      Magic != file_magic::elf_relocatable && Magic != file_magic::elf_core)
    return fileError(ErrorCode::Symbolization, Path, "not an ELF file");

  Expected<std::unique_ptr<object::ObjectFile>> ObjOr =
      object::ObjectFile::createObjectFile(M->Buffer->getMemBufferRef());
  if (!ObjOr)
    return fileError(ErrorCode::Symbolization, Path,
                     "malformed ELF file: " + toString(ObjOr.takeError()));
  M->Obj = std::move(*ObjOr);
  auto *Elf = dyn_cast<object::ELF64LEObjectFile>(M->Obj.get());
  if (!Elf || Elf->getELFFile().getHeader().e_machine != ELF::EM_X86_64)
    return fileError(ErrorCode::Symbolization, Path,
                     "unsupported target " + M->Obj->getFileFormatName() +
                         " (only ELF64 little-endian x86-64 is supported)");
  // Only a linked program or library can have been profiled. (DWARFContext
  // also applies a relocatable object's relocations to its DWARF, and
  // LLVM 22 divides by a section's entry size there unchecked.)
  uint16_t Type = Elf->getELFFile().getHeader().e_type;
  if (Type != ELF::ET_EXEC && Type != ELF::ET_DYN)
    return fileError(ErrorCode::Symbolization, Path,
                     Type == ELF::ET_REL
                         ? "a relocatable object file, not an executable or "
                           "shared library: pass the linked binary"
                         : "not an executable or shared library (ELF type " +
                               std::to_string(Type) + ")");

  object::BuildIDRef Id = object::getBuildID(M->Obj.get());
  if (Id.empty())
    return fileError(ErrorCode::Symbolization, Path,
                     "no build id found in binary");
  M->BuildId = std::string(toStringRef(Id));

  Expected<ArrayRef<object::ELF64LE::Phdr>> PhdrsOr =
      Elf->getELFFile().program_headers();
  if (!PhdrsOr)
    return fileError(ErrorCode::Symbolization, Path,
                     "malformed program headers: " +
                         toString(PhdrsOr.takeError()));
  for (const object::ELF64LE::Phdr &P : *PhdrsOr)
    if (P.p_type == ELF::PT_LOAD && (P.p_flags & ELF::PF_X))
      M->ExecSegments.push_back({P.p_vaddr, P.p_memsz});
  if (Error E = checkElfTables(Elf->getELFFile(), M->CompressionUnsafe))
    return fileError(ErrorCode::Symbolization, Path,
                     "malformed ELF file: " + toString(std::move(E)));
  // checkElfTables read the section table already.
  for (const object::ELF64LE::Shdr &Sec :
       cantFail(Elf->getELFFile().sections()))
    if (Sec.sh_type == ELF::SHT_SYMTAB &&
        Sec.sh_size >= 2 * sizeof(object::ELF64LE::Sym))
      M->HasSymtab = true;

  M->Sink = std::make_unique<NoteSink>();
  M->Sink->Notes = Notes;
  M->Sink->Path = M->Path;
  return std::move(M);
}

Error ElfModule::loadDwarf(bool ReadDwarf) {
  Loaded = true;
  if (!ReadDwarf) {
    // A system module: its symbol table names its frames, and neither the
    // DWARF context nor LLVM's symbolizer (which indexes the symbols again)
    // is made.
    SymbolTableOnly = true;
    HasDwarf = false;
    return Error::success();
  }
  ElfModule *M = this;
  StringRef Path = M->Path;
  NoteSink *Sink = M->Sink.get();
  auto Handler = [Sink](Error E) { Sink->add(std::move(E)); };
  // Where LLVM would crash on the DWARF, none of it is used: the module is
  // then symbolized like one without DWARF, from its symbol table.
  auto NoDwarf = [&] {
    return DWARFContext::create(StringMap<std::unique_ptr<MemoryBuffer>>(),
                                /*AddrSize=*/8, /*isLittleEndian=*/true,
                                Handler, Handler);
  };
  std::unique_ptr<DWARFContext> Dwarf;
  if (CompressionUnsafe) {
    Sink->add("DWARF ignored: a compressed section claims an implausible "
              "uncompressed size");
    Dwarf = NoDwarf();
  } else {
    Dwarf = DWARFContext::create(*M->Obj,
                                 DWARFContext::ProcessDebugRelocations::Ignore,
                                 /*L=*/nullptr, /*DWPName=*/"", Handler,
                                 Handler);
  }
  M->HasDwarf = Dwarf->getNumCompileUnits() > 0;
  if (M->HasDwarf) {
    Error E = checkDebugInfo(*Dwarf);
    if (!E)
      E = checkLineTables(*Dwarf);
    if (E) {
      Sink->add("DWARF ignored: " + toString(std::move(E)));
      M->HasDwarf = false;
      Dwarf = NoDwarf();
    }
  }

  if (M->HasDwarf)
    M->Dwarf = Dwarf.get();
  M->DwarfOwned = std::move(Dwarf);
  return Error::success();
}

void ElfModule::adopt(SymbolCacheEntry &&E) {
  HasDwarf = E.HasDwarf;
  SymbolTableOnly = E.SymbolTableOnly;
  for (auto &[Addr, S] : E.PCs)
    Cache.emplace(Addr, std::move(S));
  for (auto &[Addr, T] : E.Types)
    TypeCache.emplace(Addr, std::move(T));
}

bool ElfModule::ensureLoaded() {
  if (Loaded)
    return !LoadFailed;
  if (Error E = loadDwarf(!SymbolTableOnly)) {
    // It loaded when the entry was written: the file changed under a build
    // id of its own.
    LoadFailed = true;
    Sink->add(std::move(E));
    return false;
  }
  return true;
}

std::optional<SymbolCacheEntry> ElfModule::cacheEntry() const {
  if (!Dirty || Sink->Count != 0 ||
      Cache.size() > SymbolCache::MaxAddressesPerEntry)
    return std::nullopt;
  SymbolCacheEntry E;
  E.BuildId = BuildId;
  E.FileSizeBytes = fileSizeBytes();
  E.SymbolTableOnly = SymbolTableOnly;
  E.HasDwarf = HasDwarf;
  E.PCs.assign(Cache.begin(), Cache.end());
  llvm::sort(E.PCs,
             [](const auto &A, const auto &B) { return A.first < B.first; });
  E.Types.assign(TypeCache.begin(), TypeCache.end());
  llvm::sort(E.Types,
             [](const auto &A, const auto &B) { return A.first < B.first; });
  return E;
}

void ElfModule::buildSymbolTable() const {
  SymbolsBuilt = true;
  // Straight from the ELF tables (open() admits only ELF64LE): the generic
  // SymbolRef accessors look the section table up again for every symbol,
  // which cost more than all the rest of the table.
  const auto &EF = cast<object::ELF64LEObjectFile>(Obj.get())->getELFFile();
  using Elf_Shdr = object::ELF64LE::Shdr;
  Expected<ArrayRef<Elf_Shdr>> SectionsOr = EF.sections();
  if (!SectionsOr) {
    Sink->add(SectionsOr.takeError());
    return;
  }
  ArrayRef<Elf_Shdr> Sections = *SectionsOr;
  const Elf_Shdr *SymTab = nullptr;
  for (unsigned Want : {ELF::SHT_SYMTAB, ELF::SHT_DYNSYM}) {
    for (const Elf_Shdr &Sec : Sections)
      if (Sec.sh_type == Want) {
        SymTab = &Sec;
        break;
      }
    // An empty .symtab falls back to .dynsym, as before.
    if (SymTab && SymTab->sh_size >= 2 * sizeof(object::ELF64LE::Sym))
      break;
    SymTab = nullptr;
  }
  if (!SymTab)
    return;
  auto SymsOr = EF.symbols(SymTab);
  if (!SymsOr) {
    Sink->add(SymsOr.takeError());
    return;
  }
  Expected<StringRef> StrTabOr = EF.getStringTableForSymtab(*SymTab, Sections);
  if (!StrTabOr) {
    Sink->add(StrTabOr.takeError());
    return;
  }
  const bool Relocatable = EF.getHeader().e_type == ELF::ET_REL;
  bool First = true;
  for (const object::ELF64LE::Sym &Sym : *SymsOr) {
    if (First) { // the null symbol
      First = false;
      continue;
    }
    uint8_t Type = Sym.getType();
    if (Type != ELF::STT_FUNC && Type != ELF::STT_GNU_IFUNC &&
        Type != ELF::STT_NOTYPE)
      continue;
    // Undefined, absolute, common and extended-index symbols name no code.
    uint16_t Shndx = Sym.st_shndx;
    if (Shndx == ELF::SHN_UNDEF || Shndx >= ELF::SHN_LORESERVE ||
        Shndx >= Sections.size())
      continue;
    const Elf_Shdr &Sec = Sections[Shndx];
    if ((Sec.sh_flags & (ELF::SHF_ALLOC | ELF::SHF_EXECINSTR)) !=
        (ELF::SHF_ALLOC | ELF::SHF_EXECINSTR))
      continue;
    Expected<StringRef> NameOr = Sym.getName(*StrTabOr);
    if (!NameOr) {
      Sink->add(NameOr.takeError());
      continue;
    }
    // Versioned names ("memcpy@@GLIBC_2.14") name the function without the
    // version; mangled C++ names never contain '@'. Mapping symbols ("$x")
    // are not functions.
    StringRef Name = NameOr->split('@').first;
    if (Name.empty() || Name.starts_with("$"))
      continue;
    CodeSymbol S;
    S.Addr = Sym.st_value + (Relocatable ? uint64_t(Sec.sh_addr) : 0);
    S.SizeKnown = Sym.st_size != 0;
    S.End = S.Addr + Sym.st_size;
    if (S.End < S.Addr) // a size that wraps is corrupt
      continue;
    S.SectionEnd = Sec.sh_addr + Sec.sh_size;
    if (S.SectionEnd < Sec.sh_addr)
      S.SectionEnd = ~0ULL;
    S.Name = Name;
    S.IsFunc = Type != ELF::STT_NOTYPE;
    uint8_t Binding = Sym.getBinding();
    S.BindingRank = Binding == ELF::STB_GLOBAL ? 2
                    : Binding == ELF::STB_WEAK ? 1
                                               : 0;
    Symbols.push_back(std::move(S));
  }
  llvm::sort(Symbols, [](const CodeSymbol &A, const CodeSymbol &B) {
    if (A.Addr != B.Addr)
      return A.Addr < B.Addr;
    return betterSymbol(A, B);
  });
  // A symbol without a size reaches up to the next symbol or the end of its
  // section, as LLVM's symbolizer assumes.
  uint64_t NextAddr = ~0ULL;
  for (size_t I = Symbols.size(); I-- > 0;) {
    CodeSymbol &S = Symbols[I];
    if (I + 1 < Symbols.size() && Symbols[I + 1].Addr > S.Addr)
      NextAddr = Symbols[I + 1].Addr;
    if (!S.SizeKnown)
      S.End = std::max(std::min(S.SectionEnd, NextAddr), S.Addr);
  }
  MaxEndUpTo.resize(Symbols.size());
  uint64_t Max = 0;
  for (size_t I = 0; I < Symbols.size(); ++I)
    MaxEndUpTo[I] = Max = std::max(Max, Symbols[I].End);
}

const CodeSymbol *ElfModule::lookupSymbol(uint64_t Addr,
                                          bool &IsRuntime) const {
  IsRuntime = false;
  if (!SymbolsBuilt)
    buildSymbolTable();
  auto It = std::upper_bound(
      Symbols.begin(), Symbols.end(), Addr,
      [](uint64_t A, const CodeSymbol &S) { return A < S.Addr; });
  const CodeSymbol *Best = nullptr;
  for (size_t I = It - Symbols.begin(); I-- > 0;) {
    if (MaxEndUpTo[I] <= Addr)
      break; // nothing at or below I reaches Addr
    const CodeSymbol &S = Symbols[I];
    if (Addr >= S.End)
      continue;
    if (!Best || betterSymbol(S, *Best))
      Best = &S;
  }
  if (!Best)
    return nullptr;
  // Aliases (malloc and __libc_malloc) share the start address.
  for (size_t I = It - Symbols.begin();
       I-- > 0 && Symbols[I].Addr >= Best->Addr;)
    if (Symbols[I].Addr == Best->Addr && Addr < Symbols[I].End &&
        isRuntimeSymbol(Symbols[I].Name))
      IsRuntime = true;
  return Best;
}

uint64_t ElfModule::toBinaryAddress(const SegmentInfo &S, uint64_t PC) const {
  // LLVM's rule for its only supported case (spec 2.1), kept exact.
  if (ExecSegments.size() == 1)
    return PC + ExecSegments[0].VAddr - S.Start;
  const uint64_t SizeBytes = S.End - S.Start;
  const ExecSegment *Chosen = nullptr;
  for (const ExecSegment &E : ExecSegments) {
    if (E.MemSizeBytes != SizeBytes)
      continue;
    uint64_t Bias = S.Start - E.VAddr;
    if (Bias % MinPageSizeBytes != 0)
      continue;
    if (Bias == S.Offset) {
      Chosen = &E;
      break;
    }
    if (!Chosen)
      Chosen = &E;
  }
  if (!Chosen)
    return PC - S.Offset;
  return PC - (S.Start - Chosen->VAddr);
}

PCSymbols ElfModule::symbolize(uint64_t BinaryAddress) {
  auto It = Cache.find(BinaryAddress);
  if (It != Cache.end())
    return It->second;
  if (!ensureLoaded())
    return PCSymbols();
  PCSymbols R = symbolizeUncached(BinaryAddress);
  Cache.emplace(BinaryAddress, R);
  Dirty = true;
  return R;
}

PCSymbols ElfModule::symbolizeUncached(uint64_t Addr) const {
  PCSymbols R;
  // A module named from its symbol table alone has no DWARF to ask.
  if (!SymbolTableOnly) {
    // The call LLVM's RawMemProfReader makes (spec 2.2), except that file
    // names come as absolute paths instead of raw line-table entries: frames
    // do not depend on file names, and the runtime check looks only at the
    // base name, which both kinds share.
    // What SymbolizableObjectFile::symbolizeInlinedCode returns without
    // the symbol table: its DWARF context's answer. (Made directly, the
    // symbolizer's own symbol index, a sorted copy of every symbol that
    // this call never reads, is not built: about a tenth of a merge.) The
    // section index it would look up first only matters for relocatable
    // objects, which are refused.
    DIInliningInfo Info = DwarfOwned->getInliningInfoForAddress(
        {Addr, object::SectionedAddress::UndefSection},
        DILineInfoSpecifier(
            DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath,
            DILineInfoSpecifier::FunctionNameKind::LinkageName));
    const uint32_t NumFrames = Info.getNumberOfFrames();
    if (NumFrames > 0 &&
        Info.getFrame(0).FunctionName != DILineInfo::BadString) {
      if (isRuntimeSourceFile(Info.getFrame(0).FileName) ||
          isOwnRuntimeFunction(Info.getFrame(0).FunctionName)) {
        R.Status = PCSymbols::Runtime;
        return R;
      }
      R.Status = PCSymbols::Ok;
      for (uint32_t I = 0; I < NumFrames; ++I) {
        const DILineInfo &L = Info.getFrame(I);
        SymbolizedFrame SF;
        SF.F = Frame{functionGUID(L.FunctionName), L.Line - L.StartLine,
                     L.Column, I != NumFrames - 1};
        SF.FunctionName = L.FunctionName;
        if (L.FileName != DILineInfo::BadString)
          SF.FileName = L.FileName;
        SF.Line = L.Line;
        if (L.StartFileName != DILineInfo::BadString)
          SF.DeclFileName = L.StartFileName;
        R.Frames.push_back(std::move(SF));
      }
      return R;
    }
  }

  bool IsRuntime = false;
  const CodeSymbol *S = lookupSymbol(Addr, IsRuntime);
  if (!S) {
    R.Status = PCSymbols::Failed;
    return R;
  }
  if (IsRuntime || isRuntimeSymbol(S->Name)) {
    R.Status = PCSymbols::Runtime;
    return R;
  }
  // With DWARF elsewhere in the module LLVM drops this PC; the frame stays
  // so that the caller can say which function lacked debug info.
  R.Status = HasDwarf ? PCSymbols::NoDebugInfo : PCSymbols::Ok;
  SymbolizedFrame SF;
  SF.F = Frame{functionGUID(S->Name), 0, 0, false};
  SF.FunctionName = S->Name.str();
  R.Frames.push_back(std::move(SF));
  return R;
}

/// Bounds on the type graph LLVM's type printer may walk (hostile DWARF).
constexpr unsigned MaxTypeDepth = 64;
constexpr unsigned MaxTypeDies = 4096;

/// Whether DWARFTypePrinter can print \p T without recursing forever: the
/// DIEs it may follow from T (DW_AT_type, a type unit's DW_AT_signature, a
/// pointer to member's class, template and formal parameters, enclosing
/// scopes up to a function) hold no cycle, lie at most MaxTypeDepth deep
/// and number at most MaxTypeDies. LLVM's printer follows references
/// without such checks; a corrupt (or hostile) file could make them loop.
bool printableType(DWARFDie T) {
  std::unordered_map<uint64_t, bool> Done; // DIE offset -> finished
  unsigned Visited = 0;
  std::function<bool(DWARFDie, unsigned, bool)> Visit =
      [&](DWARFDie D, unsigned Depth, bool Param) -> bool {
    if (!D)
      return true;
    if (Depth > MaxTypeDepth || ++Visited > MaxTypeDies)
      return false;
    auto [It, New] = Done.try_emplace(D.getOffset(), false);
    if (!New)
      return It->second; // unfinished: a cycle
    auto Follow = [&](DWARFDie N) { return Visit(N, Depth + 1, false); };
    bool Ok = Follow(D.resolveReferencedType(dwarf::DW_AT_type));
    if (Ok && !Param) {
      DWARFDie Unit = D.resolveTypeUnitReference();
      if (Unit != D)
        Ok = Follow(Unit);
      if (Ok && D.getTag() == dwarf::DW_TAG_ptr_to_member_type)
        Ok = Follow(D.resolveReferencedType(dwarf::DW_AT_containing_type));
      for (DWARFDie C = D.getFirstChild(); Ok && C; C = C.getSibling())
        switch (C.getTag()) {
        case dwarf::DW_TAG_template_type_parameter:
        case dwarf::DW_TAG_template_value_parameter:
        case dwarf::DW_TAG_formal_parameter:
        case dwarf::DW_TAG_subrange_type:
        case dwarf::DW_TAG_GNU_template_parameter_pack:
        case dwarf::DW_TAG_GNU_template_template_param:
          Ok = Visit(C, Depth + 1, C.getTag() !=
                                       dwarf::DW_TAG_GNU_template_parameter_pack);
          break;
        default:
          break;
        }
      DWARFDie Parent = D.getParent();
      if (Ok && Parent && Parent.getTag() != dwarf::DW_TAG_compile_unit &&
          Parent.getTag() != dwarf::DW_TAG_type_unit &&
          Parent.getTag() != dwarf::DW_TAG_subprogram &&
          Parent.getTag() != dwarf::DW_TAG_lexical_block)
        Ok = Follow(Parent);
    }
    Done[D.getOffset()] = Ok;
    return Ok;
  };
  return Visit(T, 0, false);
}

std::string ElfModule::allocatedType(uint64_t Addr) {
  auto Known = TypeCache.find(Addr);
  if (Known != TypeCache.end())
    return Known->second;
  if (!ensureLoaded())
    return {};
  std::string T = allocatedTypeUncached(Addr);
  TypeCache.emplace(Addr, T);
  Dirty = true;
  return T;
}

std::string ElfModule::allocatedTypeUncached(uint64_t Addr) {
  if (!Dwarf || Addr == UINT64_MAX)
    return {};
  DWARFCompileUnit *CU = Dwarf->getCompileUnitForCodeAddress(Addr);
  if (!CU)
    return {};
  auto [It, New] = CallSiteTypes.try_emplace(CU->getOffset());
  if (New) {
    // One walk of the unit's DIEs (which the symbolizer has extracted
    // already) for its call sites that say what they allocate.
    std::unordered_map<uint64_t, std::string> Names; // type DIE -> name
    for (const DWARFDebugInfoEntry &Entry : CU->dies()) {
      DWARFDie D(CU, &Entry);
      const dwarf::Tag Tag = D.getTag();
      if (Tag != dwarf::DW_TAG_call_site && Tag != dwarf::DW_TAG_GNU_call_site)
        continue;
      DWARFDie Type =
          D.getAttributeValueAsReferencedDie(dwarf::DW_AT_LLVM_alloc_type);
      if (!Type)
        continue;
      // DWARF 5's return address; DWARF 4's GNU call sites give it as
      // their low PC.
      std::optional<uint64_t> Return = dwarf::toAddress(
          D.find({dwarf::DW_AT_call_return_pc, dwarf::DW_AT_low_pc}));
      if (!Return)
        continue;
      auto [NI, NewName] = Names.try_emplace(Type.getOffset());
      if (NewName && printableType(Type)) {
        std::string Name;
        raw_string_ostream OS(Name);
        dumpTypeQualifiedName(Type, OS);
        NI->second = normalizeTypeName(Name);
      }
      if (!NI->second.empty())
        It->second.try_emplace(*Return, NI->second);
    }
  }
  auto TI = It->second.find(Addr + 1);
  return TI == It->second.end() ? std::string() : TI->second;
}

void ElfModule::addNames(ProfileNames &Names,
                         function_ref<bool(GUID)> Wanted) const {
  FunctionNameInfo N;
  N.BuildId = BuildId;
  std::string Demangled;
  // DWARF first: it knows declarations and functions that exist only
  // inlined. The symbol table adds what DWARF lacks (addFunction keeps the
  // entry with a declaration file).
  if (Dwarf) {
    for (const std::unique_ptr<DWARFUnit> &CU : Dwarf->compile_units()) {
      for (const DWARFDebugInfoEntry &Entry : CU->dies()) {
        DWARFDie Die(CU.get(), &Entry);
        if (Die.getTag() != dwarf::DW_TAG_subprogram ||
            Die.find(dwarf::DW_AT_declaration))
          continue;
        // The name the symbolizer gives the function (linkage name, else
        // the plain name), through abstract origins and specifications.
        const char *Name = Die.getSubroutineName(DINameKind::LinkageName);
        if (!Name || !*Name)
          continue;
        N.LinkageName = Name;
        const GUID G = functionGUID(N.LinkageName);
        if (Wanted && !Wanted(G))
          continue;
        Demangled = demangleName(N.LinkageName);
        N.DemangledName = Demangled;
        std::string File = Die.getDeclFile(
            DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath);
        N.DeclFile = File;
        N.DeclLine = uint32_t(Die.getDeclLine());
        Names.addFunction(G, N);
      }
    }
  }
  N.DeclFile = StringRef();
  N.DeclLine = 0;
  // The table is built lazily, on the first lookup that needs it.
  if (!SymbolsBuilt)
    buildSymbolTable();
  for (const CodeSymbol &S : Symbols) {
    if (!S.IsFunc)
      continue;
    N.LinkageName = S.Name;
    const GUID G = functionGUID(N.LinkageName);
    if (Wanted && !Wanted(G))
      continue;
    Demangled = demangleName(N.LinkageName);
    N.DemangledName = Demangled;
    Names.addFunction(G, N);
  }
}

/// The paths where a search directory may hold the file of build id \p Hex.
std::vector<std::string> layoutPaths(StringRef Dir, StringRef Hex) {
  StringRef Head = Hex.take_front(2), Rest = Hex.drop_front(2);
  std::vector<std::string> Out;
  SmallString<256> P;
  auto Add = [&](std::initializer_list<StringRef> Parts, StringRef Suffix) {
    P = Dir;
    for (StringRef Part : Parts)
      sys::path::append(P, Part);
    P += Suffix;
    Out.push_back(std::string(P));
  };
  Add({".build-id", Head, Rest}, ".debug");
  Add({Head, Rest}, ".debug");
  Add({".build-id", Head, Rest}, "");
  return Out;
}

/// Whether \p Path is a regular file (following symlinks).
bool isRegularFile(const Twine &Path) {
  sys::fs::file_status St;
  return !sys::fs::status(Path, St, /*Follow=*/true) &&
         sys::fs::is_regular_file(St);
}

} // namespace

/// The build id of the x86-64 ELF executable or shared object at \p Path,
/// read from the notes its program headers point to: a few small reads, no
/// mapping, for scanning a system directory of a thousand libraries. Empty
/// when there is none (or the file is anything else). A detached debug file
/// is not read this way: its program headers describe the stripped file.
std::string programHeaderBuildId(const std::string &Path) {
  Expected<sys::fs::file_t> FOr = sys::fs::openNativeFileForRead(Path);
  if (!FOr) {
    consumeError(FOr.takeError());
    return "";
  }
  sys::fs::file_t F = *FOr;
  auto Read = [&](uint64_t Off, size_t N, uint8_t *Out) {
    Expected<size_t> R = sys::fs::readNativeFileSlice(
        F, MutableArrayRef<char>(reinterpret_cast<char *>(Out), N), Off);
    if (!R) {
      consumeError(R.takeError());
      return false;
    }
    return *R == N;
  };
  using namespace support::endian;
  std::string Id;
  uint8_t H[64];
  if (Read(0, sizeof(H), H) && !memcmp(H, ELF::ElfMagic, 4) &&
      H[ELF::EI_CLASS] == ELF::ELFCLASS64 &&
      H[ELF::EI_DATA] == ELF::ELFDATA2LSB &&
      (read16le(H + 16) == ELF::ET_EXEC || read16le(H + 16) == ELF::ET_DYN) &&
      read16le(H + 18) == ELF::EM_X86_64 && read16le(H + 54) == 56) {
    const uint64_t PhOff = read64le(H + 32);
    const unsigned PhNum = read16le(H + 56);
    std::vector<uint8_t> Ph(56 * size_t(PhNum));
    if (PhNum && PhNum <= 128 && Read(PhOff, Ph.size(), Ph.data())) {
      for (unsigned I = 0; I < PhNum && Id.empty(); ++I) {
        const uint8_t *P = Ph.data() + 56 * I;
        const uint64_t Off = read64le(P + 8), Size = read64le(P + 32);
        if (read32le(P) != ELF::PT_NOTE || Size < 12 || Size > 65536)
          continue;
        const uint64_t Align = read64le(P + 48) == 8 ? 8 : 4;
        std::vector<uint8_t> N(Size);
        if (!Read(Off, Size, N.data()))
          continue;
        for (uint64_t At = 0; At + 12 <= Size;) {
          const uint64_t NameSz = read32le(&N[At]), DescSz = read32le(&N[At + 4]);
          const uint32_t Type = read32le(&N[At + 8]);
          const uint64_t Name = At + 12;
          const uint64_t Desc = alignTo(Name + NameSz, Align);
          if (NameSz > Size || DescSz > Size || Desc + DescSz > Size)
            break;
          if (Type == ELF::NT_GNU_BUILD_ID && NameSz == 4 &&
              !memcmp(&N[Name], "GNU", 4) && DescSz) {
            Id.assign(reinterpret_cast<const char *>(&N[Desc]), DescSz);
            break;
          }
          At = alignTo(Desc + DescSz, Align);
        }
      }
    }
  }
  sys::fs::closeFile(F);
  return Id;
}

struct ElfBinaryLocator::Impl {
  // Declared first so that it outlives the modules whose handlers point here.
  std::vector<std::string> Notes;
  std::vector<std::string> SearchDirs;
  std::vector<std::string> SystemDirs; // searched last, their own files only
  std::vector<bool> SystemScanned;
  std::vector<std::unique_ptr<ElfModule>> Owned;
  std::map<std::string, ElfModule *> Profiled;     // by raw build id
  std::map<std::string, ModuleSymbolizer *> Found; // resolved, even to null
  std::vector<bool> Scanned;                       // per search dir
  std::map<std::string, std::vector<std::string>> ScanIndex; // id -> paths
  StringSet<> Tried; // (path, build id) pairs already opened
  std::vector<std::string> ProfiledOrder; // build ids, as given
  std::vector<std::pair<std::string, std::string>> ProfiledPaths; // all given
  /// Raw build id -> where profiled processes loaded it from, in the order
  /// first given.
  std::map<std::string, std::vector<std::string>> Recorded;
  std::vector<std::string> ExcludedDirs; // real paths
  std::unique_ptr<DebuginfodClient> Debuginfod;
  std::vector<std::string> DebuginfodMissing; // hex, no server had them
  std::string DebuginfodFailure; // why fetching stopped; empty if it did not
  std::vector<std::string> DebuginfodNotFetched; // hex, missing after it
  /// Null when the cache is off.
  std::unique_ptr<SymbolCache> SymCache;
  /// --system-dwarf: system modules are symbolized with DWARF too.
  bool SystemDwarf = false;

  /// Whether \p Path lies in or under one of \p Dirs (real paths).
  static bool under(StringRef Path, const std::vector<std::string> &Dirs) {
    if (Dirs.empty())
      return false;
    SmallString<256> Real;
    if (sys::fs::real_path(sys::path::parent_path(Path), Real))
      return false;
    for (const std::string &D : Dirs)
      if (Real == D ||
          (StringRef(Real).starts_with(D) && Real.size() > D.size() &&
           (D.back() == '/' || Real[D.size()] == '/')))
        return true;
    return false;
  }
  /// Finishes opening \p M: from the symbol cache if it holds this file's
  /// frames, else by reading its DWARF (none for \p SymbolTableOnly).
  Error prepare(ElfModule &M, bool SymbolTableOnly) {
    if (SymCache) {
      std::optional<SymbolCacheEntry> E =
          SymCache->load(M.buildId(), M.fileSizeBytes(), SymbolTableOnly);
      for (std::string &N : SymCache->takeNotes())
        Notes.push_back(std::move(N));
      if (E) {
        M.adopt(std::move(*E));
        return Error::success();
      }
    }
    return M.loadDwarf(!SymbolTableOnly);
  }

  /// Whether \p Path lies in or under one of ExcludedDirs (by real path).
  bool excluded(StringRef Path) const { return under(Path, ExcludedDirs); }
  /// Registers a profiled binary; fails on a repeated build id.
  Error addProfiled(Expected<std::unique_ptr<ElfModule>> MOr);

  /// Opens \p Path as a candidate for \p BuildId, once per (path, build
  /// id): null if it was tried before, cannot be read or holds another
  /// build id; for the last two \p Why says so, starting with the path,
  /// and \p OtherId holds the file's build id (raw) when that is the reason.
  /// \p SymbolTableOnly opens it without its DWARF.
  std::unique_ptr<ElfModule> openCandidate(const std::string &Path,
                                           StringRef BuildId, std::string &Why,
                                           std::string &OtherId,
                                           bool SymbolTableOnly = false);
  /// openCandidate, with a note saying why a file was skipped.
  std::unique_ptr<ElfModule> tryCandidate(const std::string &Path,
                                          StringRef BuildId,
                                          bool SymbolTableOnly = false);
  /// Indexes the ELF files under \p Dir by build id; a system directory
  /// (\p MaxDepth 0) through their program headers alone.
  void scan(StringRef Dir, unsigned MaxDepth = MaxScanDepth);
  void scanDir(StringRef Dir, unsigned Depth, unsigned MaxDepth,
               unsigned &FilesSeen);
};

std::unique_ptr<ElfModule> ElfBinaryLocator::Impl::openCandidate(
    const std::string &Path, StringRef BuildId, std::string &Why,
    std::string &OtherId, bool SymbolTableOnly) {
  if (!Tried.insert(Path + '\0' + BuildId.str()).second)
    return nullptr;
  Expected<std::unique_ptr<ElfModule>> MOr =
      ElfModule::openHeaders(Path, &Notes);
  // The build id first: a file of another build is not worth its DWARF.
  if (MOr && (*MOr)->buildId() == BuildId)
    if (Error E = prepare(**MOr, SymbolTableOnly))
      MOr = std::move(E);
  if (!MOr) {
    // The message already starts with the path.
    handleAllErrors(
        MOr.takeError(), [&](const MemProfError &E) { Why = E.detail(); },
        [&](const ErrorInfoBase &E) { Why = Path + ": " + E.message(); });
    return nullptr;
  }
  if ((*MOr)->buildId() != BuildId) {
    OtherId = (*MOr)->buildId().str();
    Why = Path + ": its build id is " + buildIdToHex(OtherId) + ", not " +
          buildIdToHex(BuildId);
    return nullptr;
  }
  return std::move(*MOr);
}

std::unique_ptr<ElfModule>
ElfBinaryLocator::Impl::tryCandidate(const std::string &Path, StringRef BuildId,
                                     bool SymbolTableOnly) {
  std::string Why, OtherId;
  std::unique_ptr<ElfModule> M =
      openCandidate(Path, BuildId, Why, OtherId, SymbolTableOnly);
  if (!M && !Why.empty())
    Notes.push_back("skipped " + Why);
  return M;
}

void ElfBinaryLocator::Impl::scanDir(StringRef Dir, unsigned Depth,
                                     unsigned MaxDepth, unsigned &FilesSeen) {
  std::error_code EC;
  std::vector<std::pair<std::string, sys::fs::file_type>> Entries;
  for (sys::fs::directory_iterator It(Dir, EC, /*follow_symlinks=*/false), E;
       It != E && !EC; It.increment(EC))
    Entries.emplace_back(It->path(), It->type());
  if (EC)
    Notes.push_back(("cannot list " + Dir + ": " + EC.message()).str());
  // Directory order is arbitrary; sort so that results are reproducible.
  llvm::sort(Entries);
  for (auto &[Path, Type] : Entries) {
    if (FilesSeen >= MaxScanFiles)
      return;
    if (Type == sys::fs::file_type::type_unknown) {
      // Some file systems do not report types while listing.
      sys::fs::file_status St;
      if (!sys::fs::status(Path, St, /*Follow=*/false))
        Type = St.type();
    }
    if (Type == sys::fs::file_type::directory_file) {
      if (Depth < MaxDepth)
        scanDir(Path, Depth + 1, MaxDepth, FilesSeen);
      continue;
    }
    // Symlinks count only when they lead to a regular file; linked
    // directories are not followed, so the scan cannot loop.
    if (Type != sys::fs::file_type::regular_file &&
        !(Type == sys::fs::file_type::symlink_file && isRegularFile(Path)))
      continue;
    ++FilesSeen;
    if (MaxDepth == 0) {
      std::string Id = programHeaderBuildId(Path);
      if (!Id.empty())
        ScanIndex[Id].push_back(Path);
      continue;
    }
    file_magic Magic;
    if (identify_magic(Path, Magic) || (Magic != file_magic::elf_executable &&
                                        Magic != file_magic::elf_shared_object))
      continue;
    ErrorOr<std::unique_ptr<MemoryBuffer>> BufOr = MemoryBuffer::getFile(
        Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!BufOr)
      continue;
    Expected<std::unique_ptr<object::ObjectFile>> ObjOr =
        object::ObjectFile::createObjectFile((*BufOr)->getMemBufferRef());
    if (!ObjOr) {
      Notes.push_back("skipped " + Path + ": " + toString(ObjOr.takeError()));
      continue;
    }
    object::BuildIDRef Id = object::getBuildID(ObjOr->get());
    if (!Id.empty())
      ScanIndex[std::string(toStringRef(Id))].push_back(Path);
  }
}

void ElfBinaryLocator::Impl::scan(StringRef Dir, unsigned MaxDepth) {
  unsigned FilesSeen = 0;
  scanDir(Dir, 0, MaxDepth, FilesSeen);
  if (FilesSeen >= MaxScanFiles)
    Notes.push_back(
        ("stopped scanning " + Dir + " after " + Twine(MaxScanFiles) + " files")
            .str());
}

ElfBinaryLocator::ElfBinaryLocator() : P(std::make_unique<Impl>()) {}
ElfBinaryLocator::~ElfBinaryLocator() = default;

Error ElfBinaryLocator::Impl::addProfiled(
    Expected<std::unique_ptr<ElfModule>> MOr) {
  if (!MOr)
    return MOr.takeError();
  ElfModule *M = MOr->get();
  if (Error E = prepare(*M, /*SymbolTableOnly=*/false))
    return E;
  auto [It, New] = Profiled.try_emplace(std::string(M->buildId()), M);
  if (!New) {
    // The same build, twice (a stripped copy and the one with debug info):
    // the one with DWARF symbolizes better.
    ElfModule *Kept = It->second;
    if (M->hasDwarf() && !Kept->hasDwarf())
      It->second = M;
    ElfModule *Used = It->second;
    ElfModule *Other = Used == M ? Kept : M;
    Notes.push_back((Other->path() + ": the same build id as " + Used->path() +
                     " (" + buildIdToHex(M->buildId()) + "); using " +
                     Used->path() +
                     (Used->hasDwarf() && !Other->hasDwarf()
                          ? ", which has debug info"
                          : ", given first"))
                        .str());
    Tried.insert(M->path().str() + '\0' + std::string(M->buildId()));
    ProfiledPaths.push_back({M->path().str(), std::string(M->buildId())});
    Owned.push_back(std::move(*MOr));
    return Error::success();
  }
  ProfiledOrder.push_back(std::string(M->buildId()));
  ProfiledPaths.push_back({M->path().str(), std::string(M->buildId())});
  Tried.insert(M->path().str() + '\0' + std::string(M->buildId()));
  Owned.push_back(std::move(*MOr));
  return Error::success();
}

Expected<std::unique_ptr<ElfBinaryLocator>>
ElfBinaryLocator::create(const std::vector<std::string> &ProfiledBinaries,
                         const std::vector<std::string> &SearchDirs) {
  return create(ProfiledBinaries, SearchDirs, nullptr);
}

Expected<std::unique_ptr<ElfBinaryLocator>>
ElfBinaryLocator::create(const std::vector<std::string> &ProfiledBinaries,
                         const std::vector<std::string> &SearchDirs,
                         std::unique_ptr<SymbolCache> Cache) {
  auto L = std::unique_ptr<ElfBinaryLocator>(new ElfBinaryLocator());
  L->P->SearchDirs = SearchDirs;
  L->P->Scanned.assign(SearchDirs.size(), false);
  L->P->SymCache = std::move(Cache);
  for (const std::string &Path : ProfiledBinaries)
    if (Error E = L->P->addProfiled(ElfModule::openHeaders(Path, &L->P->Notes)))
      return std::move(E);
  return std::move(L);
}

Expected<std::unique_ptr<ElfBinaryLocator>>
ElfBinaryLocator::create(std::vector<std::unique_ptr<MemoryBuffer>> Binaries,
                         const std::vector<std::string> &SearchDirs) {
  auto L = std::unique_ptr<ElfBinaryLocator>(new ElfBinaryLocator());
  L->P->SearchDirs = SearchDirs;
  L->P->Scanned.assign(SearchDirs.size(), false);
  for (std::unique_ptr<MemoryBuffer> &B : Binaries)
    if (Error E = L->P->addProfiled(
            ElfModule::openHeaders(std::move(B), &L->P->Notes)))
      return std::move(E);
  return std::move(L);
}

Expected<std::unique_ptr<ElfBinaryLocator>>
ElfBinaryLocator::create(const ModuleSearch &S) {
  std::unique_ptr<SymbolCache> Cache;
  if (!S.NoSymbolCache) {
    std::string Dir =
        S.SymbolCacheDir.empty() ? SymbolCache::defaultDir() : S.SymbolCacheDir;
    if (!Dir.empty())
      Cache =
          std::make_unique<SymbolCache>(Dir, SymbolCache::defaultMaxBytes());
  }
  auto L = create(S.ProfiledBinaries, S.DebugDirs, std::move(Cache));
  if (!L)
    return L.takeError();
  (*L)->P->SystemDwarf = S.SystemDwarf;
  if (!S.NoSystemDirs)
    (*L)->searchSystemDirs(systemDirs());
  else
    (*L)->excludeRecordedPathsUnder(systemDirs());
  if (!S.NoDebuginfod)
    (*L)->useDebuginfod(DebuginfodClient::fromEnvironment());
  return L;
}

std::vector<std::string> ElfBinaryLocator::systemDirs() {
  // Debian's detached debug files by build id, then the dynamic linker's
  // default directories (merged /usr makes some of them one).
  static const char *const Candidates[] = {
      "/usr/lib/debug",  "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
      "/lib64",          "/usr/lib64",            "/lib",
      "/usr/lib"};
  std::vector<std::string> Dirs;
  StringSet<> Seen;
  for (const char *Dir : Candidates) {
    SmallString<256> Real;
    if (sys::fs::real_path(Dir, Real) || !sys::fs::is_directory(Real))
      continue;
    if (Seen.insert(Real).second)
      Dirs.push_back(std::string(Real));
  }
  return Dirs;
}

void ElfBinaryLocator::searchSystemDirs(std::vector<std::string> Dirs) {
  P->SystemDirs = std::move(Dirs);
  P->SystemScanned.assign(P->SystemDirs.size(), false);
}

std::vector<std::string> ElfBinaryLocator::profiledBuildIds() const {
  return P->ProfiledOrder;
}

std::vector<std::pair<std::string, std::string>>
ElfBinaryLocator::profiledBinaries() const {
  return P->ProfiledPaths;
}

Expected<ModuleSymbolizer *> ElfBinaryLocator::find(StringRef BuildId) {
  std::string Key = BuildId.str();
  auto FoundIt = P->Found.find(Key);
  if (FoundIt != P->Found.end())
    return FoundIt->second;

  auto Resolve = [&](ModuleSymbolizer *M) {
    P->Found[Key] = M;
    return M;
  };
  // A file with DWARF wins; otherwise the first file found, profiled
  // binaries first.
  ElfModule *Fallback = nullptr;
  std::unique_ptr<ElfModule> FallbackOwned;
  // A system module (one found in the system's directories) with a full
  // symbol table: by default it is named from that table, and used when
  // neither the profiled binaries nor the search directories have the
  // module (docs/memprof-merge.md#system-modules).
  const bool Cheap = !P->SystemDwarf;
  ElfModule *SystemPick = nullptr;
  std::unique_ptr<ElfModule> SystemPickOwned;
  auto ProfIt = P->Profiled.find(Key);
  if (ProfIt != P->Profiled.end()) {
    if (ProfIt->second->hasDwarf())
      return Resolve(ProfIt->second);
    Fallback = ProfIt->second;
  }
  auto Consider = [&](std::unique_ptr<ElfModule> M) -> ModuleSymbolizer * {
    if (!M)
      return nullptr;
    if (M->symbolTableOnly() && M->hasSymtab()) {
      if (!SystemPick) {
        SystemPick = M.get();
        SystemPickOwned = std::move(M);
      }
      return nullptr;
    }
    if (M->hasDwarf()) {
      ModuleSymbolizer *Raw = M.get();
      P->Owned.push_back(std::move(M));
      return Raw;
    }
    if (!Fallback) {
      Fallback = M.get();
      FallbackOwned = std::move(M);
    }
    return nullptr;
  };
  auto Finish = [&](ModuleSymbolizer *M) {
    if (!M && SystemPickOwned)
      P->Owned.push_back(std::move(SystemPickOwned));
    if (!M && SystemPick)
      return Resolve(SystemPick);
    if (!M && FallbackOwned)
      P->Owned.push_back(std::move(FallbackOwned));
    return Resolve(M ? M : Fallback);
  };

  if (BuildId.size() < 2)
    return Finish(nullptr);
  std::string Hex = buildIdToHex(BuildId);
  // The file the profiled process loaded, if it is still that build.
  auto RecIt = P->Recorded.find(Key);
  if (RecIt != P->Recorded.end())
    for (const std::string &Path : RecIt->second) {
      if (P->excluded(Path))
        continue;
      std::string Why, OtherId;
      std::unique_ptr<ElfModule> M =
          P->openCandidate(Path, BuildId, Why, OtherId,
                           Cheap && Impl::under(Path, P->SystemDirs));
      if (!M && !OtherId.empty())
        P->Notes.push_back(
            "refused " + Path + ": the profiled process loaded module " + Hex +
            " from there, but the file now has build id " +
            buildIdToHex(OtherId) +
            " (rebuilt or replaced after the run); give the binary that ran "
            "with --profiled-binary");
      else if (!M && !Why.empty())
        P->Notes.push_back("cannot use " + Why + " (the profiled process "
                           "loaded module " + Hex + " from there)");
      if (ModuleSymbolizer *Sym = Consider(std::move(M)))
        return Finish(Sym);
    }
  // A group of directories: a file by build-id layout, else each
  // directory's ELF files (scanned once, on the first module still missing,
  // to \p MaxDepth).
  auto Search = [&](const std::vector<std::string> &Dirs,
                    std::vector<bool> &Scanned, unsigned MaxDepth,
                    bool System) -> ModuleSymbolizer * {
    const bool SymbolTableOnly = System && Cheap;
    for (const std::string &Dir : Dirs)
      for (const std::string &Path : layoutPaths(Dir, Hex))
        if (isRegularFile(Path))
          if (ModuleSymbolizer *M =
                  Consider(P->tryCandidate(Path, BuildId, SymbolTableOnly)))
            return M;
    if (System && SystemPick)
      return SystemPick; // no need to scan the directories

    for (size_t I = 0; I < Dirs.size(); ++I) {
      if (!Scanned[I]) {
        P->scan(Dirs[I], MaxDepth);
        Scanned[I] = true;
      }
    }
    auto IdxIt = P->ScanIndex.find(Key);
    if (IdxIt != P->ScanIndex.end())
      for (const std::string &Path : IdxIt->second)
        if (ModuleSymbolizer *M =
                Consider(P->tryCandidate(Path, BuildId, SymbolTableOnly)))
          return M;
    return System ? SystemPick : nullptr;
  };
  if (ModuleSymbolizer *M = Search(P->SearchDirs, P->Scanned, MaxScanDepth,
                                   /*System=*/false))
    return Finish(M);
  // A system file the profiled process loaded.
  if (SystemPick)
    return Finish(nullptr);
  // The system's directories, their own files only.
  if (ModuleSymbolizer *M = Search(P->SystemDirs, P->SystemScanned,
                                   /*MaxDepth=*/0, /*System=*/true))
    return Finish(M == SystemPick ? nullptr : M);
  // A system module is not fetched: its symbol table names it.
  if (Cheap && Fallback && Fallback->symbolTableOnly())
    return Finish(nullptr);
  // Last, debuginfod: the executable, unless one was found here, then its
  // debug file when what was found has no DWARF. After a server failed,
  // only the cache is looked at.
  if (!P->Debuginfod)
    return Finish(nullptr);
  const bool CacheOnly = !P->DebuginfodFailure.empty();
  bool Missing = true;
  using Kind = DebuginfodClient::Kind;
  for (Kind K : {Kind::Executable, Kind::DebugInfo}) {
    if (K == Kind::Executable && Fallback)
      continue;
    Expected<std::string> Path = P->Debuginfod->fetch(BuildId, K, CacheOnly);
    if (!Path) {
      bool NotFound = false;
      std::string Msg;
      handleAllErrors(
          Path.takeError(),
          [&](const MemProfError &E) {
            NotFound = E.code() == ErrorCode::NotFound;
            Msg = E.detail();
          },
          [&](const ErrorInfoBase &E) { Msg = E.message(); });
      if (!NotFound) {
        // A server that cannot be asked is not asked again: one timeout.
        P->DebuginfodFailure = Msg;
        break;
      }
      continue;
    }
    std::string Why, OtherId;
    std::unique_ptr<ElfModule> M =
        P->openCandidate(*Path, BuildId, Why, OtherId);
    if (!M && Why.empty())
      continue; // this very file was looked at already
    if (!M) {
      // Not the module (a wrong or damaged file): said with its reason, and
      // taken out of the cache so that a mended server is asked again.
      std::error_code EC = sys::fs::remove(*Path);
      P->Notes.push_back("refused the " + debuginfodKindName(K).str() +
                         " debuginfod sent for build id " + Hex + " (skipped " +
                         Why + ")" + (EC ? "" : "; removed from the cache"));
      continue;
    }
    Missing = false;
    if (ModuleSymbolizer *Sym = Consider(std::move(M)))
      return Finish(Sym);
  }
  if (Missing && !Fallback)
    (P->DebuginfodFailure.empty() ? P->DebuginfodMissing
                                  : P->DebuginfodNotFetched)
        .push_back(Hex);
  return Finish(nullptr);
}

void ElfBinaryLocator::excludeRecordedPathsUnder(
    std::vector<std::string> Dirs) {
  for (const std::string &D : Dirs) {
    SmallString<256> Real;
    if (!sys::fs::real_path(D, Real))
      P->ExcludedDirs.push_back(std::string(Real));
  }
}

void ElfBinaryLocator::addModulePath(StringRef BuildId, StringRef Path) {
  if (BuildId.empty() || Path.empty())
    return;
  std::vector<std::string> &Paths = P->Recorded[BuildId.str()];
  if (llvm::is_contained(Paths, Path))
    return;
  Paths.push_back(Path.str());
  auto It = P->Found.find(BuildId.str());
  if (It != P->Found.end() && !It->second)
    P->Found.erase(It);
}

void ElfBinaryLocator::useDebuginfod(std::unique_ptr<DebuginfodClient> C) {
  P->Debuginfod = std::move(C);
}

void ElfBinaryLocator::saveSymbolCache() {
  if (!P->SymCache)
    return;
  for (const std::unique_ptr<ElfModule> &M : P->Owned)
    if (std::optional<SymbolCacheEntry> E = M->cacheEntry()) {
      P->SymCache->store(*E);
      M->markSaved();
    }
  P->SymCache->prune();
  for (std::string &N : P->SymCache->takeNotes())
    P->Notes.push_back(std::move(N));
}

std::vector<std::string> ElfBinaryLocator::notes() const {
  std::vector<std::string> N = P->Notes;
  if (!P->Debuginfod)
    return N;
  std::string Servers = join(P->Debuginfod->urls(), " ");
  if (!P->DebuginfodMissing.empty())
    N.push_back("debuginfod (" + Servers + ") has no file for build ids " +
                join(P->DebuginfodMissing, ", "));
  if (!P->DebuginfodFailure.empty())
    N.push_back("debuginfod: stopped asking after a server failed (" +
                P->DebuginfodFailure + "); not fetched: build ids " +
                join(P->DebuginfodNotFetched, ", ") +
                " (DEBUGINFOD_TIMEOUT bounds the wait; --no-debuginfod skips "
                "it)");
  return N;
}

Error addBinaryNames(StringRef Path, ProfileNames &Names,
                     std::vector<std::string> *Notes,
                     function_ref<bool(GUID)> Wanted) {
  Expected<std::unique_ptr<ElfModule>> MOr = ElfModule::open(Path, Notes);
  if (!MOr)
    return MOr.takeError();
  (*MOr)->addNames(Names, Wanted);
  return Error::success();
}

Error addBinaryNames(std::unique_ptr<MemoryBuffer> Binary, ProfileNames &Names,
                     std::vector<std::string> *Notes,
                     function_ref<bool(GUID)> Wanted) {
  Expected<std::unique_ptr<ElfModule>> MOr =
      ElfModule::open(std::move(Binary), Notes);
  if (!MOr)
    return MOr.takeError();
  (*MOr)->addNames(Names, Wanted);
  return Error::success();
}

} // namespace memprof
