// Merge.cpp: written next.
