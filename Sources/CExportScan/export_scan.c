#define _GNU_SOURCE
#include "export_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pxs_init(pxs_scanner *s) {
    memset(s, 0, sizeof *s);
    s->line = 1;
}

void pxs_free(pxs_scanner *s) {
    free(s->buffer);
    free(s->names);
    free(s->name_offsets);
    memset(s, 0, sizeof *s);
}

uint8_t *pxs_space(pxs_scanner *s, size_t wanted) {
    // Move what is unread to the front, then grow if that is not room enough.
    if (s->start > 0) {
        size_t unread = s->end - s->start;
        memmove(s->buffer, s->buffer + s->start, unread);
        s->base_offset += s->start;
        s->start = 0;
        s->end = unread;
    }
    if (s->capacity - s->end < wanted) {
        size_t capacity = s->capacity ? s->capacity : 1 << 17;
        while (capacity - s->end < wanted) capacity *= 2;
        uint8_t *grown = realloc(s->buffer, capacity);
        if (!grown) return NULL;
        s->buffer = grown;
        s->capacity = capacity;
    }
    return s->buffer + s->end;
}

void pxs_commit(pxs_scanner *s, size_t count) { s->end += count; }

void pxs_finish(pxs_scanner *s) { s->eof = 1; }

// MARK: Positions and errors

/// Counts the lines in buffer[start, to) and moves `start` there.
static void advance(pxs_scanner *s, size_t to) {
    const uint8_t *p = s->buffer + s->start, *stop = s->buffer + to;
    for (;;) {
        const uint8_t *newline = memchr(p, '\n', (size_t)(stop - p));
        if (!newline) break;
        s->line++;
        s->line_start_offset = s->base_offset + (size_t)(newline - s->buffer) + 1;
        p = newline + 1;
    }
    s->start = to;
}

/// Line and column (1-based, in bytes) of buffer[at], at or after `start` on the current line or later.
static void position(pxs_scanner *s, size_t at, uint64_t *line, uint64_t *column) {
    uint64_t l = s->line, line_start = s->line_start_offset;
    const uint8_t *p = s->buffer + s->start, *stop = s->buffer + at;
    for (;;) {
        const uint8_t *newline = memchr(p, '\n', (size_t)(stop - p));
        if (!newline) break;
        l++;
        line_start = s->base_offset + (size_t)(newline - s->buffer) + 1;
        p = newline + 1;
    }
    *line = l;
    *column = s->base_offset + at - line_start + 1;
}

static int fail(pxs_scanner *s, size_t at, const char *format, const char *detail) {
    position(s, at, &s->error_line, &s->error_column);
    snprintf(s->message, sizeof s->message, format, detail);
    return PXS_ERROR;
}

// MARK: Pieces

static inline uint64_t has_byte(uint64_t word, uint64_t pattern) {
    uint64_t x = word ^ pattern;
    return (x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL;
}

static int is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static int is_name_start(uint8_t c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':' || c >= 0x80; }
static int is_name_char(uint8_t c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; }

/// A reference after `&` at buffer[at]: returns its length up to and including `;`, 0 when bad.
static size_t reference_length(const uint8_t *p, const uint8_t *stop) {
    const uint8_t *q = p + 1;
    if (q < stop && *q == '#') {
        q++;
        int hex = q < stop && *q == 'x';
        if (hex) q++;
        const uint8_t *digits = q;
        uint32_t code = 0;
        while (q < stop && ((*q >= '0' && *q <= '9') || (hex && ((*q >= 'a' && *q <= 'f') || (*q >= 'A' && *q <= 'F'))))) {
            uint32_t digit = *q <= '9' ? (uint32_t)(*q - '0') : (uint32_t)((*q | 0x20) - 'a' + 10);
            code = code > 0x10FFFF ? code : code * (hex ? 16 : 10) + digit;
            q++;
        }
        if (q == digits || q >= stop || *q != ';') return 0;
        // Only characters XML allows (no NUL, no other control characters, no surrogates).
        int allowed = code == 0x9 || code == 0xA || code == 0xD || (code >= 0x20 && code <= 0xD7FF)
            || (code >= 0xE000 && code <= 0xFFFD) || (code >= 0x10000 && code <= 0x10FFFF);
        if (!allowed) return 0;
        return (size_t)(q - p) + 1;
    }
    static const char *names[] = {"lt;", "gt;", "amp;", "quot;", "apos;"};
    for (int i = 0; i < 5; i++) {
        size_t n = strlen(names[i]);
        if ((size_t)(stop - q) >= n && memcmp(q, names[i], n) == 0) return n + 1;
    }
    return 0;
}

/// Checks the references in buffer[from, to); returns the offset of a bad one, or `to`.
static size_t check_references(pxs_scanner *s, size_t from, size_t to, int *found) {
    const uint8_t *p = s->buffer + from, *stop = s->buffer + to;
    for (;;) {
        const uint8_t *amp = memchr(p, '&', (size_t)(stop - p));
        if (!amp) return to;
        *found = 1;
        size_t length = reference_length(amp, stop);
        if (!length) return (size_t)(amp - s->buffer);
        p = amp + length;
    }
}

static const uint8_t *find(const uint8_t *p, const uint8_t *stop, const char *what) {
    return memmem(p, (size_t)(stop - p), what, strlen(what));
}

static int push_name(pxs_scanner *s, const uint8_t *name, size_t length) {
    if (s->names_used + length > s->names_capacity) {
        size_t capacity = s->names_capacity ? s->names_capacity * 2 : 1024;
        while (capacity < s->names_used + length) capacity *= 2;
        char *grown = realloc(s->names, capacity);
        if (!grown) return 0;
        s->names = grown;
        s->names_capacity = capacity;
    }
    if (s->depth + 1 > s->offsets_capacity) {
        size_t capacity = s->offsets_capacity ? s->offsets_capacity * 2 : 64;
        size_t *grown = realloc(s->name_offsets, capacity * sizeof *grown);
        if (!grown) return 0;
        s->name_offsets = grown;
        s->offsets_capacity = capacity;
    }
    s->name_offsets[s->depth++] = s->names_used;
    memcpy(s->names + s->names_used, name, length);
    s->names_used += length;
    return 1;
}

// MARK: Resuming a token that spans reads

enum { RESUME_NONE, RESUME_DOCTYPE, RESUME_SKIPPED, RESUME_TAG };

/// Where to go on with the token at buffer[start] of `kind`, or `fallback` when it is a new one.
static size_t resume_point(pxs_scanner *s, int kind, size_t fallback) {
    if (s->resume_kind != kind || s->resume_token != s->base_offset + s->start) return fallback;
    size_t at = (size_t)(s->resume_at - s->base_offset);
    return at > fallback ? at : fallback;
}

static void keep_resume(pxs_scanner *s, int kind, size_t at) {
    s->resume_kind = kind;
    s->resume_token = s->base_offset + s->start;
    s->resume_at = s->base_offset + at;
}

/// Whether the tag at buffer[start] is whole in the buffer: a '>' outside quoted values. Reads
/// on from where it last stopped, so a huge tag costs its length once (R: E4).
static int tag_complete(pxs_scanner *s) {
    int fresh = s->resume_kind != RESUME_TAG || s->resume_token != s->base_offset + s->start;
    const uint8_t *stop = s->buffer + s->end, *p = s->buffer + resume_point(s, RESUME_TAG, s->start + 1);
    uint8_t quote = fresh ? 0 : (uint8_t)s->resume_quote;
    while (p < stop) {
        if (quote) {
            const uint8_t *close = memchr(p, quote, (size_t)(stop - p));
            if (!close) { p = stop; break; }
            p = close + 1;
            quote = 0;
            continue;
        }
        uint8_t c = *p;
        if (c == '>') return 1;
        if (c == '"' || c == '\'') quote = c;
        p++;
    }
    keep_resume(s, RESUME_TAG, (size_t)(p - s->buffer));
    s->resume_quote = quote;
    return 0;
}

/// `<!DOCTYPE …>` with its internal subset: brackets, quotes and comments respected; resumed
/// where the last read ended.
static int scan_doctype(pxs_scanner *s) {
    const uint8_t *stop = s->buffer + s->end;
    int fresh = s->resume_kind != RESUME_DOCTYPE || s->resume_token != s->base_offset + s->start;
    const uint8_t *p = s->buffer + resume_point(s, RESUME_DOCTYPE, s->start + 9);
    int brackets = fresh ? 0 : s->resume_brackets;
    uint8_t quote = fresh ? 0 : (uint8_t)s->resume_quote;
    int comment = fresh ? 0 : s->resume_comment;
    while (p < stop) {
        uint8_t c = *p;
        if (quote) {
            const uint8_t *close = memchr(p, quote, (size_t)(stop - p));
            if (!close) { p = stop; break; }
            p = close + 1;
            quote = 0;
        } else if (comment) {
            const uint8_t *close = find(p, stop, "-->");
            // Not found: go on two bytes back, where a "-->" cut by the read may begin.
            if (!close) { p = stop - p >= 2 ? stop - 2 : p; break; }
            p = close + 3;
            comment = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
            p++;
        } else if (c == '<' && stop - p < 4) {
            break; // too few bytes to tell a comment
        } else if (c == '<' && memcmp(p, "<!--", 4) == 0) {
            comment = 1;
            p += 4;
        } else if (c == '[') {
            brackets++;
            p++;
        } else if (c == ']') {
            if (--brackets < 0) return fail(s, (size_t)(p - s->buffer), "unbalanced ']' in the DOCTYPE%s", "");
            p++;
        } else if (c == '>' && brackets == 0) {
            s->resume_kind = RESUME_NONE;
            advance(s, (size_t)(p - s->buffer) + 1);
            return 0;
        } else {
            p++;
        }
    }
    if (s->eof) return fail(s, s->start, "the DOCTYPE never ends%s", "");
    keep_resume(s, RESUME_DOCTYPE, (size_t)(p - s->buffer));
    s->resume_brackets = brackets;
    s->resume_quote = quote;
    s->resume_comment = comment;
    return PXS_NEED;
}

/// A start tag at buffer[start]; on success the event is filled and `start` moved past it.
static int scan_start_tag(pxs_scanner *s) {
    // A tag that needed more input before is parsed again only once it is whole.
    if (!s->eof && s->resume_kind == RESUME_TAG && s->resume_token == s->base_offset + s->start && !tag_complete(s)) return PXS_NEED;
    const uint8_t *begin = s->buffer + s->start, *stop = s->buffer + s->end, *p = begin + 1;
    const uint8_t *name = p;
    if (p >= stop) return s->eof ? fail(s, s->start, "the file ends inside a tag (truncated?)%s", "") : PXS_NEED;
    if (!is_name_start(*p)) return fail(s, (size_t)(p - s->buffer), "'<' not followed by a name%s", "");
    while (p < stop && is_name_char(*p)) p++;
    size_t name_length = (size_t)(p - name);
    int count = 0;
    for (;;) {
        const uint8_t *space = p;
        while (p < stop && is_space(*p)) p++;
        if (p >= stop) break;
        if (*p == '>' || (*p == '/' && p + 1 < stop && p[1] == '>')) {
            int self_closing = *p == '/';
            p += self_closing ? 2 : 1;
            if (s->root_closed) return fail(s, s->start, "extra content after the root element%s", "");
            if (s->depth == 0 && s->seen_root) return fail(s, s->start, "a second root element%s", "");
            position(s, s->start, &s->event_line, &s->event_column);
            s->name = name;
            s->name_length = name_length;
            s->attribute_count = count;
            s->self_closing = self_closing;
            s->seen_root = 1;
            if (!self_closing && !push_name(s, name, name_length)) return fail(s, s->start, "out of memory%s", "");
            if (self_closing) s->pending_end = 1;
            advance(s, (size_t)(p - s->buffer));
            return PXS_START;
        }
        if (*p == '/') {
            if (p + 1 >= stop) break;
            return fail(s, (size_t)(p - s->buffer), "'/' not followed by '>' in a tag%s", "");
        }
        if (space == p) {
            char shown[2] = {(char)*p, 0};
            return fail(s, (size_t)(p - s->buffer), "expected whitespace, '>' or '/>' before '%s' in a tag", shown);
        }
        if (!is_name_start(*p)) {
            char shown[2] = {(char)*p, 0};
            return fail(s, (size_t)(p - s->buffer), "'%s' where an attribute name should start", shown);
        }
        const uint8_t *attribute = p;
        while (p < stop && is_name_char(*p)) p++;
        size_t attribute_length = (size_t)(p - attribute);
        while (p < stop && is_space(*p)) p++;
        if (p >= stop) break;
        if (*p != '=') return fail(s, (size_t)(p - s->buffer), "an attribute without '=' and a value%s", "");
        p++;
        while (p < stop && is_space(*p)) p++;
        if (p >= stop) break;
        if (*p != '"' && *p != '\'') return fail(s, (size_t)(p - s->buffer), "an attribute value without quotes%s", "");
        uint8_t quote = *p++;
        const uint8_t *close = memchr(p, quote, (size_t)(stop - p));
        if (!close) break;
        // '<' is refused and '&' starts a reference: one loop over short values (most of an
        // export's: dates, numbers, type names), memchr over long ones (the device text).
        int found = 0;
        if (close - p <= 48) {
            // Eight bytes at a time while none is '<' or '&' (the classic zero-byte test).
            const uint8_t *q = p;
            for (; q + 8 <= close; q += 8) {
                uint64_t word;
                memcpy(&word, q, 8);
                if (has_byte(word, 0x3C3C3C3C3C3C3C3CULL) | has_byte(word, 0x2626262626262626ULL)) break;
            }
            for (; q < close; q++) {
                if (*q == '<') return fail(s, (size_t)(q - s->buffer), "'<' inside an attribute value%s", "");
                if (*q == '&') found = 1;
            }
        } else {
            const uint8_t *lt = memchr(p, '<', (size_t)(close - p));
            if (lt) return fail(s, (size_t)(lt - s->buffer), "'<' inside an attribute value%s", "");
            found = memchr(p, '&', (size_t)(close - p)) != NULL;
        }
        if (found) {
            size_t bad = check_references(s, (size_t)(p - s->buffer), (size_t)(close - s->buffer), &found);
            if (bad != (size_t)(close - s->buffer)) return fail(s, bad, "a bad or undefined entity reference in an attribute value%s", "");
        }
        for (int i = 0; i < count; i++) {
            if (s->attributes[i].name_length == attribute_length && memcmp(s->attributes[i].name, attribute, attribute_length) == 0) {
                return fail(s, (size_t)(attribute - s->buffer), "an attribute given twice in one tag%s", "");
            }
        }
        if (count == PXS_MAX_ATTRIBUTES) return fail(s, (size_t)(attribute - s->buffer), "more than 64 attributes in one tag%s", "");
        s->attributes[count++] = (pxs_attribute){attribute, attribute_length, p, (size_t)(close - p), found};
        p = close + 1;
    }
    if (s->eof) return fail(s, s->start, "the file ends inside a tag (truncated?)%s", "");
    (void)tag_complete(s); // remembers how far it is whole, so the next read goes on from there
    return PXS_NEED;
}

static int scan_end_tag(pxs_scanner *s) {
    if (!s->eof && s->resume_kind == RESUME_TAG && s->resume_token == s->base_offset + s->start && !tag_complete(s)) return PXS_NEED;
    const uint8_t *begin = s->buffer + s->start, *stop = s->buffer + s->end, *p = begin + 2;
    const uint8_t *name = p;
    while (p < stop && is_name_char(*p)) p++;
    size_t name_length = (size_t)(p - name);
    while (p < stop && is_space(*p)) p++;
    if (p >= stop) {
        if (s->eof) return fail(s, s->start, "the file ends inside an end tag (truncated?)%s", "");
        (void)tag_complete(s);
        return PXS_NEED;
    }
    if (*p != '>' || name_length == 0) return fail(s, (size_t)(p - s->buffer), "a malformed end tag%s", "");
    if (s->depth == 0) return fail(s, s->start, "an end tag with no element open%s", "");
    size_t open_at = s->name_offsets[s->depth - 1], open_length = s->names_used - open_at;
    if (open_length != name_length || memcmp(s->names + open_at, name, name_length) != 0) {
        char expected[128];
        snprintf(expected, sizeof expected, "%.*s", (int)(open_length < 100 ? open_length : 100), s->names + open_at);
        return fail(s, s->start, "an end tag that does not match <%s>", expected);
    }
    position(s, s->start, &s->event_line, &s->event_column);
    s->name = name;
    s->name_length = name_length;
    s->attribute_count = 0;
    s->depth--;
    s->names_used = open_at;
    if (s->depth == 0) s->root_closed = 1;
    advance(s, (size_t)(p - s->buffer) + 1);
    return PXS_END;
}

/// `<?…?>`, `<!--…-->` or `<![CDATA[…]]>` at buffer[start]: skipped whole.
static int scan_skipped(pxs_scanner *s, size_t opening, const char *closing, const char *what) {
    const uint8_t *stop = s->buffer + s->end;
    size_t from = resume_point(s, RESUME_SKIPPED, s->start + opening);
    const uint8_t *close = find(s->buffer + from, stop, closing);
    if (!close) {
        if (s->eof) return fail(s, s->start, "the file ends inside %s (truncated?)", what);
        // Next time from just before the end: a closing cut by the read may begin there.
        size_t keep = strlen(closing) - 1, at = s->end >= keep ? s->end - keep : 0;
        keep_resume(s, RESUME_SKIPPED, at > from ? at : from);
        return PXS_NEED;
    }
    s->resume_kind = RESUME_NONE;
    advance(s, (size_t)(close - s->buffer) + strlen(closing));
    return 0;
}

/// What one piece of markup may hold: the scanner keeps a token whole in its buffer, so this bounds
/// its memory (R: E4). Apple's largest is the DTD, about 20 KB.
#define PXS_MAX_TOKEN ((size_t)64 << 20)

static int bounded(pxs_scanner *s, int status) {
    if (status == PXS_NEED && s->end - s->start > PXS_MAX_TOKEN) {
        return fail(s, s->start, "markup longer than %s (a tag, comment, DTD or processing instruction): not what Apple writes", "64 MB");
    }
    return status;
}

int pxs_next(pxs_scanner *s) {
    if (s->pending_end) {
        s->pending_end = 0;
        s->attribute_count = 0;
        if (s->depth == 0) s->root_closed = 1;
        return PXS_END;
    }
    for (;;) {
        const uint8_t *p = s->buffer + s->start, *stop = s->buffer + s->end;
        if (s->base_offset + s->start == 0 && !s->seen_root) {
            // A UTF-8 byte order mark may open the file.
            if (stop - p < 3 && !s->eof) return PXS_NEED;
            if (stop - p >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) {
                s->start += 3;
                continue;
            }
        }
        if (p >= stop) {
            if (!s->eof) return PXS_NEED;
            if (!s->seen_root) return fail(s, s->start, "no root element: the file is empty or not XML%s", "");
            if (s->depth > 0) {
                char open[128];
                size_t at = s->name_offsets[s->depth - 1], length = s->names_used - at;
                snprintf(open, sizeof open, "%.*s", (int)(length < 100 ? length : 100), s->names + at);
                return fail(s, s->start, "the file ends inside <%s> (truncated?)", open);
            }
            return PXS_DONE;
        }
        if (*p == '\n') {
            // The usual text between an export's elements: a newline and an indent.
            const uint8_t *q = p + 1;
            while (q < stop && (*q == ' ' || *q == '\t')) q++;
            if (q < stop && *q == '<') {
                s->line++;
                s->line_start_offset = s->base_offset + (size_t)(p - s->buffer) + 1;
                s->start = (size_t)(q - s->buffer);
                continue;
            }
        }
        if (*p != '<') {
            // Text: checked (references; nothing but whitespace outside the root) and skipped.
            const uint8_t *lt = memchr(p, '<', (size_t)(stop - p));
            const uint8_t *text_end = lt ? lt : stop;
            if (!lt && !s->eof) {
                // Keep a possibly cut reference for the next round.
                const uint8_t *amp = memrchr(p, '&', (size_t)(stop - p));
                if (amp && stop - amp < 40 && !memchr(amp, ';', (size_t)(stop - amp))) text_end = amp;
                if (text_end == p) return PXS_NEED;
            }
            if (s->depth == 0) {
                for (const uint8_t *q = p; q < text_end; q++) {
                    if (!is_space(*q)) {
                        return fail(s, (size_t)(q - s->buffer), s->seen_root ? "extra content after the root element%s"
                                                                            : "text before the root element (is this XML?)%s", "");
                    }
                }
            } else {
                int found = 0;
                size_t bad = check_references(s, s->start, (size_t)(text_end - s->buffer), &found);
                if (bad != (size_t)(text_end - s->buffer)) return fail(s, bad, "a bad or undefined entity reference in text%s", "");
            }
            advance(s, (size_t)(text_end - s->buffer));
            continue;
        }
        size_t available = (size_t)(stop - p);
        if (available < 9 && !s->eof) {
            // Enough to tell the kinds of markup apart.
            int decided = available >= 2 && p[1] != '!' ;
            if (!decided) return PXS_NEED;
        }
        int status;
        if (available >= 2 && p[1] == '/') {
            return bounded(s, scan_end_tag(s));
        } else if (available >= 2 && p[1] == '?') {
            status = scan_skipped(s, 2, "?>", "a processing instruction");
        } else if (available >= 4 && memcmp(p, "<!--", 4) == 0) {
            status = scan_skipped(s, 4, "-->", "a comment");
        } else if (available >= 9 && memcmp(p, "<![CDATA[", 9) == 0) {
            if (s->depth == 0) return fail(s, s->start, "CDATA outside the root element%s", "");
            status = scan_skipped(s, 9, "]]>", "a CDATA section");
        } else if (available >= 9 && memcmp(p, "<!DOCTYPE", 9) == 0) {
            if (s->seen_root) return fail(s, s->start, "a DOCTYPE after the root element%s", "");
            status = scan_doctype(s);
        } else if (available >= 2 && p[1] == '!') {
            return fail(s, s->start, "unknown markup after '<!'%s", "");
        } else {
            return bounded(s, scan_start_tag(s));
        }
        if (status != 0) return bounded(s, status);
    }
}
