"""The MemInfoBlock fields of LLVM 22's MIBEntryDef.inc, in file order, as
(name, width in bytes) pairs: the test tools' own copy, written from the
format spec (../shared/docs/llvm-memprof-formats.md), independent of the C++
field list (format/MIBFields.def) that the tests check."""

MIB_FIELDS = [
    ("AllocCount", 4), ("TotalAccessCount", 8), ("MinAccessCount", 8),
    ("MaxAccessCount", 8), ("TotalSize", 8), ("MinSize", 4), ("MaxSize", 4),
    ("AllocTimestamp", 4), ("DeallocTimestamp", 4), ("TotalLifetime", 8),
    ("MinLifetime", 4), ("MaxLifetime", 4), ("AllocCpuId", 4),
    ("DeallocCpuId", 4), ("NumMigratedCpu", 4), ("NumLifetimeOverlaps", 4),
    ("NumSameAllocCpu", 4), ("NumSameDeallocCpu", 4), ("DataTypeId", 8),
    ("TotalAccessDensity", 8), ("MinAccessDensity", 4), ("MaxAccessDensity", 4),
    ("TotalLifetimeAccessDensity", 8), ("MinLifetimeAccessDensity", 4),
    ("MaxLifetimeAccessDensity", 4), ("AccessHistogramSize", 4),
    ("AccessHistogram", 8)]
