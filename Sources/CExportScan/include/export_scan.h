#ifndef PAIRSIM_EXPORT_SCAN_H
#define PAIRSIM_EXPORT_SCAN_H

#include <stddef.h>
#include <stdint.h>

/// A streaming, checking scanner for the XML of Apple Health's export.xml (R: E1, E3).
///
/// It checks well-formedness — tags, attribute syntax, quotes, entity references, nesting, one
/// root, nothing after it, the DOCTYPE's brackets and quotes, comments, CDATA, processing
/// instructions — and hands out start and end tags with their attributes, pointing into its
/// buffer. Text, comments and the DTD are checked and skipped. It does not validate against the
/// DTD, expand entities, or check names' Unicode classes, and takes the input as UTF-8.
///
/// Why not libxml2: its SAX parser read a generated year-long export (108 MB, 235 k records) at
/// 157–228 MB/s here, 61 % of that time inside libxml2, which caps an import well under the
/// 500 k records/s it must reach end to end; this scanner reads the same file several times
/// faster (numbers in scripts/bench.sh replay and the closing note of issue 14).

typedef struct {
    const uint8_t *name;
    size_t name_length;
    const uint8_t *value;
    size_t value_length;
    /// Non-zero when the value holds an entity or character reference (to be decoded).
    int has_reference;
} pxs_attribute;

enum {
    PXS_START = 1,    ///< a start tag (`self_closing` says whether an end event follows at once)
    PXS_END = 2,      ///< an end tag (or the end of a self-closing tag)
    PXS_NEED = 3,     ///< more input is needed: `pxs_space`, then `pxs_commit` or `pxs_finish`
    PXS_DONE = 4,     ///< the document ended well
    PXS_ERROR = -1,   ///< `message`, `error_line` and `error_column` say what and where
};

enum { PXS_MAX_ATTRIBUTES = 64 };

typedef struct {
    // Input: buffer[start, end) is unread.
    uint8_t *buffer;
    size_t capacity, start, end;
    int eof;
    // Position: line (1-based) of buffer[start]; absolute offsets of buffer[0] and of that line's start.
    uint64_t line, base_offset, line_start_offset;
    // Document state.
    int seen_root, root_closed, pending_end;
    size_t depth;
    char *names;            // the open elements' names, one after another
    size_t *name_offsets;   // where each starts in `names`
    size_t names_used, names_capacity, offsets_capacity;
    // The event just returned.
    const uint8_t *name;
    size_t name_length;
    int self_closing;
    pxs_attribute attributes[PXS_MAX_ATTRIBUTES];
    int attribute_count;
    uint64_t event_line, event_column;
    // Where a token that needed more input was left (R: E4): its kind, its start and how far it was
    // read (absolute offsets), with the scan's state there, so that each byte of a token is read
    // once however many reads it spans — rescanning from its start made a 32 MB tag quadratic.
    int resume_kind, resume_quote, resume_comment, resume_brackets;
    uint64_t resume_token, resume_at;
    // The error, when PXS_ERROR was returned.
    char message[256];
    uint64_t error_line, error_column;
} pxs_scanner;

void pxs_init(pxs_scanner *scanner);
void pxs_free(pxs_scanner *scanner);
/// Room for at least `wanted` more bytes of input; write them, then `pxs_commit`.
uint8_t *pxs_space(pxs_scanner *scanner, size_t wanted);
void pxs_commit(pxs_scanner *scanner, size_t count);
/// No more input.
void pxs_finish(pxs_scanner *scanner);
/// The next event.
int pxs_next(pxs_scanner *scanner);

#endif
