# ---- axl dra-plugin's kubelet side (src/compat/dra/kubelet_plugin.h, kubelet.h) ---------
# Included from the top CMakeLists.txt after the axl command's objects (axl_cli_obj).
# In the command: kubelet_plugin.c (CDI specs, the devices' CDI ids, the module),
# prepare.c and checkpoint.c (claims -> CDI ids, the checkpoint). The gRPC glue is the
# module axl-dra-kubelet.so, built where gRPC and protobuf-c were found (AXL_HAVE_GRPC,
# as axl-kubernetes.so), so that only `axl dra-plugin` loads gRPC and what it pulls in
# (lean.* tests). dra.proto and pluginregistration.proto are k8s.io/kubelet's (provenance
# in each).
set(AXL_DRA_SRC ${CMAKE_SOURCE_DIR}/src/compat/dra)
target_sources(axl_cli_obj PRIVATE ${AXL_DRA_SRC}/kubelet_plugin.c ${AXL_DRA_SRC}/prepare.c ${AXL_DRA_SRC}/checkpoint.c)
if(AXL_HAVE_GRPC)
  set(AXL_DRA_GEN ${CMAKE_BINARY_DIR}/dra/gen)
  file(MAKE_DIRECTORY ${AXL_DRA_GEN})
  add_custom_command(OUTPUT ${AXL_DRA_GEN}/dra.pb-c.c ${AXL_DRA_GEN}/dra.pb-c.h
      ${AXL_DRA_GEN}/pluginregistration.pb-c.c ${AXL_DRA_GEN}/pluginregistration.pb-c.h
      ${AXL_DRA_GEN}/health.pb-c.c ${AXL_DRA_GEN}/health.pb-c.h
      ${AXL_DRA_GEN}/drahealth.pb-c.c ${AXL_DRA_GEN}/drahealth.pb-c.h
    COMMAND ${AXL_PROTOC_C} --c_out=${AXL_DRA_GEN} -I${AXL_DRA_SRC}
            ${AXL_DRA_SRC}/dra.proto ${AXL_DRA_SRC}/pluginregistration.proto ${AXL_DRA_SRC}/health.proto
            ${AXL_DRA_SRC}/drahealth.proto
    DEPENDS ${AXL_DRA_SRC}/dra.proto ${AXL_DRA_SRC}/pluginregistration.proto ${AXL_DRA_SRC}/health.proto
            ${AXL_DRA_SRC}/drahealth.proto
    COMMENT "protoc-c: the kubelet's DRA API (v1) and DRA health API (v1alpha1), plugin registration (v1), gRPC health")
  add_library(axl_dra_kubelet MODULE ${AXL_DRA_SRC}/kubelet_grpc.c ${AXL_DRA_SRC}/kubelet_serve.c
    ${AXL_DRA_SRC}/kubelet_health.c ${AXL_DRA_SRC}/kubelet_watch.c ${CMAKE_SOURCE_DIR}/src/compat/kubelet/grpc_glue.c
    ${AXL_DRA_GEN}/dra.pb-c.c ${AXL_DRA_GEN}/pluginregistration.pb-c.c ${AXL_DRA_GEN}/health.pb-c.c
    ${AXL_DRA_GEN}/drahealth.pb-c.c)
  set_target_properties(axl_dra_kubelet PROPERTIES PREFIX "" OUTPUT_NAME axl-dra-kubelet
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/dra C_VISIBILITY_PRESET hidden)
  target_include_directories(axl_dra_kubelet PRIVATE ${AXL_DRA_GEN} ${AXL_DRA_SRC}
    ${CMAKE_SOURCE_DIR}/src/compat/kubelet ${GRPC_INCLUDE_DIRS} ${PROTOBUF_C_INCLUDE_DIRS})
  target_compile_options(axl_dra_kubelet PRIVATE ${AXL_WARNINGS})
  set_source_files_properties(${AXL_DRA_GEN}/dra.pb-c.c ${AXL_DRA_GEN}/pluginregistration.pb-c.c
    ${AXL_DRA_GEN}/health.pb-c.c ${AXL_DRA_GEN}/drahealth.pb-c.c PROPERTIES COMPILE_OPTIONS "-w")
  target_link_options(axl_dra_kubelet PRIVATE -Wl,--no-undefined)
  target_link_libraries(axl_dra_kubelet PRIVATE ${GRPC_LINK_LIBRARIES} ${PROTOBUF_C_LINK_LIBRARIES} Threads::Threads)
  add_dependencies(axl_cli axl_dra_kubelet)
  install(TARGETS axl_dra_kubelet LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/axl)
endif()
