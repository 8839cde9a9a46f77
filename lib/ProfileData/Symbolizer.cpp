// Symbolizer.cpp: written next.
