// The program of lit-tests/hotcold/flow.test: one allocation site (makeBuf's
// new char[]) reached by a cold context (coldPath: blocks written once and
// kept) and a hot one (hotPath: small blocks touched over and over, freed at
// once), and a site only hot code reaches (makeScratch), run from THREADS
// threads:
//
//   app THREADS COLD HOT ROUNDS
//
// Each thread allocates COLD cold blocks (sizes 48 B to 70 KB, across
// jemalloc's size classes), runs HOT hot rounds (a hot block and a scratch
// block, each touched ROUNDS times, then freed), frees every other cold
// block, grows the others (a new block through growCold, the old one copied
// and freed: C++'s realloc), allocates the freed ones again, and runs the hot
// rounds again, in the freed space's presence. Built with the hot/cold
// allocator, every block is checked against its range as it is made and
// before it is freed (memprof_hotcold_is_cold, weak: absent in the profiling
// build). main prints what the program allocated, by path, which the
// allocator's statistics must equal; cold blocks stay live to the end.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>

extern "C" int memprof_hotcold_is_cold(const void *) __attribute__((weak));

namespace {

const size_t Sizes[] = {48, 200, 1000, 5000, 70000};
const unsigned NumSizes = sizeof(Sizes) / sizeof(Sizes[0]);

int Cold, Hot, Rounds;
volatile uint64_t Sink;

struct Counts {
  uint64_t ColdAllocs = 0, ColdBytes = 0, HotAllocs = 0, HotBytes = 0;
  uint64_t ScratchAllocs = 0, ScratchBytes = 0, LiveCold = 0;
  uint64_t ColdInRange = 0, ColdChecked = 0, HotInRange = 0, HotChecked = 0;
};

} // namespace

// The shared site: its hint depends on who calls it.
__attribute__((noinline)) char *makeBuf(size_t N) { return new char[N]; }

// The hot-only site.
__attribute__((noinline)) char *makeScratch(size_t N) { return new char[N]; }

__attribute__((noinline)) char *coldPath(size_t N, Counts &C) {
  char *P = makeBuf(N);
  P[0] = 1; // written once, never read in the hot rounds
  ++C.ColdAllocs;
  C.ColdBytes += N;
  return P;
}

__attribute__((noinline)) char *hotPath(size_t N, Counts &C) {
  char *P = makeBuf(N);
  ++C.HotAllocs;
  C.HotBytes += N;
  return P;
}

// C++'s realloc of a cold block: a bigger one from the cold path, the
// contents copied, the old one freed.
__attribute__((noinline)) char *growCold(char *Old, size_t OldN, size_t N, Counts &C) {
  char *P = coldPath(N, C);
  memcpy(P, Old, OldN);
  delete[] Old;
  return P;
}

static void check(const char *P, bool WantCold, Counts &C) {
  if (!memprof_hotcold_is_cold)
    return;
  int IsCold = memprof_hotcold_is_cold(P);
  if (WantCold) {
    ++C.ColdChecked;
    C.ColdInRange += IsCold;
  } else {
    ++C.HotChecked;
    C.HotInRange += IsCold;
  }
}

__attribute__((noinline)) static void hotRounds(Counts &C) {
  uint64_t S = 0;
  for (int I = 0; I < Hot; ++I) {
    char *H = hotPath(64, C);
    char *T = makeScratch(256);
    ++C.ScratchAllocs;
    C.ScratchBytes += 256;
    for (int R = 0; R < Rounds; ++R) {
      for (int J = 0; J < 64; ++J)
        H[J] = static_cast<char>(R + J);
      for (int J = 0; J < 256; J += 8)
        T[J] = static_cast<char>(H[J % 64] + R);
      S += static_cast<unsigned char>(H[R % 64]) + static_cast<unsigned char>(T[(R * 8) % 256]);
    }
    check(H, false, C);
    check(T, false, C);
    delete[] T;
    delete[] H;
  }
  Sink = Sink + S;
}

static void *worker(void *Arg) {
  Counts &C = *static_cast<Counts *>(Arg);
  char **Blocks = static_cast<char **>(calloc(Cold, sizeof(char *)));
  size_t *Size = static_cast<size_t *>(calloc(Cold, sizeof(size_t)));
  for (int I = 0; I < Cold; ++I) {
    Size[I] = Sizes[I % NumSizes];
    Blocks[I] = coldPath(Size[I], C);
    check(Blocks[I], true, C);
  }
  hotRounds(C);
  for (int I = 0; I < Cold; I += 2) {
    check(Blocks[I], true, C);
    delete[] Blocks[I];
  }
  for (int I = 1; I < Cold; I += 2) {
    Blocks[I] = growCold(Blocks[I], Size[I], Size[I] * 4, C);
    Size[I] *= 4;
    check(Blocks[I], true, C);
  }
  for (int I = 0; I < Cold; I += 2) {
    Blocks[I] = coldPath(Size[I], C);
    check(Blocks[I], true, C);
  }
  hotRounds(C);
  for (int I = 0; I < Cold; ++I)
    check(Blocks[I], true, C); // kept live: the allocator's count at exit
  C.LiveCold = Cold;
  free(Size);
  free(Blocks); // glibc's: the cold blocks stay reachable only by the leak
  return nullptr;
}

int main(int Argc, char **Argv) {
  if (Argc != 5) {
    fprintf(stderr, "usage: app THREADS COLD HOT ROUNDS\n");
    return 2;
  }
  int Threads = atoi(Argv[1]);
  Cold = atoi(Argv[2]);
  Hot = atoi(Argv[3]);
  Rounds = atoi(Argv[4]);
  if (Threads < 1 || Threads > 64 || Cold < 0 || Hot < 0 || Rounds < 1)
    return 2;
  Counts All[64];
  pthread_t T[64];
  for (int I = 0; I < Threads; ++I)
    if (pthread_create(&T[I], nullptr, worker, &All[I]) != 0)
      return 1;
  Counts Sum;
  for (int I = 0; I < Threads; ++I) {
    pthread_join(T[I], nullptr);
    Sum.ColdAllocs += All[I].ColdAllocs;
    Sum.ColdBytes += All[I].ColdBytes;
    Sum.HotAllocs += All[I].HotAllocs;
    Sum.HotBytes += All[I].HotBytes;
    Sum.ScratchAllocs += All[I].ScratchAllocs;
    Sum.ScratchBytes += All[I].ScratchBytes;
    Sum.LiveCold += All[I].LiveCold;
    Sum.ColdInRange += All[I].ColdInRange;
    Sum.ColdChecked += All[I].ColdChecked;
    Sum.HotInRange += All[I].HotInRange;
    Sum.HotChecked += All[I].HotChecked;
  }
  printf("threads %d\n", Threads);
  printf("cold_path allocs %llu bytes %llu live %llu\n",
         (unsigned long long)Sum.ColdAllocs, (unsigned long long)Sum.ColdBytes,
         (unsigned long long)Sum.LiveCold);
  printf("hot_path allocs %llu bytes %llu\n", (unsigned long long)Sum.HotAllocs,
         (unsigned long long)Sum.HotBytes);
  printf("scratch allocs %llu bytes %llu\n", (unsigned long long)Sum.ScratchAllocs,
         (unsigned long long)Sum.ScratchBytes);
  if (memprof_hotcold_is_cold)
    printf("checked cold %llu in_range %llu hot %llu in_range %llu\n",
           (unsigned long long)Sum.ColdChecked, (unsigned long long)Sum.ColdInRange,
           (unsigned long long)Sum.HotChecked, (unsigned long long)Sum.HotInRange);
  else
    printf("checked none (no allocator)\n");
  return 0;
}
