# The Debian package of `make package`: CPack's DEB generator over the install
# rules of install.cmake, for the prefix /usr. What it adds to them:
#   Depends      the shared libraries seer and libseer_rt.so use (dpkg-shlibdeps),
#                and adduser for the maintainer scripts
#   Recommends   gcc and g++, behind seer-cc and seer-c++; clang-14 for seer-clang
#   debian/      postinst (the `seer` system user), prerm (stops a running unit),
#                postrm (on purge: the user, its group and /var/lib/seer), conffiles
#                (/etc/seer/seer.toml), and the changelog and copyright install.cmake installs
# The unit is installed and never enabled: whether seer records anything all the
# time is the administrator's choice (docs/daemon.md, "Installing under systemd").
# Binaries are stripped (lintian's unstripped-binary-or-object is an error).
# `make package` runs lintian on the result and fails on errors.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME seer)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "seer maintainers <maintainers@users.noreply.a-seed-57fb8fe5.example>")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # seer_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "record one run of a pthread program and predict its races and deadlocks\n"
    "seer records one run of a multi-threaded C/C++ program into a trace file (with\n"
    "its runtime preloaded, with eBPF uprobes, or with compiler-inserted hooks\n"
    "that also see memory accesses) and predicts the data races, deadlocks and\n"
    "atomicity violations other interleavings of that run could hit.\n"
    ".\n"
    "This package holds the seer command, the compiler wrappers seer-cc, seer-c++,\n"
    "seer-clang and seer-clang++ with seer's runtime, and the seer-daemon\n"
    "systemd unit (installed disabled) with an example configuration and a\n"
    "Grafana dashboard.")
string(CONCAT CPACK_DEBIAN_PACKAGE_DESCRIPTION ${CPACK_DEBIAN_PACKAGE_DESCRIPTION})
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gcc, g++")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "clang-14")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${SEER_PACKAGING_DIR}/debian/postinst ${SEER_PACKAGING_DIR}/debian/prerm
    ${SEER_PACKAGING_DIR}/debian/postrm ${SEER_PACKAGING_DIR}/debian/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
# The install rules run with the prefix /usr under a staging DESTDIR, so that
# install_prefixed.cmake sees the package's prefix (and puts the configuration
# in /etc).
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# cpack builds the `preinstall` target first, which would be everything (tests,
# benchmarks): `make package` builds seer_installed_files itself, and the package
# test runs cpack on a build that is done. So the install rules depend on no
# build (this also makes `ninja install` install what is built, without building).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
include(CPack)
