/* Compiled with -std=c11 -pedantic -Werror (and as C++ from headers.cpp): the public
 * headers must stand alone and be clean in both languages. */
#include <axl/capture.h> /* first: it must stand alone */
#include <axl.h>
#include <axl/common.h>
#include <axl/context.h>
#include <axl/device.h>
#include <axl/error.h>
#include <axl/host.h>
#include <axl/inventory.h>
#include <axl/partition.h>
#include <axl/checkpoint.h>
#include <axl/version.h>

int main(void)
{
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	struct axl_capture_options c = AXL_CAPTURE_OPTIONS_INIT;
	(void)o;
	(void)c;
	return AXL_OK;
}
