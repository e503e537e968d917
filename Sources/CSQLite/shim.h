#ifndef REPLAN_CSQLITE_SHIM_H
#define REPLAN_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type replan_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// Turns off SQLite's memory statistics before the library initialises. With them on (the
/// default), every sqlite3_malloc and sqlite3_free takes one process-wide mutex, so connections
/// on different threads (the nightly job's readers and its writer) queue behind each other on
/// every allocation. replan never reads those statistics. sqlite3_config is variadic, which
/// Swift cannot call. Returns SQLITE_MISUSE when the library was already initialised.
static inline int replan_sqlite_disable_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
#endif
