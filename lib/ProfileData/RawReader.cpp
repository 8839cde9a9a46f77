// RawReader.cpp: written next.
