/* The names extension memprof appends after the last LLVM-defined byte of an
 * indexed profile (docs/names-extension.md). Freestanding.
 */
#ifndef MEMPROF_FORMAT_NAMESFORMAT_H
#define MEMPROF_FORMAT_NAMESFORMAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
namespace memprof {
namespace names {

/* Bytes "\xffmpname\x81" read as a little-endian u64. */
static const uint64_t HeaderMagic = 0x81656D616E706DFFULL;
/* Bytes "\xffmpnend\x81": the last 8 bytes of a file with the extension. */
static const uint64_t FooterMagic = 0x81646E656E706DFFULL;
static const uint32_t Version = 1;
/* The string table section is a zlib stream (RFC 1950). */
static const uint32_t FlagStringsZlib = 1;
/* Each module of the module table is followed by the string-table offset of
   the path its process loaded it from (the empty string: unknown). */
static const uint32_t FlagModulePaths = 2;

/* A second header (SitesHeader) follows the header, and a program table and
   a site-module table follow the frame table. */
static const uint32_t FlagSites = 4;
/* A heap header (HeapHeader) follows the header (and the sites header), and
   the heap table (docs/heap-data.md) follows the extension's last table. */
static const uint32_t FlagHeap = 8;
/* A TypesHeader follows the other headers, and a type table ends the
   tables: each context's allocated type. */
static const uint32_t FlagTypes = 16;
/* Header, 48 bytes, at the first byte after the LLVM part (8-aligned). */
struct Header {
  uint64_t Magic;             /* HeaderMagic */
  uint32_t Version;           /* 1 */
  uint32_t Flags;             /* FlagStringsZlib, FlagModulePaths, FlagSites,
                                 FlagHeap, FlagTypes; others unsupported */
  uint64_t LLVMPartSize;      /* = absolute offset of this header */
  uint32_t StringTableSize;   /* bytes of each section, in file order */
  uint32_t ModuleTableSize;
  uint32_t FileTableSize;
  uint32_t FunctionTableSize;
  uint32_t FrameTableSize;
  uint32_t StringTableRawSize; /* with FlagStringsZlib: inflated size; else 0 */
};

/* With FlagSites, 8 bytes right after the header. */
struct SitesHeader {
  uint32_t ProgramTableSize;    /* bytes of each section, after the frame table */
  uint32_t SiteModuleTableSize;
};
/* With FlagHeap, 8 bytes after the header and the sites header. */
struct HeapHeader {
  uint32_t HeapTableSize; /* bytes of the heap table */
  uint32_t Reserved;      /* 0 */
};
/* With FlagTypes, 8 bytes after the other headers (the last of them). */
struct TypesHeader {
  uint32_t TypeTableSize; /* bytes of the type table, the last table */
  uint32_t Reserved;      /* 0 */
};
/* Footer, 16 bytes, the last bytes of the file. */
struct Footer {
  uint64_t ExtensionSize; /* from the header's first byte to the file's end */
  uint64_t Magic;         /* FooterMagic */
};

static const uint64_t HeaderSize = 48;
static const uint64_t SitesHeaderSize = 8;
static const uint64_t HeapHeaderSize = 8;
static const uint64_t TypesHeaderSize = 8;
static const uint64_t FooterSize = 16;

#if defined(__cplusplus) && __cplusplus >= 201103L
static_assert(sizeof(Header) == HeaderSize, "names header size");
static_assert(offsetof(Header, Version) == 8, "names header layout");
static_assert(offsetof(Header, Flags) == 12, "names header layout");
static_assert(offsetof(Header, LLVMPartSize) == 16, "names header layout");
static_assert(offsetof(Header, StringTableSize) == 24, "names header layout");
static_assert(offsetof(Header, ModuleTableSize) == 28, "names header layout");
static_assert(offsetof(Header, FileTableSize) == 32, "names header layout");
static_assert(offsetof(Header, FunctionTableSize) == 36, "names header layout");
static_assert(offsetof(Header, FrameTableSize) == 40, "names header layout");
static_assert(offsetof(Header, StringTableRawSize) == 44, "names header layout");
static_assert(sizeof(SitesHeader) == SitesHeaderSize, "sites header size");
static_assert(offsetof(SitesHeader, SiteModuleTableSize) == 4,
              "sites header layout");
static_assert(sizeof(HeapHeader) == HeapHeaderSize, "heap header size");
static_assert(offsetof(HeapHeader, Reserved) == 4, "heap header layout");
static_assert(sizeof(TypesHeader) == TypesHeaderSize, "types header size");
static_assert(offsetof(TypesHeader, Reserved) == 4, "types header layout");
static_assert(sizeof(Footer) == FooterSize, "names footer size");
static_assert(offsetof(Footer, Magic) == 8, "names footer layout");
#endif

/* Bounds the reader enforces (hostile input). */
static const uint64_t MaxBuildIdBytes = 64;
static const uint64_t MaxPathBytes = 65536;
/* Deflate cannot inflate by more than about 1032:1. */
static const uint64_t MaxInflateRatio = 1032;

} // namespace names
} // namespace memprof
#endif

#endif /* MEMPROF_FORMAT_NAMESFORMAT_H */
