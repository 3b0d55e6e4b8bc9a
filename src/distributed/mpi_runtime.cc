#include "distributed/mpi_runtime.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "core/error.h"

#if REALMT_WITH_MPI
#include <mpi.h>
#endif

namespace realmt::distributed::mpi {

namespace {
std::atomic<bool> g_failed{false};
bool g_initialized = false;

#if REALMT_WITH_MPI
void at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (g_failed.load()) {
    // MPI_Finalize is collective in practice (OpenMPI fences with every rank): with a peer
    // dead or hung it would wait for ever. Abort ends the whole job instead.
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return;
  }
  MPI_Finalize();
}
#endif
}  // namespace

bool available() {
#if REALMT_WITH_MPI
  return true;
#else
  return false;
#endif
}

void init() {
#if REALMT_WITH_MPI
  if (g_initialized) return;
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    int provided = 0;
    const int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    REALMT_CHECK(rc == MPI_SUCCESS,
                 "MPI_Init_thread failed (code {}); check the mpirun command line", rc);
    REALMT_CHECK(provided >= MPI_THREAD_FUNNELED,
                 "MPI provides thread level {}, realmt needs MPI_THREAD_FUNNELED", provided);
    std::atexit(at_exit);
  }
  g_initialized = true;
#else
  REALMT_FAIL(
      "this process was started by an MPI launcher, but realmt was built without MPI; install "
      "libopenmpi-dev "
      "(tools/install-deps) and rebuild, or run without mpirun");
#endif
}

bool initialized() { return g_initialized; }
void mark_failed() { g_failed.store(true); }
bool failed() { return g_failed.load(); }

}  // namespace realmt::distributed::mpi
