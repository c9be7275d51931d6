# The Debian package, built by CPack from what `cmake --install` installs:
#
#   cpack --config build/CPackConfig.cmake -G DEB -B OUT_DIR
#
# installs under /usr (programs in /usr/bin, configs in /etc/synergy as
# conffiles, units in /usr/lib/systemd/system). Its dependencies are read
# from the programs' shared libraries (dpkg-shlibdeps), so `apt-get install
# ./synergy_*.deb` pulls gRPC, protobuf, SQLite and the rest from Debian.
# The maintainer scripts (packaging/debian/) create the `synergy` system
# account that synergyd.service runs as and give it /etc/synergy/synergyd.yaml
# (0640 root:synergy; synergy-node.yaml, which holds the node's credential,
# is 0600 root); no unit is enabled or started, and both are stopped before
# the programs are removed.
set(CPACK_PACKAGE_NAME synergy)
set(CPACK_PACKAGE_VENDOR "Synergy developers")
set(CPACK_PACKAGE_CONTACT "Synergy developers <synergy@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "resource-sensitivity-aware scheduler for shared GPU clusters (synergyd, synergy-node, synergyctl, synergy-sim)")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)
# Absolute destinations (/etc/synergy) go into the package, not the host.
set(CPACK_SET_DESTDIR ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# postinst makes the account with adduser.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
# libsynergy_agent.so: a shlibs file and the ldconfig trigger.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-torch, python3-torchvision")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  ${CMAKE_SOURCE_DIR}/packaging/debian/conffiles
  ${CMAKE_SOURCE_DIR}/packaging/debian/postinst
  ${CMAKE_SOURCE_DIR}/packaging/debian/prerm
  ${CMAKE_SOURCE_DIR}/packaging/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
