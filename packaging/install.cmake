# Installing seer as users install tools: the install rules behind `make install`
# (PREFIX, default /usr/local, and DESTDIR) and the Debian package of
# `make package` (deb.cmake, included at the end). The tree under the prefix:
#
#   bin/seer, seer-cc, seer-c++, seer-clang, seer-clang++
#   lib/seer/          libseer_rt.so (seer finds it as ../lib/seer/ from /proc/self/exe),
#                      libseer_rt.a, libseer_rt_cxx.a, seer_rt.dynlist and
#                      seer_clang_wide_access.so (the wrappers find them as
#                      ../lib/seer/ from their own folder)
#   lib/systemd/system/seer-daemon.service   installed, never enabled
#   share/man/man1/    seer.1.gz, seer-COMMAND.1.gz (help2man), seer-cc.1.gz and its twins
#   share/doc/seer/    README.md, the docs, copyright, changelog.gz
#   share/seer/        grafana-dashboard.json; slurm/ (seer-slurm-analyze and
#                      seer-analyze.sbatch: `seer analyze --shard` as a Slurm job array)
#   etc/seer/seer.toml the example configuration: /etc/seer/ for the prefix /usr
#                      (the package), PREFIX/etc/seer/ otherwise
#
# Nothing is found through the build folder: the installed wrappers are
# configured with paths relative to themselves, and `seer` looks beside itself
# before the build path it also knows (recorder/recorder.cc, FindRuntimeLibrary).
# The targets referenced here are built by `seer_installed_files`, which
# `make install` and `make package` build (and nothing else).
include_guard(GLOBAL)

set(SEER_INSTALL_LIBDIR lib/seer)
set(SEER_PACKAGING_DIR ${CMAKE_CURRENT_LIST_DIR})
set(SEER_INSTALL_STAGE ${PROJECT_BINARY_DIR}/packaging)

# The wrappers as installed: the runtime and the plugin relative to bin/.
function(seer_configure_installed_wrappers)
  set(SEER_RT_DIR ../${SEER_INSTALL_LIBDIR})
  if(TARGET seer_clang_wide_access)
    set(SEER_CLANG_PLUGIN ../${SEER_INSTALL_LIBDIR}/seer_clang_wide_access.so)
  else()
    set(SEER_CLANG_PLUGIN "")
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/tools/seer-cc ${SEER_INSTALL_STAGE}/bin/seer-cc @ONLY)
endfunction()
seer_configure_installed_wrappers()

# Manual pages: help2man over the built binary's --help (packaging/man_pages.sh).
find_program(SEER_HELP2MAN help2man)
if(NOT SEER_HELP2MAN)
  message(FATAL_ERROR "help2man not found (Debian: help2man, tools/install-deps.sh): seer's manual pages "
                      "are made from its --help")
endif()
set(SEER_MAN_DIR ${SEER_INSTALL_STAGE}/man1)
add_custom_command(
  OUTPUT ${SEER_MAN_DIR}/seer.1.gz
  COMMAND bash ${SEER_PACKAGING_DIR}/man_pages.sh $<TARGET_FILE:seer> ${PROJECT_VERSION}
          ${SEER_PACKAGING_DIR}/seer-cc.1 ${SEER_MAN_DIR}
  DEPENDS seer ${SEER_PACKAGING_DIR}/man_pages.sh ${SEER_PACKAGING_DIR}/seer-cc.1
  COMMENT "Writing seer's manual pages"
  VERBATIM)
add_custom_target(seer_man_pages ALL DEPENDS ${SEER_MAN_DIR}/seer.1.gz)

# The changelog as Debian wants it, gzipped without name or time stamp.
add_custom_command(
  OUTPUT ${SEER_INSTALL_STAGE}/changelog.gz
  COMMAND gzip -9n -c ${SEER_PACKAGING_DIR}/debian/changelog > ${SEER_INSTALL_STAGE}/changelog.gz
  DEPENDS ${SEER_PACKAGING_DIR}/debian/changelog)
add_custom_target(seer_changelog ALL DEPENDS ${SEER_INSTALL_STAGE}/changelog.gz)

# Everything the rules below install, for `make install` and `make package`.
add_custom_target(seer_installed_files)
add_dependencies(seer_installed_files seer seer_rt seer_rt_cxx seer_rt_shared seer_man_pages seer_changelog)
if(TARGET seer_clang_wide_access)
  add_dependencies(seer_installed_files seer_clang_wide_access)
endif()

install(TARGETS seer RUNTIME DESTINATION bin)
install(PROGRAMS ${SEER_INSTALL_STAGE}/bin/seer-cc ${PROJECT_SOURCE_DIR}/tools/seer-c++
                 ${PROJECT_SOURCE_DIR}/tools/seer-clang ${PROJECT_SOURCE_DIR}/tools/seer-clang++
        DESTINATION bin)

# A shared library is not executable in Debian (0644); the archives are what
# seer-cc links into executables, the .so what `seer record` preloads or injects.
set(SEER_LIBRARY_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
install(TARGETS seer_rt_shared LIBRARY DESTINATION ${SEER_INSTALL_LIBDIR} PERMISSIONS ${SEER_LIBRARY_PERMISSIONS})
install(TARGETS seer_rt seer_rt_cxx ARCHIVE DESTINATION ${SEER_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/runtime/seer_rt.dynlist DESTINATION ${SEER_INSTALL_LIBDIR})
if(TARGET seer_clang_wide_access)
  install(TARGETS seer_clang_wide_access LIBRARY DESTINATION ${SEER_INSTALL_LIBDIR}
          PERMISSIONS ${SEER_LIBRARY_PERMISSIONS})
endif()

install(DIRECTORY ${SEER_MAN_DIR} DESTINATION share/man FILES_MATCHING PATTERN "*.1.gz")
file(GLOB SEER_DOCS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${SEER_DOCS} ${SEER_PACKAGING_DIR}/debian/copyright
              ${SEER_INSTALL_STAGE}/changelog.gz
        DESTINATION share/doc/seer)
install(FILES ${PROJECT_SOURCE_DIR}/tools/daemon/grafana-dashboard.json DESTINATION share/seer)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/slurm/seer-slurm-analyze ${PROJECT_SOURCE_DIR}/tools/slurm/seer-analyze.sbatch
        DESTINATION share/seer/slurm)

# What depends on the prefix the install runs with (the package's /usr, or
# PREFIX): the unit's ExecStart and --config, and where the configuration goes.
install(CODE "set(SEER_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")\nset(SEER_BINARY_DIR \"${PROJECT_BINARY_DIR}\")")
install(SCRIPT ${SEER_PACKAGING_DIR}/install_prefixed.cmake)

include(${SEER_PACKAGING_DIR}/deb.cmake)
