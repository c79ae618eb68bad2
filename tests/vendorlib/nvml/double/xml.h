/* A small, strict, bounded XML reader for `nvidia-smi -q -x` documents.
 *
 * Accepts: an optional UTF-8 byte order mark, the <?xml ...?> declaration and other
 * processing instructions, comments, a <!DOCTYPE name SYSTEM "..."> without an internal
 * subset, elements with attributes (single or double quoted), empty elements (<a/>),
 * character data, CDATA sections, the five predefined entities and numeric character
 * references. Everything else (unknown entities, mismatched or unclosed tags, duplicate
 * attributes, control characters, a second root, an internal DTD subset) is an error.
 *
 * Bounds: 64 MiB of input, 64 levels of nesting, 200000 elements, 16 attributes per
 * element, 128-byte names, 64 KiB of text per element. */
#ifndef NVML_DOUBLE_XML_H
#define NVML_DOUBLE_XML_H

#include <stddef.h>

struct xml_attr {
  const char *name;
  const char *value;
};

struct xml_node {
  const char *name;
  const char *text; /* character data, whitespace-trimmed; NULL when there is none */
  const struct xml_attr *attrs;
  unsigned nattrs;
  unsigned line;
  struct xml_node *parent, *child, *last, *next;
};

struct xml_doc;

/* NULL on error, with a message ("line N: ...") in err */
struct xml_doc *xml_parse(const char *buf, size_t len, char *err, size_t errlen);
struct xml_doc *xml_load(const char *path, char *err, size_t errlen);
void xml_free(struct xml_doc *doc);
const struct xml_node *xml_root(const struct xml_doc *doc);

/* the first child called name, or NULL */
const struct xml_node *xml_child(const struct xml_node *n, const char *name);
/* the next sibling with the same name as n, or NULL */
const struct xml_node *xml_next_same(const struct xml_node *n);
/* "a/b/c": children by name, one level per component; NULL when any is missing */
const struct xml_node *xml_path(const struct xml_node *n, const char *path);
/* the text at a path, or NULL */
const char *xml_path_text(const struct xml_node *n, const char *path);
const char *xml_attr(const struct xml_node *n, const char *name);

#endif
