# FRUGAL_SANITIZE=address,undefined (or thread) instruments every target,
# plugins included, so a plugin bug shows up in the host's test run.
if(FRUGAL_SANITIZE)
  set(_frugal_san_flags -fsanitize=${FRUGAL_SANITIZE} -fno-omit-frame-pointer)
  if(FRUGAL_SANITIZE MATCHES "undefined")
    list(APPEND _frugal_san_flags -fno-sanitize-recover=all)
  endif()
  foreach(flag IN LISTS _frugal_san_flags)
    add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${flag}>")
  endforeach()
  add_link_options(-fsanitize=${FRUGAL_SANITIZE})
endif()
