// IndexedWriter.cpp: written next.
