# What `cmake --install` puts where (GNU directories; for CMAKE_INSTALL_PREFIX
# /usr the configs go to /etc/synergy):
#   bin/                     synergyd, synergy-node, synergyctl, synergy-sim
#   etc/synergy/             synergyd.yaml, synergy-node.yaml (the embedded defaults, to edit)
#   share/synergy/           the model zoo, clusters and example job specs,
#                            systemd/synergyd-ha.conf (a drop-in for an HA pair)
#   share/doc/synergy/       README, LICENSE, docs/*.md
#   share/bash-completion/completions/synergyctl
#   lib/systemd/system/      synergyd.service, synergy-node.service
#   include/synergy/         agent.h, agent_profiler.h (the job-side agent's API)
#   lib/                     libsynergy_agent.so, cmake/SynergyAgent/ (find_package),
#                            pkgconfig/synergy-agent.pc
# The Python package installs from python/CMakeLists.txt.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS synergy-sim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY configs/models configs/clusters configs/jobs DESTINATION ${CMAKE_INSTALL_DATADIR}/synergy)
install(FILES README.md LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")

if(SYNERGY_BUILD_SERVICE)
  install(TARGETS synergyd synergy-node synergyctl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # Slurm's job_submit/lua for synergyd's partition (docs/slurm.md).
  install(FILES packaging/slurm/job_submit.lua DESTINATION ${CMAKE_INSTALL_DATADIR}/synergy/slurm)
  # The drop-in for a highly available pair of synergyd (docs/deploy.md).
  install(FILES packaging/systemd/synergyd-ha.conf DESTINATION ${CMAKE_INSTALL_DATADIR}/synergy/systemd)
  # synergyctl writes its own completion script from its command table.
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/synergyctl.bash-completion
    COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0 $<TARGET_FILE:synergyctl> completion bash
            > ${CMAKE_BINARY_DIR}/synergyctl.bash-completion
    DEPENDS synergyctl
    COMMENT "synergyctl completion bash")
  add_custom_target(synergyctl_completion ALL DEPENDS ${CMAKE_BINARY_DIR}/synergyctl.bash-completion)
  install(FILES ${CMAKE_BINARY_DIR}/synergyctl.bash-completion
    DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME synergyctl)
  # The daemons' configs and systemd units: placed and written at install
  # time, for the prefix installed to.
  install(CODE "set(SYNERGY_SOURCE_DIR \"${CMAKE_SOURCE_DIR}\")
    set(SYNERGY_BINARY_DIR \"${CMAKE_BINARY_DIR}\")
    set(SYNERGY_INSTALL_BINDIR \"${CMAKE_INSTALL_BINDIR}\")
    set(SYNERGY_INSTALL_DOCDIR \"${CMAKE_INSTALL_DOCDIR}\")")
  install(SCRIPT cmake/install_host_files.cmake)

  # The agent for training jobs built outside this tree: the shared library,
  # its two public headers, a CMake package and a pkg-config file.
  install(TARGETS synergy_agent_shared EXPORT SynergyAgentTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES include/synergy/agent.h include/synergy/agent_profiler.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/synergy)
  set(agent_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/SynergyAgent)
  install(EXPORT SynergyAgentTargets NAMESPACE Synergy:: DESTINATION ${agent_cmake_dir})
  configure_package_config_file(packaging/agent/SynergyAgentConfig.cmake.in
    ${CMAKE_BINARY_DIR}/SynergyAgentConfig.cmake INSTALL_DESTINATION ${agent_cmake_dir})
  write_basic_package_version_file(${CMAKE_BINARY_DIR}/SynergyAgentConfigVersion.cmake
    COMPATIBILITY SameMajorVersion)
  install(FILES ${CMAKE_BINARY_DIR}/SynergyAgentConfig.cmake ${CMAKE_BINARY_DIR}/SynergyAgentConfigVersion.cmake
    DESTINATION ${agent_cmake_dir})
  # Paths relative to the .pc file, so the install is relocatable (a
  # scratch prefix, `cmake --install --prefix`, a package).
  file(RELATIVE_PATH pc_to_include /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix/${CMAKE_INSTALL_INCLUDEDIR})
  set(SYNERGY_PC_LIBDIR "\${pcfiledir}/..")
  set(SYNERGY_PC_INCLUDEDIR "\${pcfiledir}/${pc_to_include}")
  configure_file(packaging/agent/synergy-agent.pc.in ${CMAKE_BINARY_DIR}/synergy-agent.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/synergy-agent.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
