/* SPDX-License-Identifier: MIT */
/* TEMPORARY (branch h-tf only): the partition API is implemented on another branch;
 * these stand-ins let the provider link until the merge. Delete at merge time. */
#include <axl.h>

int axl_partition_create(axl_context *ctx, const axl_inventory *inv, const char *device,
			 const char *profile, unsigned flags, struct axl_partition **out)
{
	(void)ctx; (void)inv; (void)device; (void)profile; (void)flags;
	if (out)
		*out = NULL;
	return AXL_ENOTSUP;
}

int axl_partition_destroy(axl_context *ctx, const axl_inventory *inv, const char *device,
			  const char *partition, unsigned flags, size_t *removed)
{
	(void)ctx; (void)inv; (void)device; (void)partition; (void)flags;
	if (removed)
		*removed = 0;
	return AXL_ENOTSUP;
}

int axl_partition_list(axl_context *ctx, const axl_inventory *inv, struct axl_partition **out, size_t *count)
{
	(void)ctx; (void)inv;
	if (out)
		*out = NULL;
	if (count)
		*count = 0;
	return AXL_ENOTSUP;
}

int axl_partition_cleanup(axl_context *ctx, const axl_inventory *inv, size_t *removed)
{
	(void)ctx; (void)inv;
	if (removed)
		*removed = 0;
	return AXL_ENOTSUP;
}

int axl_partition_set_mode(axl_context *ctx, const axl_inventory *inv, const char *device,
			   const char *kind, const char *mode, unsigned flags)
{
	(void)ctx; (void)inv; (void)device; (void)kind; (void)mode; (void)flags;
	return AXL_ENOTSUP;
}
