# ---- axl dra-plugin: the command's files, and axl-dra.so, its API-server glue (api.h) ----
# Included from the top CMakeLists.txt after the axl command's objects (axl_cli_obj).
# The command (src/cli/cmd_dra_plugin.c) and what builds the Device objects from the
# inventory (slices.c) are in the command, as every command is. The HTTPS client and the
# ResourceSlice publisher (api.c, publish.c; module.c the entry) are a module that `axl dra-plugin` loads: libcurl
# with OpenSSL (libcurl4-openssl-dev, from Debian), which linking into axl would load at
# every start of every command (lean.* tests). util's JSON reader and writer are linked in
# from its archive (hidden symbols), so the module's only export is axl_dra_api.
set(AXL_DRA_SRC ${CMAKE_SOURCE_DIR}/src/compat/dra)
target_sources(axl_cli_obj PRIVATE ${CMAKE_SOURCE_DIR}/src/cli/cmd_dra_plugin.c ${AXL_DRA_SRC}/slices.c
  ${AXL_DRA_SRC}/shares.c ${AXL_DRA_SRC}/quantity.c)
set(AXL_HAVE_CURL OFF)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(CURL libcurl>=7.77)
endif()
if(CURL_FOUND)
  set(AXL_HAVE_CURL ON)
  add_library(axl_dra MODULE ${AXL_DRA_SRC}/module.c ${AXL_DRA_SRC}/api.c ${AXL_DRA_SRC}/publish.c
    ${AXL_DRA_SRC}/publish_read.c ${AXL_DRA_SRC}/pool.c)
  set_target_properties(axl_dra PROPERTIES PREFIX "" OUTPUT_NAME axl-dra
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/dra C_VISIBILITY_PRESET hidden)
  target_include_directories(axl_dra PRIVATE ${AXL_DRA_SRC} ${CURL_INCLUDE_DIRS})
  target_compile_options(axl_dra PRIVATE ${AXL_WARNINGS})
  target_link_options(axl_dra PRIVATE -Wl,--no-undefined)
  target_link_libraries(axl_dra PRIVATE axl_util_cli ${CURL_LINK_LIBRARIES} Threads::Threads m)
  add_dependencies(axl_cli axl_dra)
  install(TARGETS axl_dra LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/axl)
else()
  message(WARNING "libcurl (>= 7.77, libcurl4-openssl-dev) not found: `axl dra-plugin` has no API-server module")
endif()
