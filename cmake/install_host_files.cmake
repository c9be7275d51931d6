# Runs at install time (install(SCRIPT) from cmake/install.cmake), so the
# paths written into the systemd units are those of the prefix being
# installed to, whichever it is: `cmake --install --prefix P`, or CPack's
# /usr for the Debian package. Configuration goes to /etc/synergy for the
# prefix /usr (the FHS place, and where the package's conffiles are) and to
# P/etc/synergy otherwise.
#
# Set by the caller: SYNERGY_SOURCE_DIR, SYNERGY_BINARY_DIR,
# SYNERGY_INSTALL_BINDIR, SYNERGY_INSTALL_DOCDIR (relative to the prefix).
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(SYNERGY_CONFIG_DIR /etc/synergy)
else()
  set(SYNERGY_CONFIG_DIR ${CMAKE_INSTALL_PREFIX}/etc/synergy)
endif()
set(SYNERGY_BIN_DIR ${CMAKE_INSTALL_PREFIX}/${SYNERGY_INSTALL_BINDIR})
set(SYNERGY_DOC_DIR ${CMAKE_INSTALL_PREFIX}/${SYNERGY_INSTALL_DOCDIR})

# The configs will hold credentials: readable by their owner only (the
# package gives synergyd's to the synergy group, which synergyd runs as).
file(INSTALL ${SYNERGY_SOURCE_DIR}/configs/synergyd.yaml ${SYNERGY_SOURCE_DIR}/configs/synergy-node.yaml
  DESTINATION ${SYNERGY_CONFIG_DIR} PERMISSIONS OWNER_READ OWNER_WRITE)

set(units_dir ${SYNERGY_BINARY_DIR}/systemd${CMAKE_INSTALL_PREFIX})
foreach(unit synergyd synergy-node)
  configure_file(${SYNERGY_SOURCE_DIR}/packaging/systemd/${unit}.service.in ${units_dir}/${unit}.service @ONLY)
endforeach()
file(INSTALL ${units_dir}/synergyd.service ${units_dir}/synergy-node.service
  DESTINATION ${CMAKE_INSTALL_PREFIX}/lib/systemd/system)
