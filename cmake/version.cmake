# Bakes the git commit into the binary (memscope --version, results files).
find_package(Git QUIET)
set(MEMSCOPE_GIT_COMMIT "unknown")
if(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _commit
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _commit)
    set(MEMSCOPE_GIT_COMMIT ${_commit})
    execute_process(COMMAND ${GIT_EXECUTABLE} status --porcelain --untracked-files=no
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _dirty ERROR_QUIET)
    if(_dirty)
      string(APPEND MEMSCOPE_GIT_COMMIT "-dirty")
    endif()
  endif()
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/version.hpp.in ${PROJECT_BINARY_DIR}/generated/memscope/version.hpp @ONLY)
