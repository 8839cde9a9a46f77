// hints.test: one allocation site reached from a long-lived, untouched
// context and a short-lived, busy one; a busy site and an idle site with a
// single context each. noinline keeps each `new` a call of its own in the
// -O2 build that clang hints.
#include <cstring>
#include <unistd.h>

struct Obj {
  char Data[256];
};

static Obj *Kept[64];
static volatile char Sink;

__attribute__((noinline)) Obj *make() { return new Obj; }

__attribute__((noinline)) void keep() {
  for (int I = 0; I < 64; ++I)
    Kept[I] = make();
}

__attribute__((noinline)) void churn() {
  for (int I = 0; I < 64; ++I) {
    Obj *O = make();
    for (int R = 0; R < 200; ++R) {
      memset(O->Data, R, sizeof(O->Data));
      Sink = Sink + O->Data[R % 256];
    }
    delete O;
  }
}

__attribute__((noinline)) void busy() {
  Obj *O = new Obj;
  for (int R = 0; R < 2000; ++R) {
    memset(O->Data, R, sizeof(O->Data));
    Sink = Sink + O->Data[R % 256];
  }
  delete O;
}

__attribute__((noinline)) Obj *idle() { return new Obj; }

int main() {
  keep();
  Obj *Idle = idle();
  churn();
  busy();
  usleep(1200 * 1000);
  for (Obj *O : Kept)
    delete O;
  delete Idle;
  return 0;
}
