/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <string.h>

#include "internal.h"

AXL_API const char *axl_strerror(int code)
{
	switch (code) {
#define AXL__ERR_MSG(name, value, msg) \
	case value:                    \
		return msg;
		AXL_ERROR_LIST(AXL__ERR_MSG)
#undef AXL__ERR_MSG
	default:
		return "unknown error";
	}
}

AXL_API const char *axl_err_name(int code)
{
	switch (code) {
#define AXL__ERR_NAME(name, value, msg) \
	case value:                     \
		return #name;
		AXL_ERROR_LIST(AXL__ERR_NAME)
#undef AXL__ERR_NAME
	default:
		return "EUNKNOWNCODE";
	}
}

AXL_API const char *axl_error_last(void)
{
	return axl__error_text();
}

AXL_API const char *axl_version(void)
{
	return AXL_VERSION_STRING;
}

AXL_API unsigned axl_version_number(void)
{
	return AXL_VERSION_NUMBER;
}

AXL_API const char *axl_source_name(axl_source source)
{
	static const char *const names[AXL_SOURCE__COUNT] = {
#define AXL_SOURCE_NAME_(name, str) str,
		AXL_SOURCE_LIST(AXL_SOURCE_NAME_)
#undef AXL_SOURCE_NAME_
	};
	if ((unsigned)source >= AXL_SOURCE__COUNT)
		return "unknown";
	return names[source];
}
