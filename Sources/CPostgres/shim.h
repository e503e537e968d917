#ifndef REPLAN_CPOSTGRES_SHIM_H
#define REPLAN_CPOSTGRES_SHIM_H
// libpq from Debian's libpq-dev, which installs its headers under /usr/include/postgresql
// (pkg-config libpq adds that directory).
#include <libpq-fe.h>
#endif
