/* SPDX-License-Identifier: MIT */
/* The default price table (docs/plan.md "Cost"): public on-demand prices per node-hour
 * of cloud instance types, keyed by the instance type a node reports
 * (runtime.cloud.instance_type). Only prices found in a public source are recorded, with
 * the source and when it gave the price; a node whose type is not here has no price
 * unless one is given (--price-device-hour, --price-node-hour or the node file). */
#include <stddef.h>
#include <strings.h>

#include "plan_impl.h"

static const struct axl__price_row rows[] = {
	{"p5.48xlarge", "aws", 8, 98.32, "2026-Q1",
	 "https://disintermediate.global/insights/gpu-cloud-pricing-models (on-demand, 8 x H100 80GB; the same figure "
	 "in https://computespec.pages.dev/learn/pricing/cloud-gpu-pricing-explained)"},
	{"g5.xlarge", "aws", 1, 1.006, "2026-06",
	 "https://www.factualminds.com/blog/amazon-ec2-on-demand-pricing-instance-families-2026/ (us-east-1, Linux "
	 "on-demand, 1 x A10G)"},
	{"p4d.24xlarge", "aws", 8, 32.77, "2026-06",
	 "https://www.usage.ai/blogs/finops/ai-ml-cost/gpu-instance-cost-optimization/ "
	 "(on-demand, 8 x A100 40GB; the same "
	 "figure in https://www.usage.ai/blogs/aws/ai-ml-cost/trainium-vs-gpu-instances/ and, US East, Q2 2024, in "
	 "https://www.xither.com/compare/gpu-compute-costs-on-prem-vs-cloud-vs-spot-instances)"},
	{"trn1.32xlarge", "aws", 16, 21.50, "2026-06",
	 "https://www.usage.ai/blogs/aws/ai-ml-cost/trainium-vs-gpu-instances/ (on-demand, 16 x Trainium)"},
};

size_t axl__price_count(void)
{
	return sizeof rows / sizeof rows[0];
}

const struct axl__price_row *axl__price_at(size_t i)
{
	return i < axl__price_count() ? &rows[i] : NULL;
}

const struct axl__price_row *axl__price_lookup(const char *instance_type)
{
	for (size_t i = 0; instance_type && i < axl__price_count(); i++)
		if (strcasecmp(instance_type, rows[i].instance_type) == 0)
			return &rows[i];
	return NULL;
}
