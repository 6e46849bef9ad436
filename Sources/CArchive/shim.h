#ifndef PAIRSIM_CARCHIVE_SHIM_H
#define PAIRSIM_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#endif
