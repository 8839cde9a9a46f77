# CMake package (MemProf::Instrument, MemProf::InstrumentWithCounters,
# MemProf::Runtime, memprof_use_profile) and pkg-config files (memprof, and
# memprof-pgo: memprof plus clang's PGO counters).
include(CMakePackageConfigHelpers)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/MemProfConfig.cmake.in
  ${PROJECT_BINARY_DIR}/MemProfConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/MemProf
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/MemProfConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/MemProfConfig.cmake
              ${PROJECT_BINARY_DIR}/MemProfConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/MemProfInstrumentAll.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/MemProf)
configure_file(${PROJECT_SOURCE_DIR}/cmake/memprof.pc.in
  ${PROJECT_BINARY_DIR}/memprof.pc @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/cmake/memprof-pgo.pc.in
  ${PROJECT_BINARY_DIR}/memprof-pgo.pc @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/cmake/memprof-hotcold.pc.in
  ${PROJECT_BINARY_DIR}/memprof-hotcold.pc @ONLY)
if(TARGET memprof_hotcold)
  install(FILES ${PROJECT_BINARY_DIR}/memprof-hotcold.pc
          COMPONENT HotColdAllocator
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
  # The check that a build keeps clang's hot/cold hints (docs/hot-cold.md).
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/hotcold-probe.sh
                ${PROJECT_SOURCE_DIR}/cmake/hotcold-probe.ll
          COMPONENT HotColdAllocator
          DESTINATION ${CMAKE_INSTALL_DATADIR}/memprof)
endif()
install(FILES ${PROJECT_BINARY_DIR}/memprof.pc ${PROJECT_BINARY_DIR}/memprof-pgo.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/memprof/format
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/memprof)
