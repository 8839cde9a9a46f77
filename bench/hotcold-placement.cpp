// hotcold-placement.cpp - the program bench/hotcold-placement.sh profiles,
// rebuilds with clang-22's hot/cold hints and times (issue 35, bench (a)).
//
//   hotcold-placement HOT COLD_PER_HOT PASSES
//
// Allocates HOT records of 64 bytes ("hot": linked in a shuffled order and
// traversed PASSES times) and, before each of them, COLD_PER_HOT records of
// 64 bytes ("cold": one word written at allocation, never read, kept live to
// the end). The two come from distinct noinline functions (newHot, newCold),
// so that without LTO each allocation site has one context.
//
// The hot phase is the traversal. Before it the program writes "1" to
// /proc/self/clear_refs; after it, it sums Referenced: over the anonymous
// mappings of /proc/self/smaps (no path name, or [heap]; the stack excluded)
// and prints one line:
//   hot_ms MS ref_kib KIB ref_pages PAGES checksum SUM
// If PLACEMENT_LOG names a file, the line is also appended to it (one line a
// run: the script pairs them by round).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>

namespace {

struct HotRec {
  HotRec *Next;
  uint64_t Payload[7];
};
struct ColdRec {
  uint64_t Data[8];
};
static_assert(sizeof(HotRec) == 64 && sizeof(ColdRec) == 64, "one size class");

__attribute__((noinline)) HotRec *newHot(uint64_t I) {
  HotRec *H = new HotRec;
  H->Next = nullptr;
  for (int J = 0; J < 7; ++J)
    H->Payload[J] = I + J;
  return H;
}

__attribute__((noinline)) ColdRec *newCold(uint64_t I) {
  ColdRec *C = new ColdRec;
  C->Data[0] = I; // written once, never read
  return C;
}

double nowMs() {
  timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec * 1e3 + T.tv_nsec / 1e6;
}

bool clearRefs() {
  FILE *F = fopen("/proc/self/clear_refs", "w");
  if (!F)
    return false;
  bool Ok = fputs("1", F) >= 0;
  return fclose(F) == 0 && Ok;
}

// Referenced: KiB summed over anonymous mappings (no path, or [heap]).
long referencedAnonKiB() {
  FILE *F = fopen("/proc/self/smaps", "r");
  if (!F)
    return -1;
  char Line[512];
  bool Anon = false;
  long Sum = 0;
  while (fgets(Line, sizeof Line, F)) {
    unsigned long Lo, Hi;
    char Perm[8];
    int Off = 0;
    // A mapping's header: "lo-hi perms offset dev inode [path]".
    if (sscanf(Line, "%lx-%lx %7s %*s %*s %*s%n", &Lo, &Hi, Perm, &Off) == 3 &&
        Off > 0) {
      const char *P = Line + Off;
      while (*P == ' ' || *P == '\t')
        ++P;
      Anon = *P == '\n' || *P == '\0' || strncmp(P, "[heap]", 6) == 0;
      continue;
    }
    long K;
    if (Anon && sscanf(Line, "Referenced: %ld kB", &K) == 1)
      Sum += K;
  }
  fclose(F);
  return Sum;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: hotcold-placement HOT COLD_PER_HOT PASSES\n");
    return 1;
  }
  long NHot = atol(argv[1]), NCold = atol(argv[2]), Passes = atol(argv[3]);
  if (NHot < 2 || NCold < 0 || Passes < 1) {
    fprintf(stderr, "hotcold-placement: error: bad arguments\n");
    return 1;
  }
  // Bookkeeping through malloc, not new: no third operator new site.
  auto **Hot = static_cast<HotRec **>(malloc(NHot * sizeof(HotRec *)));
  auto **Cold =
      static_cast<ColdRec **>(malloc((NHot * NCold + 1) * sizeof(ColdRec *)));
  if (!Hot || !Cold)
    return 1;
  for (long I = 0; I < NHot; ++I) {
    for (long J = 0; J < NCold; ++J)
      Cold[I * NCold + J] = newCold(I * NCold + J);
    Hot[I] = newHot(I);
  }
  // Link the hot records in a shuffled order (fixed xorshift seed).
  uint64_t X = 0x9e3779b97f4a7c15ull;
  for (long I = NHot - 1; I > 0; --I) {
    X ^= X << 13;
    X ^= X >> 7;
    X ^= X << 17;
    long J = X % (I + 1);
    HotRec *T = Hot[I];
    Hot[I] = Hot[J];
    Hot[J] = T;
  }
  for (long I = 0; I < NHot; ++I)
    Hot[I]->Next = Hot[(I + 1) % NHot];
  HotRec *Head = Hot[0];

  if (!clearRefs()) {
    perror("hotcold-placement: /proc/self/clear_refs");
    return 1;
  }
  double T0 = nowMs();
  uint64_t Sum = 0;
  HotRec *P = Head;
  for (long Pass = 0; Pass < Passes; ++Pass)
    for (long I = 0; I < NHot; ++I) {
      Sum += P->Payload[Pass % 7];
      P = P->Next;
    }
  double Ms = nowMs() - T0;
  long Kib = referencedAnonKiB();

  char Out[160];
  snprintf(Out, sizeof Out, "hot_ms %.1f ref_kib %ld ref_pages %ld checksum %llu\n",
           Ms, Kib, Kib / 4, static_cast<unsigned long long>(Sum));
  fputs(Out, stdout);
  if (const char *Log = getenv("PLACEMENT_LOG")) {
    if (FILE *F = fopen(Log, "a")) {
      fputs(Out, F);
      fclose(F);
    }
  }
  for (long I = 0; I < NHot * NCold; ++I)
    delete Cold[I];
  for (long I = 0; I < NHot; ++I)
    delete Hot[I];
  free(Cold);
  free(Hot);
  return 0;
}
