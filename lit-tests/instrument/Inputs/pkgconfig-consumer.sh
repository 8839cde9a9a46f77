#!/bin/sh
# A build that uses memprof through pkg-config: pkgconfig-consumer.sh SRC OUT
set -eu
clang-22 -O2 $(pkg-config --cflags memprof) "$1" $(pkg-config --libs memprof) -o "$2"
