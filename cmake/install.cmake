# What `cmake --install` puts where (GNU directories; for CMAKE_INSTALL_PREFIX
# /usr the configs go to /etc/synergy):
#   bin/                     synergyd, synergy-node, synergyctl, synergy-sim
#   etc/synergy/             synergyd.yaml, synergy-node.yaml (the embedded defaults, to edit)
#   share/synergy/           the model zoo, clusters and example job specs
#   share/doc/synergy/       README, LICENSE, docs/*.md
#   share/bash-completion/completions/synergyctl
#   lib/systemd/system/      synergyd.service, synergy-node.service
# The Python package installs from python/CMakeLists.txt.
include(GNUInstallDirs)

set(SYNERGY_BIN_DIR ${CMAKE_INSTALL_FULL_BINDIR})
set(SYNERGY_CONFIG_DIR ${CMAKE_INSTALL_FULL_SYSCONFDIR}/synergy)
set(SYNERGY_DOC_DIR ${CMAKE_INSTALL_FULL_DOCDIR})

install(TARGETS synergy-sim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY configs/models configs/clusters configs/jobs DESTINATION ${CMAKE_INSTALL_DATADIR}/synergy)
install(FILES README.md LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")

if(SYNERGY_BUILD_SERVICE)
  install(TARGETS synergyd synergy-node synergyctl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES configs/synergyd.yaml configs/synergy-node.yaml DESTINATION ${CMAKE_INSTALL_SYSCONFDIR}/synergy)
  # synergyctl writes its own completion script from its command table.
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/synergyctl.bash-completion
    COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0 $<TARGET_FILE:synergyctl> completion bash
            > ${CMAKE_BINARY_DIR}/synergyctl.bash-completion
    DEPENDS synergyctl
    COMMENT "synergyctl completion bash")
  add_custom_target(synergyctl_completion ALL DEPENDS ${CMAKE_BINARY_DIR}/synergyctl.bash-completion)
  install(FILES ${CMAKE_BINARY_DIR}/synergyctl.bash-completion
    DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME synergyctl)
  foreach(unit synergyd synergy-node)
    configure_file(packaging/systemd/${unit}.service.in ${CMAKE_BINARY_DIR}/systemd/${unit}.service @ONLY)
    install(FILES ${CMAKE_BINARY_DIR}/systemd/${unit}.service DESTINATION lib/systemd/system)
  endforeach()
endif()
