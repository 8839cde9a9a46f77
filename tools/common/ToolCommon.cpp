// ToolCommon.cpp: written next.
