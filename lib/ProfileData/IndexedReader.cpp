// IndexedReader.cpp: written next.
