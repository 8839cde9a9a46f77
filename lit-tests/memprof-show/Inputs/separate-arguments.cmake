# cmake -DLINE=... -P separate-arguments.cmake: the words of a
# memprof-show --use-flags line as memprof_use_profile splits it, one
# "[word]" a line.
separate_arguments(words UNIX_COMMAND "${LINE}")
foreach(w IN LISTS words)
  message("[${w}]")
endforeach()
