# Run by `cmake --install` (and CPack) after the other install rules, with the
# prefix of this install in CMAKE_INSTALL_PREFIX and DESTDIR in the environment:
# the files whose place or contents depend on the prefix (packaging/install.cmake
# sets SEER_SOURCE_DIR and SEER_BINARY_DIR before it).
#   the configuration  /etc/seer/ for the prefix /usr (the package; FHS), else PREFIX/etc/seer/
#   the systemd unit   PREFIX/lib/systemd/system/ (systemd reads /usr/local/lib/systemd/system
#                      too), with ExecStart and --config naming this prefix's files
set(prefix "${CMAKE_INSTALL_PREFIX}")
if(prefix STREQUAL "/usr")
  set(SEER_INSTALL_CONFDIR /etc/seer)
else()
  set(SEER_INSTALL_CONFDIR "${prefix}/etc/seer")
endif()
set(SEER_INSTALL_BINDIR "${prefix}/bin")
set(SEER_INSTALL_DOCDIR "${prefix}/share/doc/seer")

file(INSTALL "${SEER_SOURCE_DIR}/tools/daemon/seer.toml" DESTINATION "${SEER_INSTALL_CONFDIR}"
     PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

# The unit is written to a file of its own per prefix in the build folder, then
# installed like the rest (file(INSTALL) adds DESTDIR and records it in
# the install manifest).
string(MAKE_C_IDENTIFIER "${prefix}" prefix_id)
set(unit "${SEER_BINARY_DIR}/packaging/unit${prefix_id}/seer-daemon.service")
configure_file("${SEER_SOURCE_DIR}/tools/daemon/seer-daemon.service" "${unit}" @ONLY)
file(INSTALL "${unit}" DESTINATION "${prefix}/lib/systemd/system"
     PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
