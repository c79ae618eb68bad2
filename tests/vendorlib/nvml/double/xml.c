/* A strict, bounded XML reader (see xml.h for what it accepts). */
#define _GNU_SOURCE
#include "xml.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XML_MAX_INPUT (64u << 20)
#define XML_MAX_DEPTH 64
#define XML_MAX_NODES 200000u
#define XML_MAX_ATTRS 16
#define XML_MAX_NAME 128
#define XML_MAX_TEXT (64u << 10)

/* ---- an arena: everything of one document lives in a few big blocks ---------------------- */
struct block {
  struct block *next;
  size_t used, size;
  max_align_t data[];
};

struct xml_doc {
  struct block *blocks;
  struct xml_node *root;
};

static void *arena_alloc(struct xml_doc *doc, size_t n)
{
  n = (n + 15u) & ~(size_t)15u;
  struct block *b = doc->blocks;
  if (!b || b->size - b->used < n) {
    size_t size = n > (60u << 10) ? n : (60u << 10);
    b = malloc(sizeof(*b) + size);
    if (!b)
      return NULL;
    b->size = size;
    b->used = 0;
    b->next = doc->blocks;
    doc->blocks = b;
  }
  void *p = (char *)b->data + b->used;
  b->used += n;
  return p;
}

static char *arena_strndup(struct xml_doc *doc, const char *s, size_t n)
{
  char *p = arena_alloc(doc, n + 1);
  if (p) {
    memcpy(p, s, n);
    p[n] = '\0';
  }
  return p;
}

/* ---- the parser ---------------------------------------------------------------------------- */
struct parser {
  const char *s;
  size_t len, pos;
  unsigned line;
  unsigned nodes;
  struct xml_doc *doc;
  char *err;
  size_t errlen;
  int failed;
  /* scratch for text and attribute values */
  char *buf;
  size_t buflen, bufcap;
};

static int fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parser *p, const char *fmt, ...)
{
  if (!p->failed && p->err && p->errlen) {
    int n = snprintf(p->err, p->errlen, "line %u: ", p->line);
    if (n >= 0 && (size_t)n < p->errlen) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
      va_end(ap);
    }
  }
  p->failed = 1;
  return -1;
}

static int at_end(const struct parser *p) { return p->pos >= p->len; }
static int peek(const struct parser *p) { return at_end(p) ? -1 : (unsigned char)p->s[p->pos]; }

static int starts(const struct parser *p, const char *lit)
{
  size_t n = strlen(lit);
  return p->len - p->pos >= n && memcmp(p->s + p->pos, lit, n) == 0;
}

static void advance(struct parser *p, size_t n)
{
  for (size_t i = 0; i < n && p->pos < p->len; i++, p->pos++)
    if (p->s[p->pos] == '\n')
      p->line++;
}

static int is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static void skip_space(struct parser *p)
{
  while (is_space(peek(p)))
    advance(p, 1);
}

/* a byte allowed in character data / attribute values */
static int check_char(struct parser *p, int c)
{
  if (c == 0 || (c < 0x20 && !is_space(c)))
    return fail(p, "control character 0x%02x", (unsigned)c);
  return 0;
}

static int buf_put(struct parser *p, const char *s, size_t n)
{
  if (p->buflen + n > XML_MAX_TEXT)
    return fail(p, "text longer than %u bytes", XML_MAX_TEXT);
  if (p->buflen + n + 1 > p->bufcap) {
    size_t cap = p->bufcap ? p->bufcap * 2 : 256;
    while (cap < p->buflen + n + 1)
      cap *= 2;
    char *nb = realloc(p->buf, cap);
    if (!nb)
      return fail(p, "out of memory");
    p->buf = nb;
    p->bufcap = cap;
  }
  memcpy(p->buf + p->buflen, s, n);
  p->buflen += n;
  p->buf[p->buflen] = '\0';
  return 0;
}

static int put_utf8(struct parser *p, unsigned long cp)
{
  char u[4];
  size_t n;
  if (cp < 0x80) {
    u[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    u[0] = (char)(0xC0 | (cp >> 6));
    u[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    u[0] = (char)(0xE0 | (cp >> 12));
    u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    u[0] = (char)(0xF0 | (cp >> 18));
    u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  return buf_put(p, u, n);
}

/* at '&': decode one reference into the buffer */
static int parse_reference(struct parser *p)
{
  static const struct {
    const char *name;
    char c;
  } ents[] = {{"amp;", '&'}, {"lt;", '<'}, {"gt;", '>'}, {"quot;", '"'}, {"apos;", '\''}};
  advance(p, 1);
  if (peek(p) == '#') {
    advance(p, 1);
    int hex = 0;
    if (peek(p) == 'x') {
      hex = 1;
      advance(p, 1);
    }
    unsigned long cp = 0;
    int digits = 0;
    for (;;) {
      int c = peek(p), d;
      if (c >= '0' && c <= '9')
        d = c - '0';
      else if (hex && c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
      else if (hex && c >= 'A' && c <= 'F')
        d = c - 'A' + 10;
      else
        break;
      cp = cp * (hex ? 16u : 10u) + (unsigned long)d;
      if (cp > 0x10FFFF)
        return fail(p, "character reference out of range");
      digits++;
      advance(p, 1);
    }
    if (!digits || peek(p) != ';')
      return fail(p, "malformed character reference");
    advance(p, 1);
    if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) || (cp < 0x20 && !is_space((int)cp)))
      return fail(p, "character reference to an invalid character");
    return put_utf8(p, cp);
  }
  for (size_t i = 0; i < sizeof(ents) / sizeof(ents[0]); i++)
    if (starts(p, ents[i].name)) {
      advance(p, strlen(ents[i].name));
      return buf_put(p, &ents[i].c, 1);
    }
  return fail(p, "unknown entity");
}

static int name_start(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':' || c >= 0x80;
}
static int name_char(int c) { return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; }

static const char *parse_name(struct parser *p)
{
  size_t start = p->pos;
  if (!name_start(peek(p))) {
    fail(p, "expected a name");
    return NULL;
  }
  while (name_char(peek(p)))
    advance(p, 1);
  size_t n = p->pos - start;
  if (n > XML_MAX_NAME) {
    fail(p, "name longer than %d bytes", XML_MAX_NAME);
    return NULL;
  }
  const char *name = arena_strndup(p->doc, p->s + start, n);
  if (!name)
    fail(p, "out of memory");
  return name;
}

/* skip to just after the terminator; fail at end of input */
static int skip_past(struct parser *p, const char *term, const char *what)
{
  while (!at_end(p)) {
    if (starts(p, term)) {
      advance(p, strlen(term));
      return 0;
    }
    if (check_char(p, peek(p)))
      return -1;
    advance(p, 1);
  }
  return fail(p, "unterminated %s", what);
}

static int skip_misc(struct parser *p)
{
  for (;;) {
    skip_space(p);
    if (starts(p, "<!--")) {
      advance(p, 4);
      if (skip_past(p, "-->", "comment"))
        return -1;
    } else if (starts(p, "<?")) {
      advance(p, 2);
      if (skip_past(p, "?>", "processing instruction"))
        return -1;
    } else {
      return 0;
    }
  }
}

static int parse_doctype(struct parser *p)
{
  advance(p, 9); /* <!DOCTYPE */
  int quote = 0;
  while (!at_end(p)) {
    int c = peek(p);
    if (quote) {
      if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[') {
      return fail(p, "DOCTYPE with an internal subset is not supported");
    } else if (c == '>') {
      advance(p, 1);
      return 0;
    }
    if (check_char(p, c))
      return -1;
    advance(p, 1);
  }
  return fail(p, "unterminated DOCTYPE");
}

static struct xml_node *new_node(struct parser *p, struct xml_node *parent, const char *name, unsigned line)
{
  if (++p->nodes > XML_MAX_NODES) {
    fail(p, "more than %u elements", XML_MAX_NODES);
    return NULL;
  }
  struct xml_node *n = arena_alloc(p->doc, sizeof(*n));
  if (!n) {
    fail(p, "out of memory");
    return NULL;
  }
  memset(n, 0, sizeof(*n));
  n->name = name;
  n->line = line;
  n->parent = parent;
  if (parent) {
    if (parent->last)
      parent->last->next = n;
    else
      parent->child = n;
    parent->last = n;
  }
  return n;
}

static int parse_attrs(struct parser *p, struct xml_node *n, int *empty)
{
  struct xml_attr attrs[XML_MAX_ATTRS];
  unsigned na = 0;
  size_t amark = p->buflen; /* values are built in the scratch after the parent's text */
  for (;;) {
    int had_space = is_space(peek(p));
    skip_space(p);
    if (starts(p, "/>")) {
      advance(p, 2);
      *empty = 1;
      break;
    }
    if (peek(p) == '>') {
      advance(p, 1);
      *empty = 0;
      break;
    }
    if (at_end(p))
      return fail(p, "unterminated start tag <%s>", n->name);
    if (!had_space)
      return fail(p, "expected white space before an attribute in <%s>", n->name);
    const char *aname = parse_name(p);
    if (!aname)
      return -1;
    skip_space(p);
    if (peek(p) != '=')
      return fail(p, "expected '=' after attribute %s", aname);
    advance(p, 1);
    skip_space(p);
    int q = peek(p);
    if (q != '"' && q != '\'')
      return fail(p, "expected a quoted value for attribute %s", aname);
    advance(p, 1);
    p->buflen = amark;
    for (;;) {
      int c = peek(p);
      if (c < 0)
        return fail(p, "unterminated attribute value");
      if (c == q) {
        advance(p, 1);
        break;
      }
      if (c == '<')
        return fail(p, "'<' in an attribute value");
      if (c == '&') {
        if (parse_reference(p))
          return -1;
        continue;
      }
      if (check_char(p, c))
        return -1;
      char ch = (char)c;
      if (buf_put(p, &ch, 1))
        return -1;
      advance(p, 1);
    }
    for (unsigned i = 0; i < na; i++)
      if (strcmp(attrs[i].name, aname) == 0)
        return fail(p, "duplicate attribute %s", aname);
    if (na == XML_MAX_ATTRS)
      return fail(p, "more than %d attributes", XML_MAX_ATTRS);
    attrs[na].name = aname;
    attrs[na].value = arena_strndup(p->doc, p->buflen > amark ? p->buf + amark : "", p->buflen - amark);
    if (!attrs[na].value)
      return fail(p, "out of memory");
    na++;
  }
  if (na) {
    struct xml_attr *a = arena_alloc(p->doc, na * sizeof(*a));
    if (!a)
      return fail(p, "out of memory");
    memcpy(a, attrs, na * sizeof(*a));
    n->attrs = a;
    n->nattrs = na;
  }
  return 0;
}

/* the element's text: character data of all its text runs, trimmed */
static int set_text(struct parser *p, struct xml_node *n, size_t mark)
{
  const char *t = p->buf + mark;
  size_t len = p->buflen - mark;
  while (len && is_space((unsigned char)*t)) {
    t++;
    len--;
  }
  while (len && is_space((unsigned char)t[len - 1]))
    len--;
  if (len) {
    n->text = arena_strndup(p->doc, t, len);
    if (!n->text)
      return fail(p, "out of memory");
  }
  p->buflen = mark;
  if (p->buf)
    p->buf[mark] = '\0';
  return 0;
}

static int parse_element(struct parser *p, struct xml_node *parent, int depth, struct xml_node **out)
{
  if (depth > XML_MAX_DEPTH)
    return fail(p, "elements nested deeper than %d", XML_MAX_DEPTH);
  unsigned line = p->line;
  advance(p, 1); /* '<' */
  const char *name = parse_name(p);
  if (!name)
    return -1;
  struct xml_node *n = new_node(p, parent, name, line);
  if (!n)
    return -1;
  if (out)
    *out = n;
  int empty = 0;
  size_t mark = p->buflen;
  if (parse_attrs(p, n, &empty))
    return -1;
  p->buflen = mark; /* attribute values are copied; drop them from the scratch */
  if (empty)
    return 0;
  /* text of this element accumulates in the scratch buffer from `mark` on; a child's
   * text is appended after it and removed again when the child is done */
  for (;;) {
    int c = peek(p);
    if (c < 0)
      return fail(p, "<%s> (line %u) is not closed", n->name, n->line);
    if (c == '<') {
      if (starts(p, "</")) {
        advance(p, 2);
        const char *end = parse_name(p);
        if (!end)
          return -1;
        if (strcmp(end, n->name) != 0)
          return fail(p, "</%s> closes <%s> (line %u)", end, n->name, n->line);
        skip_space(p);
        if (peek(p) != '>')
          return fail(p, "malformed end tag </%s", end);
        advance(p, 1);
        return set_text(p, n, mark);
      }
      if (starts(p, "<!--")) {
        advance(p, 4);
        if (skip_past(p, "-->", "comment"))
          return -1;
        continue;
      }
      if (starts(p, "<![CDATA[")) {
        advance(p, 9);
        size_t start = p->pos;
        for (;;) {
          if (at_end(p))
            return fail(p, "unterminated CDATA section");
          if (starts(p, "]]>"))
            break;
          if (check_char(p, peek(p)))
            return -1;
          advance(p, 1);
        }
        if (buf_put(p, p->s + start, p->pos - start))
          return -1;
        advance(p, 3);
        continue;
      }
      if (starts(p, "<?")) {
        advance(p, 2);
        if (skip_past(p, "?>", "processing instruction"))
          return -1;
        continue;
      }
      if (starts(p, "<!"))
        return fail(p, "unexpected markup declaration inside <%s>", n->name);
      size_t child_mark = p->buflen;
      if (parse_element(p, n, depth + 1, NULL))
        return -1;
      p->buflen = child_mark;
      continue;
    }
    if (c == '&') {
      if (parse_reference(p))
        return -1;
      continue;
    }
    if (c == '>' && p->pos >= 2 && p->s[p->pos - 1] == ']' && p->s[p->pos - 2] == ']')
      return fail(p, "']]>' in character data");
    if (check_char(p, c))
      return -1;
    /* copy a run of plain characters at once */
    size_t start = p->pos;
    while (!at_end(p)) {
      int d = peek(p);
      if (d == '<' || d == '&' || d == '>' || d == 0 || (d < 0x20 && !is_space(d)))
        break;
      advance(p, 1);
    }
    if (p->pos == start) { /* a lone '>' */
      advance(p, 1);
    }
    if (buf_put(p, p->s + start, p->pos - start))
      return -1;
  }
}

struct xml_doc *xml_parse(const char *buf, size_t len, char *err, size_t errlen)
{
  if (err && errlen)
    err[0] = '\0';
  if (len > XML_MAX_INPUT) {
    if (err && errlen)
      snprintf(err, errlen, "document larger than %u bytes", XML_MAX_INPUT);
    return NULL;
  }
  struct xml_doc *doc = calloc(1, sizeof(*doc));
  if (!doc) {
    if (err && errlen)
      snprintf(err, errlen, "out of memory");
    return NULL;
  }
  struct parser p = {.s = buf, .len = len, .line = 1, .doc = doc, .err = err, .errlen = errlen};
  if (starts(&p, "\xEF\xBB\xBF"))
    advance(&p, 3);
  int seen_doctype = 0;
  for (;;) {
    if (skip_misc(&p))
      goto bad;
    if (starts(&p, "<!DOCTYPE")) {
      if (seen_doctype) {
        fail(&p, "a second DOCTYPE");
        goto bad;
      }
      seen_doctype = 1;
      if (parse_doctype(&p))
        goto bad;
      continue;
    }
    break;
  }
  if (peek(&p) != '<') {
    fail(&p, at_end(&p) ? "no root element" : "text before the root element");
    goto bad;
  }
  if (parse_element(&p, NULL, 1, &doc->root))
    goto bad;
  if (skip_misc(&p))
    goto bad;
  if (!at_end(&p)) {
    fail(&p, "content after the root element");
    goto bad;
  }
  free(p.buf);
  return doc;
bad:
  free(p.buf);
  xml_free(doc);
  return NULL;
}

struct xml_doc *xml_load(const char *path, char *err, size_t errlen)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (len == cap) {
      if (cap > XML_MAX_INPUT) {
        snprintf(err, errlen, "%s: larger than %u bytes", path, XML_MAX_INPUT);
        free(buf);
        fclose(f);
        return NULL;
      }
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0)
      break;
  }
  int ioerr = ferror(f);
  fclose(f);
  if (!buf || ioerr) {
    snprintf(err, errlen, "%s: %s", path, buf ? "read error" : "out of memory");
    free(buf);
    return NULL;
  }
  char perr[256];
  struct xml_doc *doc = xml_parse(buf, len, perr, sizeof(perr));
  free(buf);
  if (!doc)
    snprintf(err, errlen, "%s: %s", path, perr);
  return doc;
}

void xml_free(struct xml_doc *doc)
{
  if (!doc)
    return;
  for (struct block *b = doc->blocks, *next; b; b = next) {
    next = b->next;
    free(b);
  }
  free(doc);
}

const struct xml_node *xml_root(const struct xml_doc *doc) { return doc ? doc->root : NULL; }

const struct xml_node *xml_child(const struct xml_node *n, const char *name)
{
  if (!n)
    return NULL;
  for (const struct xml_node *c = n->child; c; c = c->next)
    if (strcmp(c->name, name) == 0)
      return c;
  return NULL;
}

const struct xml_node *xml_next_same(const struct xml_node *n)
{
  if (!n)
    return NULL;
  for (const struct xml_node *c = n->next; c; c = c->next)
    if (strcmp(c->name, n->name) == 0)
      return c;
  return NULL;
}

const struct xml_node *xml_path(const struct xml_node *n, const char *path)
{
  char part[XML_MAX_NAME + 1];
  while (n && *path) {
    const char *slash = strchr(path, '/');
    size_t len = slash ? (size_t)(slash - path) : strlen(path);
    if (len == 0 || len > XML_MAX_NAME)
      return NULL;
    memcpy(part, path, len);
    part[len] = '\0';
    n = xml_child(n, part);
    path += len + (slash ? 1 : 0);
  }
  return n;
}

const char *xml_path_text(const struct xml_node *n, const char *path)
{
  const struct xml_node *t = xml_path(n, path);
  return t ? t->text : NULL;
}

const char *xml_attr(const struct xml_node *n, const char *name)
{
  if (!n)
    return NULL;
  for (unsigned i = 0; i < n->nattrs; i++)
    if (strcmp(n->attrs[i].name, name) == 0)
      return n->attrs[i].value;
  return NULL;
}
