# cmake -DDOC=<file.md> -DFIRST_LINE=<text> -DOUT=<file> -P FrugalExtractDocBlock.cmake
# Writes the body of the one ```cpp block of DOC whose first line is
# FIRST_LINE to OUT, so a code example in the docs is compiled and tested
# as written. No such block, two of them, or one never closed fails the
# build with a message naming DOC and FIRST_LINE.
foreach(var DOC FIRST_LINE OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "FrugalExtractDocBlock: -D${var}=... is required")
  endif()
endforeach()

file(READ "${DOC}" text)
set(fence "```")
set(opening "${fence}cpp\n${FIRST_LINE}\n")
string(FIND "${text}" "${opening}" start)
if(start EQUAL -1)
  message(FATAL_ERROR "${DOC}: no ${fence}cpp block starting with the line '${FIRST_LINE}' "
                      "(the example this build extracts, compiles and tests)")
endif()
string(LENGTH "${fence}cpp\n" fence_length)
math(EXPR body_start "${start} + ${fence_length}")
string(SUBSTRING "${text}" ${body_start} -1 rest)

string(FIND "${rest}" "${opening}" second)
if(NOT second EQUAL -1)
  message(FATAL_ERROR "${DOC}: two ${fence}cpp blocks start with the line '${FIRST_LINE}'; which one is the example?")
endif()
string(FIND "${rest}" "\n${fence}" end)
if(end EQUAL -1)
  message(FATAL_ERROR "${DOC}: the ${fence}cpp block starting with '${FIRST_LINE}' is never closed")
endif()
string(SUBSTRING "${rest}" 0 ${end} body)

file(WRITE "${OUT}" "${body}\n")
