// SQLite's C API from Debian's libsqlite3-dev: the node database (PairSimRuntime/Storage/SQLite.swift).
#include <sqlite3.h>
