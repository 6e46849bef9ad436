#ifndef PAIRSIM_CLIBXML2_SHIM_H
#define PAIRSIM_CLIBXML2_SHIM_H
#include <libxml/xmlversion.h>
// Debian builds libxml2 with ICU, whose headers clash with the ICU Foundation carries; nothing
// here uses libxml2's ICU converters (only pointers to them sit in the parser's structs).
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#endif
